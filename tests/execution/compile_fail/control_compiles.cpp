// EXPECT: COMPILES
// The control: the same includes and flags, with a pool that is a P2300 scheduler.
#include <tine/distributed/distributed.hpp>
#include <tine/execution/execution.hpp>
#include <tine/schedulers/lazy_pool.hpp>

tine::task<int> one() { co_return 1; }

void run(tine::lazy_pool<>& pool) {
  auto sch = tine::execution::scheduler(pool);
  auto s = tine::execution::as_sender(pool, one);
  auto t = tine::execution::as_sender(sch, one);
  (void)s;
  (void)t;
}
