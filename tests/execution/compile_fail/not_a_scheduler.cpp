// EXPECT: S must be a tine scheduler (the tine::scheduler concept
// AT_MOST_LINES: 20
// Something without schedule(tine::submit_node*) is not a tine scheduler.
#include <tine/execution/execution.hpp>

struct thread_pool_of_my_own {
  void post(void (*f)());
};

void run(thread_pool_of_my_own& mine) {
  auto sch = tine::execution::scheduler(mine);
  (void)sch;
}
