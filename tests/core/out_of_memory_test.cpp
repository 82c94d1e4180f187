// Out of memory: every allocation a workload makes is made to fail in turn (the first, then the
// second, ...), on every scheduler. Each run must end with the right result or with
// std::bad_alloc at the sync_wait caller: never a crash, a hang, a leak (LeakSanitizer in the
// asan config) or a wrong result. The replaced operator new below sees every allocation tine
// makes (stacklets, deque growth) and the workloads' own (//tests:failing_new).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <new>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <tine/algorithms/reduce.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/failing_new.hpp"

using tine_tests::failing_new::arm;
using tine_tests::failing_new::disarm;

namespace {

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

// Deep enough to need several stacklets (each level's frame holds a 200-byte buffer).
tine::task<long> deep(int n) {
  volatile char pad[200] = {};
  if (n == 0) {
    co_return pad[0];
  }
  long r = 0;
  co_await tine::call(&r, deep, n - 1);
  co_return r + 1 + pad[1];
}

tine::task<long> leaf(long i) { co_return i; }

// Wide enough to grow the deque (first capacity 1024) and to put the results on a new stacklet.
tine::task<long> wide(long n) {
  tine::stack_array<long> parts = co_await tine::stack_alloc<long>(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    co_await tine::fork(&parts[static_cast<std::size_t>(i)], leaf, i);
  }
  co_await tine::join();
  co_return std::accumulate(parts.begin(), parts.end(), 0L);
}

tine::task<long> workload(const std::vector<long>* values) {
  long f = 0;
  long d = 0;
  long w = 0;
  long s = 0;
  co_await tine::fork(&f, fib, 14);
  co_await tine::fork(&d, deep, 300);
  co_await tine::fork(&w, wide, 3000);
  co_await tine::call(&s, tine::async::reduce, *values, 0L, std::plus<>{}, tine::grain{64});
  co_await tine::join();
  co_return f + d + w + s;
}

// Fails each allocation of the workload in turn, with a fresh scheduler each time (cold stacks
// allocate most). Returns how many runs threw std::bad_alloc.
template <typename MakeScheduler>
long fail_each_allocation(MakeScheduler make) {
  std::vector<long> values(100000);
  std::iota(values.begin(), values.end(), 0L);
  const long expected = 377 + 300 + 3000L * 2999 / 2 + 100000L * 99999 / 2;
  long bad_allocs = 0;
  for (long n = 1;; ++n) {
    auto sched = make();
    arm(n);
    long result = -1;
    bool threw = false;
    try {
      result = tine::sync_wait(*sched, workload, &values);
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    const long made = disarm();
    if (threw) {
      ++bad_allocs;
    } else {
      BOOST_TEST(result == expected, "wrong result with allocation " << n << " failing");
    }
    // The scheduler still works after the failure.
    BOOST_TEST(tine::sync_wait(*sched, fib, 10) == 55);
    if (made < n) {
      BOOST_TEST_MESSAGE(n - 1 << " allocations, each failed once");
      BOOST_TEST(n > 1);  // the workload allocated at least once, or the test proves nothing
      return bad_allocs;
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(out_of_memory)

BOOST_AUTO_TEST_CASE(inline_scheduler, *boost::unit_test::timeout(300)) {
  const long failures =
      fail_each_allocation([] { return std::make_unique<tine::inline_scheduler>(); });
  BOOST_TEST(failures > 0);
}

BOOST_AUTO_TEST_CASE(busy_pool, *boost::unit_test::timeout(300)) {
  fail_each_allocation([] { return std::make_unique<tine::busy_pool<>>(2); });
}

BOOST_AUTO_TEST_CASE(lazy_pool, *boost::unit_test::timeout(300)) {
  fail_each_allocation([] { return std::make_unique<tine::lazy_pool<>>(2); });
}

BOOST_AUTO_TEST_CASE(user_written_pool, *boost::unit_test::timeout(300)) {
  fail_each_allocation([] { return std::make_unique<tine::testing::simple_pool>(2); });
}

BOOST_AUTO_TEST_SUITE_END()
