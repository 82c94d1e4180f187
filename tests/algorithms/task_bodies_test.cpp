// Callables that return tasks: every algorithm that applies a user's callable per element or per
// pair accepts one that returns a tine::task, runs it as a child task and gives the result of the
// serial algorithm with the plain callable, on every scheduler, input size and grain. Task
// bodies that throw reach the caller once the started pieces have finished. A blocking algorithm
// called on a worker thread throws std::logic_error naming it and its task form.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// Smaller sizes than the other tests: each element costs a child task (two for some callables).
const std::vector<std::size_t> task_sizes = {0, 1, 2, 7, 97, 1031};

std::vector<long> values(std::size_t n) {
  std::vector<long> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<long>((i * 7919) % 1009) - 500;
  }
  return v;
}

// A body that forks: the element's square as the sum of two halves computed in parallel.
tine::task<long> half_square(long x, int half) {
  co_return (half == 0 ? x * x / 2 : x * x - x * x / 2);
}
tine::task<long> square(long x) {
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, half_square, x, 0);
  co_await tine::call(&b, half_square, x, 1);
  co_await tine::join();
  co_return a + b;
}

// The same callables as plain functions (the serial reference) and as task-returning lambdas.
const auto square_task = [](long x) -> tine::task<long> {
  long r = 0;
  co_await tine::call(&r, square, x);
  co_return r;
};
const auto negative_task = [](long x) -> tine::task<bool> { co_return x < 0; };
const auto at_least_task = [](long x) -> tine::task<bool> { co_return x >= -500; };
const auto plus_task = [](long a, long b) -> tine::task<long> { co_return a + b; };

// Concatenation: associative, not commutative, so the order of the combinations shows.
const auto concat_task = [](std::string a, std::string b) -> tine::task<std::string> {
  co_return a + b;
};

// A body that increments an element through a task (for_each's values are discarded).
tine::task<int> bump(long* x) {
  *x += 1;
  co_return 0;
}

// clang-format off
// [docs:task_bodies_merge]
// Merges two sorted vectors with the task form of tine::merge: the reduction's op is parallel.
tine::task<std::vector<int>> merge_sorted(std::vector<int> a, std::vector<int> b) {
  std::vector<int> out(a.size() + b.size());
  std::vector<int>::iterator end;
  co_await tine::call(&end, tine::async::merge, a, b, out.begin());
  co_await tine::join();
  co_return out;
}
// [docs:task_bodies_merge end]
// clang-format on

}  // namespace

BOOST_AUTO_TEST_SUITE(task_bodies)

// clang-format off
// [docs:task_bodies_rows]
struct row {
  std::vector<double> cells;
};

TINE_SCHEDULER_TEST_CASE(rows_sorted_in_parallel, schedulers) {
  std::vector<row> rows(100, row{std::vector<double>(2000)});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < 2000; ++j) {
      rows[i].cells[j] = static_cast<double>((i * 31 + j * 7919) % 2003);
    }
  }
  // Parallel inside parallel: each row's body is a task that sorts the row with the task form.
  tine::for_each(sched, rows, [](row& r) -> tine::task<void> {
    co_await tine::call(tine::async::sort, r.cells);
  });
  for (const row& r : rows) {
    BOOST_TEST(std::ranges::is_sorted(r.cells));
  }
  // A predicate that is a task: whether some row holds a value, by a parallel search in each.
  const auto holds_zero = [](const row& r) -> tine::task<bool> {
    bool found = false;
    co_await tine::call(&found, tine::async::any_of, r.cells, [](double x) { return x == 0.0; });
    co_return found;
  };
  const auto serial = [](const row& r) { return std::ranges::find(r.cells, 0.0) != r.cells.end(); };
  BOOST_TEST(tine::count_if(sched, rows, holds_zero) == std::ranges::count_if(rows, serial));
}
// [docs:task_bodies_rows end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(a_reduction_whose_op_is_parallel, schedulers) {
  // Sorted runs of 0, 1, ... merged into one sorted vector.
  std::vector<std::vector<int>> runs(40);
  std::vector<int> expected;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (int k = 0; k < 50; ++k) {
      runs[i].push_back(static_cast<int>(i) + 40 * k);
      expected.push_back(static_cast<int>(i) + 40 * k);
    }
  }
  std::ranges::sort(expected);
  // [docs:task_bodies_merge_call]
  std::vector<int> all = tine::reduce(sched, runs, std::vector<int>{}, merge_sorted);
  // [docs:task_bodies_merge_call end]
  BOOST_TEST((all == expected));
}

TINE_SCHEDULER_TEST_CASE(for_each_and_map, schedulers) {
  for (std::size_t n : task_sizes) {
    for (tine::grain g : tine_test::grains(n, 3)) {
      std::vector<long> v = values(n);
      std::vector<long> expected = v;
      std::transform(expected.begin(), expected.end(), expected.begin(),
                     [](long x) { return x * x + 1; });
      tine::for_each(
          sched, v,
          [](long& x) -> tine::task<void> {
            long sq = 0;
            co_await tine::call(&sq, square, x);
            x = sq;
          },
          g);
      tine::for_each(
          sched, v.begin(), v.end(), [](long& x) { return bump(&x); }, g);
      BOOST_TEST((v == expected), "n=" << n << " grain=" << g.size);

      std::vector<long> in = values(n);
      std::vector<long> out(n, 0);
      auto end = tine::map(sched, in, out.begin(), square_task, g);
      BOOST_TEST((end == out.end()));
      std::vector<long> serial(n);
      std::transform(in.begin(), in.end(), serial.begin(), [](long x) { return x * x; });
      BOOST_TEST((out == serial), "n=" << n << " grain=" << g.size);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(reduce_and_transform_reduce, schedulers) {
  for (std::size_t n : task_sizes) {
    for (tine::grain g : tine_test::grains(n, 5)) {
      const std::vector<long> v = values(n);
      const long sum = std::accumulate(v.begin(), v.end(), 3L);
      BOOST_TEST(tine::reduce(sched, v, 3L, plus_task, g) == sum);
      long squares = 3;
      for (long x : v) {
        squares += x * x;
      }
      // A task transform with a plain op, a plain transform with a task op, both tasks.
      BOOST_TEST(tine::transform_reduce(sched, v, 3L, std::plus<>{}, square_task, g) == squares);
      BOOST_TEST(tine::transform_reduce(
                     sched, v, 3L, plus_task, [](long x) { return x * x; }, g) == squares);
      BOOST_TEST(tine::transform_reduce(sched, v, 3L, plus_task, square_task, g) == squares);
      // Two inputs: a dot product whose products are tasks.
      long dot = 3;
      for (long x : v) {
        dot += x * (x + 1);
      }
      std::vector<long> w = v;
      for (long& x : w) {
        x += 1;
      }
      BOOST_TEST(tine::transform_reduce(
                     sched, v, w.begin(), 3L, plus_task,
                     [](long x, long y) -> tine::task<long> { co_return (x * y); }, g) == dot);
      // Non-commutative: the combinations keep their order.
      std::vector<std::string> words(n);
      std::string joined = "<";
      for (std::size_t i = 0; i < n; ++i) {
        words[i] = std::to_string(i % 10);
        joined += words[i];
      }
      BOOST_TEST(tine::reduce(sched, words, std::string("<"), concat_task, g) == joined);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(counts_and_searches, schedulers) {
  for (std::size_t n : task_sizes) {
    for (tine::grain g : tine_test::grains(n, 7)) {
      const std::vector<long> v = values(n);
      const auto negative = [](long x) { return x < 0; };
      BOOST_TEST(tine::count_if(sched, v, negative_task, g) ==
                 std::count_if(v.begin(), v.end(), negative));
      BOOST_TEST((tine::find_if(sched, v, negative_task, g) ==
                  std::find_if(v.begin(), v.end(), negative)));
      BOOST_TEST(tine::any_of(sched, v, negative_task, g) ==
                 std::any_of(v.begin(), v.end(), negative));
      BOOST_TEST(tine::none_of(sched, v, negative_task, g) ==
                 std::none_of(v.begin(), v.end(), negative));
      BOOST_TEST(tine::all_of(sched, v, at_least_task, g) == true);
      BOOST_TEST(tine::all_of(sched, v, negative_task, g) ==
                 std::all_of(v.begin(), v.end(), negative));
      // A list: the searches' positions are the list's.
      const std::list<long> l(v.begin(), v.end());
      BOOST_TEST((tine::find_if(sched, l, negative_task, g) ==
                  std::find_if(l.begin(), l.end(), negative)));
    }
  }
}

TINE_SCHEDULER_TEST_CASE(comparisons, schedulers) {
  for (std::size_t n : task_sizes) {
    for (tine::grain g : tine_test::grains(n, 9)) {
      const std::vector<long> v = values(n);
      std::vector<long> w = v;
      const auto same = [](long a, long b) -> tine::task<bool> { co_return a == b; };
      BOOST_TEST(tine::equal(sched, v, w.begin(), same, g));
      if (n > 0) {
        w[n / 2] += 1;
        BOOST_TEST(!tine::equal(sched, v, w.begin(), same, g));
        const auto [in1, in2] = tine::mismatch(sched, v, w.begin(), same, g);
        BOOST_TEST((in1 - v.begin() == static_cast<std::ptrdiff_t>(n / 2)));
        BOOST_TEST((in2 - w.begin() == static_cast<std::ptrdiff_t>(n / 2)));
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(scans, schedulers) {
  for (std::size_t n : task_sizes) {
    for (tine::grain g : tine_test::grains(n, 11)) {
      const std::vector<long> v = values(n);
      std::vector<long> out(n);
      std::vector<long> serial(n);
      tine::inclusive_scan(sched, v, out.begin(), plus_task, g);
      std::inclusive_scan(v.begin(), v.end(), serial.begin());
      BOOST_TEST((out == serial), "n=" << n << " grain=" << g.size);
      tine::inclusive_scan(sched, v, out.begin(), plus_task, 4L, g);
      std::inclusive_scan(v.begin(), v.end(), serial.begin(), std::plus<>{}, 4L);
      BOOST_TEST((out == serial));
      tine::exclusive_scan(sched, v, out.begin(), 4L, plus_task, g);
      std::exclusive_scan(v.begin(), v.end(), serial.begin(), 4L);
      BOOST_TEST((out == serial));
      // Intervals: combined only in order, so a misordered combination shows.
      const std::vector<tine_test::interval> units = tine_test::unit_intervals(n);
      std::vector<tine_test::interval> spans(n);
      tine::inclusive_scan(
          sched, units, spans.begin(),
          [](tine_test::interval a, tine_test::interval b) -> tine::task<tine_test::interval> {
            co_return tine_test::join_intervals{}(a, b);
          },
          g);
      for (std::size_t i = 0; i < n; ++i) {
        BOOST_TEST((spans[i] == tine_test::interval{0, static_cast<long>(i) + 1, true}));
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(a_throwing_task_body_reaches_the_caller, schedulers) {
  for (std::size_t n : {std::size_t{7}, std::size_t{1031}}) {
    for (std::size_t at : tine_test::throw_points(n, 13)) {
      std::vector<long> v(n);
      std::iota(v.begin(), v.end(), 0L);
      tine_test::gauge running;
      const auto body = [&running, at](long& x) -> tine::task<void> {
        const tine_test::gauge::scope in(&running);
        if (static_cast<std::size_t>(x) == at) {
          throw tine_test::test_error("body");
        }
        co_return;
      };
      BOOST_CHECK_THROW(tine::for_each(sched, v, body, tine::grain{3}), tine_test::test_error);
      BOOST_TEST(running.live.load() == 0);
      // Every element goes through the transform; op is called at least once (n > 1).
      const auto throwing_square = [at](long x) -> tine::task<long> {
        if (static_cast<std::size_t>(x) == at) {
          throw tine_test::test_error("transform");
        }
        co_return (x * x);
      };
      BOOST_CHECK_THROW(
          (void)tine::transform_reduce(sched, v, 0L, plus_task, throwing_square, tine::grain{3}),
          tine_test::test_error);
      const auto throwing_plus = [](long, long) -> tine::task<long> {
        throw tine_test::test_error("op");
        co_return 0;
      };
      BOOST_CHECK_THROW((void)tine::reduce(sched, v, 0L, throwing_plus, tine::grain{3}),
                        tine_test::test_error);
      const auto throwing_test = [at](long x) -> tine::task<bool> {
        if (static_cast<std::size_t>(x) == at) {
          throw tine_test::test_error("pred");
        }
        co_return false;
      };
      BOOST_CHECK_THROW((void)tine::count_if(sched, v, throwing_test, tine::grain{3}),
                        tine_test::test_error);
      BOOST_CHECK_THROW((void)tine::find_if(sched, v, throwing_test, tine::grain{3}),
                        tine_test::test_error);
    }
  }
}

// The task forms nest too: an algorithm inside a task, whose bodies are tasks.
tine::task<long> sum_of_squares(const std::vector<long>* v) {
  long total = 0;
  co_await tine::call(&total, tine::async::transform_reduce, *v, 0L, plus_task, square_task);
  co_await tine::join();
  co_return total;
}

TINE_SCHEDULER_TEST_CASE(task_forms_with_task_bodies, schedulers) {
  const std::vector<long> v = values(1031);
  long expected = 0;
  for (long x : v) {
    expected += x * x;
  }
  BOOST_TEST(tine::sync_wait(sched, sum_of_squares, &v) == expected);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- blocking algorithms on a worker thread -----------------------------------------------

namespace {

// What a blocking algorithm says when called on a worker thread: the function called and the
// task form to use instead, never sync_wait.
void check_refusal(const std::logic_error& e, const std::string& name, bool has_result) {
  const std::string what = e.what();
  BOOST_TEST(what.rfind("tine::" + name + ": called on a worker thread", 0) == 0, what);
  const std::string form = std::string("co_await tine::call(") + (has_result ? "&result, " : "") +
                           "tine::async::" + name;
  BOOST_TEST(what.find(form) != std::string::npos, what);
  BOOST_TEST(what.find("sync_wait") == std::string::npos, what);
}

template <typename Sched>
tine::task<int> calls_blocking_algorithms(Sched* sched) {
  std::vector<long> v = values(10);
  std::vector<long> out(10);
  int refused = 0;
  const auto expect = [&refused](auto&& blocking, const char* name, bool has_result) {
    try {
      blocking();
    } catch (const std::logic_error& e) {
      check_refusal(e, name, has_result);
      ++refused;
    }
  };
  expect([&] { tine::for_each(*sched, v, [](long&) {}); }, "for_each", false);
  expect([&] { (void)tine::map(*sched, v, out.begin(), std::negate<>{}); }, "map", true);
  expect([&] { (void)tine::reduce(*sched, v); }, "reduce", true);
  expect([&] { (void)tine::transform_reduce(*sched, v, 0L, std::plus<>{}, std::negate<>{}); },
         "transform_reduce", true);
  expect([&] { (void)tine::inclusive_scan(*sched, v, out.begin()); }, "inclusive_scan", true);
  expect([&] { (void)tine::exclusive_scan(*sched, v, out.begin(), 0L); }, "exclusive_scan", true);
  expect([&] { (void)tine::find_if(*sched, v, [](long) { return true; }); }, "find_if", true);
  expect([&] { (void)tine::any_of(*sched, v, [](long) { return true; }); }, "any_of", true);
  expect([&] { (void)tine::all_of(*sched, v, [](long) { return true; }); }, "all_of", true);
  expect([&] { (void)tine::none_of(*sched, v, [](long) { return true; }); }, "none_of", true);
  expect([&] { (void)tine::equal(*sched, v, out.begin()); }, "equal", true);
  expect([&] { (void)tine::mismatch(*sched, v, out.begin()); }, "mismatch", true);
  expect([&] { (void)tine::count_if(*sched, v, [](long) { return true; }); }, "count_if", true);
  expect([&] { (void)tine::count(*sched, v, 1L); }, "count", true);
  expect([&] { (void)tine::min_element(*sched, v); }, "min_element", true);
  expect([&] { (void)tine::max_element(*sched, v); }, "max_element", true);
  expect([&] { (void)tine::minmax_element(*sched, v); }, "minmax_element", true);
  expect([&] { (void)tine::fill(*sched, out, 1L); }, "fill", true);
  expect([&] { (void)tine::copy(*sched, v, out.begin()); }, "copy", true);
  expect([&] { (void)tine::sort(*sched, out); }, "sort", true);
  expect([&] { (void)tine::stable_sort(*sched, out); }, "stable_sort", true);
  expect([&] { (void)tine::merge(*sched, v, out, std::vector<long>(20).begin()); }, "merge", true);
  try {
    tine::invoke(*sched, [] {});
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.rfind("tine::invoke: called on a worker thread", 0) == 0, what);
    BOOST_TEST(what.find("co_await tine::call(tine::async::invoke") != std::string::npos, what);
    ++refused;
  }
  co_return refused;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(blocking_on_a_worker)

TINE_SCHEDULER_TEST_CASE(inside_a_task, schedulers) {
  // Every blocking algorithm, on the task's own scheduler and on another one.
  BOOST_TEST(tine::sync_wait(sched, calls_blocking_algorithms<tine::scheduler_ref>, &sched) == 23);
  tine::inline_scheduler other;
  BOOST_TEST(tine::sync_wait(sched, calls_blocking_algorithms<tine::inline_scheduler>, &other) ==
             23);
}

TINE_SCHEDULER_TEST_CASE(inside_an_algorithms_body, schedulers) {
  const std::vector<long> rows = values(8);
  try {
    tine::for_each(sched, rows, [&sched](long) { (void)tine::reduce(sched, values(4)); });
    BOOST_FAIL("a blocking reduce inside a body must throw");
  } catch (const std::logic_error& e) {
    check_refusal(e, "reduce", true);
  }
}

BOOST_AUTO_TEST_SUITE_END()
