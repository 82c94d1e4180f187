// tine::inclusive_scan and tine::exclusive_scan against the std scans, over every scheduler, input
// sizes and grains; in-order combination; in-place scans; exceptions; views; the task forms.
#include <boost/test/unit_test.hpp>

#include <functional>
#include <list>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

#include <tine/algorithms/scan.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

std::vector<long> input(std::size_t n) {
  std::vector<long> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<long>(i % 13) - 4;
  }
  return v;
}

// clang-format off
// [docs:scan_in_a_task]
// Offsets of variable-sized records: an exclusive scan of their sizes, inside a task.
tine::task<long> total_size(std::vector<long>* sizes, std::vector<long>* offsets) {
  std::vector<long>::iterator end;
  co_await tine::call(&end, tine::async::exclusive_scan, *sizes, offsets->begin(), 0L,
                      std::plus<>{});
  co_await tine::join();
  co_return offsets->back() + sizes->back();
}
// [docs:scan_in_a_task end]
// clang-format on

tine::task<long> inclusive_in_task(std::vector<long>* v, std::vector<long>* out) {
  std::vector<long>::iterator end;
  co_await tine::call(&end, tine::async::inclusive_scan, v->begin(), v->end(), out->begin(),
                      std::plus<>{}, 10L, tine::grain{3});
  co_await tine::join();
  co_return end - out->begin();
}

// A temporary range: the task form moves it into its frame, so the scan reads it safely.
tine::task<long> scan_of_temporary(std::vector<long>* out) {
  std::vector<long>::iterator end;
  co_await tine::call(&end, tine::async::inclusive_scan, std::vector<long>(out->size(), 2),
                      out->begin(), std::plus<>{}, tine::grain{3});
  co_await tine::join();
  co_return end - out->begin();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scan)

TINE_SCHEDULER_TEST_CASE(matches_std_scans, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<long> in = input(n);
    std::vector<long> inc(n), inc_init(n), exc(n);
    std::inclusive_scan(in.begin(), in.end(), inc.begin());
    std::inclusive_scan(in.begin(), in.end(), inc_init.begin(), std::plus<>{}, 100L);
    std::exclusive_scan(in.begin(), in.end(), exc.begin(), 100L);
    for (tine::grain g : tine_test::grains(n, 31)) {
      std::vector<long> out(n, -1);
      BOOST_TEST((tine::inclusive_scan(sched, in, out.begin(), std::plus<>{}, g) == out.end()));
      BOOST_TEST(out == inc, "n=" << n << " grain=" << g.size);
      BOOST_TEST(
          (tine::inclusive_scan(sched, in, out.begin(), std::plus<>{}, 100L, g) == out.end()));
      BOOST_TEST(out == inc_init);
      BOOST_TEST(
          (tine::exclusive_scan(sched, in, out.begin(), 100L, std::plus<>{}, g) == out.end()));
      BOOST_TEST(out == exc);
      BOOST_TEST((tine::inclusive_scan(sched, in.begin(), in.end(), out.begin(), std::plus<>{},
                                       g) == out.end()));
      BOOST_TEST(out == inc);
      BOOST_TEST((tine::exclusive_scan(sched, in.begin(), in.end(), out.begin(), 100L,
                                       std::plus<>{}, g) == out.end()));
      BOOST_TEST(out == exc);
      std::vector<long> same = in;  // in place
      tine::inclusive_scan(sched, same, same.begin(), std::plus<>{}, g);
      BOOST_TEST(same == inc);
      same = in;
      tine::exclusive_scan(sched, same.begin(), same.end(), same.begin(), 100L, std::plus<>{}, g);
      BOOST_TEST(same == exc);
    }
    std::vector<long> out(n, -1);
    tine::inclusive_scan(sched, in, out.begin());
    BOOST_TEST(out == inc);
    tine::exclusive_scan(sched, in, out.begin(), 100L);
    BOOST_TEST(out == exc);
  }
}

TINE_SCHEDULER_TEST_CASE(combines_in_order, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<tine_test::interval> in = tine_test::unit_intervals(n);
    for (tine::grain g : tine_test::grains(n, 32)) {
      std::vector<tine_test::interval> out(n);
      tine::inclusive_scan(sched, in, out.begin(), tine_test::join_intervals{}, g);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) {
        ok = ok && out[i] == tine_test::interval{0, static_cast<long>(i) + 1, true};
      }
      BOOST_TEST(ok, "inclusive n=" << n << " grain=" << g.size);
      tine::exclusive_scan(sched, in, out.begin(), tine_test::interval{-1, 0, true},
                           tine_test::join_intervals{}, g);
      for (std::size_t i = 0; i < n; ++i) {
        ok = ok && out[i] == tine_test::interval{-1, static_cast<long>(i), true};
      }
      BOOST_TEST(ok, "exclusive n=" << n << " grain=" << g.size);
    }
  }
}

// clang-format off
// [docs:scan_strings]
TINE_SCHEDULER_TEST_CASE(prefixes_of_words, schedulers) {
  const std::vector<std::string> words = {"a", "b", "c", "d", "e"};
  std::vector<std::string> prefixes(words.size());
  tine::inclusive_scan(sched, words, prefixes.begin(), std::plus<>{}, tine::grain{2});
  BOOST_TEST((prefixes == std::vector<std::string>{"a", "ab", "abc", "abcd", "abcde"}));
  tine::exclusive_scan(sched, words, prefixes.begin(), std::string(">"), std::plus<>{},
                       tine::grain{2});
  BOOST_TEST((prefixes == std::vector<std::string>{">", ">a", ">ab", ">abc", ">abcd"}));
}
// [docs:scan_strings end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(views_and_spans, schedulers) {
  std::vector<long> out(100003);
  tine::inclusive_scan(sched, ranges::views::iota(0, 100003), out.begin(), std::plus<>{}, 0L);
  BOOST_TEST(out.back() == 100002L * 100003L / 2);
  std::vector<int> v(50, 2);
  auto halves = v | ranges::views::transform([](int x) { return x / 2; });
  tine::exclusive_scan(sched, halves, out.begin(), 0L, std::plus<>{}, tine::grain{4});
  BOOST_TEST(out[49] == 49);
  tine::inclusive_scan(sched, std::span<const int>(v).first(10), out.begin());
  BOOST_TEST(out[9] == 20);
}

TINE_SCHEDULER_TEST_CASE(lists, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    const std::vector<long> in = input(n);
    const std::list<long> l(in.begin(), in.end());
    std::vector<long> inc(n), exc(n);
    std::inclusive_scan(in.begin(), in.end(), inc.begin());
    std::exclusive_scan(in.begin(), in.end(), exc.begin(), 100L);
    for (tine::grain g : tine_test::grains(n, 34)) {
      std::vector<long> out(n, -1);
      BOOST_TEST((tine::inclusive_scan(sched, l, out.begin(), std::plus<>{}, g) == out.end()));
      BOOST_TEST(out == inc, "n=" << n << " grain=" << g.size);
      BOOST_TEST((tine::exclusive_scan(sched, l.begin(), l.end(), out.begin(), 100L, std::plus<>{},
                                       g) == out.end()));
      BOOST_TEST(out == exc);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<long> sizes = input(10007);
  for (long& s : sizes) {
    s += 5;
  }
  std::vector<long> offsets(sizes.size());
  BOOST_TEST(tine::sync_wait(sched, total_size, &sizes, &offsets) ==
             std::accumulate(sizes.begin(), sizes.end(), 0L));
  std::vector<long> expected(sizes.size());
  std::inclusive_scan(sizes.begin(), sizes.end(), expected.begin(), std::plus<>{}, 10L);
  BOOST_TEST(tine::sync_wait(sched, inclusive_in_task, &sizes, &offsets) == 10007);
  BOOST_TEST(offsets == expected);
  BOOST_TEST(tine::sync_wait(sched, scan_of_temporary, &offsets) == 10007);
  BOOST_TEST(offsets.back() == 2 * 10007);
  BOOST_TEST(offsets.front() == 2);
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 33)) {
      std::vector<std::string> in(n, "x");
      in[bad] = "!";
      tine_test::gauge gauge;
      // Every element is an operand of op in pass 2 (or starts an accumulator that is), so the
      // poisoned one always throws.
      auto op = [&gauge](const std::string& a, const std::string& b) {
        tine_test::gauge::scope busy(&gauge);
        if (a.find('!') != std::string::npos || b.find('!') != std::string::npos) {
          throw tine_test::test_error("scan");
        }
        return a.size() < 4 ? a + b : a;
      };
      std::vector<std::string> out(n);
      for (tine::grain g : {tine::grain{}, tine::grain{13}}) {
        BOOST_CHECK_THROW(tine::exclusive_scan(sched, in, out.begin(), std::string("s"), op, g),
                          tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
        BOOST_CHECK_THROW(tine::inclusive_scan(sched, in, out.begin(), op, std::string("s"), g),
                          tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
