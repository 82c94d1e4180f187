// EXPECT: so out must be a random-access iterator
#include <iterator>
#include <vector>

#include <tine/algorithms/merge.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<int>& a, std::vector<int>& b, std::vector<int>& out) {
  tine::merge(sched, a, b, std::back_inserter(out));
}
