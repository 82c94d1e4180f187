// EXPECT: tine::copy(..., out): the output must be a random-access iterator
// AT_MOST_LINES: 40
#include <iterator>
#include <vector>

#include <tine/algorithms/copy.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<long>& v, std::vector<long>& out) {
  tine::copy(sched, v, std::back_inserter(out));
}
