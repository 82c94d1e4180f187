// EXPECT: tine::merge(sched, r1, r2, out): the second range must be a random-access range
#include <list>
#include <vector>

#include <tine/algorithms/merge.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<int>& a, std::list<int>& b, std::vector<int>& out) {
  tine::merge(sched, a, b, out.begin());
}
