#ifndef TINE_BENCH_DENSE_BLOCKS_HPP
#define TINE_BENCH_DENSE_BLOCKS_HPP

/// \file dense_blocks.hpp
/// The recursive block kernels that lu and cholesky share, in each runtime's version (serial,
/// tine, TBB, OpenMP): the multiply-subtract C -= A op(B) and the triangular solve from the right
/// B <- B T^-1, both on n x n blocks (n a power of two) of row stride s. op(B) is B for lu
/// (T = U, upper triangular) and B^T for cholesky (T = L^T, the solve B <- B L^-T).
///
/// `Blocks` says which, and gives the plain loops used at or below `Blocks::base` rows:
///   struct Blocks {
///     static constexpr int base;          // blocks of at most this many rows are plain loops
///     static constexpr bool transposed;   // op(B) = B^T, and T's upper right quadrant is the
///                                         // transpose of the matrix's lower left one
///     static void mulsub(const double* a, const double* b, double* c, int n, int s);
///     static void solve(const double* t, double* b, int n, int s);
///   };
///
/// The multiply-subtract takes the first half of k, then the second, and the solve its steps in
/// order, whatever the schedule: every element gets the same operations in the same order as in
/// the plain right-looking loop, so the programs' factors equal that loop's bit for bit.

#include <cstdint>

#include <tbb/task_group.h>

#include <tine/core/core.hpp>

#include "bench/suite/dense.hpp"

namespace bench {

/// Quadrant (k, j) of op(B): B's (k, j), or (j, k) when op(B) = B^T.
template <class Blocks>
const double* op_quadrant(const double* b, int k, int j, int h, int s) {
  return Blocks::transposed ? quadrant(b, j, k, h, s) : quadrant(b, k, j, h, s);
}

/// T's upper right quadrant as op() reads it: U01, or L10 for T = L^T (op transposes it back).
template <class Blocks>
const double* solve_off_diagonal(const double* t, int h, int s) {
  return Blocks::transposed ? quadrant(t, 1, 0, h, s) : quadrant(t, 0, 1, h, s);
}

// ---- serial ----

template <class Blocks>
void mulsub_serial(const double* a, const double* b, double* c, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::mulsub(a, b, c, n, s);
    return;
  }
  const int h = n / 2;
  for (int p = 0; p < 2; ++p) {  // the first half of k, then the second
    for (int r = 0; r < 2; ++r) {
      for (int q = 0; q < 2; ++q) {
        mulsub_serial<Blocks>(quadrant(a, r, p, h, s), op_quadrant<Blocks>(b, p, q, h, s),
                              quadrant(c, r, q, h, s), h, s);
      }
    }
  }
}

template <class Blocks>
void right_solve_serial(const double* t, double* b, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::solve(t, b, n, s);
    return;
  }
  const int h = n / 2;
  const double* t00 = quadrant(t, 0, 0, h, s);
  const double* t01 = solve_off_diagonal<Blocks>(t, h, s);
  const double* t11 = quadrant(t, 1, 1, h, s);
  for (int r = 0; r < 2; ++r) {  // the two row halves of B are independent
    right_solve_serial<Blocks>(t00, quadrant(b, r, 0, h, s), h, s);
    mulsub_serial<Blocks>(quadrant(b, r, 0, h, s), t01, quadrant(b, r, 1, h, s), h, s);
    right_solve_serial<Blocks>(t11, quadrant(b, r, 1, h, s), h, s);
  }
}

// ---- tine ----

template <class Blocks>
tine::task<void> mulsub_tine(const double* a, const double* b, double* c, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::mulsub(a, b, c, n, s);
    co_return;
  }
  const int h = n / 2;
  for (int p = 0; p < 2; ++p) {
    co_await tine::fork(mulsub_tine<Blocks>, quadrant(a, 0, p, h, s),
                        op_quadrant<Blocks>(b, p, 0, h, s), quadrant(c, 0, 0, h, s), h, s);
    co_await tine::fork(mulsub_tine<Blocks>, quadrant(a, 0, p, h, s),
                        op_quadrant<Blocks>(b, p, 1, h, s), quadrant(c, 0, 1, h, s), h, s);
    co_await tine::fork(mulsub_tine<Blocks>, quadrant(a, 1, p, h, s),
                        op_quadrant<Blocks>(b, p, 0, h, s), quadrant(c, 1, 0, h, s), h, s);
    co_await tine::call(mulsub_tine<Blocks>, quadrant(a, 1, p, h, s),
                        op_quadrant<Blocks>(b, p, 1, h, s), quadrant(c, 1, 1, h, s), h, s);
    co_await tine::join();
  }
}

template <class Blocks>
tine::task<void> right_solve_tine(const double* t, double* b, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::solve(t, b, n, s);
    co_return;
  }
  const int h = n / 2;
  const double* t00 = quadrant(t, 0, 0, h, s);
  const double* t01 = solve_off_diagonal<Blocks>(t, h, s);
  const double* t11 = quadrant(t, 1, 1, h, s);
  double* b00 = quadrant(b, 0, 0, h, s);
  double* b01 = quadrant(b, 0, 1, h, s);
  double* b10 = quadrant(b, 1, 0, h, s);
  double* b11 = quadrant(b, 1, 1, h, s);
  co_await tine::fork(right_solve_tine<Blocks>, t00, b00, h, s);
  co_await tine::call(right_solve_tine<Blocks>, t00, b10, h, s);
  co_await tine::join();
  co_await tine::fork(mulsub_tine<Blocks>, b00, t01, b01, h, s);
  co_await tine::call(mulsub_tine<Blocks>, b10, t01, b11, h, s);
  co_await tine::join();
  co_await tine::fork(right_solve_tine<Blocks>, t11, b01, h, s);
  co_await tine::call(right_solve_tine<Blocks>, t11, b11, h, s);
  co_await tine::join();
}

// ---- TBB ----

template <class Blocks>
void mulsub_tbb(const double* a, const double* b, double* c, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::mulsub(a, b, c, n, s);
    return;
  }
  const int h = n / 2;
  tbb::task_group g;
  for (int p = 0; p < 2; ++p) {
    g.run([=] {
      mulsub_tbb<Blocks>(quadrant(a, 0, p, h, s), op_quadrant<Blocks>(b, p, 0, h, s),
                         quadrant(c, 0, 0, h, s), h, s);
    });
    g.run([=] {
      mulsub_tbb<Blocks>(quadrant(a, 0, p, h, s), op_quadrant<Blocks>(b, p, 1, h, s),
                         quadrant(c, 0, 1, h, s), h, s);
    });
    g.run([=] {
      mulsub_tbb<Blocks>(quadrant(a, 1, p, h, s), op_quadrant<Blocks>(b, p, 0, h, s),
                         quadrant(c, 1, 0, h, s), h, s);
    });
    mulsub_tbb<Blocks>(quadrant(a, 1, p, h, s), op_quadrant<Blocks>(b, p, 1, h, s),
                       quadrant(c, 1, 1, h, s), h, s);
    g.wait();
  }
}

template <class Blocks>
void right_solve_tbb(const double* t, double* b, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::solve(t, b, n, s);
    return;
  }
  const int h = n / 2;
  const double* t00 = quadrant(t, 0, 0, h, s);
  const double* t01 = solve_off_diagonal<Blocks>(t, h, s);
  const double* t11 = quadrant(t, 1, 1, h, s);
  double* b00 = quadrant(b, 0, 0, h, s);
  double* b01 = quadrant(b, 0, 1, h, s);
  double* b10 = quadrant(b, 1, 0, h, s);
  double* b11 = quadrant(b, 1, 1, h, s);
  tbb::task_group g;
  g.run([=] { right_solve_tbb<Blocks>(t00, b00, h, s); });
  right_solve_tbb<Blocks>(t00, b10, h, s);
  g.wait();
  g.run([=] { mulsub_tbb<Blocks>(b00, t01, b01, h, s); });
  mulsub_tbb<Blocks>(b10, t01, b11, h, s);
  g.wait();
  g.run([=] { right_solve_tbb<Blocks>(t11, b01, h, s); });
  right_solve_tbb<Blocks>(t11, b11, h, s);
  g.wait();
}

// ---- OpenMP (inside the harness's parallel region and single construct) ----

template <class Blocks>
void mulsub_omp(const double* a, const double* b, double* c, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::mulsub(a, b, c, n, s);
    return;
  }
  const int h = n / 2;
  for (int p = 0; p < 2; ++p) {
#pragma omp task default(none) firstprivate(a, b, c, h, s, p)
    mulsub_omp<Blocks>(quadrant(a, 0, p, h, s), op_quadrant<Blocks>(b, p, 0, h, s),
                       quadrant(c, 0, 0, h, s), h, s);
#pragma omp task default(none) firstprivate(a, b, c, h, s, p)
    mulsub_omp<Blocks>(quadrant(a, 0, p, h, s), op_quadrant<Blocks>(b, p, 1, h, s),
                       quadrant(c, 0, 1, h, s), h, s);
#pragma omp task default(none) firstprivate(a, b, c, h, s, p)
    mulsub_omp<Blocks>(quadrant(a, 1, p, h, s), op_quadrant<Blocks>(b, p, 0, h, s),
                       quadrant(c, 1, 0, h, s), h, s);
    mulsub_omp<Blocks>(quadrant(a, 1, p, h, s), op_quadrant<Blocks>(b, p, 1, h, s),
                       quadrant(c, 1, 1, h, s), h, s);
#pragma omp taskwait
  }
}

template <class Blocks>
void right_solve_omp(const double* t, double* b, int n, int s) {
  if (n <= Blocks::base) {
    Blocks::solve(t, b, n, s);
    return;
  }
  const int h = n / 2;
  const double* t00 = quadrant(t, 0, 0, h, s);
  const double* t01 = solve_off_diagonal<Blocks>(t, h, s);
  const double* t11 = quadrant(t, 1, 1, h, s);
  double* b00 = quadrant(b, 0, 0, h, s);
  double* b01 = quadrant(b, 0, 1, h, s);
  double* b10 = quadrant(b, 1, 0, h, s);
  double* b11 = quadrant(b, 1, 1, h, s);
#pragma omp task default(none) firstprivate(t00, b00, h, s)
  right_solve_omp<Blocks>(t00, b00, h, s);
  right_solve_omp<Blocks>(t00, b10, h, s);
#pragma omp taskwait
#pragma omp task default(none) firstprivate(b00, t01, b01, h, s)
  mulsub_omp<Blocks>(b00, t01, b01, h, s);
  mulsub_omp<Blocks>(b10, t01, b11, h, s);
#pragma omp taskwait
#pragma omp task default(none) firstprivate(t11, b01, h, s)
  right_solve_omp<Blocks>(t11, b01, h, s);
  right_solve_omp<Blocks>(t11, b11, h, s);
#pragma omp taskwait
}

/// Tasks of one multiply-subtract of n rows, and of one solve (1 per call).
template <class Blocks>
std::uint64_t mulsub_tasks(int n) {
  return n <= Blocks::base ? 1 : 1 + 8 * mulsub_tasks<Blocks>(n / 2);
}

template <class Blocks>
std::uint64_t right_solve_tasks(int n) {
  return n <= Blocks::base
             ? 1
             : 1 + 4 * right_solve_tasks<Blocks>(n / 2) + 2 * mulsub_tasks<Blocks>(n / 2);
}

}  // namespace bench

#endif  // TINE_BENCH_DENSE_BLOCKS_HPP
