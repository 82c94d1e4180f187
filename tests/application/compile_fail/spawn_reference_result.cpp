// EXPECT: tine::task<T&>: a task cannot return a reference
// AT_MOST_LINES: 20
// A task returning a reference handed to spawn: class task's one sentence, as for sync_wait.
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

tine::task<long&> refer(long& n);

void misuse(any_scheduler& sched, long& n) {
  auto f = tine::spawn(sched, refer, n);
  f.detach();
}
