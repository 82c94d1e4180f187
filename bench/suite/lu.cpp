/// lu: LU decomposition without pivoting of a dense n x n diagonally dominant matrix (n a power
/// of two), in place, by recursive blocks (the Cilk-5 suite's lu): factor A00; then, in
/// parallel, the triangular solves A01 <- L00^-1 A01 and A10 <- A10 U00^-1; then the Schur
/// complement A11 -= A10 A01; then factor A11. The solves and the multiply-subtract are recursive
/// and parallel themselves; at or below `base` rows every one of them is a plain loop.
///
/// Every element goes through the same operations in the same order as in the plain
/// right-looking loop (a[i][j] -= l[i][k] u[k][j] for k = 0, 1, ..., then the division by u[j][j]
/// below the diagonal): the solves and the multiply-subtract take their k in increasing order
/// (the second half of k after the first), so the factors equal that loop's bit for bit, whatever
/// the schedule. Checked bit for bit against the serial run and against the plain loop on the
/// whole matrix (made once per size and kept), whose factors are checked once against A within
/// LU's backward error bound. One task = one call of lu, a solve or a multiply-subtract.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/dense.hpp"
#include "bench/suite/dense_blocks.hpp"
#include "bench/suite/harness.hpp"

namespace {

using bench::quadrant;

constexpr int base = 32;  // blocks of at most this many rows are done by plain loops

// ---- the plain loops (n x n blocks of row stride s) ----

/// A = L U in place, right-looking: L unit lower below the diagonal, U on and above it.
void lu_base(double* a, int n, int s) {
  for (int k = 0; k < n; ++k) {
    const double* ak = a + std::size_t(k) * s;
    for (int i = k + 1; i < n; ++i) {
      double* ai = a + std::size_t(i) * s;
      ai[k] /= ak[k];
      const double lik = ai[k];
      for (int j = k + 1; j < n; ++j) {
        ai[j] -= lik * ak[j];
      }
    }
  }
}

/// B <- L^-1 B, L unit lower triangular (the lower part of l).
void lower_base(const double* l, double* b, int n, int s) {
  for (int k = 0; k < n; ++k) {
    const double* bk = b + std::size_t(k) * s;
    for (int i = k + 1; i < n; ++i) {
      const double lik = l[std::size_t(i) * s + k];
      double* bi = b + std::size_t(i) * s;
      for (int j = 0; j < n; ++j) {
        bi[j] -= lik * bk[j];
      }
    }
  }
}

/// B <- B U^-1, U upper triangular (the upper part of u).
void upper_base(const double* u, double* b, int n, int s) {
  for (int i = 0; i < n; ++i) {
    double* bi = b + std::size_t(i) * s;
    for (int k = 0; k < n; ++k) {
      const double* uk = u + std::size_t(k) * s;
      bi[k] /= uk[k];
      const double bik = bi[k];
      for (int j = k + 1; j < n; ++j) {
        bi[j] -= bik * uk[j];
      }
    }
  }
}

/// C -= A B, one product at a time in increasing k.
void mulsub_base(const double* a, const double* b, double* c, int n, int s) {
  for (int i = 0; i < n; ++i) {
    double* ci = c + std::size_t(i) * s;
    for (int k = 0; k < n; ++k) {
      const double aik = a[std::size_t(i) * s + k];
      const double* bk = b + std::size_t(k) * s;
      for (int j = 0; j < n; ++j) {
        ci[j] -= aik * bk[j];
      }
    }
  }
}

/// What the block kernels lu shares with cholesky (dense_blocks.hpp) do at or below `base` rows:
/// the multiply-subtract C -= A B and the solve B <- B U^-1.
struct lu_blocks {
  static constexpr int base = ::base;
  static constexpr bool transposed = false;
  static void mulsub(const double* a, const double* b, double* c, int n, int s) {
    mulsub_base(a, b, c, n, s);
  }
  static void solve(const double* u, double* b, int n, int s) { upper_base(u, b, n, s); }
};

using bench::mulsub_omp;
using bench::mulsub_serial;
using bench::mulsub_tbb;
using bench::mulsub_tine;
using bench::right_solve_omp;
using bench::right_solve_serial;
using bench::right_solve_tbb;
using bench::right_solve_tine;

// ---- serial ----

void lower_serial(const double* l, double* b, int n, int s) {
  if (n <= base) {
    lower_base(l, b, n, s);
    return;
  }
  const int h = n / 2;
  const double* l00 = quadrant(l, 0, 0, h, s);
  const double* l10 = quadrant(l, 1, 0, h, s);
  const double* l11 = quadrant(l, 1, 1, h, s);
  for (int q = 0; q < 2; ++q) {  // the two column halves of B are independent
    lower_serial(l00, quadrant(b, 0, q, h, s), h, s);
    mulsub_serial<lu_blocks>(l10, quadrant(b, 0, q, h, s), quadrant(b, 1, q, h, s), h, s);
    lower_serial(l11, quadrant(b, 1, q, h, s), h, s);
  }
}

void lu_serial(double* a, int n, int s) {
  if (n <= base) {
    lu_base(a, n, s);
    return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a01 = quadrant(a, 0, 1, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  lu_serial(a00, h, s);
  lower_serial(a00, a01, h, s);
  right_solve_serial<lu_blocks>(a00, a10, h, s);
  mulsub_serial<lu_blocks>(a10, a01, a11, h, s);
  lu_serial(a11, h, s);
}

// ---- tine ----

tine::task<void> lower_tine(const double* l, double* b, int n, int s) {
  if (n <= base) {
    lower_base(l, b, n, s);
    co_return;
  }
  const int h = n / 2;
  const double* l00 = quadrant(l, 0, 0, h, s);
  const double* l10 = quadrant(l, 1, 0, h, s);
  const double* l11 = quadrant(l, 1, 1, h, s);
  double* b00 = quadrant(b, 0, 0, h, s);
  double* b01 = quadrant(b, 0, 1, h, s);
  double* b10 = quadrant(b, 1, 0, h, s);
  double* b11 = quadrant(b, 1, 1, h, s);
  co_await tine::fork(lower_tine, l00, b00, h, s);
  co_await tine::call(lower_tine, l00, b01, h, s);
  co_await tine::join();
  co_await tine::fork(mulsub_tine<lu_blocks>, l10, b00, b10, h, s);
  co_await tine::call(mulsub_tine<lu_blocks>, l10, b01, b11, h, s);
  co_await tine::join();
  co_await tine::fork(lower_tine, l11, b10, h, s);
  co_await tine::call(lower_tine, l11, b11, h, s);
  co_await tine::join();
}

tine::task<void> lu_tine(double* a, int n, int s) {
  if (n <= base) {
    lu_base(a, n, s);
    co_return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a01 = quadrant(a, 0, 1, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  co_await tine::call(lu_tine, a00, h, s);
  co_await tine::fork(lower_tine, a00, a01, h, s);
  co_await tine::call(right_solve_tine<lu_blocks>, a00, a10, h, s);
  co_await tine::join();
  co_await tine::call(mulsub_tine<lu_blocks>, a10, a01, a11, h, s);
  co_await tine::call(lu_tine, a11, h, s);
}

// ---- TBB ----

void lower_tbb(const double* l, double* b, int n, int s) {
  if (n <= base) {
    lower_base(l, b, n, s);
    return;
  }
  const int h = n / 2;
  const double* l00 = quadrant(l, 0, 0, h, s);
  const double* l10 = quadrant(l, 1, 0, h, s);
  const double* l11 = quadrant(l, 1, 1, h, s);
  double* b00 = quadrant(b, 0, 0, h, s);
  double* b01 = quadrant(b, 0, 1, h, s);
  double* b10 = quadrant(b, 1, 0, h, s);
  double* b11 = quadrant(b, 1, 1, h, s);
  tbb::task_group g;
  g.run([=] { lower_tbb(l00, b00, h, s); });
  lower_tbb(l00, b01, h, s);
  g.wait();
  g.run([=] { mulsub_tbb<lu_blocks>(l10, b00, b10, h, s); });
  mulsub_tbb<lu_blocks>(l10, b01, b11, h, s);
  g.wait();
  g.run([=] { lower_tbb(l11, b10, h, s); });
  lower_tbb(l11, b11, h, s);
  g.wait();
}

void lu_tbb(double* a, int n, int s) {
  if (n <= base) {
    lu_base(a, n, s);
    return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a01 = quadrant(a, 0, 1, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  lu_tbb(a00, h, s);
  tbb::task_group g;
  g.run([=] { lower_tbb(a00, a01, h, s); });
  right_solve_tbb<lu_blocks>(a00, a10, h, s);
  g.wait();
  mulsub_tbb<lu_blocks>(a10, a01, a11, h, s);
  lu_tbb(a11, h, s);
}

// ---- OpenMP ----

void lower_omp(const double* l, double* b, int n, int s) {
  if (n <= base) {
    lower_base(l, b, n, s);
    return;
  }
  const int h = n / 2;
  const double* l00 = quadrant(l, 0, 0, h, s);
  const double* l10 = quadrant(l, 1, 0, h, s);
  const double* l11 = quadrant(l, 1, 1, h, s);
  double* b00 = quadrant(b, 0, 0, h, s);
  double* b01 = quadrant(b, 0, 1, h, s);
  double* b10 = quadrant(b, 1, 0, h, s);
  double* b11 = quadrant(b, 1, 1, h, s);
#pragma omp task default(none) firstprivate(l00, b00, h, s)
  lower_omp(l00, b00, h, s);
  lower_omp(l00, b01, h, s);
#pragma omp taskwait
#pragma omp task default(none) firstprivate(l10, b00, b10, h, s)
  mulsub_omp<lu_blocks>(l10, b00, b10, h, s);
  mulsub_omp<lu_blocks>(l10, b01, b11, h, s);
#pragma omp taskwait
#pragma omp task default(none) firstprivate(l11, b10, h, s)
  lower_omp(l11, b10, h, s);
  lower_omp(l11, b11, h, s);
#pragma omp taskwait
}

void lu_omp(double* a, int n, int s) {
  if (n <= base) {
    lu_base(a, n, s);
    return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a01 = quadrant(a, 0, 1, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  lu_omp(a00, h, s);
#pragma omp task default(none) firstprivate(a00, a01, h, s)
  lower_omp(a00, a01, h, s);
  right_solve_omp<lu_blocks>(a00, a10, h, s);
#pragma omp taskwait
  mulsub_omp<lu_blocks>(a10, a01, a11, h, s);
  lu_omp(a11, h, s);
}

// ---- counts ----

std::uint64_t solve_tasks(int n) {  // lower and upper alike
  return bench::right_solve_tasks<lu_blocks>(n);
}

std::uint64_t lu_tasks(int n) {
  return n <= base ? 1
                   : 1 + 2 * lu_tasks(n / 2) + 2 * solve_tasks(n / 2) +
                         bench::mulsub_tasks<lu_blocks>(n / 2);
}

// ---- runs and checks ----

template <typename Factor>
std::vector<double> factored(int n, Factor&& factor) {
  std::vector<double> a = bench::dominant_matrix(n, false);
  factor(a.data(), n, bench::dense_stride(n));
  return a;
}

/// "" if the factors `f` reconstruct A within LU's backward error bound: computed factors satisfy
/// L U = A + E with |E| <= gamma_n |L| |U| elementwise (Higham, Theorem 9.3), and forming L U in
/// floating point adds at most as much again; 3 gamma_n |L| |U| also covers the rounding of the
/// difference and of |L| |U|. Diagonal dominance bounds U's growth by 2, so |L| |U| is of the
/// size of |A| and the bound is tight, whatever the matrix's condition number.
std::string reconstructs(int n, const std::vector<double>& f) {
  const int s = bench::dense_stride(n);
  const std::vector<double>& a = bench::dominant_matrix(n, false);
  const double gamma = bench::dense_gamma(n);
  std::vector<double> lu(static_cast<std::size_t>(n));     // row i of L U
  std::vector<double> bound(static_cast<std::size_t>(n));  // row i of |L| |U|
  for (int i = 0; i < n; ++i) {
    std::fill(lu.begin(), lu.end(), 0.0);
    std::fill(bound.begin(), bound.end(), 0.0);
    for (int k = 0; k <= i; ++k) {  // L[i][k], 1 on the diagonal
      const double lik = k == i ? 1.0 : f[std::size_t(i) * s + k];
      const double* uk = f.data() + std::size_t(k) * s;
      for (int j = k; j < n; ++j) {  // U[k][j], zero below the diagonal
        lu[j] += lik * uk[j];
        bound[j] += std::fabs(lik) * std::fabs(uk[j]);
      }
    }
    for (int j = 0; j < n; ++j) {
      const double aij = a[std::size_t(i) * s + j];
      if (!(std::fabs(aij - lu[j]) <= 3 * gamma * bound[j])) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "(L U)[%d][%d] = %.17g, A has %.17g (bound %.3g)", i, j,
                      lu[j], aij, 3 * gamma * bound[j]);
        return buf;
      }
    }
  }
  return "";
}

struct lu_workload {
  static constexpr const char* name = "lu";
  using input = int;  // n: an n x n matrix
  using result = std::vector<double>;

  static input parse(std::string_view s) { return bench::power_of_two_input(s, name); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {1024}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 128; }

  static result serial(input n) { return factored(n, lu_serial); }
  template <class S>
  static result tine(S& s, input n) {
    return factored(
        n, [&s](double* a, int size, int stride) { tine::sync_wait(s, lu_tine, a, size, stride); });
  }
  static result tbb(input n) { return factored(n, lu_tbb); }
  static result omp(input n) { return factored(n, lu_omp); }

  static std::uint64_t tasks(input n) { return lu_tasks(n); }
  static std::string check(input n, const result& got, const result& ref) {
    // Against the serial run, then against the plain loop (plain mode passes the run's own
    // result as `ref`, so this second comparison is what checks it there).
    std::string err = bench::dense_difference(n, got, ref, "LU", "the serial run");
    if (err.empty()) {
      const bench::dense_reference& want = bench::kept_reference(
          n, [](int m) { return factored(m, lu_base); }, reconstructs);
      err = bench::dense_difference(n, got, want.values, "LU", "the plain loop");
      if (err.empty()) {
        err = want.verdict;
      }
    }
    return err;
  }
};

}  // namespace

TINE_BENCH_MAIN(lu_workload)
