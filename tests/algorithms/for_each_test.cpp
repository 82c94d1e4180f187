// tine::for_each and tine::map against their std counterparts, over every scheduler, input sizes
// and grains; exceptions at the first, last and a random element; containers, spans and range-v3
// views; the task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <list>
#include <set>
#include <span>
#include <vector>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

#include <tine/algorithms/for_each.hpp>
#include <tine/algorithms/map.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// clang-format off
// [docs:for_each_nested]
// A task that runs two algorithms one after the other on a worker, without blocking it: first
// every element is squared in place, then copied, negated, into `out`.
tine::task<void> square_then_negate(std::vector<long>* v, std::vector<long>* out) {
  co_await tine::call(tine::async::for_each, *v, [](long& x) { x *= x; });
  co_await tine::join();
  std::vector<long>::iterator end;
  co_await tine::call(&end, tine::async::map, v->begin(), v->end(), out->begin(),
                      [](long x) { return -x; });
  co_await tine::join();
}
// [docs:for_each_nested end]
// clang-format on

tine::task<void> count_view(std::atomic<long>* total, int n) {
  auto add = [total](int x) { total->fetch_add(x); };
  // A temporary view: the task form moves it into its frame.
  co_await tine::call(tine::async::for_each, ranges::views::iota(0, n), add, tine::grain{5});
  co_await tine::join();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(for_each)

TINE_SCHEDULER_TEST_CASE(visits_every_element_once, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    for (tine::grain g : tine_test::grains(n, 21)) {
      std::vector<int> hits(n, 0);
      tine::for_each(
          sched, hits, [](int& h) { ++h; }, g);
      BOOST_TEST(static_cast<std::size_t>(std::count(hits.begin(), hits.end(), 1)) == n,
                 "n=" << n << " grain=" << g.size);
      tine::for_each(
          sched, hits.begin(), hits.end(), [](int& h) { ++h; }, g);
      BOOST_TEST(static_cast<std::size_t>(std::count(hits.begin(), hits.end(), 2)) == n);
    }
  }
}

// clang-format off
// [docs:for_each_basic]
TINE_SCHEDULER_TEST_CASE(square_roots_in_place, schedulers) {
  std::vector<double> v(100000);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<double>(i * i);
  }
  tine::for_each(sched, v, [](double& x) { x = std::sqrt(x); });
  for (std::size_t i = 0; i < v.size(); ++i) {
    BOOST_TEST(v[i] == static_cast<double>(i));
  }
}
// [docs:for_each_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(containers_spans_and_views, schedulers) {
  std::deque<int> d(1031, 1);
  tine::for_each(
      sched, d, [](int& x) { x += 1; }, tine::grain{10});
  BOOST_TEST(std::count(d.begin(), d.end(), 2) == 1031);
  std::vector<int> v(100, 0);
  tine::for_each(sched, std::span<int>(v).subspan(10, 50), [](int& x) { x = 7; });
  BOOST_TEST(std::count(v.begin(), v.end(), 7) == 50);
  std::atomic<long> sum{0};
  tine::for_each(sched, ranges::views::iota(0, 100003), [&sum](int i) { sum.fetch_add(i); });
  BOOST_TEST(sum.load() == 100002L * 100003L / 2);
  sum = 0;
  auto tripled = v | ranges::views::transform([](int x) { return 3 * x; });
  tine::for_each(
      sched, tripled, [&sum](int x) { sum.fetch_add(x); }, tine::grain{1});
  BOOST_TEST(sum.load() == 7 * 3 * 50);
}

// Forward ranges: their iterators are gathered once, then split like a vector's.
TINE_SCHEDULER_TEST_CASE(lists_and_sets, schedulers) {
  std::list<int> l(1031, 1);
  tine::for_each(
      sched, l.begin(), l.end(), [](int& x) { x += 1; }, tine::grain{10});
  BOOST_TEST(std::count(l.begin(), l.end(), 2) == 1031);
  std::set<int> s;
  for (int i = 0; i < 1031; ++i) {
    s.insert(i);
  }
  std::atomic<long> sum{0};
  tine::for_each(sched, s, [&sum](int x) { sum.fetch_add(x); });
  BOOST_TEST(sum.load() == 1030L * 1031L / 2);
  std::vector<int> doubled(s.size());
  BOOST_TEST((tine::map(sched, s, doubled.begin(), [](int x) { return 2 * x; }) == doubled.end()));
  BOOST_TEST(doubled[1030] == 2060);
  std::list<int> empty;
  tine::for_each(sched, empty, [](int& x) { x = 0; });
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 22)) {
      for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{13}}) {
        if (g.size == 1 && n > 1031) {
          continue;
        }
        tine_test::gauge gauge;
        std::vector<int> v(n, 0);
        v[bad] = 1;
        auto f = [&gauge](int x) {
          tine_test::gauge::scope busy(&gauge);
          if (x == 1) {
            throw tine_test::test_error("for_each");
          }
        };
        BOOST_CHECK_THROW(tine::for_each(sched, v, f, g), tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<long> v(10007);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<long>(i);
  }
  std::vector<long> out(v.size());
  tine::sync_wait(sched, square_then_negate, &v, &out);
  for (std::size_t i = 0; i < v.size(); ++i) {
    BOOST_TEST(out[i] == -static_cast<long>(i * i));
  }
  std::atomic<long> total{0};
  tine::sync_wait(sched, count_view, &total, 1000);
  BOOST_TEST(total.load() == 999L * 1000L / 2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(map)

TINE_SCHEDULER_TEST_CASE(matches_std_transform, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    std::vector<long> in(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<long>(i) - 50;
    }
    std::vector<long> expected(n);
    auto f = [](long x) { return x * x - 1; };
    std::transform(in.begin(), in.end(), expected.begin(), f);
    for (tine::grain g : tine_test::grains(n, 23)) {
      std::vector<long> out(n, 99);
      BOOST_TEST((tine::map(sched, in, out.begin(), f, g) == out.end()));
      BOOST_TEST(out == expected, "n=" << n << " grain=" << g.size);
      std::vector<long> out2(n, 99);
      BOOST_TEST((tine::map(sched, in.begin(), in.end(), out2.begin(), f, g) == out2.end()));
      BOOST_TEST(out2 == expected);
      std::vector<long> same = in;  // in place
      tine::map(sched, same, same.begin(), f, g);
      BOOST_TEST(same == expected);
    }
  }
}

// clang-format off
// [docs:map_basic]
TINE_SCHEDULER_TEST_CASE(squares_of_a_view, schedulers) {
  std::vector<long> squares(1000);  // the output is sized beforehand
  auto end = tine::map(sched, ranges::views::iota(0, 1000), squares.begin(),
                       [](int i) { return long{i} * i; });
  BOOST_TEST((end == squares.end()));
  BOOST_TEST(squares[999] == 998001);
}
// [docs:map_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 1031UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 24)) {
      tine_test::gauge gauge;
      std::vector<std::vector<int>> out(n);  // elements own memory: ASan checks nothing leaks
      auto f = [&gauge, bad](int i) {
        tine_test::gauge::scope busy(&gauge);
        if (static_cast<std::size_t>(i) == bad) {
          throw tine_test::test_error("map");
        }
        return std::vector<int>(3, i);
      };
      BOOST_CHECK_THROW(tine::map(sched, ranges::views::iota(0, static_cast<int>(n)), out.begin(),
                                  f, tine::grain{7}),
                        tine_test::test_error);
      BOOST_TEST(gauge.live.load() == 0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
