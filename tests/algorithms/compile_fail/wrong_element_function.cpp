// EXPECT: tine::for_each(..., f): f must be copyable and callable as f(*it)
#include <string>
#include <vector>

#include <tine/algorithms/for_each.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

void misuse(any_scheduler& sched, std::vector<int>& v) {
  tine::for_each(sched, v, [](std::string& s) { s += "!"; });
}
