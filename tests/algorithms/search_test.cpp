// tine::find_if, any_of, all_of and none_of against the std searches, over every scheduler, input
// sizes and grains: hits at the start, the end, a random place and nowhere; early exit;
// exceptions; views; the task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <iterator>
#include <list>
#include <random>
#include <set>
#include <span>
#include <vector>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

#include <tine/algorithms/search.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// clang-format off
// [docs:search_in_a_task]
// Whether a vector holds a negative number, asked from inside a task.
tine::task<bool> has_negative(std::vector<int>* v) {
  bool found = false;
  co_await tine::call(&found, tine::async::any_of, *v, [](int x) { return x < 0; });
  co_await tine::join();
  co_return found;
}
// [docs:search_in_a_task end]
// clang-format on

tine::task<long> first_multiple_in_task(std::vector<int>* v, int k) {
  std::vector<int>::iterator it;
  co_await tine::call(&it, tine::async::find_if, v->begin(), v->end(),
                      [k](int x) { return x % k == 0; });
  co_await tine::join();
  co_return it - v->begin();
}

tine::task<bool> all_small_view(int n) {
  bool ok = false;
  // A temporary view: moved into the task.
  co_await tine::call(&ok, tine::async::all_of, ranges::views::iota(0, n),
                      [n](int x) { return x < n; });
  co_await tine::join();
  co_return ok;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(search)

TINE_SCHEDULER_TEST_CASE(finds_the_first_hit, schedulers) {
  std::mt19937 rng(41);
  for (std::size_t n : tine_test::sizes) {
    std::vector<std::size_t> places = {n};  // nowhere
    if (n > 0) {
      places.insert(places.end(),
                    {0, n - 1, std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)});
    }
    for (std::size_t place : places) {
      std::vector<int> v(n, 0);
      if (place < n) {
        v[place] = 1;
        v[std::min(n - 1, place + n / 3)] = 1;  // a later hit must not win
      }
      auto is_one = [](int x) { return x == 1; };
      for (tine::grain g : tine_test::grains(n, 42)) {
        const auto expected = std::find_if(v.begin(), v.end(), is_one);
        const bool same_as_std = tine::find_if(sched, v, is_one, g) == expected;
        BOOST_TEST(same_as_std, "n=" << n << " at=" << place << " grain=" << g.size);
        BOOST_TEST(
            static_cast<bool>(tine::find_if(sched, v.begin(), v.end(), is_one, g) == expected));
        BOOST_TEST(tine::any_of(sched, v, is_one, g) == std::any_of(v.begin(), v.end(), is_one));
        BOOST_TEST(tine::none_of(sched, v, is_one, g) == std::none_of(v.begin(), v.end(), is_one));
        auto is_zero = [](int x) { return x == 0; };
        BOOST_TEST(tine::all_of(sched, v.begin(), v.end(), is_zero, g) ==
                   std::all_of(v.begin(), v.end(), is_zero));
      }
    }
  }
}

// clang-format off
// [docs:search_basic]
TINE_SCHEDULER_TEST_CASE(first_negative, schedulers) {
  std::vector<int> v(100000, 1);
  v[70000] = -1;
  v[90000] = -2;
  auto negative = [](int x) { return x < 0; };
  auto it = tine::find_if(sched, v, negative);  // the first one, as std::find_if
  BOOST_TEST(std::distance(v.begin(), it) == 70000);
  BOOST_TEST(tine::any_of(sched, v, negative));
  BOOST_TEST(!tine::all_of(sched, v, negative));
}
// [docs:search_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(stops_early, schedulers) {
  // A hit at the start: once found, pieces not yet started are skipped and running leaves stop,
  // so far fewer than n elements are examined (the bound is loose: leaves already running
  // finish their current element).
  const std::size_t n = 1 << 20;
  std::atomic<std::size_t> calls{0};
  auto at_start = [&calls](int i) {
    calls.fetch_add(1, std::memory_order_relaxed);
    return i == 3;
  };
  auto it =
      tine::find_if(sched, ranges::views::iota(0, static_cast<int>(n)), at_start, tine::grain{256});
  (void)it;  // a temporary view: std::ranges::dangling
  BOOST_TEST(calls.load() < n / 4);
  calls = 0;
  BOOST_TEST(
      tine::any_of(sched, ranges::views::iota(0, static_cast<int>(n)), at_start, tine::grain{256}));
  BOOST_TEST(calls.load() < n / 4);
}

TINE_SCHEDULER_TEST_CASE(views_spans_and_task_forms, schedulers) {
  std::vector<int> v(1031);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int>(i) + 1;
  }
  auto twice = v | ranges::views::transform([](int x) { return 2 * x; });
  auto it = tine::find_if(sched, twice, [](int x) { return x > 100; });
  BOOST_TEST(*it == 102);
  BOOST_TEST(tine::all_of(sched, std::span<const int>(v), [](int x) { return x > 0; }));
  BOOST_TEST(tine::sync_wait(sched, has_negative, &v) == false);
  v[1000] = -1;
  BOOST_TEST(tine::sync_wait(sched, has_negative, &v) == true);
  BOOST_TEST(tine::sync_wait(sched, first_multiple_in_task, &v, 7) == 6);
  BOOST_TEST(tine::sync_wait(sched, first_multiple_in_task, &v, 100000) == 1031);
  BOOST_TEST(tine::sync_wait(sched, all_small_view, 1000));
  BOOST_TEST(tine::sync_wait(sched, all_small_view, 0));
}

// Positions into a forward range come back as its own iterators; into a temporary that owns its
// elements, as std::ranges::dangling.
TINE_SCHEDULER_TEST_CASE(lists_sets_and_temporaries, schedulers) {
  std::list<int> l;
  for (int i = 0; i < 1031; ++i) {
    l.push_back(i % 100);
  }
  auto big = [](int x) { return x >= 95; };
  for (tine::grain g : tine_test::grains(l.size(), 44)) {
    const std::list<int>::iterator it = tine::find_if(sched, l, big, g);
    BOOST_TEST((it == std::find_if(l.begin(), l.end(), big)));
    BOOST_TEST(std::distance(l.begin(), it) == 95);
  }
  const std::set<int> s(l.begin(), l.end());
  BOOST_TEST(tine::all_of(sched, s, [](int x) { return x < 100; }));
  BOOST_TEST(!tine::none_of(sched, s.begin(), s.end(), big));
  auto gone = tine::find_if(sched, std::vector<int>(l.begin(), l.end()), big);
  static_assert(std::same_as<decltype(gone), std::ranges::dangling>);
  BOOST_TEST(tine::any_of(sched, std::vector<int>(l.begin(), l.end()), big));
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 43)) {
      tine_test::gauge gauge;
      auto pred = [&gauge, bad](int i) {
        tine_test::gauge::scope busy(&gauge);
        if (static_cast<std::size_t>(i) == bad) {
          throw tine_test::test_error("search");
        }
        return false;  // never found: every element is examined
      };
      const auto input = ranges::views::iota(0, static_cast<int>(n));
      BOOST_CHECK_THROW(tine::find_if(sched, input, pred), tine_test::test_error);
      BOOST_TEST(gauge.live.load() == 0);
      BOOST_CHECK_THROW(tine::all_of(
                            sched, input, [&pred](int i) { return !pred(i); }, tine::grain{7}),
                        tine_test::test_error);
      BOOST_TEST(gauge.live.load() == 0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
