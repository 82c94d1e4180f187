// EXPECT: comp and proj must answer at once, not return a tine::task
// AT_MOST_LINES: 40
#include <vector>

#include <tine/algorithms/sort.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<int>& v) {
  tine::sort(sched, v, [](int a, int b) -> tine::task<bool> { co_return a < b; });
}
