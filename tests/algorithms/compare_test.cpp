// tine::equal and tine::mismatch against std::equal / std::mismatch, over every scheduler, input
// sizes and grains: the first difference at the start, the end, a random place and nowhere, with
// a later difference that must not win; custom predicates; exceptions; a std::list (positions
// mapped back), a temporary vector (std::ranges::dangling); the task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <list>
#include <random>
#include <ranges>
#include <set>
#include <vector>

#include <range/v3/view/iota.hpp>

#include <tine/algorithms/compare.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// clang-format off
// [docs:compare_in_a_task]
// Where two versions of a table first differ, asked from inside a task.
tine::task<long> first_change(std::vector<int>* before, std::vector<int>* after) {
  std::ranges::in_in_result<std::vector<int>::iterator, std::vector<int>::iterator> where;
  co_await tine::call(&where, tine::async::mismatch, *before, after->begin());
  co_await tine::join();
  co_return where.in1 - before->begin();
}
// [docs:compare_in_a_task end]
// clang-format on

tine::task<bool> equal_in_task(std::vector<int>* a, std::vector<int>* b, tine::grain g) {
  bool same = false;
  co_await tine::call(&same, tine::async::equal, a->begin(), a->end(), b->begin(),
                      std::equal_to<>{}, g);
  co_await tine::join();
  co_return same;
}

// A temporary range in the task form: moved into the task; its position in1 is dangling.
tine::task<long> mismatch_of_temporary(std::vector<int>* b) {
  using result = std::ranges::in_in_result<std::ranges::dangling, std::vector<int>::iterator>;
  result where;
  co_await tine::call(&where, tine::async::mismatch, std::vector<int>(b->size(), 0), b->begin());
  co_await tine::join();
  co_return where.in2 - b->begin();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compare)

TINE_SCHEDULER_TEST_CASE(matches_std_equal_and_mismatch, schedulers) {
  std::mt19937 rng(51);
  for (std::size_t n : tine_test::sizes) {
    std::vector<std::size_t> places = {n};  // no difference
    if (n > 0) {
      places.insert(places.end(),
                    {0, n - 1, std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)});
    }
    const std::vector<int> a(n, 5);
    for (std::size_t place : places) {
      std::vector<int> b = a;
      if (place < n) {
        b[place] = 6;
        b[std::min(n - 1, place + n / 3)] = 7;  // a later difference must not win
      }
      const auto expected = std::mismatch(a.begin(), a.end(), b.begin());
      const bool same = std::equal(a.begin(), a.end(), b.begin());
      for (tine::grain g : tine_test::grains(n, 52)) {
        const auto r = tine::mismatch(sched, a, b.begin(), std::equal_to<>{}, g);
        BOOST_TEST((r.in1 == expected.first && r.in2 == expected.second),
                   "n=" << n << " at=" << place << " grain=" << g.size);
        const auto ri = tine::mismatch(sched, a.begin(), a.end(), b.begin(), std::equal_to<>{}, g);
        BOOST_TEST((ri.in1 == expected.first && ri.in2 == expected.second));
        BOOST_TEST(tine::equal(sched, a, b.begin(), std::equal_to<>{}, g) == same);
        BOOST_TEST(tine::equal(sched, a.begin(), a.end(), b.begin(), std::equal_to<>{}, g) == same);
        // A predicate other than ==: equal up to the parity, which 5 and 7 share.
        auto same_parity = [](int x, int y) { return (x - y) % 2 == 0; };
        const auto parity = std::mismatch(a.begin(), a.end(), b.begin(), same_parity);
        BOOST_TEST((tine::mismatch(sched, a, b.begin(), same_parity, g).in1 == parity.first));
        BOOST_TEST(tine::equal(sched, a, b.begin(), same_parity, g) ==
                   std::equal(a.begin(), a.end(), b.begin(), same_parity));
      }
      BOOST_TEST(tine::equal(sched, a, b.begin()) == same);
      BOOST_TEST((tine::mismatch(sched, a, b.begin()).in1 == expected.first));
    }
  }
}

// clang-format off
// [docs:compare_basic]
TINE_SCHEDULER_TEST_CASE(first_difference, schedulers) {
  std::vector<int> a(100000, 1);
  std::vector<int> b = a;
  b[60000] = 2;
  b[80000] = 3;
  BOOST_TEST(!tine::equal(sched, a, b.begin()));
  auto [in1, in2] = tine::mismatch(sched, a, b.begin());  // the first one, as std::mismatch
  BOOST_TEST(std::distance(a.begin(), in1) == 60000);
  BOOST_TEST(*in2 == 2);
}
// [docs:compare_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(lists_sets_and_temporaries, schedulers) {
  std::list<int> l;
  for (int i = 0; i < 1031; ++i) {
    l.push_back(i);
  }
  std::vector<int> v(l.begin(), l.end());
  v[700] = -1;
  // Positions into a list come back as the list's own iterators.
  const auto r = tine::mismatch(sched, l, v.begin(), std::equal_to<>{}, tine::grain{16});
  static_assert(std::same_as<decltype(r.in1), std::list<int>::iterator>);
  BOOST_TEST(std::distance(l.begin(), r.in1) == 700);
  BOOST_TEST(*r.in1 == 700);
  BOOST_TEST(std::distance(v.begin(), r.in2) == 700);
  BOOST_TEST(!tine::equal(sched, l.begin(), l.end(), v.begin()));
  const std::set<int> s(l.begin(), l.end());
  BOOST_TEST(tine::equal(sched, s, v.begin(), [](int x, int y) { return y == -1 || x == y; }));
  // A temporary vector that owns its elements: in1 would outlive them, so it is dangling.
  const auto t = tine::mismatch(sched, std::vector<int>(v.begin(), v.end()), v.begin());
  static_assert(std::same_as<decltype(t.in1), std::ranges::dangling>);
  BOOST_TEST(std::distance(v.begin(), t.in2) == 1031);  // equal to itself: no difference
  BOOST_TEST(tine::sync_wait(sched, mismatch_of_temporary, &v) == 1);  // v[0] is 0 too
  std::vector<int> zeros(v.size(), 0);
  BOOST_TEST(tine::sync_wait(sched, mismatch_of_temporary, &zeros) == 1031);
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<int> a(10007, 3);
  std::vector<int> b = a;
  BOOST_TEST(tine::sync_wait(sched, first_change, &a, &b) == 10007);
  BOOST_TEST(tine::sync_wait(sched, equal_in_task, &a, &b, tine::grain{}));
  b[9000] = 4;
  BOOST_TEST(tine::sync_wait(sched, first_change, &a, &b) == 9000);
  BOOST_TEST(!tine::sync_wait(sched, equal_in_task, &a, &b, tine::grain{5}));
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 53)) {
      tine_test::gauge gauge;
      auto pred = [&gauge, bad](int i, int j) {
        tine_test::gauge::scope busy(&gauge);
        if (static_cast<std::size_t>(i) == bad) {
          throw tine_test::test_error("compare");
        }
        return i == j;  // always: every element is compared
      };
      const auto input = ranges::views::iota(0, static_cast<int>(n));
      std::vector<int> same(n);
      for (std::size_t i = 0; i < n; ++i) {
        same[i] = static_cast<int>(i);
      }
      for (tine::grain g : tine_test::grains(n, 54)) {
        BOOST_CHECK_THROW(tine::equal(sched, input, same.begin(), pred, g), tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
        BOOST_CHECK_THROW(tine::mismatch(sched, input, same.begin(), pred, g),
                          tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
