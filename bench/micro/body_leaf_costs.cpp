// The instructions per element of the parallel algorithms' leaves whose callables are tasks
// (and, for comparison, of a plain for_each), for valgrind --tool=callgrind: each mode runs one
// algorithm over N elements on the inline scheduler with the automatic grain and bodies that do
// almost nothing and draw no random numbers; the difference of two runs (N and 2N) divided by N
// is the cost of one element (bench/journal/2026-11-29-dprng-algorithm-bodies.md has the commands
// and the figures). It includes only public headers, so that it builds against an older tree too.
//   body_leaf_costs for_each|plain_for_each|map|count_if|find_if|equal|reduce|
//                   transform_reduce|transform_reduce_both|inclusive_scan N
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: body_leaf_costs MODE N (see the file comment)\n");
    return 2;
  }
  const std::string mode = argv[1];
  const auto n = static_cast<std::size_t>(std::atol(argv[2]));
  std::vector<long> v(n, 1);
  std::vector<long> out(n, 0);
  tine::inline_scheduler sched;
  const auto same = [](long x) -> tine::task<long> { co_return x; };
  const auto negative = [](long x) -> tine::task<bool> { co_return x < 0; };
  const auto differ = [](long a, long b) -> tine::task<bool> { co_return a != b; };
  const auto plus = [](long a, long b) -> tine::task<long> { co_return a + b; };
  long result = 0;
  if (mode == "for_each") {
    tine::for_each(sched, v, [](long& x) -> tine::task<void> {
      x += 1;
      co_return;
    });
    result = v[n / 2];
  } else if (mode == "plain_for_each") {
    tine::for_each(sched, v, [](long& x) { x += 1; });
    result = v[n / 2];
  } else if (mode == "map") {
    tine::map(sched, v, out.begin(), same);
    result = out[n / 2];
  } else if (mode == "count_if") {
    result = tine::count_if(sched, v, negative);
  } else if (mode == "find_if") {
    result = tine::find_if(sched, v, negative) - v.begin();
  } else if (mode == "equal") {
    result = tine::equal(sched, v, out.begin(), differ) ? 1 : 0;
  } else if (mode == "reduce") {
    result = tine::reduce(sched, v, 0L, plus);
  } else if (mode == "transform_reduce") {
    result = tine::transform_reduce(sched, v, 0L, std::plus<>{}, same);
  } else if (mode == "transform_reduce_both") {
    result = tine::transform_reduce(sched, v, 0L, plus, same);
  } else if (mode == "inclusive_scan") {
    tine::inclusive_scan(sched, v, out.begin(), plus);
    result = out[n - 1];
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::printf("%ld\n", result);
  return 0;
}
