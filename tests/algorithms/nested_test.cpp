// Algorithms nested three levels deep, on every kind of scheduler: tine's two pools, the inline
// scheduler, the test pool, and a scheduler written by a user against the public core API
// (round_robin_pool). Each level is an algorithm whose body is a task running the next level's
// task form; the results equal the serial computation's.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

#include <boost/mpl/list.hpp>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/algorithms/test_support.hpp"
#include "tests/schedulers/round_robin_pool.hpp"

namespace {

struct busy2 : tine::busy_pool<> {
  busy2() : tine::busy_pool<>(2) {}
};
struct lazy2 : tine::lazy_pool<> {
  lazy2() : tine::lazy_pool<>(2) {}
};
struct simple3 : tine::testing::simple_pool {
  simple3() : tine::testing::simple_pool(3) {}
};
struct user2 : round_robin_pool {
  user2() : round_robin_pool(2) {}
};

using every_scheduler = boost::mpl::list<busy2, lazy2, tine::inline_scheduler, simple3, user2>;

// A table of planes of rows of cells, filled in a fixed pseudo-random order.
using row = std::vector<int>;
using plane = std::vector<row>;

std::vector<plane> make_table(std::size_t planes, std::size_t rows, std::size_t cells) {
  std::vector<plane> table(planes, plane(rows, row(cells)));
  unsigned x = 12345;
  for (plane& p : table) {
    for (row& r : p) {
      for (int& c : r) {
        x = x * 1103515245U + 12345U;
        c = static_cast<int>((x >> 8) % 1000U);
      }
    }
  }
  return table;
}

// Level 3: a row is sorted in parallel, then its cells below 100 are counted.
tine::task<long> sort_and_count(row* r) {
  row::iterator end;
  co_await tine::call(&end, tine::async::sort, *r);
  co_await tine::join();
  std::ptrdiff_t small = 0;
  co_await tine::call(&small, tine::async::count_if, *r, [](int c) { return c < 100; });
  co_await tine::join();
  co_return static_cast<long>(small);
}

// Level 2: the rows of a plane, each through level 3, the counts summed.
tine::task<long> plane_total(plane* p) {
  long total = 0;
  co_await tine::call(&total, tine::async::transform_reduce, *p, 0L, std::plus<>{},
                      [](row& r) { return sort_and_count(&r); });
  co_await tine::join();
  co_return total;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nested)

TINE_SCHEDULER_TEST_CASE(three_levels_of_algorithms, every_scheduler) {
  std::vector<plane> table = make_table(6, 8, 700);
  long expected = 0;
  std::vector<plane> sorted = table;
  for (plane& p : sorted) {
    for (row& r : p) {
      std::sort(r.begin(), r.end());
      expected += std::count_if(r.begin(), r.end(), [](int c) { return c < 100; });
    }
  }
  // Level 1: map every plane to its total.
  std::vector<long> totals(table.size(), -1);
  tine::map(sched, table, totals.begin(), [](plane& p) { return plane_total(&p); });
  BOOST_TEST(std::accumulate(totals.begin(), totals.end(), 0L) == expected);
  BOOST_TEST((table == sorted));
}

TINE_SCHEDULER_TEST_CASE(for_each_of_sorts, every_scheduler) {
  std::vector<plane> table = make_table(1, 40, 3000);
  plane& rows = table[0];
  plane expected = rows;
  for (row& r : expected) {
    std::sort(r.begin(), r.end(), std::greater<>{});
  }
  // As an application writes it: a parallel sort per row, rows in parallel.
  tine::for_each(sched, rows, [](row& r) -> tine::task<void> {
    co_await tine::call(tine::async::sort, r, std::greater<>{});
  });
  BOOST_TEST((rows == expected));
}

TINE_SCHEDULER_TEST_CASE(a_search_of_reductions_of_searches, every_scheduler) {
  const std::vector<plane> table = make_table(10, 6, 500);
  // The first plane with a row whose largest cell is below 999 (level 3: max_element).
  const auto has_low_row = [](const plane& p) -> tine::task<bool> {
    bool found = false;
    co_await tine::call(&found, tine::async::any_of, p, [](const row& r) -> tine::task<bool> {
      row::const_iterator top;
      co_await tine::call(&top, tine::async::max_element, r);
      co_await tine::join();
      co_return *top < 999;
    });
    co_await tine::join();
    co_return found;
  };
  const auto serial_low = [](const plane& p) {
    return std::any_of(p.begin(), p.end(),
                       [](const row& r) { return *std::max_element(r.begin(), r.end()) < 999; });
  };
  BOOST_TEST((tine::find_if(sched, table, has_low_row) ==
              std::find_if(table.begin(), table.end(), serial_low)));
}

BOOST_AUTO_TEST_SUITE_END()
