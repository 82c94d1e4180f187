// EXPECT: tine::task<T&>: a task cannot return a reference
// AT_MOST_LINES: 16
// A task returning a reference is refused where it is defined, in one sentence; the calls that
// start it add nothing to it.
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

int counter = 0;

tine::task<int&> the_counter() { co_return counter; }

tine::task<void> uses() {
  co_await tine::fork(the_counter);
  co_await tine::call(the_counter);
  co_await tine::join();
}

void from_outside(any_scheduler& sched) { tine::sync_wait(sched, the_counter); }
