// EXPECT: tine algorithms split their input in halves and need random-access iterators
#include <list>

#include <tine/algorithms/for_each.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::list<long>& l) {
  tine::for_each(sched, l.begin(), l.end(), [](long& x) { ++x; });
}
