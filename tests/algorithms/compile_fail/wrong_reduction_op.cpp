// EXPECT: tine::reduce(..., init, op): op must combine the accumulator
#include <vector>

#include <tine/algorithms/reduce.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

long misuse(any_scheduler& sched, std::vector<long>& v) {
  return tine::reduce(sched, v, 0L, [](long x) { return x; });
}
