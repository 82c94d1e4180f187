// EXPECT: tine::invoke(f...): each callable must be callable with no arguments
// AT_MOST_LINES: 40
#include <tine/algorithms/invoke.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched) {
  tine::invoke(
      sched, [] {}, [](int x) { return x; });
}
