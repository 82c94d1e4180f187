/// matmul: C = A x B for n x n matrices (n a power of two), recursive and cache-oblivious: split
/// each matrix into quadrants, compute the four products A_i0 B_0j in parallel, join, then add the
/// four A_i1 B_1j in parallel; below 32 x 32 a plain triple loop. One task = one invocation.

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/dense.hpp"
#include "bench/suite/harness.hpp"

namespace {

constexpr int base = 32;

/// Row-major blocks inside matrices of row stride s.
struct mats {
  const float* a;
  const float* b;
  float* c;
};

void mm_base(const float* a, const float* b, float* c, int n, int s, bool add) {
  for (int i = 0; i < n; ++i) {
    float* ci = c + i * s;
    if (!add) {
      for (int j = 0; j < n; ++j) {
        ci[j] = 0;
      }
    }
    for (int k = 0; k < n; ++k) {
      const float aik = a[i * s + k];
      const float* bk = b + k * s;
      for (int j = 0; j < n; ++j) {
        ci[j] += aik * bk[j];
      }
    }
  }
}

// Quadrant (r, q) of a block of size 2h at p.
template <class T>
T* quad(T* p, int r, int q, int h, int s) {
  return p + r * h * s + q * h;
}

void mm_serial(const float* a, const float* b, float* c, int n, int s, bool add) {
  if (n <= base) {
    mm_base(a, b, c, n, s, add);
    return;
  }
  int h = n / 2;
  for (int phase = 0; phase < 2; ++phase) {
    for (int r = 0; r < 2; ++r) {
      for (int q = 0; q < 2; ++q) {
        mm_serial(quad(a, r, phase, h, s), quad(b, phase, q, h, s), quad(c, r, q, h, s), h, s,
                  add || phase == 1);
      }
    }
  }
}

std::uint64_t mm_count(int n) { return n <= base ? 1 : 1 + 8 * mm_count(n / 2); }

tine::task<void> mm_tine(const float* a, const float* b, float* c, int n, int s, bool add) {
  if (n <= base) {
    mm_base(a, b, c, n, s, add);
    co_return;
  }
  int h = n / 2;
  for (int phase = 0; phase < 2; ++phase) {
    co_await tine::fork(mm_tine, quad(a, 0, phase, h, s), quad(b, phase, 0, h, s),
                        quad(c, 0, 0, h, s), h, s, add || phase == 1);
    co_await tine::fork(mm_tine, quad(a, 0, phase, h, s), quad(b, phase, 1, h, s),
                        quad(c, 0, 1, h, s), h, s, add || phase == 1);
    co_await tine::fork(mm_tine, quad(a, 1, phase, h, s), quad(b, phase, 0, h, s),
                        quad(c, 1, 0, h, s), h, s, add || phase == 1);
    co_await tine::call(mm_tine, quad(a, 1, phase, h, s), quad(b, phase, 1, h, s),
                        quad(c, 1, 1, h, s), h, s, add || phase == 1);
    co_await tine::join();
  }
}

void mm_tbb(const float* a, const float* b, float* c, int n, int s, bool add) {
  if (n <= base) {
    mm_base(a, b, c, n, s, add);
    return;
  }
  int h = n / 2;
  for (int phase = 0; phase < 2; ++phase) {
    tbb::task_group g;
    bool ad = add || phase == 1;
    g.run([=] {
      mm_tbb(quad(a, 0, phase, h, s), quad(b, phase, 0, h, s), quad(c, 0, 0, h, s), h, s, ad);
    });
    g.run([=] {
      mm_tbb(quad(a, 0, phase, h, s), quad(b, phase, 1, h, s), quad(c, 0, 1, h, s), h, s, ad);
    });
    g.run([=] {
      mm_tbb(quad(a, 1, phase, h, s), quad(b, phase, 0, h, s), quad(c, 1, 0, h, s), h, s, ad);
    });
    mm_tbb(quad(a, 1, phase, h, s), quad(b, phase, 1, h, s), quad(c, 1, 1, h, s), h, s, ad);
    g.wait();
  }
}

void mm_omp(const float* a, const float* b, float* c, int n, int s, bool add) {
  if (n <= base) {
    mm_base(a, b, c, n, s, add);
    return;
  }
  int h = n / 2;
  for (int phase = 0; phase < 2; ++phase) {
    bool ad = add || phase == 1;
#pragma omp task default(none) firstprivate(a, b, c, h, s, ad, phase)
    mm_omp(quad(a, 0, phase, h, s), quad(b, phase, 0, h, s), quad(c, 0, 0, h, s), h, s, ad);
#pragma omp task default(none) firstprivate(a, b, c, h, s, ad, phase)
    mm_omp(quad(a, 0, phase, h, s), quad(b, phase, 1, h, s), quad(c, 0, 1, h, s), h, s, ad);
#pragma omp task default(none) firstprivate(a, b, c, h, s, ad, phase)
    mm_omp(quad(a, 1, phase, h, s), quad(b, phase, 0, h, s), quad(c, 1, 0, h, s), h, s, ad);
    mm_omp(quad(a, 1, phase, h, s), quad(b, phase, 1, h, s), quad(c, 1, 1, h, s), h, s, ad);
#pragma omp taskwait
  }
}

/// The matrices of one size, made once per process; C is overwritten by every run.
struct problem {
  int n;
  std::vector<float> a, b;
  std::shared_ptr<std::vector<float>> c;
};

const problem& get(int n) {
  static std::vector<std::unique_ptr<problem>> all;
  for (auto& p : all) {
    if (p->n == n) {
      return *p;
    }
  }
  auto p = std::make_unique<problem>();
  p->n = n;
  p->a.resize(std::size_t(n) * n);
  p->b.resize(std::size_t(n) * n);
  p->c = std::make_shared<std::vector<float>>(std::size_t(n) * n);
  // Small integers: every sum is exact in float, so all orders of summation agree bit for bit.
  for (std::size_t i = 0; i < p->a.size(); ++i) {
    p->a[i] = static_cast<float>(int(i * 7 % 5) - 2);
    p->b[i] = static_cast<float>(int(i * 11 % 3) - 1);
  }
  all.push_back(std::move(p));
  return *all.back();
}

struct matmul_workload {
  static constexpr const char* name = "matmul";
  // Its check compares with the serial result: --plain makes one first (harness.hpp).
  static constexpr bool plain_checks_against_serial = true;
  using input = int;
  using result = double;  // checksum of C

  static input parse(std::string_view s) { return bench::power_of_two_input(s, name); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {1024}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 128; }

  static double checksum(const problem& p) {
    double sum = 0;
    for (std::size_t i = 0; i < p.c->size(); ++i) {
      sum += (*p.c)[i] * double(i % 13 + 1);
    }
    return sum;
  }
  static result serial(input n) {
    const auto& p = get(n);
    mm_serial(p.a.data(), p.b.data(), p.c->data(), n, n, false);
    return checksum(p);
  }
  template <class S>
  static result tine(S& s, input n) {
    const auto& p = get(n);
    const float* a = p.a.data();
    const float* b = p.b.data();
    float* c = p.c->data();
    tine::sync_wait(s, mm_tine, a, b, c, n, n, false);
    return checksum(p);
  }
  static result tbb(input n) {
    const auto& p = get(n);
    mm_tbb(p.a.data(), p.b.data(), p.c->data(), n, n, false);
    return checksum(p);
  }
  static result omp(input n) {
    const auto& p = get(n);
    mm_omp(p.a.data(), p.b.data(), p.c->data(), n, n, false);
    return checksum(p);
  }

  static std::uint64_t tasks(input n) { return mm_count(n); }
  static std::string check(input, result got, result ref) {
    if (got != ref) {
      char buf[120];
      std::snprintf(buf, sizeof buf, "wrong checksum %.17g, serial %.17g", got, ref);
      return buf;
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(matmul_workload)
