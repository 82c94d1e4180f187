// EXPECT: tine::spawn: the root task's return type must be default-constructible
// AT_MOST_LINES: 24
// The future holds the root's value, which the task assigns: a type without a default
// constructor cannot be held.
#include <tine/core/core.hpp>

struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

struct no_default {
  explicit no_default(long v) : value(v) {}
  long value;
};

tine::task<no_default> make(long n) { co_return no_default(n); }

void misuse(any_scheduler& sched) {
  auto f = tine::spawn(sched, make, 3L);
  f.detach();
}
