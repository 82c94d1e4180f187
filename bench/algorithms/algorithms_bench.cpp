// tine::reduce and tine::for_each against TBB's parallel_reduce / parallel_for and
// std::reduce / std::for_each with std::execution::par (libstdc++'s, which runs on TBB), at 1 and
// 2 workers, in one process. Every run checks its result.
//   bazel-bin/bench/algorithms_bench --benchmark_repetitions=5
//       --benchmark_display_aggregates_only=true
//   bazel-bin/bench/algorithms_bench --smoke   (CI: small sizes, results cross-checked, no timing)
//   bazel-bin/bench/algorithms_bench --plain --what=reduce|for_each --pool=busy|lazy --workers=P
//                                          (one timed run of tine's: seconds=...)
//   bazel-bin/bench/algorithms_bench --analyze [--repeats=R]
//                                          (tine::analyze of both at 2 workers' grain)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <execution>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <tine/algorithms/algorithms.hpp>
#include <tine/analysis/analyze.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "bench/algorithms/scaling_modes.hpp"

namespace {

std::size_t reduce_n = 100'000'000;  // 10^8 doubles (800 MB)
std::size_t for_each_n = 1'000'000;  // compute-bound body: ~100 dependent flops per element

// Integer-valued doubles: every partial sum is exact, so every library must return the same value.
const std::vector<double>& reduce_input() {
  static std::vector<double> v = [] {
    std::vector<double> x(reduce_n);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<double>(i % 1024);
    }
    return x;
  }();
  return v;
}

double expected_sum() {
  const double full = static_cast<double>(reduce_n / 1024) * (1023.0 * 1024.0 / 2.0);
  double rest = 0;
  for (std::size_t i = 0; i < reduce_n % 1024; ++i) {
    rest += static_cast<double>(i);
  }
  return full + rest;
}

// The compute-bound body: a chain of dependent operations on the element.
inline void heavy(double& x) {
  double y = x;
  for (int k = 0; k < 50; ++k) {
    y = std::sqrt(y * y + 1.0) - 0.5;
  }
  x = y;
}

double checksum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

double reference_for_each_checksum() {
  std::vector<double> v(for_each_n);
  std::iota(v.begin(), v.end(), 0.0);
  std::for_each(v.begin(), v.end(), heavy);
  return checksum(v);
}

enum class lib { tine, tbb, std_par };

double run_reduce(lib l, std::size_t workers, tine::busy_pool<>* pool) {
  const std::vector<double>& v = reduce_input();
  switch (l) {
    case lib::tine:
      return tine::reduce(*pool, v, 0.0, std::plus<>{});
    case lib::tbb: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      return tbb::parallel_reduce(
          tbb::blocked_range<std::size_t>(0, v.size()), 0.0,
          [&](const tbb::blocked_range<std::size_t>& r, double acc) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
              acc += v[i];
            }
            return acc;
          },
          std::plus<>{});
    }
    case lib::std_par: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      return std::reduce(std::execution::par, v.begin(), v.end(), 0.0, std::plus<>{});
    }
  }
  return 0;
}

void run_for_each(lib l, std::size_t workers, tine::busy_pool<>* pool, std::vector<double>& v) {
  switch (l) {
    case lib::tine:
      tine::for_each(*pool, v, heavy);
      return;
    case lib::tbb: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, v.size()),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin(); i != r.end(); ++i) {
                            heavy(v[i]);
                          }
                        });
      return;
    }
    case lib::std_par: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      std::for_each(std::execution::par, v.begin(), v.end(), heavy);
      return;
    }
  }
}

const char* name_of(lib l) {
  return l == lib::tine ? "tine_busy" : l == lib::tbb ? "tbb" : "std_par";
}

void bm_reduce(benchmark::State& state, lib l, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  const double want = expected_sum();
  (void)reduce_input();
  for (auto _ : state) {
    const double got = run_reduce(l, workers, &pool);
    if (got != want) {
      state.SkipWithError("wrong sum");
      break;
    }
  }
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(reduce_n) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_for_each(benchmark::State& state, lib l, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  static const double want = reference_for_each_checksum();
  std::vector<double> v(for_each_n);
  for (auto _ : state) {
    state.PauseTiming();
    std::iota(v.begin(), v.end(), 0.0);
    state.ResumeTiming();
    run_for_each(l, workers, &pool, v);
  }
  if (checksum(v) != want) {
    state.SkipWithError("wrong result");
  }
}

int smoke() {
  reduce_n = 100'003;
  for_each_n = 2'003;
  const double want_sum = expected_sum();
  const double want_each = reference_for_each_checksum();
  int failures = 0;
  for (std::size_t workers : {1U, 2U}) {
    tine::busy_pool<> pool(workers);
    for (lib l : {lib::tine, lib::tbb, lib::std_par}) {
      const double s = run_reduce(l, workers, &pool);
      std::vector<double> v(for_each_n);
      std::iota(v.begin(), v.end(), 0.0);
      run_for_each(l, workers, &pool, v);
      const bool ok = s == want_sum && checksum(v) == want_each;
      failures += ok ? 0 : 1;
      std::printf("%-9s P=%zu reduce=%.0f for_each=%.6g %s\n", name_of(l), workers, s, checksum(v),
                  ok ? "ok" : "WRONG");
    }
  }
  return failures == 0 ? 0 : 1;
}

// One run of tine's reduce or for_each on scheduler `s`: false if the result is wrong.
template <typename S>
bool run_tine(S& s, const std::string& what) {
  if (what == "reduce") {
    static const double want = expected_sum();
    return tine::reduce(s, reduce_input(), 0.0, std::plus<>{}) == want;
  }
  static const double want = reference_for_each_checksum();
  std::vector<double> v(for_each_n);
  std::iota(v.begin(), v.end(), 0.0);
  tine::for_each(s, v, heavy);
  return checksum(v) == want;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--smoke") == 0) {
    return smoke();
  }
  if (bench::scaling::has(argc, argv, "--plain") || bench::scaling::has(argc, argv, "--analyze")) {
    return bench::scaling::main(argc, argv, {"reduce", "for_each"},
                                [](auto& s, const std::string& what) { return run_tine(s, what); });
  }
  for (std::size_t workers : {1U, 2U}) {
    for (lib l : {lib::tine, lib::tbb, lib::std_par}) {
      const std::string suffix =
          std::string("/") + name_of(l) + "/workers:" + std::to_string(workers);
      benchmark::RegisterBenchmark(("reduce/1e8" + suffix).c_str(), bm_reduce, l, workers)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("for_each/1e6_heavy" + suffix).c_str(), bm_for_each, l, workers)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
