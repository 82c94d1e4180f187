// EXPECT: comp and proj must answer at once, not return a tine::task
// AT_MOST_LINES: 40
#include <string>
#include <vector>

#include <tine/algorithms/extrema.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<std::string>& v) {
  (void)tine::max_element(
      sched, v, std::ranges::less{},
      [](const std::string& s) -> tine::task<std::size_t> { co_return s.size(); });
}
