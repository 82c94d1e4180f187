#ifndef TINE_BENCH_DENSE_HPP
#define TINE_BENCH_DENSE_HPP

/// \file dense.hpp
/// What the classic suite's dense matrix programs share: the size from --input (a power of two),
/// and for the factorizations (lu, cholesky) their input, a diagonally dominant n x n matrix made
/// once per size, its layout, the plain loop's result kept per size, and the bit-for-bit
/// comparison.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

/// n from `program`'s --input: a power of two, else std::invalid_argument saying so.
inline int power_of_two_input(std::string_view s, const char* program) {
  const int n = std::stoi(std::string(s));
  if (n < 1 || (n & (n - 1)) != 0) {
    throw std::invalid_argument(std::string(program) + ": n must be a power of two");
  }
  return n;
}

/// Rows are `dense_stride(n)` doubles apart, not n: with n a power of two a block's rows would
/// all fall into the same few cache sets and evict one another (a 32 x 32 block of a 1024 x 1024
/// matrix is 32 rows 8 KiB apart); 8 more doubles put consecutive rows in consecutive sets.
inline int dense_stride(int n) { return n + 8; }

/// Quadrant (r, c) of the block of size 2h at p, in a matrix of row stride s.
template <class T>
T* quadrant(T* p, int r, int c, int h, int s) {
  return p + std::size_t(r) * std::size_t(h) * std::size_t(s) + std::size_t(c) * std::size_t(h);
}

/// An n x n matrix (row stride dense_stride(n), the padding zero) with off-diagonal entries
/// uniform in [-1, 1) and n on the diagonal: strictly diagonally dominant by rows and by columns,
/// so LU needs no pivoting (its growth factor is at most 2) and, if symmetric, it is positive
/// definite. Made once per (n, symmetric) and kept.
inline const std::vector<double>& dominant_matrix(int n, bool symmetric) {
  struct made_matrix {
    int n;
    bool symmetric;
    std::vector<double> a;
  };
  static std::vector<std::unique_ptr<made_matrix>> made;
  for (auto& m : made) {
    if (m->n == n && m->symmetric == symmetric) {
      return m->a;
    }
  }
  const int s = dense_stride(n);
  auto m = std::make_unique<made_matrix>();
  m->n = n;
  m->symmetric = symmetric;
  m->a.assign(std::size_t(n) * std::size_t(s), 0.0);
  std::uint64_t x = symmetric ? 0x853c49e6748fea9bULL : 0xda3e39cb94b95bdbULL;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      double& aij = m->a[std::size_t(i) * s + j];
      if (i == j) {
        aij = double(n);
      } else if (symmetric && j > i) {
        aij = m->a[std::size_t(j) * s + i];
      } else {
        aij = double(x >> 11) * 0x1.0p-52 - 1.0;  // 53 random bits in [-1, 1)
      }
    }
  }
  made.push_back(std::move(m));
  return made.back()->a;
}

/// "" if the n x n matrices `got` and `want` (stride dense_stride(n)) are equal bit for bit, else
/// the first element that differs.
inline std::string dense_difference(int n, const std::vector<double>& got,
                                    const std::vector<double>& want, const char* got_name,
                                    const char* want_name) {
  if (got.size() != want.size()) {
    return std::string(got_name) + " has the wrong size";
  }
  if (std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0) {
    return "";
  }
  const int s = dense_stride(n);
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (std::memcmp(&got[k], &want[k], sizeof(double)) != 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s[%zu][%zu] = %.17g, %s has %.17g", got_name,
                    k / std::size_t(s), k % std::size_t(s), got[k], want_name, want[k]);
      return buf;
    }
  }
  return "";
}

/// The plain loop's result for one size, and "" if it reconstructs A (else what is wrong).
struct dense_reference {
  int n;
  std::vector<double> values;
  std::string verdict;
};

/// The reference of size n: `values = make(n)`, `verdict = judge(n, values)`, made once per size
/// and kept, since each costs as much as a run.
template <class Make, class Judge>
const dense_reference& kept_reference(int n, Make make, Judge judge) {
  static std::vector<std::unique_ptr<dense_reference>> made;
  for (auto& r : made) {
    if (r->n == n) {
      return *r;
    }
  }
  auto r = std::make_unique<dense_reference>();
  r->n = n;
  r->values = make(n);
  r->verdict = judge(n, r->values);
  made.push_back(std::move(r));
  return *made.back();
}

/// Unit roundoff of double and Higham's gamma_n = n u / (1 - n u), the factor of the backward
/// error bounds of LU and Cholesky ("Accuracy and Stability of Numerical Algorithms", 9.3, 10.3).
inline double dense_gamma(int n) {
  const double u = 0x1.0p-53;
  return double(n) * u / (1.0 - double(n) * u);
}

}  // namespace bench

#endif  // TINE_BENCH_DENSE_HPP
