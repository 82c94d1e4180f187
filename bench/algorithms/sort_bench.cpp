// tine::sort against tbb::parallel_sort, std::sort(std::execution::par, ...) (libstdc++'s, which
// runs on TBB) and serial std::sort, on 10^7 doubles (random, sorted, reversed, many duplicates)
// at 1 and 2 workers, in one process. Every run checks that its output is sorted and is the
// serial sort's output.
//   bazel-bin/bench/sort_bench --benchmark_repetitions=5 --benchmark_display_aggregates_only=true
//   bazel-bin/bench/sort_bench --smoke     (CI: a small input, every library checked, no timing)
//   bazel-bin/bench/sort_bench --plain --what=random --pool=busy|lazy --workers=P   (tine, timed)
//   bazel-bin/bench/sort_bench --analyze [--repeats=R]   (tine::analyze of the sort, 2 workers'
//                                                        grain)
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <execution>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>
#include <tbb/parallel_sort.h>

#include <tine/algorithms/sort.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include "bench/algorithms/scaling_modes.hpp"

namespace {

std::size_t sort_n = 10'000'000;  // 10^7 doubles (80 MB)

enum class input { random, sorted, reversed, duplicates };
constexpr input inputs[] = {input::random, input::sorted, input::reversed, input::duplicates};

const char* name_of(input in) {
  switch (in) {
    case input::random:
      return "random";
    case input::sorted:
      return "sorted";
    case input::reversed:
      return "reversed";
    case input::duplicates:
      return "duplicates";
  }
  return "";
}

std::vector<double> make_input(input in) {
  std::vector<double> v(sort_n);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (in) {
      case input::random:
        v[i] = uniform(rng);
        break;
      case input::sorted:
        v[i] = static_cast<double>(i);
        break;
      case input::reversed:
        v[i] = static_cast<double>(sort_n - i);
        break;
      case input::duplicates:  // 100 distinct values
        v[i] = static_cast<double>(rng() % 100);
        break;
    }
  }
  return v;
}

enum class lib { tine, tbb, std_par, std_serial };
constexpr lib libs[] = {lib::tine, lib::tbb, lib::std_par, lib::std_serial};

const char* name_of(lib l) {
  switch (l) {
    case lib::tine:
      return "tine_busy";
    case lib::tbb:
      return "tbb";
    case lib::std_par:
      return "std_par";
    case lib::std_serial:
      return "std_serial";
  }
  return "";
}

void run_sort(lib l, std::size_t workers, tine::busy_pool<>* pool, std::vector<double>& v) {
  switch (l) {
    case lib::tine:
      tine::sort(*pool, v);
      return;
    case lib::tbb: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::parallel_sort(v.begin(), v.end());
      return;
    }
    case lib::std_par: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      std::sort(std::execution::par, v.begin(), v.end());
      return;
    }
    case lib::std_serial:
      std::sort(v.begin(), v.end());
      return;
  }
}

void bm_sort(benchmark::State& state, lib l, input in, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  const std::vector<double> source = make_input(in);
  std::vector<double> expected = source;
  std::sort(expected.begin(), expected.end());
  std::vector<double> v(source.size());
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(source.begin(), source.end(), v.begin());
    state.ResumeTiming();
    run_sort(l, workers, &pool, v);
  }
  if (v != expected) {
    state.SkipWithError("wrong result");
  }
}

int smoke() {
  sort_n = 100'003;
  int failures = 0;
  for (input in : inputs) {
    const std::vector<double> source = make_input(in);
    std::vector<double> expected = source;
    std::sort(expected.begin(), expected.end());
    for (std::size_t workers : {1U, 2U}) {
      tine::busy_pool<> pool(workers);
      for (lib l : libs) {
        std::vector<double> v = source;
        run_sort(l, workers, &pool, v);
        const bool ok = v == expected;
        failures += ok ? 0 : 1;
        std::printf("%-10s %-10s P=%zu %s\n", name_of(l), name_of(in), workers,
                    ok ? "ok" : "WRONG");
      }
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

// One run of tine::sort on scheduler `s` over a copy of the random input: false if wrong.
template <typename S>
bool run_tine(S& s, const std::string&) {
  static const std::vector<double> source = make_input(input::random);
  static const std::vector<double> expected = [] {
    std::vector<double> e = source;
    std::sort(e.begin(), e.end());
    return e;
  }();
  std::vector<double> v = source;
  tine::sort(s, v);
  return v == expected;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--smoke") == 0) {
    return smoke();
  }
  if (bench::scaling::has(argc, argv, "--plain") || bench::scaling::has(argc, argv, "--analyze")) {
    return bench::scaling::main(argc, argv, {"random"},
                                [](auto& s, const std::string& w) { return run_tine(s, w); });
  }
  for (input in : inputs) {
    for (std::size_t workers : {1U, 2U}) {
      for (lib l : libs) {
        if (l == lib::std_serial && workers != 1) {
          continue;
        }
        const std::string name = std::string("sort/1e7_") + name_of(in) + "/" + name_of(l) +
                                 "/workers:" + std::to_string(workers);
        benchmark::RegisterBenchmark(name.c_str(), bm_sort, l, in, workers)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
