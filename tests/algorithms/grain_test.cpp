// Every algorithm, blocking (range and iterators) and task forms (range and iterators), with the
// extreme grains 0 (automatic), 1, n, n + 1, SIZE_MAX - 1 and SIZE_MAX, against the std
// algorithms: no size computation may wrap around, whatever the grain. Also the automatic grain
// for inputs and worker counts near the limits of size_t.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// Empty; one; two and three, the smallest inputs for which n + grain - 1 wraps around with a grain
// of SIZE_MAX and SIZE_MAX - 1; odd; larger than max_scan_blocks (where grain 1 is raised).
const std::vector<std::size_t> sizes = {0, 1, 2, 3, 97, 10007};

// Grain 0 is the automatic one.
std::vector<tine::grain> extreme_grains(std::size_t n) {
  const std::size_t elements[] = {0, 1, n, n + 1, SIZE_MAX - 1, SIZE_MAX};
  std::vector<tine::grain> gs;
  for (std::size_t s : elements) {
    gs.push_back(tine::grain{s});
  }
  return gs;
}

std::vector<long> input(std::size_t n) {
  std::vector<long> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<long>(i * 37 % 101) - 50;
  }
  return v;
}

template <typename T>
struct task_result;
template <typename T>
struct task_result<tine::task<T>> {
  using type = T;
};

template <typename R, typename Fn, typename... A>
tine::task<R> in_task(A... args) {
  const Fn fn{};
  R result{};
  co_await tine::call(&result, fn, args...);
  co_await tine::join();
  co_return result;
}

template <typename Fn, typename... A>
tine::task<void> in_void_task(A... args) {
  const Fn fn{};
  co_await tine::call(fn, args...);
  co_await tine::join();
}

// The task form `Fn` of an algorithm, called with `args` inside a task on `sched`. A range
// argument is passed as a span: an lvalue in the task's frame, so the form refers to it.
template <typename Sched, typename Fn, typename... A>
auto run_task(Sched& sched, const Fn&, A... args) {
  using R = typename task_result<std::invoke_result_t<const Fn&, A&...>>::type;
  if constexpr (std::is_void_v<R>) {
    tine::sync_wait(sched, in_void_task<Fn, A...>, std::move(args)...);
  } else {
    return tine::sync_wait(sched, in_task<R, Fn, A...>, std::move(args)...);
  }
}

// Declares to the worker it runs on so many workers that 64 leaves per worker, 2^64, would wrap
// to 0 leaves, then runs a reduce and a scan there (the inline scheduler: one worker, no steals).
tine::task<bool> with_absurd_worker_count(const std::vector<long>* in) {
  tine::worker_context* worker = tine::current_worker();
  const std::size_t declared = worker->worker_count();
  worker->set_worker_count(std::size_t{1} << 58);
  long sum = 0;
  co_await tine::call(&sum, tine::async::reduce, *in, 5L);
  co_await tine::join();
  std::vector<long> out(in->size()), expected(in->size());
  std::vector<long>::iterator end;
  co_await tine::call(&end, tine::async::inclusive_scan, *in, out.begin());
  co_await tine::join();
  worker->set_worker_count(declared);
  std::inclusive_scan(in->begin(), in->end(), expected.begin());
  co_return sum == std::reduce(in->begin(), in->end(), 5L) && out == expected&& end == out.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(grain)

TINE_SCHEDULER_TEST_CASE(for_each_and_map, schedulers) {
  auto bump = [](long& x) { x = 3 * x + 1; };
  auto square = [](long x) { return x * x - 1; };
  for (std::size_t n : sizes) {
    const std::vector<long> in = input(n);
    std::vector<long> bumped = in;
    std::for_each(bumped.begin(), bumped.end(), bump);
    std::vector<long> squared(n);
    std::transform(in.begin(), in.end(), squared.begin(), square);
    for (tine::grain g : extreme_grains(n)) {
      std::vector<long> v = in;
      tine::for_each(sched, v, bump, g);
      BOOST_TEST(v == bumped, "for_each n=" << n << " grain=" << g.size);
      v = in;
      tine::for_each(sched, v.begin(), v.end(), bump, g);
      BOOST_TEST(v == bumped, "for_each iterators n=" << n << " grain=" << g.size);
      v = in;
      run_task(sched, tine::async::for_each, std::span<long>(v), bump, g);
      BOOST_TEST(v == bumped, "async::for_each n=" << n << " grain=" << g.size);
      v = in;
      run_task(sched, tine::async::for_each, v.begin(), v.end(), bump, g);
      BOOST_TEST(v == bumped, "async::for_each iterators n=" << n << " grain=" << g.size);

      std::vector<long> out(n, -999);
      BOOST_TEST((tine::map(sched, in, out.begin(), square, g) == out.end()));
      BOOST_TEST(out == squared, "map n=" << n << " grain=" << g.size);
      out.assign(n, -999);
      BOOST_TEST((tine::map(sched, in.begin(), in.end(), out.begin(), square, g) == out.end()));
      BOOST_TEST(out == squared, "map iterators n=" << n << " grain=" << g.size);
      out.assign(n, -999);
      BOOST_TEST((run_task(sched, tine::async::map, std::span<const long>(in), out.begin(), square,
                           g) == out.end()));
      BOOST_TEST(out == squared, "async::map n=" << n << " grain=" << g.size);
      out.assign(n, -999);
      BOOST_TEST((run_task(sched, tine::async::map, in.begin(), in.end(), out.begin(), square, g) ==
                  out.end()));
      BOOST_TEST(out == squared, "async::map iterators n=" << n << " grain=" << g.size);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(reduce_and_transform_reduce, schedulers) {
  auto square = [](long x) { return x * x; };
  const std::plus<> plus;
  const std::multiplies<> times;
  for (std::size_t n : sizes) {
    const std::vector<long> a = input(n);
    std::vector<long> b(n);
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = static_cast<long>(i % 7) - 3;
    }
    const std::span<const long> sa(a);
    const long sum = std::reduce(a.begin(), a.end(), 5L);
    const long squares = std::transform_reduce(a.begin(), a.end(), 5L, plus, square);
    const long dot = std::transform_reduce(a.begin(), a.end(), b.begin(), 5L, plus, times);
    const std::vector<tine_test::interval> units = tine_test::unit_intervals(n);
    const tine_test::interval all{-1, static_cast<long>(n), true};
    for (tine::grain g : extreme_grains(n)) {
      const auto where = [&] {
        return "n=" + std::to_string(n) + " grain=" + std::to_string(g.size);
      };
      BOOST_TEST(tine::reduce(sched, a, 5L, plus, g) == sum, "reduce " << where());
      BOOST_TEST(tine::reduce(sched, a.begin(), a.end(), 5L, plus, g) == sum);
      BOOST_TEST(run_task(sched, tine::async::reduce, sa, 5L, plus, g) == sum,
                 "async::reduce " << where());
      BOOST_TEST(run_task(sched, tine::async::reduce, a.begin(), a.end(), 5L, plus, g) == sum);
      // In order: the result covers every index, combined left to right.
      const bool in_order = tine::reduce(sched, units, tine_test::interval{-1, 0, true},
                                         tine_test::join_intervals{}, g) == all;
      BOOST_TEST(in_order, "reduce in order " << where());

      BOOST_TEST(tine::transform_reduce(sched, a, 5L, plus, square, g) == squares,
                 "transform_reduce " << where());
      BOOST_TEST(tine::transform_reduce(sched, a.begin(), a.end(), 5L, plus, square, g) == squares);
      BOOST_TEST(run_task(sched, tine::async::transform_reduce, sa, 5L, plus, square, g) == squares,
                 "async::transform_reduce " << where());
      BOOST_TEST(run_task(sched, tine::async::transform_reduce, a.begin(), a.end(), 5L, plus,
                          square, g) == squares);

      BOOST_TEST(tine::transform_reduce(sched, a, b.begin(), 5L, plus, times, g) == dot,
                 "transform_reduce binary " << where());
      BOOST_TEST(tine::transform_reduce(sched, a.begin(), a.end(), b.begin(), 5L, plus, times, g) ==
                 dot);
      BOOST_TEST(
          run_task(sched, tine::async::transform_reduce, sa, b.begin(), 5L, plus, times, g) == dot,
          "async::transform_reduce binary " << where());
      BOOST_TEST(run_task(sched, tine::async::transform_reduce, a.begin(), a.end(), b.begin(), 5L,
                          plus, times, g) == dot);
    }
  }
}

TINE_SCHEDULER_TEST_CASE(scans, schedulers) {
  const std::plus<> plus;
  for (std::size_t n : sizes) {
    const std::vector<long> in = input(n);
    const std::span<const long> s(in);
    std::vector<long> inc(n), inc_init(n), exc(n);
    std::inclusive_scan(in.begin(), in.end(), inc.begin());
    std::inclusive_scan(in.begin(), in.end(), inc_init.begin(), plus, 100L);
    std::exclusive_scan(in.begin(), in.end(), exc.begin(), 100L);
    const std::vector<tine_test::interval> units = tine_test::unit_intervals(n);
    for (tine::grain g : extreme_grains(n)) {
      const auto where = [&] {
        return "n=" + std::to_string(n) + " grain=" + std::to_string(g.size);
      };
      std::vector<long> out(n, -999);
      // Each call writes the whole output (reset in between) and returns its end.
      const auto check = [&](std::vector<long>::iterator end, const std::vector<long>& expected,
                             const char* what) {
        BOOST_TEST((end == out.end()), what << " end " << where());
        BOOST_TEST(out == expected, what << " " << where());
        out.assign(n, -999);
      };
      check(tine::inclusive_scan(sched, in, out.begin(), plus, g), inc, "inclusive_scan");
      check(tine::inclusive_scan(sched, in.begin(), in.end(), out.begin(), plus, g), inc,
            "inclusive_scan iterators");
      check(run_task(sched, tine::async::inclusive_scan, s, out.begin(), plus, g), inc,
            "async::inclusive_scan");
      check(
          run_task(sched, tine::async::inclusive_scan, in.begin(), in.end(), out.begin(), plus, g),
          inc, "async::inclusive_scan iterators");

      check(tine::inclusive_scan(sched, in, out.begin(), plus, 100L, g), inc_init,
            "inclusive_scan init");
      check(tine::inclusive_scan(sched, in.begin(), in.end(), out.begin(), plus, 100L, g), inc_init,
            "inclusive_scan init iterators");
      check(run_task(sched, tine::async::inclusive_scan, s, out.begin(), plus, 100L, g), inc_init,
            "async::inclusive_scan init");
      check(run_task(sched, tine::async::inclusive_scan, in.begin(), in.end(), out.begin(), plus,
                     100L, g),
            inc_init, "async::inclusive_scan init iterators");

      check(tine::exclusive_scan(sched, in, out.begin(), 100L, plus, g), exc, "exclusive_scan");
      check(tine::exclusive_scan(sched, in.begin(), in.end(), out.begin(), 100L, plus, g), exc,
            "exclusive_scan iterators");
      check(run_task(sched, tine::async::exclusive_scan, s, out.begin(), 100L, plus, g), exc,
            "async::exclusive_scan");
      check(run_task(sched, tine::async::exclusive_scan, in.begin(), in.end(), out.begin(), 100L,
                     plus, g),
            exc, "async::exclusive_scan iterators");

      // In order: out[i] covers exactly [0, i] (inclusive) or [-1, i) (exclusive).
      std::vector<tine_test::interval> spans(n);
      tine::inclusive_scan(sched, units, spans.begin(), tine_test::join_intervals{}, g);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) {
        ok = ok && spans[i] == tine_test::interval{0, static_cast<long>(i) + 1, true};
      }
      BOOST_TEST(ok, "inclusive_scan in order " << where());
      spans.assign(n, tine_test::interval{});
      ok = true;
      tine::exclusive_scan(sched, units, spans.begin(), tine_test::interval{-1, 0, true},
                           tine_test::join_intervals{}, g);
      for (std::size_t i = 0; i < n; ++i) {
        ok = ok && spans[i] == tine_test::interval{-1, static_cast<long>(i), true};
      }
      BOOST_TEST(ok, "exclusive_scan in order " << where());
    }
  }
}

TINE_SCHEDULER_TEST_CASE(searches, schedulers) {
  for (std::size_t n : sizes) {
    const std::vector<long> in = input(n);
    const std::span<const long> s(in);
    const long target = n == 0 ? 0 : in[n / 2];
    // A hit in the middle (or earlier: values repeat), hits everywhere, some, and none.
    const std::vector<std::function<bool(long)>> preds = {
        [target](long x) { return x == target; }, [](long x) { return x > -1000; },
        [](long x) { return x > 0; }, [](long x) { return x > 1000; }};
    for (tine::grain g : extreme_grains(n)) {
      for (std::size_t p = 0; p < preds.size(); ++p) {
        const auto& pred = preds[p];
        const auto where = [&] {
          return "n=" + std::to_string(n) + " grain=" + std::to_string(g.size) +
                 " predicate=" + std::to_string(p);
        };
        // Compared as positions: a mismatch prints the two indices.
        const long first = std::find_if(in.begin(), in.end(), pred) - in.begin();
        const auto pos = [&](auto it) {
          return static_cast<long>(std::to_address(it) - in.data());
        };
        BOOST_TEST(pos(tine::find_if(sched, in, pred, g)) == first, "find_if " << where());
        BOOST_TEST(pos(tine::find_if(sched, in.begin(), in.end(), pred, g)) == first);
        BOOST_TEST(pos(run_task(sched, tine::async::find_if, s, pred, g)) == first,
                   "async::find_if " << where());
        BOOST_TEST(pos(run_task(sched, tine::async::find_if, in.begin(), in.end(), pred, g)) ==
                   first);

        const bool any = std::any_of(in.begin(), in.end(), pred);
        const bool all = std::all_of(in.begin(), in.end(), pred);
        const bool none = std::none_of(in.begin(), in.end(), pred);
        BOOST_TEST(tine::any_of(sched, in, pred, g) == any, "any_of " << where());
        BOOST_TEST(tine::any_of(sched, in.begin(), in.end(), pred, g) == any);
        BOOST_TEST(run_task(sched, tine::async::any_of, s, pred, g) == any);
        BOOST_TEST(run_task(sched, tine::async::any_of, in.begin(), in.end(), pred, g) == any);
        BOOST_TEST(tine::all_of(sched, in, pred, g) == all, "all_of " << where());
        BOOST_TEST(tine::all_of(sched, in.begin(), in.end(), pred, g) == all);
        BOOST_TEST(run_task(sched, tine::async::all_of, s, pred, g) == all);
        BOOST_TEST(run_task(sched, tine::async::all_of, in.begin(), in.end(), pred, g) == all);
        BOOST_TEST(tine::none_of(sched, in, pred, g) == none, "none_of " << where());
        BOOST_TEST(tine::none_of(sched, in.begin(), in.end(), pred, g) == none);
        BOOST_TEST(run_task(sched, tine::async::none_of, s, pred, g) == none);
        BOOST_TEST(run_task(sched, tine::async::none_of, in.begin(), in.end(), pred, g) == none);
      }
    }
  }
}

// The automatic grain (grain 0) is ceil(n / (64 * workers)), at least 1, also where n + 64 *
// workers or 64 * workers exceeds SIZE_MAX.
BOOST_AUTO_TEST_CASE(automatic_grain_near_the_limits) {
  using tine::detail::leaf_size;
  BOOST_TEST(leaf_size(0, tine::grain{0}, 2) == 1u);
  BOOST_TEST(leaf_size(128, tine::grain{0}, 2) == 1u);
  BOOST_TEST(leaf_size(129, tine::grain{0}, 2) == 2u);
  BOOST_TEST(leaf_size(SIZE_MAX, tine::grain{}, 2) == SIZE_MAX / 128 + 1);
  BOOST_TEST(leaf_size(SIZE_MAX - 1, tine::grain{}, 1) == SIZE_MAX / 64 + 1);
  BOOST_TEST(leaf_size(SIZE_MAX, tine::grain{}, SIZE_MAX) == 1u);
  BOOST_TEST(leaf_size(1000, tine::grain{}, std::size_t{1} << 58) == 1u);
  // A grain the user gives is kept as it is.
  BOOST_TEST(leaf_size(10, tine::grain{SIZE_MAX}, 2) == SIZE_MAX);
}

BOOST_AUTO_TEST_CASE(absurd_worker_count) {
  tine::inline_scheduler sched;
  const std::vector<long> in = input(1031);
  BOOST_TEST(tine::sync_wait(sched, with_absurd_worker_count, &in));
}

BOOST_AUTO_TEST_SUITE_END()
