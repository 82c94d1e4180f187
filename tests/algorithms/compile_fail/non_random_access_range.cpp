// EXPECT: tine algorithms split their input in halves and need a random-access range
#include <functional>
#include <list>

#include <tine/algorithms/reduce.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

long misuse(any_scheduler& sched, std::list<long>& l) { return tine::reduce(sched, l, 0L, std::plus<>{}); }
