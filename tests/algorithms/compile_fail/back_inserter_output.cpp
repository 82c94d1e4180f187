// EXPECT: tine::map(..., out, f): the output must be a random-access iterator
#include <iterator>
#include <vector>

#include <tine/algorithms/map.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<long>& v, std::vector<long>& out) {
  tine::map(sched, v, std::back_inserter(out), [](long x) { return x; });
}
