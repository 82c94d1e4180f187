// EXPECT: tine::count(..., value): an element of the input cannot be compared with value
// AT_MOST_LINES: 40
#include <string>
#include <vector>

#include <tine/algorithms/count.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<std::string>& words) {
  (void)tine::count(sched, words, 42);
}
