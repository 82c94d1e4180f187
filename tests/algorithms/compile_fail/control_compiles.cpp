// EXPECT: COMPILES
// The correct uses next to the misuses below, so a failure there is the misuse, not the setup.
#include <functional>
#include <list>
#include <set>
#include <vector>

#include <tine/algorithms/algorithms.hpp>

// Stands in for a real scheduler: these snippets are only compiled.
struct any_scheduler {
  void schedule(tine::submit_node*) {}
};

tine::task<long> in_task(std::vector<long>* v) {
  long s = 0;
  co_await tine::call(&s, tine::async::reduce, *v, 0L, std::plus<>{});
  co_await tine::join();
  co_return s;
}

void uses(any_scheduler& sched, std::vector<long>& v, std::list<long>& l, std::set<long>& s) {
  (void)tine::reduce(sched, v, 0L, std::plus<>{});
  (void)tine::reduce(sched, l, 0L, std::plus<>{});  // forward ranges are accepted
  tine::for_each(sched, l.begin(), l.end(), [](long& x) { ++x; });
  tine::for_each(sched, v, [](long& x) { ++x; });
  (void)tine::map(sched, v, v.begin(), [](long x) { return x; });
  (void)tine::inclusive_scan(sched, v, v.begin());
  (void)tine::find_if(sched, v, [](long x) { return x > 0; });
  (void)tine::equal(sched, s, v.begin());
  (void)tine::mismatch(sched, v, v.begin(), [](long x, long y) { return x == y; });
  (void)tine::sync_wait(sched, in_task, &v);
  // Bodies that are tasks are run as child tasks.
  tine::for_each(sched, v, [](long& x) -> tine::task<void> {
    ++x;
    co_return;
  });
  (void)tine::count_if(sched, v, [](long x) -> tine::task<bool> { co_return x > 0; });
}
