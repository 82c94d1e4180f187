// EXPECT: tine::sort / tine::stable_sort(sched, range, comp, proj): the range must be writable
#include <vector>

#include <tine/algorithms/sort.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, const std::vector<int>& v) { tine::sort(sched, v); }
