// tine::count_if and tine::count against std::ranges::count_if and count, over every scheduler,
// input sizes and grains; the predicate called once per element; exceptions at the first, last
// and a random element; a list, a temporary container and a view as inputs; the task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <deque>
#include <iterator>
#include <list>
#include <random>
#include <ranges>
#include <vector>

#include <range/v3/view/iota.hpp>

#include <tine/algorithms/count.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// Values in [-5, 5) from a fixed seed: plenty of hits and misses, in no pattern.
std::vector<int> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(-5, 4);
  std::vector<int> v(n);
  for (int& x : v) {
    x = pick(rng);
  }
  return v;
}

// clang-format off
// [docs:count_nested]
// Counts the negative and the zero elements of a vector at once, inside a task: the two counts
// run side by side (a forked argument must outlive the statement: the predicate is named).
tine::task<long> negatives_and_zeros(const std::vector<int>* v) {
  long negatives = 0;
  long zeros = 0;
  const auto negative = [](int x) { return x < 0; };
  co_await tine::fork(&negatives, tine::async::count_if, *v, negative);
  co_await tine::call(&zeros, tine::async::count, *v, 0);
  co_await tine::join();
  co_return negatives + zeros;
}
// [docs:count_nested end]
// clang-format on

}  // namespace

BOOST_AUTO_TEST_SUITE(count)

// The result has the input's difference type, as std::ranges::count_if's.
static_assert(std::same_as<decltype(tine::count_if(std::declval<tine::inline_scheduler&>(),
                                                   std::declval<std::vector<int>&>(),
                                                   [](int) { return true; })),
                           std::ranges::range_difference_t<std::vector<int>>>);
static_assert(std::same_as<decltype(tine::count(std::declval<tine::inline_scheduler&>(),
                                                std::declval<std::list<short>&>(), 1)),
                           std::ranges::range_difference_t<std::list<short>>>);

TINE_SCHEDULER_TEST_CASE(matches_std_count, schedulers) {
  auto negative = [](int x) { return x < 0; };
  for (std::size_t n : tine_test::sizes) {
    const std::vector<int> v = random_values(n, 31);
    const auto expected_if = std::ranges::count_if(v, negative);
    const auto expected = std::ranges::count(v, 3);
    for (tine::grain g : tine_test::grains(n, 32)) {
      BOOST_TEST(tine::count_if(sched, v, negative, g) == expected_if,
                 "n=" << n << " grain=" << g.size);
      BOOST_TEST(tine::count_if(sched, v.begin(), v.end(), negative, g) == expected_if);
      BOOST_TEST(tine::count(sched, v, 3, g) == expected);
      BOOST_TEST(tine::count(sched, v.begin(), v.end(), 3, g) == expected);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(calls_the_predicate_once_per_element, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    for (tine::grain g : tine_test::grains(n, 33)) {
      std::vector<std::atomic<int>> calls(n);
      std::vector<std::size_t> index(n);
      for (std::size_t i = 0; i < n; ++i) {
        index[i] = i;
      }
      auto even = [&calls](std::size_t i) {
        calls[i].fetch_add(1, std::memory_order_relaxed);
        return i % 2 == 0;
      };
      BOOST_TEST(tine::count_if(sched, index, even, g) == static_cast<long>((n + 1) / 2));
      BOOST_TEST(std::ranges::all_of(calls, [](const std::atomic<int>& c) { return c == 1; }),
                 "n=" << n << " grain=" << g.size);
    }
  }
}

// clang-format off
// [docs:count_basic]
TINE_SCHEDULER_TEST_CASE(counts_in_any_input, schedulers) {
  const std::vector<int> v = {3, -1, 4, -1, 5, -9, 2, 6};
  BOOST_TEST(tine::count_if(sched, v, [](int x) { return x < 0; }) == 3);
  BOOST_TEST(tine::count(sched, v.begin(), v.end(), -1) == 2);
  // Any forward range: a list, a temporary container, a view.
  const std::list<int> l(v.begin(), v.end());
  BOOST_TEST(tine::count(sched, l, 4) == 1);
  BOOST_TEST(tine::count_if(sched, std::vector<int>(1000, 7), [](int x) { return x == 7; }) ==
             1000);
  BOOST_TEST(tine::count_if(sched, ranges::views::iota(0, 1000), [](int i) { return i % 3 == 0; },
                            tine::grain{16}) == 334);
}
// [docs:count_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(lists_and_deques, schedulers) {
  for (std::size_t n : {0UL, 1UL, 97UL, 1031UL}) {
    const std::vector<int> v = random_values(n, 34);
    const std::list<int> l(v.begin(), v.end());
    const std::deque<int> d(v.begin(), v.end());
    for (tine::grain g : tine_test::grains(n, 35)) {
      BOOST_TEST(tine::count(sched, l, -2, g) == std::ranges::count(v, -2));
      BOOST_TEST(tine::count_if(
                     sched, l.begin(), l.end(), [](int x) { return x > 2; }, g) ==
                 std::ranges::count_if(v, [](int x) { return x > 2; }));
      BOOST_TEST(tine::count(sched, d, 0, g) == std::ranges::count(v, 0));
    }
  }
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 36)) {
      for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{13}}) {
        if (g.size == 1 && n > 1031) {
          continue;
        }
        tine_test::gauge gauge;
        std::vector<int> v(n, 0);
        v[bad] = 1;
        auto pred = [&gauge](int x) {
          tine_test::gauge::scope busy(&gauge);
          if (x == 1) {
            throw tine_test::test_error("count_if");
          }
          return x == 0;
        };
        BOOST_CHECK_THROW(tine::count_if(sched, v, pred, g), tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  const std::vector<int> v = random_values(10007, 37);
  const long expected =
      std::ranges::count_if(v, [](int x) { return x < 0; }) + std::ranges::count(v, 0);
  BOOST_TEST(tine::sync_wait(sched, negatives_and_zeros, &v) == expected);
}

BOOST_AUTO_TEST_SUITE_END()
