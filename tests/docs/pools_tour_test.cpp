// The examples of docs/tour.md and README.md that need the pools and the algorithms.
#include <boost/test/unit_test.hpp>

#include <functional>
#include <vector>

#include <tine/tine.hpp>

namespace readme {

// The README's program, compiled here with its main() renamed (the test binary has its own).
#define main readme_main
// clang-format off
// [docs:readme]
tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);  // child runs now; the rest of fib may be stolen
  co_await tine::call(&b, fib, n - 2);  // plain call, nothing to steal
  co_await tine::join();                // greedy join: the last strand to arrive continues
  co_return a + b;
}

int main() {
  tine::lazy_pool<> pool;                   // one worker per core; idle workers sleep
  long f = tine::sync_wait(pool, fib, 30);  // 832040
  std::vector<double> values(1000, 0.5);
  double s = tine::reduce(pool, values, 0.0, std::plus<>{});  // 500
  return f == 832040 && s == 500.0 ? 0 : 1;
}
// [docs:readme end]
// clang-format on
#undef main

}  // namespace readme

namespace tour {
using readme::fib;
}

BOOST_AUTO_TEST_SUITE(tour_pools)

BOOST_AUTO_TEST_CASE(readme_example) { BOOST_TEST(readme::readme_main() == 0); }

BOOST_AUTO_TEST_CASE(lazy_pool_example) {
  // clang-format off
  // [docs:lazy_pool]
  tine::lazy_pool<> pool(2);
  long r = tine::sync_wait(pool, tour::fib, 25);
  // [docs:lazy_pool end]
  // clang-format on
  BOOST_TEST(r == 75025);
}

BOOST_AUTO_TEST_SUITE_END()
