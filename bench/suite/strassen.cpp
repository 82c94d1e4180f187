/// strassen: C = A x B for n x n doubles (n a power of two) by Strassen's algorithm (the Cilk-5
/// and BOTS suites' strassen): each level forms the seven products M1..M7 of sums of quadrants as
/// seven parallel recursive calls, joins, and adds them into C's quadrants; at or below `cutoff`
/// a plain triple loop multiplies. The entries are small integers, so every sum and product is
/// exact in double: the result must equal the serial run and a plain product (made once per size
/// and kept) bit for bit. One task = one recursive call (one product).

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/dense.hpp"
#include "bench/suite/harness.hpp"

namespace {

constexpr int cutoff = 64;  // at or below this size a product is a plain triple loop

/// An operand of a product: the block at p, or p + q or p - q (two quadrants of one matrix), in
/// rows of stride s. A recursive call forms the sum itself, so the sums are parallel too.
struct operand {
  const double* p;
  const double* q;  // null: the operand is p alone
  int s;
  bool minus;
};

/// The operand as a plain block: p itself, or its sum made in `buf` (n x n, stride n).
const double* formed(const operand& x, int n, std::unique_ptr<double[]>& buf, int& stride) {
  if (x.q == nullptr) {
    stride = x.s;
    return x.p;
  }
  buf.reset(new double[std::size_t(n) * n]);
  for (int i = 0; i < n; ++i) {
    const double* p = x.p + std::size_t(i) * x.s;
    const double* q = x.q + std::size_t(i) * x.s;
    double* o = buf.get() + std::size_t(i) * n;
    if (x.minus) {
      for (int j = 0; j < n; ++j) {
        o[j] = p[j] - q[j];
      }
    } else {
      for (int j = 0; j < n; ++j) {
        o[j] = p[j] + q[j];
      }
    }
  }
  stride = n;
  return buf.get();
}

/// C = X Y, plain (C of stride cs).
void multiply(const double* x, int xs, const double* y, int ys, double* c, int cs, int n) {
  for (int i = 0; i < n; ++i) {
    double* ci = c + std::size_t(i) * cs;
    for (int j = 0; j < n; ++j) {
      ci[j] = 0;
    }
    for (int k = 0; k < n; ++k) {
      const double xik = x[std::size_t(i) * xs + k];
      const double* yk = y + std::size_t(k) * ys;
      for (int j = 0; j < n; ++j) {
        ci[j] += xik * yk[j];
      }
    }
  }
}

/// One level: the operands formed, room for M1..M7 (h x h each, stride h) and the seven products.
struct level {
  std::unique_ptr<double[]> xbuf, ybuf, m;
  std::array<operand, 7> a, b;
  int h;

  double* product(int i) const { return m.get() + std::size_t(i) * h * h; }

  level(const operand& ax, const operand& by, int n) : h(n / 2) {
    int xs = 0;
    int ys = 0;
    const double* x = formed(ax, n, xbuf, xs);
    const double* y = formed(by, n, ybuf, ys);
    m.reset(new double[std::size_t(7) * h * h]);
    auto qx = [&](int r, int c) { return x + std::size_t(r) * h * xs + std::size_t(c) * h; };
    auto qy = [&](int r, int c) { return y + std::size_t(r) * h * ys + std::size_t(c) * h; };
    auto one = [](const double* p, int s) { return operand{p, nullptr, s, false}; };
    auto sum = [](const double* p, const double* q, int s) { return operand{p, q, s, false}; };
    auto dif = [](const double* p, const double* q, int s) { return operand{p, q, s, true}; };
    // M1 = (X11 + X22)(Y11 + Y22)   M2 = (X21 + X22) Y11   M3 = X11 (Y12 - Y22)
    // M4 = X22 (Y21 - Y11)          M5 = (X11 + X12) Y22   M6 = (X21 - X11)(Y11 + Y12)
    // M7 = (X12 - X22)(Y21 + Y22)
    a = {sum(qx(0, 0), qx(1, 1), xs), sum(qx(1, 0), qx(1, 1), xs), one(qx(0, 0), xs),
         one(qx(1, 1), xs),           sum(qx(0, 0), qx(0, 1), xs), dif(qx(1, 0), qx(0, 0), xs),
         dif(qx(0, 1), qx(1, 1), xs)};
    b = {sum(qy(0, 0), qy(1, 1), ys), one(qy(0, 0), ys), dif(qy(0, 1), qy(1, 1), ys),
         dif(qy(1, 0), qy(0, 0), ys), one(qy(1, 1), ys), sum(qy(0, 0), qy(0, 1), ys),
         sum(qy(1, 0), qy(1, 1), ys)};
  }

  /// C11 = M1 + M4 - M5 + M7, C12 = M3 + M5, C21 = M2 + M4, C22 = M1 - M2 + M3 + M6.
  void combine(double* c, int cs) const {
    const double* m1 = product(0);
    const double* m2 = product(1);
    const double* m3 = product(2);
    const double* m4 = product(3);
    const double* m5 = product(4);
    const double* m6 = product(5);
    const double* m7 = product(6);
    for (int i = 0; i < h; ++i) {
      double* c1 = c + std::size_t(i) * cs;
      double* c2 = c + std::size_t(i + h) * cs;
      const std::size_t r = std::size_t(i) * h;
      for (int j = 0; j < h; ++j) {
        const std::size_t k = r + j;
        c1[j] = m1[k] + m4[k] - m5[k] + m7[k];
        c1[j + h] = m3[k] + m5[k];
        c2[j] = m2[k] + m4[k];
        c2[j + h] = m1[k] - m2[k] + m3[k] + m6[k];
      }
    }
  }
};

/// The base case: the operands formed, then a plain product.
void base_product(const operand& ax, const operand& by, double* c, int cs, int n) {
  std::unique_ptr<double[]> xbuf, ybuf;
  int xs = 0;
  int ys = 0;
  const double* x = formed(ax, n, xbuf, xs);
  const double* y = formed(by, n, ybuf, ys);
  multiply(x, xs, y, ys, c, cs, n);
}

// ---- serial ----

void strassen_serial(operand ax, operand by, double* c, int cs, int n) {
  if (n <= cutoff) {
    base_product(ax, by, c, cs, n);
    return;
  }
  const level l(ax, by, n);
  for (int i = 0; i < 7; ++i) {
    strassen_serial(l.a[i], l.b[i], l.product(i), l.h, l.h);
  }
  l.combine(c, cs);
}

// ---- tine ----

tine::task<void> strassen_tine(operand ax, operand by, double* c, int cs, int n) {
  if (n <= cutoff) {
    base_product(ax, by, c, cs, n);
    co_return;
  }
  const level l(ax, by, n);
  for (int i = 0; i < 6; ++i) {
    co_await tine::fork(strassen_tine, l.a[i], l.b[i], l.product(i), l.h, l.h);
  }
  co_await tine::call(strassen_tine, l.a[6], l.b[6], l.product(6), l.h, l.h);
  co_await tine::join();
  l.combine(c, cs);
}

// ---- TBB ----

void strassen_tbb(operand ax, operand by, double* c, int cs, int n) {
  if (n <= cutoff) {
    base_product(ax, by, c, cs, n);
    return;
  }
  const level l(ax, by, n);
  tbb::task_group g;
  for (int i = 0; i < 6; ++i) {
    g.run([a = l.a[i], b = l.b[i], m = l.product(i), h = l.h] { strassen_tbb(a, b, m, h, h); });
  }
  strassen_tbb(l.a[6], l.b[6], l.product(6), l.h, l.h);
  g.wait();
  l.combine(c, cs);
}

// ---- OpenMP ----

void strassen_omp(operand ax, operand by, double* c, int cs, int n) {
  if (n <= cutoff) {
    base_product(ax, by, c, cs, n);
    return;
  }
  const level l(ax, by, n);
  const int h = l.h;
  for (int i = 0; i < 6; ++i) {
    const operand a = l.a[i];
    const operand b = l.b[i];
    double* m = l.product(i);
#pragma omp task default(none) firstprivate(a, b, m, h)
    strassen_omp(a, b, m, h, h);
  }
  strassen_omp(l.a[6], l.b[6], l.product(6), h, h);
#pragma omp taskwait
  l.combine(c, cs);
}

std::uint64_t strassen_tasks(int n) { return n <= cutoff ? 1 : 1 + 7 * strassen_tasks(n / 2); }

/// A and B of one size, made once per process: integers in [-2, 2]. The operands' entries at
/// depth d are at most 2^(d+1) in magnitude and every product and sum stays far below 2^53, so
/// all of Strassen's arithmetic is exact.
struct problem {
  int n;
  std::vector<double> a, b;
};

const problem& problem_for(int n) {
  static std::vector<std::unique_ptr<problem>> made;
  for (auto& p : made) {
    if (p->n == n) {
      return *p;
    }
  }
  auto p = std::make_unique<problem>();
  p->n = n;
  p->a.resize(std::size_t(n) * n);
  p->b.resize(std::size_t(n) * n);
  std::uint64_t s = 0x9e3779b97f4a7c15ULL;
  for (std::size_t i = 0; i < p->a.size(); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    p->a[i] = double(int(s % 5) - 2);
    p->b[i] = double(int((s >> 32) % 5) - 2);
  }
  made.push_back(std::move(p));
  return *made.back();
}

template <typename Run>
std::vector<double> product_of(int n, Run&& run) {
  const problem& p = problem_for(n);
  std::vector<double> c(std::size_t(n) * n);
  run(operand{p.a.data(), nullptr, n, false}, operand{p.b.data(), nullptr, n, false}, c.data(), n);
  return c;
}

/// The plain product of one size, made once per process and kept (it costs more than a run).
const std::vector<double>& plain_product(int n) {
  static std::vector<std::pair<int, std::vector<double>>> made;
  for (auto& [size, c] : made) {
    if (size == n) {
      return c;
    }
  }
  const problem& p = problem_for(n);
  std::vector<double> c(std::size_t(n) * n);
  multiply(p.a.data(), n, p.b.data(), n, c.data(), n, n);
  made.emplace_back(n, std::move(c));
  return made.back().second;
}

struct strassen_workload {
  static constexpr const char* name = "strassen";
  using input = int;  // n: n x n matrices
  using result = std::vector<double>;

  static input parse(std::string_view s) { return bench::power_of_two_input(s, name); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {1024}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 256; }

  static result serial(input n) {
    return product_of(
        n, [](operand a, operand b, double* c, int size) { strassen_serial(a, b, c, size, size); });
  }
  template <class S>
  static result tine(S& s, input n) {
    return product_of(n, [&s](operand a, operand b, double* c, int size) {
      tine::sync_wait(s, strassen_tine, a, b, c, size, size);
    });
  }
  static result tbb(input n) {
    return product_of(
        n, [](operand a, operand b, double* c, int size) { strassen_tbb(a, b, c, size, size); });
  }
  static result omp(input n) {
    return product_of(
        n, [](operand a, operand b, double* c, int size) { strassen_omp(a, b, c, size, size); });
  }

  static std::uint64_t tasks(input n) { return strassen_tasks(n); }
  static std::string check(input n, const result& got, const result& ref) {
    // Against the serial run, then against the plain product (plain mode passes the run's own
    // result as `ref`, so this second comparison is what checks it there).
    if (got.size() != ref.size() ||
        std::memcmp(got.data(), ref.data(), got.size() * sizeof(double)) != 0) {
      return "the product differs from the serial one";
    }
    const std::vector<double>& plain = plain_product(n);
    for (std::size_t k = 0; k < plain.size(); ++k) {
      if (std::memcmp(&plain[k], &got[k], sizeof(double)) != 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "C[%zu][%zu] = %.17g, the plain product has %.17g",
                      k / std::size_t(n), k % std::size_t(n), got[k], plain[k]);
        return buf;
      }
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(strassen_workload)
