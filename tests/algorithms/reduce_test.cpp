// tine::reduce and tine::transform_reduce against std::accumulate / std::inner_product, over
// every scheduler, input sizes and grains; in-order combination with non-commutative ops;
// exceptions; range-v3 views; the task forms.
#include <boost/test/unit_test.hpp>

#include <array>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

#include <tine/algorithms/reduce.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

std::vector<long> iota_vector(std::size_t n) {
  std::vector<long> v(n);
  std::iota(v.begin(), v.end(), 1L);
  return v;
}

// clang-format off
// [docs:reduce_in_a_task]
// The sum of squares of [0, n), computed inside a task: the task form does not block the worker,
// so this composes with other forks (here two reductions run in parallel).
tine::task<long> sum_of_squares_twice(std::vector<long>* v) {
  auto square = [](long x) { return x * x; };
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, tine::async::transform_reduce, *v, 0L, std::plus<>{}, square);
  co_await tine::call(&b, tine::async::reduce, v->begin(), v->end(), 0L, std::plus<>{});
  co_await tine::join();
  co_return a + b;
}
// [docs:reduce_in_a_task end]
// clang-format on

tine::task<long> owned_view_sum(int n) {
  long s = 0;
  // A temporary view: the task form moves it into its frame.
  co_await tine::call(&s, tine::async::reduce, ranges::views::iota(0, n), 0L, std::plus<>{},
                      tine::grain{3});
  co_await tine::join();
  co_return s;
}

// A type without a default constructor: results are built in place, never default-made.
struct no_default {
  explicit no_default(long x) : v(x) {}
  long v;
};

// The task form hands its result to a variable of the caller's, which must exist first.
tine::task<long> no_default_in_task(const std::list<long>* l) {
  auto op = [](no_default a, no_default b) { return no_default(a.v + b.v); };
  auto to = [](long x) { return no_default(x); };
  no_default sum(-1);
  co_await tine::call(&sum, tine::async::transform_reduce, *l, no_default(0), op, to);
  co_await tine::join();
  co_return sum.v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reduce)

TINE_SCHEDULER_TEST_CASE(sums_like_accumulate, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<long> v = iota_vector(n);
    const long expected = std::accumulate(v.begin(), v.end(), 5L);
    for (tine::grain g : tine_test::grains(n, 11)) {
      BOOST_TEST(tine::reduce(sched, v, 5L, std::plus<>{}, g) == expected,
                 "n=" << n << " grain=" << g.size);
      BOOST_TEST(tine::reduce(sched, v.begin(), v.end(), 5L, std::plus<>{}, g) == expected);
    }
    BOOST_TEST(tine::reduce(sched, v, 5L) == expected);
    BOOST_TEST(tine::reduce(sched, v) == expected - 5);
    BOOST_TEST(tine::reduce(sched, v.begin(), v.end()) == expected - 5);
  }
}

TINE_SCHEDULER_TEST_CASE(combines_in_order, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<tine_test::interval> v = tine_test::unit_intervals(n);
    const tine_test::interval init{-1, 0, true};
    for (tine::grain g : tine_test::grains(n, 12)) {
      const tine_test::interval r = tine::reduce(sched, v, init, tine_test::join_intervals{}, g);
      const bool in_order = r == tine_test::interval{-1, static_cast<long>(n), true};
      BOOST_TEST(in_order, "n=" << n << " grain=" << g.size);
    }
  }
}

// clang-format off
// [docs:reduce_strings]
TINE_SCHEDULER_TEST_CASE(concatenates_strings_in_order, schedulers) {
  const std::vector<std::string> words = {"fork", "-", "join", " ", "keeps",
                                          " ", "the", " ", "order"};
  // String concatenation is associative but not commutative: reduce never reorders.
  const std::string s =
      tine::reduce(sched, words, std::string("> "), std::plus<>{}, tine::grain{1});
  BOOST_TEST(s == "> fork-join keeps the order");
}
// [docs:reduce_strings end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(long_strings, schedulers) {
  std::vector<std::string> v;
  for (int i = 0; i < 1031; ++i) {
    v.push_back(std::to_string(i) + ",");
  }
  const std::string expected = std::accumulate(v.begin(), v.end(), std::string());
  for (tine::grain g : tine_test::grains(v.size(), 13)) {
    BOOST_TEST(tine::reduce(sched, v, std::string(), std::plus<>{}, g) == expected);
  }
}

TINE_SCHEDULER_TEST_CASE(transform_reduce_unary_and_binary, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<long> a = iota_vector(n);
    std::vector<long> b(n);
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = static_cast<long>(i % 7) - 3;
    }
    const long dot = std::inner_product(a.begin(), a.end(), b.begin(), 1L);
    long squares = 1;
    for (long x : a) {
      squares += x * x;
    }
    for (tine::grain g : tine_test::grains(n, 14)) {
      BOOST_TEST(tine::transform_reduce(sched, a, b.begin(), 1L, std::plus<>{}, std::multiplies<>{},
                                        g) == dot);
      BOOST_TEST(tine::transform_reduce(sched, a.begin(), a.end(), b.begin(), 1L, std::plus<>{},
                                        std::multiplies<>{}, g) == dot);
      BOOST_TEST(tine::transform_reduce(
                     sched, a, 1L, std::plus<>{}, [](long x) { return x * x; }, g) == squares);
      BOOST_TEST(tine::transform_reduce(
                     sched, a.begin(), a.end(), 1L, std::plus<>{}, [](long x) { return x * x; },
                     g) == squares);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(containers_spans_and_views, schedulers) {
  const std::deque<int> d(1000, 2);
  BOOST_TEST(tine::reduce(sched, d, 0) == 2000);
  const std::array<double, 5> arr = {0.5, 1.5, 2.5, 3.5, 4.5};
  BOOST_TEST(tine::reduce(sched, arr, 0.0) == 12.5);
  std::vector<long> v = iota_vector(1000);
  BOOST_TEST(tine::reduce(sched, std::span<const long>(v).subspan(10, 20), 0L) == 11L * 20 + 190);
  // (range-v3's iota over long has a difference type that is not a std integer: use int.)
  BOOST_TEST(tine::reduce(sched, ranges::views::iota(0, 100003), 0L) == 100002L * 100003L / 2);
  auto doubled = v | ranges::views::transform([](long x) { return 2 * x; });
  BOOST_TEST(tine::reduce(sched, doubled, 0L, std::plus<>{}, tine::grain{7}) == 1000L * 1001L);
  BOOST_TEST(tine::reduce(sched, std::ranges::iota_view<long, long>(0, 10), 0L) == 45L);
}

// Forward ranges (their iterators are gathered once) and range-v3's iota over long (indexed
// through its own iterators).
TINE_SCHEDULER_TEST_CASE(lists_sets_maps_and_long_iota, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<long> v = iota_vector(n);
    const std::list<long> l(v.begin(), v.end());
    const std::set<long> s(v.begin(), v.end());
    const long expected = std::accumulate(v.begin(), v.end(), 5L);
    for (tine::grain g : tine_test::grains(n, 16)) {
      BOOST_TEST(tine::reduce(sched, l, 5L, std::plus<>{}, g) == expected, "n=" << n);
      BOOST_TEST(tine::reduce(sched, s.begin(), s.end(), 5L, std::plus<>{}, g) == expected);
      BOOST_TEST(tine::transform_reduce(
                     sched, l, v.begin(), 5L, std::plus<>{}, [](long x, long y) { return x * y; },
                     g) == std::inner_product(v.begin(), v.end(), v.begin(), 5L));
    }
    BOOST_TEST(tine::reduce(sched, l) == expected - 5);
  }
  std::map<int, long> m;
  for (int i = 0; i < 1031; ++i) {
    m[i] = 2 * i;
  }
  auto value = [](const std::pair<const int, long>& kv) { return kv.second; };
  BOOST_TEST(tine::transform_reduce(sched, m, 0L, std::plus<>{}, value) == 1030L * 1031L);
  BOOST_TEST(tine::reduce(sched, ranges::views::iota(0L, 100003L), 0L) == 100002L * 100003L / 2);
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<long> v = iota_vector(10007);
  long squares = 0;
  for (long x : v) {
    squares += x * x;
  }
  BOOST_TEST(tine::sync_wait(sched, sum_of_squares_twice, &v) == squares + 10007L * 10008L / 2);
  BOOST_TEST(tine::sync_wait(sched, owned_view_sum, 1000) == 999L * 1000L / 2);
  BOOST_TEST(tine::sync_wait(sched, owned_view_sum, 0) == 0L);
}

TINE_SCHEDULER_TEST_CASE(accumulator_without_default_constructor, schedulers) {
  const std::vector<long> v = iota_vector(1031);
  auto op = [](no_default a, no_default b) { return no_default(a.v + b.v); };
  auto to = [](long x) { return no_default(x); };
  BOOST_TEST(tine::transform_reduce(sched, v, no_default(0), op, to).v == 1031L * 1032L / 2);
  const std::list<long> l(v.begin(), v.end());
  BOOST_TEST(tine::transform_reduce(sched, l, no_default(1), op, to, tine::grain{5}).v ==
             1031L * 1032L / 2 + 1);
  BOOST_TEST(tine::transform_reduce(sched, std::vector<long>(3, 2), no_default(0), op, to).v == 6);
  BOOST_TEST(tine::sync_wait(sched, no_default_in_task, &l) == 1031L * 1032L / 2);
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 15)) {
      std::vector<std::string> v(n, "x");
      v[bad] = "poison";
      tine_test::gauge gauge;
      // op sees every element, either as its right operand or as an accumulator that starts from
      // it; a poisoned operand throws.
      auto op = [&gauge](std::string a, const std::string& b) {
        tine_test::gauge::scope busy(&gauge);
        if (a.find("poison") != std::string::npos || b.find("poison") != std::string::npos) {
          throw tine_test::test_error("poison at " + std::to_string(a.size()));
        }
        return a.size() < 8 ? a + b : a;  // keep strings short, but allocated
      };
      for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{13}}) {
        BOOST_CHECK_THROW(tine::reduce(sched, v, std::string("init"), op, g),
                          tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
      auto throwing_transform = [&gauge, bad](int x) {
        tine_test::gauge::scope busy(&gauge);
        if (x == static_cast<int>(bad)) {
          throw tine_test::test_error("transform");
        }
        return long{x};
      };
      BOOST_CHECK_THROW(tine::transform_reduce(sched, ranges::views::iota(0, static_cast<int>(n)),
                                               0L, std::plus<>{}, throwing_transform),
                        tine_test::test_error);
      BOOST_TEST(gauge.live.load() == 0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
