// The algorithms' leaf loops against the same loops in plain functions, per element, on one
// worker (inline_scheduler) over 2^16 doubles (in L2) with a grain of 4096 (16 leaves), 64
// passes in one root: what a leaf costs once the split's own cost is spread over 4096 elements.
// Cheap, vectorisable element functions, so that a leaf that does not vectorise shows at once.
// bench/journal/2026-11-29-leaf-loops-clang.md has the commands and figures.
//   bazel run -c opt [--config=clang] //bench:leaf_loops -- --benchmark_repetitions=9
//   bazel-bin/bench/leaf_loops --smoke     (CI: every row once, results checked, no timing)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace {

constexpr std::size_t n = std::size_t{1} << 16;
const tine::grain g{4096};

struct twice_plus_one {
  double operator()(double x) const { return 2.0 * x + 1.0; }
};
struct add_one {
  void operator()(double& x) const { x += 1.0; }
};

[[gnu::noinline]] void plain_map(const double* in, double* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = twice_plus_one{}(in[i]);
  }
}
[[gnu::noinline]] void plain_for_each(double* v, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    add_one{}(v[i]);
  }
}
[[gnu::noinline]] std::int64_t plain_reduce(const std::int64_t* v, std::size_t count) {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < count; ++i) {
    s += v[i];
  }
  return s;
}

struct data {
  std::vector<double> in = std::vector<double>(n, 1.5);
  std::vector<double> out = std::vector<double>(n, 0.0);
  std::vector<double> v = std::vector<double>(n, 3.0);
  std::vector<std::int64_t> iv = std::vector<std::int64_t>(n);
  data() {
    for (std::size_t i = 0; i < n; ++i) {
      iv[i] = static_cast<std::int64_t>(i % 1000);
    }
  }
};

enum class row { tine_map, plain_map, tine_for_each, plain_for_each, tine_reduce, plain_reduce };

// Passes per run: the tine rows make them inside one root, so that the root's start and end
// (a sync_wait) are spread over many passes and what remains is the split and the leaves.
constexpr int passes = 64;

tine::task<double> tine_passes(row r, data* d) {
  double last = 0;
  for (int p = 0; p < passes; ++p) {
    if (r == row::tine_map) {
      std::vector<double>::iterator end;
      co_await tine::call(&end, tine::async::map, d->in, d->out.begin(), twice_plus_one{}, g);
      last = d->out[n - 1];
    } else if (r == row::tine_for_each) {
      co_await tine::call(tine::async::for_each, d->v, add_one{}, g);
      last = d->v[n - 1];
    } else {
      std::int64_t sum = 0;
      co_await tine::call(&sum, tine::async::reduce, d->iv, std::int64_t{0}, std::plus<>{}, g);
      last = static_cast<double>(sum);
    }
  }
  co_return last;
}

// One run of a row (`passes` passes); returns the last pass's last value (--smoke compares it and
// the whole outputs with the plain twin's).
double run(row r, data& d, tine::inline_scheduler& sched) {
  double last = 0;
  switch (r) {
    case row::tine_map:
    case row::tine_for_each:
    case row::tine_reduce:
      return tine::sync_wait(sched, tine_passes, r, &d);
    case row::plain_map:
      for (int p = 0; p < passes; ++p) {
        plain_map(d.in.data(), d.out.data(), n);
        last = d.out[n - 1];
      }
      return last;
    case row::plain_for_each:
      for (int p = 0; p < passes; ++p) {
        plain_for_each(d.v.data(), n);
        last = d.v[n - 1];
      }
      return last;
    case row::plain_reduce:
      for (int p = 0; p < passes; ++p) {
        const std::int64_t* values = d.iv.data();
        benchmark::DoNotOptimize(values);  // a pure function's repeated calls are not merged
        last = static_cast<double>(plain_reduce(values, n));
      }
      return last;
  }
  return last;
}

void bm(benchmark::State& state, row r) {
  data d;
  tine::inline_scheduler sched;
  for (auto _ : state) {
    benchmark::DoNotOptimize(run(r, d, sched));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * passes *
                          static_cast<std::int64_t>(n));
}

struct named_row {
  const char* name;
  row r;
};
constexpr named_row rows[] = {
    {"map/tine", row::tine_map},           {"map/plain", row::plain_map},
    {"for_each/tine", row::tine_for_each}, {"for_each/plain", row::plain_for_each},
    {"reduce/tine", row::tine_reduce},     {"reduce/plain", row::plain_reduce},
};

// Every row once, each against its plain twin: same results, bit for bit.
int smoke() {
  int failures = 0;
  tine::inline_scheduler sched;
  for (std::size_t k = 0; k < std::size(rows); k += 2) {
    data a;
    data b;
    const double x = run(rows[k].r, a, sched);
    const double y = run(rows[k + 1].r, b, sched);
    const bool same = x == y && a.out == b.out && a.v == b.v;
    std::printf("%s %s: %g vs %g\n", same ? "ok  " : "FAIL", rows[k].name, x, y);
    failures += same ? 0 : 1;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--smoke") == 0) {
    return smoke();
  }
  for (const named_row& r : rows) {
    benchmark::RegisterBenchmark(r.name, bm, r.r)->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
