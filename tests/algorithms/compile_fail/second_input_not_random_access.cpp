// EXPECT: tine::equal/mismatch(..., first2 [, pred]): the second input must be a random-access
#include <list>
#include <vector>

#include <tine/algorithms/compare.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

// The second input is indexed like the first: a list iterator cannot be.
bool misuse(any_scheduler& sched, std::vector<int>& a, std::list<int>& b) {
  return tine::equal(sched, a, b.begin());
}
