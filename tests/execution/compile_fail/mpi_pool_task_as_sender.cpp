// EXPECT: a task on tine::mpi_pool cannot be a sender: its roots are collective
// AT_MOST_LINES: 20
// A root on an mpi_pool is started by every rank together; as_sender refuses the pool.
#include <tine/distributed/distributed.hpp>
#include <tine/execution/execution.hpp>

tine::task<int> one() { co_return 1; }

void run(tine::mpi_pool<>& pool) {
  auto s = tine::execution::as_sender(pool, one);
  (void)s;
}
