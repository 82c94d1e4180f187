// EXPECT: a callable that returns tine::task<X> must have an X that is default-constructible
// AT_MOST_LINES: 40
#include <vector>

#include <tine/algorithms/map.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

struct no_default {
  explicit no_default(long v) : value(v) {}
  long value;
};

void misuse(any_scheduler& sched, std::vector<long>& in, std::vector<no_default>& out) {
  (void)tine::map(sched, in, out.begin(),
                  [](long x) -> tine::task<no_default> { co_return no_default(x); });
}
