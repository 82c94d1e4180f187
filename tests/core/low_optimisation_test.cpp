// Long runs of coroutine switches in builds where the compiler does not make symmetric transfer
// a tail call (-O0, -O1, -Og, -fno-optimize-sibling-calls, sanitizers): the thread's stack must
// stay bounded. The BUILD file compiles this file once per such flag set.
#include <boost/test/unit_test.hpp>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace {

tine::task<long> leaf(long i) { co_return i & 1; }

// A million forks and joins in one task: each switches to the child and back.
tine::task<long> many_fork_joins(long n) {
  long total = 0;
  for (long i = 0; i < n; ++i) {
    long r = 0;
    co_await tine::fork(&r, leaf, i);
    co_await tine::join();
    total += r;
  }
  co_return total;
}

// A million nested calls: each level switches down, and on the way back up.
tine::task<long> deep(long n) {
  if (n == 0) {
    co_return 0;
  }
  long r = 0;
  co_await tine::call(&r, deep, n - 1);
  co_return r + 1;
}

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

}  // namespace

BOOST_AUTO_TEST_SUITE(low_optimisation)

BOOST_AUTO_TEST_CASE(million_fork_joins_and_a_million_deep_calls, *boost::unit_test::timeout(300)) {
  tine::inline_scheduler sched;
  constexpr long n = 1'000'000;
  BOOST_TEST(tine::sync_wait(sched, many_fork_joins, n) == n / 2);
  BOOST_TEST(tine::sync_wait(sched, deep, n) == n);
}

BOOST_AUTO_TEST_CASE(fib_with_stealing, *boost::unit_test::timeout(300)) {
  tine::busy_pool<> pool(2);
  BOOST_TEST(tine::sync_wait(pool, fib, 25) == 75025);
  BOOST_TEST(tine::sync_wait(pool, many_fork_joins, 200'000L) == 100'000);
}

BOOST_AUTO_TEST_SUITE_END()
