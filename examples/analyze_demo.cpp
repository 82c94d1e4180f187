// Will it scale? tine::analyze measures a task's work, span and burdened span in serial order on
// this thread and predicts its speed-up on 1 to 256 workers (docs/observability.md, "Will it
// scale?"). Here: fib, and a sum whose leaves have a serial step, with regions.
//   analyze_demo OUT.json [OUT.html] [FIB_N=27]
// The JSON opens in tools/trace_view.py (alone, or beside a trace with --analysis); the HTML
// page draws the curves itself.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <tine/tine.hpp>

namespace {

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

// A parallel sum of square roots, then a serial prefix pass over the same values: the second
// region is what keeps this program from scaling, and the report says so.
tine::task<double> sum_then_scan(std::vector<double>& v) {
  double sum = 0;
  {
    tine::region r("parallel sum");
    co_await tine::call(&sum, tine::async::transform_reduce, v, 0.0, std::plus<>{},
                        [](double x) { return std::sqrt(x); });
  }
  tine::region r("serial prefix sums");
  std::partial_sum(v.begin(), v.end(), v.begin());
  co_return sum + v.back();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: analyze_demo OUT.json [OUT.html] [FIB_N=27]\n");
    return 2;
  }
  const int n = argc > 3 ? std::atoi(argv[3]) : 27;
  try {
    tine::analysis_options options;
    options.name = "fib(" + std::to_string(n) + ")";
    options.repeats = 3;
    const tine::analysis a = tine::analyze(options, fib, n);
    a.print(std::cout);

    std::vector<double> v(2'000'000);
    std::iota(v.begin(), v.end(), 0.0);
    options.name = "sum, then prefix sums";
    options.repeats = 1;  // the task changes its input: one run
    const tine::analysis b = tine::analyze(options, sum_then_scan, v);
    b.print(std::cout);
    b.write_json(argv[1]);
    if (argc > 2) {
      b.write_html(argv[2]);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "analyze_demo: %s\n", e.what());
    return 1;
  }
  return 0;
}
