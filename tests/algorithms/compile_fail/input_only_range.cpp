// EXPECT: tine algorithms visit their input in parallel
// EXPECT: so they need a range that can be traversed more than once (a forward range)
#include <functional>
#include <ranges>
#include <sstream>

#include <tine/algorithms/reduce.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

// An istream view can be read once only: it cannot be split.
long misuse(any_scheduler& sched, std::istringstream& text) {
  auto numbers = std::views::istream<long>(text);
  return tine::reduce(sched, numbers, 0L, std::plus<>{});
}
