// EXPECT: tine::equal/mismatch(..., first2, pred): pred must be copyable and callable
#include <string>
#include <vector>

#include <tine/algorithms/compare.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

bool misuse(any_scheduler& sched, std::vector<int>& a, std::vector<int>& b) {
  return tine::equal(sched, a, b.begin(),
                     [](const std::string& x, int y) { return x.size() == y; });
}
