// Every kind of input users have reaches the algorithms: std containers (random access or not),
// std views, range-v3 views, raw pointers, temporaries. Each is checked by visiting it (every
// element exactly once), by writing through it where it is writable, and by an algorithm that
// returns a position, which must be an iterator of the caller's range.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <deque>
#include <forward_list>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <ranges>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <range/v3/view/chunk.hpp>
#include <range/v3/view/enumerate.hpp>
#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>
#include <range/v3/view/zip.hpp>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>

#include "test_support.hpp"

namespace {

constexpr long n = 1031;  // prime, and more than a few leaves on every scheduler

// How an input is traversed does not depend on the scheduler, and this file instantiates every
// view type with each one (its compile time is a long pole of CI): one that runs inline, the
// stealing test pool oversubscribed (preempted in the middle of tasks), and a production pool.
using range_schedulers =
    boost::mpl::list<tine::inline_scheduler, tine_test::pool<3>, tine_test::busy2>;

// Records which values in [0, n) were visited, and how often; copies share the record.
struct visits {
  std::shared_ptr<std::atomic<int>[]> count{new std::atomic<int>[n] {}};

  void operator()(long v) const { count[static_cast<std::size_t>(v)].fetch_add(1); }

  // Every value of [0, m) visited exactly once, none other.
  bool exactly_once(long m) const {
    for (long v = 0; v < n; ++v) {
      if (count[static_cast<std::size_t>(v)].load() != (v < m ? 1 : 0)) {
        return false;
      }
    }
    return true;
  }
};

std::vector<long> iota_vector(long m) {
  std::vector<long> v(static_cast<std::size_t>(m));
  for (long i = 0; i < m; ++i) {
    v[static_cast<std::size_t>(i)] = i;
  }
  return v;
}

// Visits `r` with the blocking form and with the task form; each must see [0, m) once.
template <typename Sched, typename R, typename Project>
void visit_both_forms(Sched& sched, R&& r, long m, Project project, const char* what) {
  {
    visits seen;
    tine::for_each(sched, r, [&](auto&& x) { seen(project(x)); });
    BOOST_TEST(seen.exactly_once(m), what << ": blocking");
  }
  {
    visits seen;
    auto f = [&](auto&& x) { seen(project(x)); };
    tine::sync_wait(
        sched,
        [](auto* range, auto fn) -> tine::task<void> {
          co_await tine::call(tine::async::for_each, *range, fn);
          co_await tine::join();
        },
        &r, f);
    BOOST_TEST(seen.exactly_once(m), what << ": task form");
  }
}

const auto same = [](auto x) { return static_cast<long>(x); };

}  // namespace

BOOST_AUTO_TEST_SUITE(ranges)

TINE_SCHEDULER_TEST_CASE(std_containers, range_schedulers) {
  const std::vector<long> values = iota_vector(n);
  std::vector<long> vector = values;
  std::array<long, n> array{};
  std::copy(values.begin(), values.end(), array.begin());
  std::deque<long> deque(values.begin(), values.end());
  std::list<long> list(values.begin(), values.end());
  std::forward_list<long> forward_list(values.begin(), values.end());
  std::set<long> set(values.begin(), values.end());
  std::map<long, long> map;
  for (long v : values) {
    map[v] = v;
  }
  std::string text(static_cast<std::size_t>(n % 128), ' ');
  for (std::size_t i = 0; i < text.size(); ++i) {
    text[i] = static_cast<char>(i);
  }

  visit_both_forms(sched, vector, n, same, "vector");
  visit_both_forms(sched, array, n, same, "array");
  visit_both_forms(sched, deque, n, same, "deque");
  visit_both_forms(sched, std::span<long>(vector), n, same, "span");
  visit_both_forms(sched, text, n % 128, same, "string");
  visit_both_forms(sched, list, n, same, "list");
  visit_both_forms(sched, forward_list, n, same, "forward_list");
  visit_both_forms(sched, set, n, same, "set");
  visit_both_forms(
      sched, map, n, [](const auto& kv) { return kv.second; }, "map");
  visit_both_forms(sched, std::as_const(list), n, same, "const list");

  // Written through: the gathered iterators refer to the caller's elements.
  tine::for_each(sched, list, [](long& x) { x = 2 * x + 1; });
  tine::for_each(sched, forward_list, [](long& x) { x = 2 * x + 1; });
  tine::for_each(sched, map, [](auto& kv) { kv.second = -kv.first; });
  long i = 0;
  bool written = true;
  auto fl = forward_list.begin();
  for (long x : list) {
    written = written && x == 2 * i + 1 && *fl++ == 2 * i + 1 && map[i] == -i;
    ++i;
  }
  BOOST_TEST(written);
}

TINE_SCHEDULER_TEST_CASE(iterator_pairs_and_pointers, range_schedulers) {
  std::vector<long> vector = iota_vector(n);
  std::list<long> list(vector.begin(), vector.end());
  long* p = vector.data();
  const std::size_t size = vector.size();
  {
    visits seen;
    tine::for_each(sched, p, p + size, seen);
    BOOST_TEST(seen.exactly_once(n), "pointer pair");
  }
  {
    visits seen;
    tine::for_each(sched, std::span<long>(p, size), seen);
    BOOST_TEST(seen.exactly_once(n), "pointer and size as a span");
  }
  {
    visits seen;
    tine::for_each(sched, list.begin(), list.end(), seen);
    BOOST_TEST(seen.exactly_once(n), "list iterators");
  }
  {
    visits seen;
    tine::for_each(sched, std::next(list.begin(), 10), list.end(), seen);
    for (long v = 0; v < 10; ++v) {
      seen(v);  // the part not visited
    }
    BOOST_TEST(seen.exactly_once(n), "part of a list");
  }
}

TINE_SCHEDULER_TEST_CASE(std_views, range_schedulers) {
  std::vector<long> vector = iota_vector(n);
  visit_both_forms(sched, std::views::iota(0L, n), n, same, "iota");
  visit_both_forms(sched, std::views::iota(0, static_cast<int>(n)), n, same, "iota int");
  visit_both_forms(sched, vector | std::views::transform([](long x) { return n - 1 - x; }), n, same,
                   "transform");
  visit_both_forms(
      sched, vector | std::views::filter([](long x) { return x % 3 != 2; }), n / 3 * 2 + 2,
      [](long x) { return x / 3 * 2 + x % 3; }, "filter");
  visit_both_forms(sched, vector | std::views::take(100), 100, same, "take");
  visit_both_forms(
      sched, vector | std::views::drop(n - 100), 100, [](long x) { return x - (n - 100); }, "drop");
  visit_both_forms(sched, vector | std::views::reverse, n, same, "reverse");
  visit_both_forms(sched, std::views::iota(0L) | std::views::take(n), n, same, "unbounded iota");
  visit_both_forms(sched,
                   vector | std::views::filter([](long) { return true; }) | std::views::reverse |
                       std::views::take(n),
                   n, same, "filter | reverse | take");
#if defined(__cpp_lib_ranges_zip)
  visit_both_forms(
      sched, std::views::zip(vector, vector), n, [](auto t) { return std::get<0>(t); }, "zip");
#endif
}

TINE_SCHEDULER_TEST_CASE(range_v3_views, range_schedulers) {
  std::vector<long> vector = iota_vector(n);
  visit_both_forms(sched, ranges::views::iota(0, static_cast<int>(n)), n, same, "v3 iota int");
  visit_both_forms(sched, ranges::views::iota(0L, n), n, same, "v3 iota long");
  visit_both_forms(sched, vector | ranges::views::transform([](long x) { return x; }), n, same,
                   "v3 transform");
  visit_both_forms(
      sched, ranges::views::zip(vector, vector), n, [](auto t) { return std::get<0>(t); },
      "v3 zip");
  visit_both_forms(
      sched, vector | ranges::views::enumerate, n,
      [](auto t) { return static_cast<long>(t.first); }, "v3 enumerate");
  // chunk: each element is a chunk of 10; visit its first value.
  const std::vector<long> tens = iota_vector(n * 10);
  visit_both_forms(
      sched, tens | ranges::views::chunk(10), n, [](auto c) { return *c.begin() / 10; },
      "v3 chunk");
}

// A 16-byte aligned value, passed in memory: what Clang once misplaced in coroutine frames
// (see algorithms/detail/coroutine_param.hpp).
struct alignas(16) wide {
  long value = 0;
  long spare[3] = {};
};

// A callable that carries such a value.
struct add_wide {
  wide offset;
  long operator()(long x) const { return x + offset.value; }
};

// Every algorithm over `iota(0L) | take(n)`, whose iterator is a std::counted_iterator with an
// __int128 count (16-byte aligned, 32 bytes), over that view as a temporary, and with callables
// and values of a 16-byte aligned type: each as a parameter of the algorithm's coroutine.
TINE_SCHEDULER_TEST_CASE(sixteen_byte_aligned_iterators_callables_values, range_schedulers) {
  const auto unbounded = std::views::iota(0L) | std::views::take(n);
  static_assert(alignof(std::ranges::iterator_t<decltype(unbounded)>) == 16);
  const long sum = n * (n - 1) / 2;
  const add_wide plus_one{wide{1}};

  BOOST_TEST(tine::reduce(sched, unbounded) == sum);
  BOOST_TEST(tine::reduce(sched, std::views::iota(0L) | std::views::take(n)) == sum,
             "temporary view");
  BOOST_TEST(tine::transform_reduce(sched, unbounded, 0L, std::plus<>{}, plus_one) == sum + n);
  // The counts are the view's difference type, an __int128 that Boost.Test cannot print.
  BOOST_TEST(static_cast<long>(tine::count_if(sched, unbounded,
                                              [](long x) { return x % 2 == 0; })) == (n + 1) / 2);
  BOOST_TEST(
      static_cast<long>(tine::count(sched, std::views::iota(0L) | std::views::take(n), 7L)) == 1);
  BOOST_TEST(*tine::find_if(sched, unbounded, [](long x) { return x == 500; }) == 500);
  BOOST_TEST(tine::any_of(sched, unbounded, [](long x) { return x == n - 1; }));
  BOOST_TEST(*tine::min_element(sched, unbounded) == 0);
  BOOST_TEST(*tine::max_element(sched, unbounded) == n - 1);
  BOOST_TEST(tine::equal(sched, unbounded, std::views::iota(0L).begin()));

  std::vector<long> out(static_cast<std::size_t>(n));
  tine::map(sched, unbounded, out.begin(), plus_one);
  BOOST_TEST(out.back() == n);
  tine::copy(sched, unbounded, out.begin());
  BOOST_TEST((out == iota_vector(n)));
  tine::inclusive_scan(sched, unbounded, out.begin(), std::plus<>{});
  BOOST_TEST(out.back() == sum);
  tine::exclusive_scan(sched, unbounded, out.begin(), 0L, std::plus<>{});
  BOOST_TEST(out.back() == sum - (n - 1));

  std::vector<long> merged(static_cast<std::size_t>(2 * n));
  const std::vector<long> second = iota_vector(n);  // the second range must know its size
  tine::merge(sched, unbounded, second, merged.begin());
  BOOST_TEST(merged[static_cast<std::size_t>(2 * n - 1)] == n - 1);

  // A 16-byte aligned value to fill with, elements to sort, a comparator that carries one.
  std::vector<wide> wides(static_cast<std::size_t>(n));
  tine::fill(sched, wides, wide{3});
  BOOST_TEST(wides.back().value == 3);
  for (std::size_t i = 0; i < wides.size(); ++i) {
    wides[i].value = static_cast<long>((i * 7919) % static_cast<std::size_t>(n));
  }
  const wide sign{1};
  tine::sort(sched, wides, [sign](const wide& a, const wide& b) {
    return a.value * sign.value < b.value * sign.value;
  });
  BOOST_TEST(std::ranges::is_sorted(wides, {}, &wide::value));

  std::atomic<long> calls{0};
  tine::invoke(
      sched, [&calls, w = wide{1}] { calls += w.value; },
      [&calls, w = wide{2}] { calls += w.value; });
  BOOST_TEST(calls.load() == 3);
}

TINE_SCHEDULER_TEST_CASE(temporaries_live_until_the_end, range_schedulers) {
  {
    visits seen;
    tine::for_each(sched, iota_vector(n), seen);
    BOOST_TEST(seen.exactly_once(n), "temporary vector");
  }
  {
    visits seen;
    std::vector<long> values = iota_vector(n);
    tine::for_each(sched, std::list<long>(values.begin(), values.end()), seen);
    BOOST_TEST(seen.exactly_once(n), "temporary list");
  }
  {
    visits seen;
    tine::sync_wait(sched, [&]() -> tine::task<void> {
      // The temporary is moved into the task form's frame before this statement ends.
      co_await tine::call(tine::async::for_each, iota_vector(n), seen);
      co_await tine::join();
    });
    BOOST_TEST(seen.exactly_once(n), "temporary vector, task form");
  }
}

BOOST_AUTO_TEST_SUITE_END()
