// tine::fill and tine::copy against std::ranges::fill and copy, over every scheduler, input sizes
// and grains; the returned ends; lists, views and temporaries (std::ranges::dangling for fill);
// an assignment that throws at the first, last and a random element; the task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <deque>
#include <iterator>
#include <list>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

#include <tine/algorithms/copy.hpp>
#include <tine/algorithms/fill.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// An element whose assignment throws when it is the one marked bad; it counts assignments in
// progress so the test can see none is running when the exception reaches the caller.
struct cell {
  std::size_t index = 0;
  const std::size_t* bad = nullptr;
  tine_test::gauge* gauge = nullptr;
  long value = 0;

  cell& operator=(long v) {
    tine_test::gauge::scope busy(gauge);
    if (index == *bad) {
      throw tine_test::test_error("assignment");
    }
    value = v;
    return *this;
  }
};

std::vector<cell> cells(std::size_t n, const std::size_t* bad, tine_test::gauge* gauge) {
  std::vector<cell> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = cell{i, bad, gauge, 0};
  }
  return v;
}

// clang-format off
// [docs:fill_copy_nested]
// Resets a buffer, then copies a header into its start, inside a task.
tine::task<void> reset_with_header(std::vector<char>* buffer, const std::string* header) {
  std::vector<char>::iterator end;
  co_await tine::call(&end, tine::async::fill, *buffer, ' ');
  co_await tine::join();
  co_await tine::call(&end, tine::async::copy, *header, buffer->begin());
  co_await tine::join();
}
// [docs:fill_copy_nested end]
// clang-format on

}  // namespace

BOOST_AUTO_TEST_SUITE(fill)

// The end of the range, or std::ranges::dangling for a temporary container (as std::ranges::fill);
// a temporary span refers to storage that outlives it and gives an iterator.
static_assert(std::same_as<decltype(tine::fill(std::declval<tine::inline_scheduler&>(),
                                               std::vector<int>(3), 1)),
                           std::ranges::dangling>);
static_assert(
    std::same_as<decltype(tine::fill(std::declval<tine::inline_scheduler&>(), std::span<int>{}, 1)),
                 std::span<int>::iterator>);
static_assert(std::same_as<decltype(tine::fill(std::declval<tine::inline_scheduler&>(),
                                               std::declval<std::list<int>&>(), 1)),
                           std::list<int>::iterator>);

TINE_SCHEDULER_TEST_CASE(matches_std_fill, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    for (tine::grain g : tine_test::grains(n, 51)) {
      std::vector<long> v(n, 0);
      BOOST_TEST((tine::fill(sched, v, 7L, g) == v.end()));
      BOOST_TEST(std::ranges::count(v, 7L) == static_cast<long>(n),
                 "n=" << n << " grain=" << g.size);
      BOOST_TEST((tine::fill(sched, v.begin(), v.end(), -1, g) == v.end()));
      BOOST_TEST(std::ranges::count(v, -1L) == static_cast<long>(n));
    }
  }
}

// clang-format off
// [docs:fill_basic]
TINE_SCHEDULER_TEST_CASE(fills_any_range, schedulers) {
  std::vector<double> v(100000);
  auto end = tine::fill(sched, v, 0.5);
  BOOST_TEST((end == v.end()));
  BOOST_TEST(std::ranges::count(v, 0.5) == 100000);
  // A part of it through a span, and a list (the end returned is the list's).
  tine::fill(sched, std::span<double>(v).first(10), 2.0);
  BOOST_TEST(std::ranges::count(v, 2.0) == 10);
  std::list<std::string> names(5);
  BOOST_TEST((tine::fill(sched, names, std::string("tine")) == names.end()));
  BOOST_TEST(std::ranges::count(names, "tine") == 5);
}
// [docs:fill_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(lists_deques_and_temporaries, schedulers) {
  for (std::size_t n : {0UL, 1UL, 97UL, 1031UL}) {
    for (tine::grain g : tine_test::grains(n, 52)) {
      std::list<int> l(n, 0);
      BOOST_TEST((tine::fill(sched, l.begin(), l.end(), 3, g) == l.end()));
      BOOST_TEST(std::ranges::count(l, 3) == static_cast<long>(n));
      std::deque<int> d(n, 0);
      BOOST_TEST((tine::fill(sched, d, 4, g) == d.end()));
      BOOST_TEST(std::ranges::count(d, 4) == static_cast<long>(n));
      // A temporary view over v writes v's elements; the temporary vector is filled, then freed.
      std::vector<int> v(n, 0);
      tine::fill(sched, std::span<int>(v), 5, g);
      BOOST_TEST(std::ranges::count(v, 5) == static_cast<long>(n));
      (void)tine::fill(sched, std::vector<std::string>(n), std::string(40, 'x'), g);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    for (std::size_t bad : tine_test::throw_points(n, 53)) {
      for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{13}}) {
        if (g.size == 1 && n > 1031) {
          continue;
        }
        tine_test::gauge gauge;
        std::vector<cell> v = cells(n, &bad, &gauge);
        BOOST_CHECK_THROW(tine::fill(sched, v, 9L, g), tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
        BOOST_TEST(v[bad].value == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(copy)

TINE_SCHEDULER_TEST_CASE(matches_std_copy, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    std::vector<long> in(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<long>(i * i) - 50;
    }
    for (tine::grain g : tine_test::grains(n, 54)) {
      std::vector<long> out(n + 2, -7);  // two more: nothing is written past the input's size
      std::vector<long> expected(n + 2, -7);
      std::ranges::copy(in, expected.begin());
      BOOST_TEST((tine::copy(sched, in, out.begin(), g) == out.begin() + static_cast<long>(n)));
      BOOST_TEST(out == expected, "n=" << n << " grain=" << g.size);
      std::vector<long> out2(n + 2, -7);
      BOOST_TEST((tine::copy(sched, in.begin(), in.end(), out2.begin(), g) ==
                  out2.begin() + static_cast<long>(n)));
      BOOST_TEST(out2 == expected);
    }
  }
}

// clang-format off
// [docs:copy_basic]
TINE_SCHEDULER_TEST_CASE(copies_from_any_input, schedulers) {
  const std::list<std::string> names = {"fork", "call", "join"};
  std::vector<std::string> out(3);  // the output is sized beforehand
  auto end = tine::copy(sched, names, out.begin());
  BOOST_TEST((end == out.end()));
  BOOST_TEST((out == std::vector<std::string>{"fork", "call", "join"}));
  std::vector<int> squares(1000);
  tine::copy(sched, ranges::views::iota(0, 1000) | ranges::views::transform([](int i) {
                      return i * i;
                    }),
             squares.begin());
  BOOST_TEST(squares[999] == 998001);
}
// [docs:copy_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(lists_and_views, schedulers) {
  for (std::size_t n : {0UL, 1UL, 97UL, 1031UL}) {
    std::list<int> l;
    for (std::size_t i = 0; i < n; ++i) {
      l.push_back(static_cast<int>(3 * i));
    }
    std::vector<int> expected(n);
    std::ranges::copy(l, expected.begin());
    for (tine::grain g : tine_test::grains(n, 55)) {
      std::vector<int> out(n, -1);
      BOOST_TEST((tine::copy(sched, l, out.begin(), g) == out.end()));
      BOOST_TEST(out == expected, "n=" << n << " grain=" << g.size);
      std::vector<int> out2(n, -1);
      BOOST_TEST((tine::copy(sched, std::vector<int>(l.begin(), l.end()), out2.begin(), g) ==
                  out2.end()));  // a temporary input: the output's end is no position in it
      BOOST_TEST(out2 == expected);
      std::deque<int> out3(n, -1);
      BOOST_TEST((tine::copy(sched, std::views::iota(0, static_cast<int>(n)), out3.begin(), g) ==
                  out3.end()));
      BOOST_TEST(std::ranges::equal(out3, std::views::iota(0, static_cast<int>(n))));
    }
  }
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_all_work, schedulers) {
  for (std::size_t n : {1UL, 97UL, 100003UL}) {
    const std::vector<long> in(n, 9);
    for (std::size_t bad : tine_test::throw_points(n, 56)) {
      for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{13}}) {
        if (g.size == 1 && n > 1031) {
          continue;
        }
        tine_test::gauge gauge;
        std::vector<cell> out = cells(n, &bad, &gauge);
        BOOST_CHECK_THROW(tine::copy(sched, in, out.begin(), g), tine_test::test_error);
        BOOST_TEST(gauge.live.load() == 0);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<char> buffer(10007, 'x');
  const std::string header = "P6 tine";
  tine::sync_wait(sched, reset_with_header, &buffer, &header);
  BOOST_TEST(std::string(buffer.begin(), buffer.begin() + 7) == header);
  BOOST_TEST(std::ranges::count(buffer, ' ') == 10007 - 6);  // the header has one space
}

BOOST_AUTO_TEST_SUITE_END()
