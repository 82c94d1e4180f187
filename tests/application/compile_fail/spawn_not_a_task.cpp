// EXPECT: tine::spawn(sched, fn, args...): fn(args...) must return tine::task<T>
// AT_MOST_LINES: 20
// A plain function handed to spawn: one static_assert, not a list of rejected candidates.
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

long plain(long n) { return n; }

void misuse(any_scheduler& sched) {
  auto f = tine::spawn(sched, plain, 3L);
  f.detach();
}
