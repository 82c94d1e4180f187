// EXPECT: comp must be callable as comp(proj(*a), proj(*b))
// AT_MOST_LINES: 40
#include <string>
#include <vector>

#include <tine/algorithms/extrema.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<std::string>& words) {
  // The comparator takes numbers, the elements are strings.
  (void)tine::min_element(sched, words, [](int a, int b) { return a < b; });
}
