// EXPECT: comp and the projections must answer at once, not return a tine::task
// AT_MOST_LINES: 40
#include <vector>

#include <tine/algorithms/merge.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<int>& a, std::vector<int>& b, std::vector<int>& out) {
  (void)tine::merge(sched, a, b, out.begin(),
                    [](int x, int y) -> tine::task<bool> { co_return x < y; });
}
