// tine::min_element, max_element and minmax_element against their std::ranges counterparts, over
// every scheduler, input sizes and grains: inputs full of ties, where only the tie rules (first
// smallest, first largest; minmax_element's last largest) give std's position; comparators and
// projections; exceptions at the first, last and a random element; a list (positions mapped back
// to its iterators), temporaries (std::ranges::dangling) and the task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <list>
#include <random>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include <tine/algorithms/extrema.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// Values in [0, 7) from a fixed seed: every value, the smallest and the largest included, occurs
// many times in a large input.
std::vector<int> values_with_ties(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 6);
  std::vector<int> v(n);
  for (int& x : v) {
    x = pick(rng);
  }
  return v;
}

// The positions, as indices, that tine and std give on the same input.
template <typename R, typename It>
long index_in(const R& r, It it) {
  return static_cast<long>(std::ranges::distance(std::ranges::begin(r), it));
}

// clang-format off
// [docs:extrema_nested]
// The spread of a vector (largest minus smallest), inside a task; an empty vector has none.
tine::task<long> spread(const std::vector<long>* v) {
  std::ranges::min_max_result<std::vector<long>::const_iterator> ends;
  co_await tine::call(&ends, tine::async::minmax_element, *v);
  co_await tine::join();
  co_return v->empty() ? 0 : *ends.max - *ends.min;
}
// [docs:extrema_nested end]
// clang-format on

}  // namespace

BOOST_AUTO_TEST_SUITE(extrema)

// A temporary container gives std::ranges::dangling, as std::ranges does; a temporary view over
// storage that outlives it (a span, iota) gives an iterator.
static_assert(std::same_as<decltype(tine::min_element(std::declval<tine::inline_scheduler&>(),
                                                      std::vector<int>{})),
                           std::ranges::dangling>);
static_assert(std::same_as<decltype(tine::minmax_element(std::declval<tine::inline_scheduler&>(),
                                                         std::vector<int>{})),
                           std::ranges::min_max_result<std::ranges::dangling>>);
static_assert(std::same_as<decltype(tine::max_element(std::declval<tine::inline_scheduler&>(),
                                                      std::span<int>{})),
                           std::span<int>::iterator>);
static_assert(std::same_as<decltype(tine::min_element(std::declval<tine::inline_scheduler&>(),
                                                      std::declval<std::list<int>&>())),
                           std::list<int>::iterator>);

TINE_SCHEDULER_TEST_CASE(same_positions_as_std_with_ties, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<int> v = values_with_ties(n, 41);
    const long min = index_in(v, std::ranges::min_element(v));
    const long max = index_in(v, std::ranges::max_element(v));
    const auto mm = std::ranges::minmax_element(v);
    for (tine::grain g : tine_test::grains(n, 42)) {
      BOOST_TEST(index_in(v, tine::min_element(sched, v, g)) == min,
                 "n=" << n << " grain=" << g.size);
      BOOST_TEST(index_in(v, tine::max_element(sched, v.begin(), v.end(), g)) == max);
      const auto tmm = tine::minmax_element(sched, v, g);
      BOOST_TEST(index_in(v, tmm.min) == index_in(v, mm.min));
      BOOST_TEST(index_in(v, tmm.max) == index_in(v, mm.max));
    }
  }
}

TINE_SCHEDULER_TEST_CASE(all_equal, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<int> v(n, 5);
    const long last = n == 0 ? 0 : static_cast<long>(n) - 1;
    for (tine::grain g : tine_test::grains(n, 43)) {
      BOOST_TEST(index_in(v, tine::min_element(sched, v, g)) == 0);
      BOOST_TEST(index_in(v, tine::max_element(sched, v, g)) == 0);
      const auto mm = tine::minmax_element(sched, v, g);
      BOOST_TEST(index_in(v, mm.min) == 0);
      BOOST_TEST(index_in(v, mm.max) == (n == 0 ? 0 : last), "n=" << n << " grain=" << g.size);
    }
  }
}

// clang-format off
// [docs:extrema_basic]
TINE_SCHEDULER_TEST_CASE(the_same_element_as_std, schedulers) {
  const std::vector<int> v = {4, 1, 7, 1, 7, 3};
  BOOST_TEST(std::distance(v.begin(), tine::min_element(sched, v)) == 1);  // the first 1
  BOOST_TEST(std::distance(v.begin(), tine::max_element(sched, v)) == 2);  // the first 7
  const auto [lo, hi] = tine::minmax_element(sched, v);
  BOOST_TEST(std::distance(v.begin(), lo) == 1);  // the first 1
  BOOST_TEST(std::distance(v.begin(), hi) == 4);  // the last 7, as std::minmax_element
  // A comparator and a projection, as in std::ranges.
  const std::vector<std::string> words = {"fork", "join", "steal", "spawn", "sync"};
  auto longest = tine::max_element(sched, words, std::ranges::less{}, &std::string::size);
  BOOST_TEST(*longest == "steal");
  // A list: the result is an iterator of the list.
  const std::list<int> l(v.begin(), v.end());
  BOOST_TEST(*tine::min_element(sched, l, std::ranges::greater{}) == 7);
}
// [docs:extrema_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(comparators_and_projections, schedulers) {
  for (std::size_t n : {0UL, 1UL, 7UL, 1031UL, 100003UL}) {
    const std::vector<int> v = values_with_ties(n, 44);
    auto distance_to_3 = [](int x) { return x < 3 ? 3 - x : x - 3; };
    for (tine::grain g : tine_test::grains(n, 45)) {
      BOOST_TEST(index_in(v, tine::min_element(sched, v, std::ranges::greater{}, g)) ==
                 index_in(v, std::ranges::min_element(v, std::ranges::greater{})));
      BOOST_TEST(index_in(v, tine::max_element(sched, v, std::ranges::less{}, distance_to_3, g)) ==
                 index_in(v, std::ranges::max_element(v, std::ranges::less{}, distance_to_3)));
      const auto tmm = tine::minmax_element(sched, v, std::ranges::greater{}, distance_to_3, g);
      const auto mm = std::ranges::minmax_element(v, std::ranges::greater{}, distance_to_3);
      BOOST_TEST(index_in(v, tmm.min) == index_in(v, mm.min), "n=" << n << " grain=" << g.size);
      BOOST_TEST(index_in(v, tmm.max) == index_in(v, mm.max));
    }
  }
}

TINE_SCHEDULER_TEST_CASE(lists_and_temporaries, schedulers) {
  for (std::size_t n : {0UL, 1UL, 2UL, 97UL, 1031UL}) {
    const std::vector<int> v = values_with_ties(n, 46);
    std::list<int> l(v.begin(), v.end());
    const auto mm = std::ranges::minmax_element(l);
    for (tine::grain g : tine_test::grains(n, 47)) {
      BOOST_TEST((tine::min_element(sched, l, g) == std::ranges::min_element(l)));
      BOOST_TEST((tine::max_element(sched, l.begin(), l.end(), g) == std::ranges::max_element(l)));
      const auto tmm = tine::minmax_element(sched, l, g);
      BOOST_TEST((tmm.min == mm.min), "n=" << n << " grain=" << g.size);
      BOOST_TEST((tmm.max == mm.max));
    }
  }
  // A temporary borrowed view gives an iterator whose value can be read.
  BOOST_TEST(*tine::max_element(sched, std::views::iota(0, 1000), tine::grain{7}) == 999);
  (void)tine::min_element(sched, std::vector<int>{3, 1, 2});  // dangling: runs, returns nothing
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  // (One element is the answer without a comparison: as std's, nothing is called.)
  for (std::size_t n : {2UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 48)) {
      for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{13}}) {
        if (g.size == 1 && n > 1031) {
          continue;
        }
        tine_test::gauge gauge;
        std::vector<int> v(n, 0);
        v[bad] = 1;
        // The projection sees every element at least once.
        auto proj = [&gauge](int x) {
          tine_test::gauge::scope busy(&gauge);
          if (x == 1) {
            throw tine_test::test_error("extrema");
          }
          return x;
        };
        BOOST_CHECK_THROW(tine::min_element(sched, v, std::ranges::less{}, proj, g),
                          tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
        BOOST_CHECK_THROW(tine::minmax_element(sched, v, std::ranges::less{}, proj, g),
                          tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<long> v(10007);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<long>((i * 7919) % 10007);  // a permutation of [0, 10007)
  }
  BOOST_TEST(tine::sync_wait(sched, spread, &v) == 10006);
  const std::vector<long> empty;
  BOOST_TEST(tine::sync_wait(sched, spread, &empty) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
