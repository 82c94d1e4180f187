// EXPECT: tine::spawn(sched, fn, args...): fn cannot be called with these arguments
// AT_MOST_LINES: 20
// spawn given an argument fn does not take: one static_assert, not a list of rejected candidates.
#include <string>
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

tine::task<long> twice(long n) { co_return 2 * n; }

void misuse(any_scheduler& sched) {
  auto f = tine::spawn(sched, twice, std::string("3"));
  f.detach();
}
