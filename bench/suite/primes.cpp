/// primes: counts the primes up to n by trial division of each number by the odd numbers up to its
/// square root, the range split in halves down to 1024 numbers. The cost of a number grows with
/// its square root and is far higher for primes than for composites, so the leaves are uneven.
/// Checked against a sieve. One task = one range.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"

namespace {

constexpr std::uint64_t grain = 1024;

bool is_prime(std::uint64_t x) {
  if (x < 2) {
    return false;
  }
  if (x % 2 == 0) {
    return x == 2;
  }
  for (std::uint64_t d = 3; d * d <= x; d += 2) {
    if (x % d == 0) {
      return false;
    }
  }
  return true;
}

/// Primes in [lo, hi).
std::uint64_t count(std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t k = 0;
  for (std::uint64_t x = lo; x < hi; ++x) {
    k += is_prime(x) ? 1 : 0;
  }
  return k;
}

tine::task<std::uint64_t> count_tine(std::uint64_t lo, std::uint64_t hi) {
  if (hi - lo <= grain) {
    co_return count(lo, hi);
  }
  const std::uint64_t mid = lo + (hi - lo) / 2;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  co_await tine::fork(&a, count_tine, lo, mid);
  co_await tine::call(&b, count_tine, mid, hi);
  co_await tine::join();
  co_return a + b;
}

std::uint64_t count_tbb(std::uint64_t lo, std::uint64_t hi) {
  if (hi - lo <= grain) {
    return count(lo, hi);
  }
  const std::uint64_t mid = lo + (hi - lo) / 2;
  std::uint64_t a = 0;
  tbb::task_group g;
  g.run([&a, lo, mid] { a = count_tbb(lo, mid); });
  const std::uint64_t b = count_tbb(mid, hi);
  g.wait();
  return a + b;
}

std::uint64_t count_omp(std::uint64_t lo, std::uint64_t hi) {
  if (hi - lo <= grain) {
    return count(lo, hi);
  }
  const std::uint64_t mid = lo + (hi - lo) / 2;
  std::uint64_t a = 0;
#pragma omp task default(none) shared(a) firstprivate(lo, mid)
  a = count_omp(lo, mid);
  const std::uint64_t b = count_omp(mid, hi);
#pragma omp taskwait
  return a + b;
}

std::uint64_t range_tasks(std::uint64_t lo, std::uint64_t hi) {
  return hi - lo <= grain
             ? 1
             : 1 + range_tasks(lo, lo + (hi - lo) / 2) + range_tasks(lo + (hi - lo) / 2, hi);
}

/// The primes up to n by the sieve of Eratosthenes.
std::uint64_t sieve(std::uint64_t n) {
  std::vector<bool> composite(n + 1, false);
  std::uint64_t k = 0;
  for (std::uint64_t x = 2; x <= n; ++x) {
    if (!composite[x]) {
      ++k;
      for (std::uint64_t m = x * x; m <= n; m += x) {
        composite[m] = true;
      }
    }
  }
  return k;
}

struct primes_workload {
  static constexpr const char* name = "primes";
  using input = std::uint64_t;  // n: primes up to n
  using result = std::uint64_t;

  static input parse(std::string_view s) { return std::stoull(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {4'000'000}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 100'000; }

  static result serial(input n) { return count(0, n + 1); }
  template <class S>
  static result tine(S& s, input n) {
    return tine::sync_wait(s, count_tine, std::uint64_t{0}, n + 1);
  }
  static result tbb(input n) { return count_tbb(0, n + 1); }
  static result omp(input n) { return count_omp(0, n + 1); }

  static std::uint64_t tasks(input n) { return range_tasks(0, n + 1); }
  static std::string check(input n, result got, result ref) {
    // Checks run inside the timed loop: the sieve once per n.
    static std::vector<std::pair<input, std::uint64_t>> sieved;
    std::uint64_t want = 0;
    bool known = false;
    for (const auto& [size, k] : sieved) {
      if (size == n) {
        want = k;
        known = true;
      }
    }
    if (!known) {
      want = sieve(n);
      sieved.emplace_back(n, want);
    }
    if (got != want || ref != want) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "%llu primes (serial %llu), the sieve says %llu",
                    static_cast<unsigned long long>(got), static_cast<unsigned long long>(ref),
                    static_cast<unsigned long long>(want));
      return buf;
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(primes_workload)
