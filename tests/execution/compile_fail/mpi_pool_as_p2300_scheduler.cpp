// EXPECT: tine::mpi_pool cannot be a P2300 scheduler: its roots are collective
// AT_MOST_LINES: 20
// An mpi_pool's roots are started by every rank together (tine::sync_wait); a sender is started
// by one thread of one process, so the pool is refused as a P2300 scheduler.
#include <tine/distributed/distributed.hpp>
#include <tine/execution/execution.hpp>

void run(tine::mpi_pool<>& pool) {
  auto sch = tine::execution::scheduler(pool);
  (void)sch;
}
