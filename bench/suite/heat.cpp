/// heat: explicit heat diffusion on an n x n grid (the Cilk-5 suite's heat), `steps` time steps
/// of the 5-point stencil, each step splitting the interior rows in halves down to a grain of
/// rows. The boundary stays fixed; two grids alternate. Every cell is computed by the same
/// arithmetic whatever the schedule, so the final grid must equal the serial one bit for bit.
/// One task = one row range of one step.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"

namespace {

constexpr int steps = 50;
constexpr int grain = 16;  // rows per leaf
constexpr double diffusion = 0.2;

struct grids {
  int n;
  std::vector<double> a, b;

  explicit grids(int size) : n(size), a(std::size_t(size) * size), b(std::size_t(size) * size) {
    // A hot left edge and a warm spot in the middle; the rest starts cold.
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const double spot = (i - n / 2) * (i - n / 2) + (j - n / 3) * (j - n / 3) < n * n / 64;
        a[std::size_t(i) * n + j] = j == 0 ? 100.0 : spot ? 50.0 : 0.0;
      }
    }
    b = a;  // the boundary rows and columns of both grids stay as set
  }
};

/// One step on rows [lo, hi) of the interior.
void rows(const double* in, double* out, int n, int lo, int hi) {
  for (int i = lo; i < hi; ++i) {
    const double* up = in + std::size_t(i - 1) * n;
    const double* row = in + std::size_t(i) * n;
    const double* down = in + std::size_t(i + 1) * n;
    double* o = out + std::size_t(i) * n;
    for (int j = 1; j < n - 1; ++j) {
      o[j] = row[j] + diffusion * (up[j] + down[j] + row[j - 1] + row[j + 1] - 4.0 * row[j]);
    }
  }
}

/// What the run leaves: a weighted sum of the final grid (a misplaced value changes it).
double digest(const grids& g, int done_steps) {
  const std::vector<double>& last = done_steps % 2 == 0 ? g.a : g.b;
  double s = 0;
  for (std::size_t k = 0; k < last.size(); ++k) {
    s += last[k] * double(k % 1021 + 1);
  }
  return s;
}

template <typename Step>
double run(int n, Step&& step) {
  grids g(n);
  for (int s = 0; s < steps; ++s) {
    const double* in = s % 2 == 0 ? g.a.data() : g.b.data();
    double* out = s % 2 == 0 ? g.b.data() : g.a.data();
    step(in, out, n);
  }
  return digest(g, steps);
}

tine::task<void> rows_tine(const double* in, double* out, int n, int lo, int hi) {
  if (hi - lo <= grain) {
    rows(in, out, n, lo, hi);
    co_return;
  }
  const int mid = lo + (hi - lo) / 2;
  co_await tine::fork(rows_tine, in, out, n, lo, mid);
  co_await tine::call(rows_tine, in, out, n, mid, hi);
  co_await tine::join();
}

tine::task<double> heat_tine(int n) {
  grids g(n);
  for (int s = 0; s < steps; ++s) {
    const double* in = s % 2 == 0 ? g.a.data() : g.b.data();
    double* out = s % 2 == 0 ? g.b.data() : g.a.data();
    co_await tine::call(rows_tine, in, out, n, 1, n - 1);
  }
  co_return digest(g, steps);
}

void rows_tbb(const double* in, double* out, int n, int lo, int hi) {
  if (hi - lo <= grain) {
    rows(in, out, n, lo, hi);
    return;
  }
  const int mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([=] { rows_tbb(in, out, n, lo, mid); });
  rows_tbb(in, out, n, mid, hi);
  g.wait();
}

void rows_omp(const double* in, double* out, int n, int lo, int hi) {
  if (hi - lo <= grain) {
    rows(in, out, n, lo, hi);
    return;
  }
  const int mid = lo + (hi - lo) / 2;
#pragma omp task default(none) firstprivate(in, out, n, lo, mid)
  rows_omp(in, out, n, lo, mid);
  rows_omp(in, out, n, mid, hi);
#pragma omp taskwait
}

std::uint64_t row_tasks(int lo, int hi) {
  return hi - lo <= grain
             ? 1
             : 1 + row_tasks(lo, lo + (hi - lo) / 2) + row_tasks(lo + (hi - lo) / 2, hi);
}

struct heat_workload {
  static constexpr const char* name = "heat";
  // Its check compares with the serial result: --plain makes one first (harness.hpp).
  static constexpr bool plain_checks_against_serial = true;
  using input = int;  // n: an n x n grid
  using result = double;

  static input parse(std::string_view s) { return std::stoi(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {2048}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 96; }

  static result serial(input n) {
    return run(n,
               [](const double* in, double* out, int size) { rows(in, out, size, 1, size - 1); });
  }
  template <class S>
  static result tine(S& s, input n) {
    return tine::sync_wait(s, heat_tine, n);
  }
  static result tbb(input n) {
    return run(
        n, [](const double* in, double* out, int size) { rows_tbb(in, out, size, 1, size - 1); });
  }
  static result omp(input n) {
    return run(
        n, [](const double* in, double* out, int size) { rows_omp(in, out, size, 1, size - 1); });
  }

  static std::uint64_t tasks(input n) { return steps * row_tasks(1, n - 1); }
  static std::string check(input, result got, result ref) {
    if (std::memcmp(&got, &ref, sizeof got) != 0) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "grid digest %.17g, serial %.17g", got, ref);
      return buf;
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(heat_workload)
