#ifndef TINE_TESTS_ALGORITHMS_TEST_SUPPORT_HPP
#define TINE_TESTS_ALGORITHMS_TEST_SUPPORT_HPP

// Shared by the algorithm tests: the schedulers every test runs on (inline, the stealing test
// pool with 1-3 threads, busy_pool and lazy_pool; fewer under the sanitizers), the input sizes,
// grain sizes (fixed seeds), an error type, and a gauge that proves no user callback is still
// running when an exception reaches the caller.

#include <atomic>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <vector>

#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <tine/algorithms/grain.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/sanitizers.hpp"

namespace tine_test {

// The stealing test pool with N threads; 3 is more than CI's 2 cores, so workers are preempted
// in the middle of tasks.
template <std::size_t N>
struct pool : tine::testing::simple_pool {
  pool() : tine::testing::simple_pool(N) {}
};

// tine's own pools with two workers (one per CI core).
struct busy2 : tine::busy_pool<> {
  busy2() : tine::busy_pool<>(2) {}
};
struct lazy2 : tine::lazy_pool<> {
  lazy2() : tine::lazy_pool<>(2) {}
};

// Under ASan or TSan (tests/sanitizers.hpp), large cases are trimmed to keep CI's sanitizer runs
// short.
using tine_tests::sanitized;

#ifndef TINE_TEST_SANITIZED
using schedulers =
    boost::mpl::list<tine::inline_scheduler, pool<1>, pool<2>, pool<3>, busy2, lazy2>;
#else
// Under the sanitizers, whose builds are the slowest part of CI: the inline scheduler, the test
// pool oversubscribed (preempted in the middle of tasks) and both pools. The test pool at 1 and
// 2 threads runs in the plain and Clang builds.
using schedulers = boost::mpl::list<tine::inline_scheduler, pool<3>, busy2, lazy2>;
#endif

// TINE_SCHEDULER_TEST_CASE(name, list) { ... `sched` ... }: one test case per scheduler of the
// list (named as BOOST_AUTO_TEST_CASE_TEMPLATE names them), whose body sees the scheduler as a
// tine::scheduler_ref `sched`. The body is compiled once, not once per scheduler type: its
// algorithm calls, and every lambda in it, would otherwise be instantiated six times over (once
// per type of the list), which made these tests the longest compilations of the suite. What
// runs is the same: each scheduler's own schedule() behind the reference.
#define TINE_SCHEDULER_TEST_CASE(name, list)         \
  void name##_on(tine::scheduler_ref sched);         \
  BOOST_AUTO_TEST_CASE_TEMPLATE(name, Sched, list) { \
    Sched concrete;                                  \
    name##_on(tine::scheduler_ref(concrete));        \
  }                                                  \
  void name##_on(tine::scheduler_ref sched)

// Empty, one, two, odd, prime, and large (also prime) inputs.
inline const std::vector<std::size_t> sizes = {0, 1, 2, 7, 97, 1031, 100003};

// Grains to try at size n: automatic, one element per leaf (small inputs only: it forks once
// per element), larger than the input, and random ones from a fixed seed.
inline std::vector<tine::grain> grains(std::size_t n, unsigned seed) {
  std::vector<tine::grain> gs = {tine::grain{}, tine::grain{n + 3}};
  if (n <= 1031) {
    gs.push_back(tine::grain{1});
  }
  std::mt19937 rng(seed + static_cast<unsigned>(n));
  std::uniform_int_distribution<std::size_t> pick(n <= 1031 ? 1 : 64, n + 1);
  for (int i = 0; i < 2; ++i) {
    gs.push_back(tine::grain{pick(rng)});
  }
  return gs;
}

// Indices at which a test throws: the first, the last and a random element.
inline std::vector<std::size_t> throw_points(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  return {0, n - 1, std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)};
}

struct test_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Counts user callbacks in progress: an exception must reach the caller only once it is zero.
struct gauge {
  std::atomic<int> live{0};
  std::atomic<int> peak{0};

  struct scope {
    gauge* g;
    explicit scope(gauge* gg) : g(gg) {
      const int now = g->live.fetch_add(1) + 1;
      int p = g->peak.load();
      while (now > p && !g->peak.compare_exchange_weak(p, now)) {
      }
    }
    ~scope() { g->live.fetch_sub(1); }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
  };
};

// A half-open interval of indices. Combining two is defined only for neighbours, in order: the
// result of a reduction or scan over [i, i+1) elements shows whether the algorithm combined
// in order (an associative, non-commutative operation).
struct interval {
  long lo = 0;
  long hi = 0;
  bool ok = true;
  friend bool operator==(const interval&, const interval&) = default;
};

struct join_intervals {
  interval operator()(const interval& a, const interval& b) const {
    return {a.lo, b.hi, a.ok && b.ok && a.hi == b.lo};
  }
};

inline std::vector<interval> unit_intervals(std::size_t n) {
  std::vector<interval> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = {static_cast<long>(i), static_cast<long>(i) + 1, true};
  }
  return v;
}

}  // namespace tine_test

#endif  // TINE_TESTS_ALGORITHMS_TEST_SUPPORT_HPP
