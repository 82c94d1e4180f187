/// cholesky: the Cholesky factorization A = L L^T of a dense n x n symmetric positive definite
/// matrix (n a power of two), in place in the lower triangle, by recursive blocks: factor A00;
/// solve A10 <- A10 L00^-T; update A11 -= A10 A10^T (lower triangle); factor A11. The solve and
/// the update are recursive and parallel (their halves of rows, or of blocks, are independent),
/// built on a parallel multiply-subtract C -= A B^T; at or below `base` rows every one of them is
/// a plain loop. (The Cilk-5 and BOTS choleskys factor a sparse matrix in a quadtree; this is the
/// dense recursive one, the same shape without the sparsity.)
///
/// Every element goes through the same operations in the same order as in the plain
/// right-looking loop (a[i][j] -= l[i][k] l[j][k] for k = 0, 1, ..., then the division by l[j][j],
/// or the square root on the diagonal), so the factor equals that loop's bit for bit, whatever
/// the schedule. Checked bit for bit against the serial run and against the plain loop on the
/// whole matrix (made once per size and kept), whose factor is checked once against A within
/// Cholesky's backward error bound. The upper triangle keeps A's values. One task = one call of
/// cholesky, the solve, the update or a multiply-subtract.

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

/// The lower triangle of A becomes L, right-looking. Column k is copied into `col` first, so
/// that the update runs along rows.
void chol_base(double* a, int n, int s) {
  std::vector<double> col(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    double* ak = a + std::size_t(k) * s;
    ak[k] = std::sqrt(ak[k]);
    for (int i = k + 1; i < n; ++i) {
      double& aik = a[std::size_t(i) * s + k];
      aik /= ak[k];
      col[std::size_t(i)] = aik;
    }
    for (int i = k + 1; i < n; ++i) {
      double* ai = a + std::size_t(i) * s;
      const double lik = ai[k];
      for (int j = k + 1; j <= i; ++j) {
        ai[j] -= lik * col[std::size_t(j)];
      }
    }
  }
}

/// t = the transpose of the n x n block at b (n <= base), so that the kernels below run along
/// rows.
void transpose(const double* b, int n, int s, double* t) {
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) {
      t[std::size_t(k) * n + j] = b[std::size_t(j) * s + k];
    }
  }
}

/// B <- B L^-T, L lower triangular (the lower part of l).
void trsm_base(const double* l, double* b, int n, int s) {
  double lt[base * base];
  transpose(l, n, s, lt);
  for (int i = 0; i < n; ++i) {
    double* bi = b + std::size_t(i) * s;
    for (int k = 0; k < n; ++k) {
      const double* ltk = lt + std::size_t(k) * n;  // row k of L^T: L[j][k] at j
      bi[k] /= ltk[k];
      const double bik = bi[k];
      for (int j = k + 1; j < n; ++j) {
        bi[j] -= bik * ltk[j];
      }
    }
  }
}

/// C -= A B^T, one product at a time in increasing k.
void gemm_base(const double* a, const double* b, double* c, int n, int s) {
  double bt[base * base];
  transpose(b, n, s, bt);
  for (int i = 0; i < n; ++i) {
    double* ci = c + std::size_t(i) * s;
    for (int k = 0; k < n; ++k) {
      const double aik = a[std::size_t(i) * s + k];
      const double* btk = bt + std::size_t(k) * n;
      for (int j = 0; j < n; ++j) {
        ci[j] -= aik * btk[j];
      }
    }
  }
}

/// C -= A A^T on and below the diagonal, in increasing k.
void syrk_base(const double* a, double* c, int n, int s) {
  double at[base * base];
  transpose(a, n, s, at);
  for (int i = 0; i < n; ++i) {
    double* ci = c + std::size_t(i) * s;
    for (int k = 0; k < n; ++k) {
      const double aik = a[std::size_t(i) * s + k];
      const double* atk = at + std::size_t(k) * n;
      for (int j = 0; j <= i; ++j) {
        ci[j] -= aik * atk[j];
      }
    }
  }
}

/// What the block kernels cholesky shares with lu (dense_blocks.hpp) do at or below `base` rows:
/// the multiply-subtract C -= A B^T and the solve B <- B L^-T.
struct cholesky_blocks {
  static constexpr int base = ::base;
  static constexpr bool transposed = true;
  static void mulsub(const double* a, const double* b, double* c, int n, int s) {
    gemm_base(a, b, c, n, s);
  }
  static void solve(const double* l, double* b, int n, int s) { trsm_base(l, b, n, s); }
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

void syrk_serial(const double* a, double* c, int n, int s) {
  if (n <= base) {
    syrk_base(a, c, n, s);
    return;
  }
  const int h = n / 2;
  for (int p = 0; p < 2; ++p) {
    syrk_serial(quadrant(a, 0, p, h, s), quadrant(c, 0, 0, h, s), h, s);
    mulsub_serial<cholesky_blocks>(quadrant(a, 1, p, h, s), quadrant(a, 0, p, h, s),
                                   quadrant(c, 1, 0, h, s), h, s);
    syrk_serial(quadrant(a, 1, p, h, s), quadrant(c, 1, 1, h, s), h, s);
  }
}

void chol_serial(double* a, int n, int s) {
  if (n <= base) {
    chol_base(a, n, s);
    return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  chol_serial(a00, h, s);
  right_solve_serial<cholesky_blocks>(a00, a10, h, s);
  syrk_serial(a10, a11, h, s);
  chol_serial(a11, h, s);
}

// ---- tine ----

tine::task<void> syrk_tine(const double* a, double* c, int n, int s) {
  if (n <= base) {
    syrk_base(a, c, n, s);
    co_return;
  }
  const int h = n / 2;
  for (int p = 0; p < 2; ++p) {
    co_await tine::fork(syrk_tine, quadrant(a, 0, p, h, s), quadrant(c, 0, 0, h, s), h, s);
    co_await tine::fork(mulsub_tine<cholesky_blocks>, quadrant(a, 1, p, h, s),
                        quadrant(a, 0, p, h, s), quadrant(c, 1, 0, h, s), h, s);
    co_await tine::call(syrk_tine, quadrant(a, 1, p, h, s), quadrant(c, 1, 1, h, s), h, s);
    co_await tine::join();
  }
}

tine::task<void> chol_tine(double* a, int n, int s) {
  if (n <= base) {
    chol_base(a, n, s);
    co_return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  co_await tine::call(chol_tine, a00, h, s);
  co_await tine::call(right_solve_tine<cholesky_blocks>, a00, a10, h, s);
  co_await tine::call(syrk_tine, a10, a11, h, s);
  co_await tine::call(chol_tine, a11, h, s);
}

// ---- TBB ----

void syrk_tbb(const double* a, double* c, int n, int s) {
  if (n <= base) {
    syrk_base(a, c, n, s);
    return;
  }
  const int h = n / 2;
  tbb::task_group g;
  for (int p = 0; p < 2; ++p) {
    g.run([=] { syrk_tbb(quadrant(a, 0, p, h, s), quadrant(c, 0, 0, h, s), h, s); });
    g.run([=] {
      mulsub_tbb<cholesky_blocks>(quadrant(a, 1, p, h, s), quadrant(a, 0, p, h, s),
                                  quadrant(c, 1, 0, h, s), h, s);
    });
    syrk_tbb(quadrant(a, 1, p, h, s), quadrant(c, 1, 1, h, s), h, s);
    g.wait();
  }
}

void chol_tbb(double* a, int n, int s) {
  if (n <= base) {
    chol_base(a, n, s);
    return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  chol_tbb(a00, h, s);
  right_solve_tbb<cholesky_blocks>(a00, a10, h, s);
  syrk_tbb(a10, a11, h, s);
  chol_tbb(a11, h, s);
}

// ---- OpenMP ----

void syrk_omp(const double* a, double* c, int n, int s) {
  if (n <= base) {
    syrk_base(a, c, n, s);
    return;
  }
  const int h = n / 2;
  for (int p = 0; p < 2; ++p) {
#pragma omp task default(none) firstprivate(a, c, h, s, p)
    syrk_omp(quadrant(a, 0, p, h, s), quadrant(c, 0, 0, h, s), h, s);
#pragma omp task default(none) firstprivate(a, c, h, s, p)
    mulsub_omp<cholesky_blocks>(quadrant(a, 1, p, h, s), quadrant(a, 0, p, h, s),
                                quadrant(c, 1, 0, h, s), h, s);
    syrk_omp(quadrant(a, 1, p, h, s), quadrant(c, 1, 1, h, s), h, s);
#pragma omp taskwait
  }
}

void chol_omp(double* a, int n, int s) {
  if (n <= base) {
    chol_base(a, n, s);
    return;
  }
  const int h = n / 2;
  double* a00 = quadrant(a, 0, 0, h, s);
  double* a10 = quadrant(a, 1, 0, h, s);
  double* a11 = quadrant(a, 1, 1, h, s);
  chol_omp(a00, h, s);
  right_solve_omp<cholesky_blocks>(a00, a10, h, s);
  syrk_omp(a10, a11, h, s);
  chol_omp(a11, h, s);
}

// ---- counts ----

std::uint64_t trsm_tasks(int n) {  // the update (syrk) has the same shape
  return bench::right_solve_tasks<cholesky_blocks>(n);
}

std::uint64_t chol_tasks(int n) {
  return n <= base ? 1 : 1 + 2 * chol_tasks(n / 2) + 2 * trsm_tasks(n / 2);
}

// ---- runs and checks ----

template <typename Factor>
std::vector<double> factored(int n, Factor&& factor) {
  std::vector<double> a = bench::dominant_matrix(n, true);
  factor(a.data(), n, bench::dense_stride(n));
  return a;
}

/// "" if the factor `f` reconstructs A within Cholesky's backward error bound: a computed factor
/// satisfies L L^T = A + E with |E| <= gamma_(n+1) |L| |L^T| elementwise (Higham, Theorem 10.3),
/// and forming L L^T in floating point adds at most as much again; 3 gamma_(n+1) |L| |L^T| also
/// covers the rounding of the difference and of |L| |L^T|. For a positive definite matrix
/// |L| |L^T| is bounded by A's diagonal (|l_i . l_j| <= |l_i| |l_j| = sqrt(a_ii a_jj)), so the
/// bound is tight whatever the matrix's condition number.
std::string reconstructs(int n, const std::vector<double>& f) {
  const int s = bench::dense_stride(n);
  const std::vector<double>& a = bench::dominant_matrix(n, true);
  const double tolerance = 3 * bench::dense_gamma(n + 1);
  constexpr int rows = 8;  // rows of L L^T at a time, so that row j of L is read once for them
  for (int i0 = 0; i0 < n; i0 += rows) {
    for (int j = 0; j < n && j < i0 + rows; ++j) {
      const double* lj = f.data() + std::size_t(j) * s;
      for (int i = std::max(i0, j); i < n && i < i0 + rows; ++i) {
        const double* li = f.data() + std::size_t(i) * s;
        // Four partial sums over k, for speed (the bound holds for any order of summation).
        double p0 = 0, p1 = 0, p2 = 0, p3 = 0;
        double g0 = 0, g1 = 0, g2 = 0, g3 = 0;
        int k = 0;
        for (; k + 3 <= j; k += 4) {
          p0 += li[k] * lj[k];
          p1 += li[k + 1] * lj[k + 1];
          p2 += li[k + 2] * lj[k + 2];
          p3 += li[k + 3] * lj[k + 3];
          g0 += std::fabs(li[k] * lj[k]);
          g1 += std::fabs(li[k + 1] * lj[k + 1]);
          g2 += std::fabs(li[k + 2] * lj[k + 2]);
          g3 += std::fabs(li[k + 3] * lj[k + 3]);
        }
        for (; k <= j; ++k) {
          p0 += li[k] * lj[k];
          g0 += std::fabs(li[k] * lj[k]);
        }
        const double sum = (p0 + p1) + (p2 + p3);
        const double bound = (g0 + g1) + (g2 + g3);
        const double aij = a[std::size_t(i) * s + j];
        if (!(std::fabs(aij - sum) <= tolerance * bound)) {
          char buf[200];
          std::snprintf(buf, sizeof buf, "(L L^T)[%d][%d] = %.17g, A has %.17g (bound %.3g)", i, j,
                        sum, aij, tolerance * bound);
          return buf;
        }
      }
    }
  }
  return "";
}

struct cholesky_workload {
  static constexpr const char* name = "cholesky";
  using input = int;  // n: an n x n matrix
  using result = std::vector<double>;

  static input parse(std::string_view s) { return bench::power_of_two_input(s, name); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {2048}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 128; }

  static result serial(input n) { return factored(n, chol_serial); }
  template <class S>
  static result tine(S& s, input n) {
    return factored(n, [&s](double* a, int size, int stride) {
      tine::sync_wait(s, chol_tine, a, size, stride);
    });
  }
  static result tbb(input n) { return factored(n, chol_tbb); }
  static result omp(input n) { return factored(n, chol_omp); }

  static std::uint64_t tasks(input n) { return chol_tasks(n); }
  static std::string check(input n, const result& got, const result& ref) {
    // Against the serial run, then against the plain loop (plain mode passes the run's own
    // result as `ref`, so this second comparison is what checks it there).
    std::string err = bench::dense_difference(n, got, ref, "L", "the serial run");
    if (err.empty()) {
      const bench::dense_reference& want = bench::kept_reference(
          n, [](int m) { return factored(m, chol_base); }, reconstructs);
      err = bench::dense_difference(n, got, want.values, "L", "the plain loop");
      if (err.empty()) {
        err = want.verdict;
      }
    }
    return err;
  }
};

}  // namespace

TINE_BENCH_MAIN(cholesky_workload)
