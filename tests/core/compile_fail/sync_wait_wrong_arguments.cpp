// EXPECT: tine::sync_wait(sched, fn, args...): fn cannot be called with these arguments
// AT_MOST_LINES: 18
// Arguments the task cannot be called with: one static_assert, not a list of rejected candidates.
#include <string>
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

tine::task<long> fib(int n) { co_return n; }

long misuse(any_scheduler& sched) { return tine::sync_wait(sched, fib, std::string("30")); }
