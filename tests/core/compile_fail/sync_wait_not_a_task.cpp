// EXPECT: tine::sync_wait(sched, fn, args...): fn(args...) must return tine::task<T>
// AT_MOST_LINES: 18
// A plain function handed to sync_wait: one static_assert, not a list of rejected candidates.
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

long plain(int n) { return n; }

long misuse(any_scheduler& sched) { return tine::sync_wait(sched, plain, 3); }
