// Every algorithm instantiated with the most demanding values it accepts: elements, accumulators,
// results and callables that can only be moved, and values without a default constructor. This
// file is compiled at -O2 and -O3, with and without NDEBUG (BUILD.bazel), with GCC and, in the
// clang config, with Clang, all at -Wall -Wextra -Werror: a warning from tine's headers (GCC's
// "may be used uninitialized" is the usual one at high optimisation) fails the build. Each result
// is checked against the serial algorithm's.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <functional>
#include <list>
#include <memory>
#include <numeric>
#include <vector>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// Movable, not copyable, no default constructor.
struct only_moved {
  explicit only_moved(long v) : value(std::make_unique<long>(v)) {}
  only_moved(only_moved&&) noexcept = default;
  only_moved& operator=(only_moved&&) noexcept = default;
  long get() const { return *value; }
  std::unique_ptr<long> value;
};

// Copyable, no default constructor.
struct no_default {
  explicit no_default(long v) : value(v) {}
  long value;
  friend bool operator==(const no_default&, const no_default&) = default;
};

// Folds into an only_moved: with an element, and two partial results.
struct add_to {
  only_moved operator()(only_moved acc, long x) const {
    *acc.value += x;
    return acc;
  }
  only_moved operator()(only_moved acc, const only_moved& x) const {
    *acc.value += x.get();
    return acc;
  }
};

struct add_no_default {
  no_default operator()(const no_default& a, const no_default& b) const {
    return no_default(a.value + b.value);
  }
};

constexpr std::size_t n = 1031;

std::vector<only_moved> moved_values() {
  std::vector<only_moved> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    v.emplace_back(static_cast<long>((i * 7919) % 1009));
  }
  return v;
}

std::vector<no_default> plain_values() {
  std::vector<no_default> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    v.emplace_back(static_cast<long>((i * 7919) % 1009));
  }
  return v;
}

std::vector<long> get_all(const std::vector<only_moved>& v) {
  std::vector<long> out;
  for (const only_moved& x : v) {
    out.push_back(x.get());
  }
  return out;
}

// The task forms inside a task, with the same types.
tine::task<long> in_a_task(std::vector<only_moved>* v) {
  std::vector<only_moved>::iterator found;
  co_await tine::call(&found, tine::async::find_if, *v,
                      [](const only_moved& x) { return x.get() == 1008; });
  co_await tine::join();
  std::vector<only_moved>::iterator end;
  co_await tine::call(&end, tine::async::sort, *v, std::ranges::less{}, &only_moved::get);
  co_await tine::join();
  // A result that core cannot store (no default constructor): the task form can still run it.
  std::vector<long> longs(10, 1);
  co_await tine::call(tine::async::reduce, longs, only_moved(0), add_to{});
  co_await tine::join();
  co_return found == v->end() ? -1 : 1008;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(value_types)

TINE_SCHEDULER_TEST_CASE(element_wise, schedulers) {
  std::vector<only_moved> v = moved_values();
  const std::vector<long> before = get_all(v);
  tine::for_each(sched, v, [](only_moved& x) { *x.value += 1; });
  tine::for_each(sched, v, [](only_moved& x) -> tine::task<void> {
    *x.value -= 1;
    co_return;
  });
  BOOST_TEST((get_all(v) == before));

  std::vector<only_moved> doubled = moved_values();
  auto end = tine::map(sched, v, doubled.begin(),
                       [](const only_moved& x) { return only_moved(2 * x.get()); });
  BOOST_TEST((end == doubled.end()));
  for (std::size_t i = 0; i < n; ++i) {
    BOOST_TEST(doubled[i].get() == 2 * before[i]);
  }

  std::vector<no_default> filled = plain_values();
  BOOST_TEST((tine::fill(sched, filled, no_default(7)) == filled.end()));
  BOOST_TEST(std::ranges::count(filled, no_default(7)) == static_cast<long>(n));
  const std::vector<no_default> source = plain_values();
  BOOST_TEST((tine::copy(sched, source, filled.begin()) == filled.end()));
  BOOST_TEST((filled == source));

  // Move-only callables.
  auto token = std::make_unique<long>(3);
  long seen = 0;
  tine::invoke(sched, [t = std::move(token), &seen] { seen = *t; });
  BOOST_TEST(seen == 3);
}

TINE_SCHEDULER_TEST_CASE(folds, schedulers) {
  std::vector<long> longs(n);
  std::iota(longs.begin(), longs.end(), 0L);
  const long sum = std::accumulate(longs.begin(), longs.end(), 5L);
  // A move-only accumulator without default constructor: over a vector, an iterator pair and a
  // list (whose result travels boxed through sync_wait).
  BOOST_TEST(tine::reduce(sched, longs, only_moved(5), add_to{}).get() == sum);
  BOOST_TEST(tine::reduce(sched, longs.begin(), longs.end(), only_moved(5), add_to{}).get() == sum);
  const std::list<long> list(longs.begin(), longs.end());
  BOOST_TEST(tine::reduce(sched, list, only_moved(5), add_to{}).get() == sum);

  const std::vector<only_moved> v = moved_values();
  const std::vector<long> values = get_all(v);
  const long total = std::accumulate(values.begin(), values.end(), 0L);
  const auto copy_of = [](const only_moved& x) { return only_moved(x.get()); };
  BOOST_TEST(tine::transform_reduce(sched, v, only_moved(0), add_to{}, copy_of).get() == total);
  long dot = 0;
  for (long x : values) {
    dot += x * x;
  }
  BOOST_TEST(tine::transform_reduce(sched, v, v.begin(), only_moved(0), add_to{},
                                    [](const only_moved& a, const only_moved& b) {
                                      return only_moved(a.get() * b.get());
                                    })
                 .get() == dot);

  // Scans keep copies of their accumulator: copyable, without default constructor.
  const std::vector<no_default> plain = plain_values();
  std::vector<no_default> out = plain_values();
  tine::inclusive_scan(sched, plain, out.begin(), add_no_default{});
  long running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running += plain[i].value;
    BOOST_TEST(out[i].value == running);
  }
  tine::exclusive_scan(sched, plain, out.begin(), no_default(1), add_no_default{});
  running = 1;
  for (std::size_t i = 0; i < n; ++i) {
    BOOST_TEST(out[i].value == running);
    running += plain[i].value;
  }
}

TINE_SCHEDULER_TEST_CASE(searches_counts_comparisons, schedulers) {
  const std::vector<only_moved> v = moved_values();
  const std::vector<long> values = get_all(v);
  const auto big = [](const only_moved& x) { return x.get() > 1000; };
  BOOST_TEST(tine::count_if(sched, v, big) ==
             std::ranges::count_if(values, [](long x) { return x > 1000; }));
  const auto found = tine::find_if(sched, v, big);
  BOOST_TEST((found - v.begin() ==
              std::ranges::find_if(values, [](long x) { return x > 1000; }) - values.begin()));
  BOOST_TEST(tine::any_of(sched, v, big));
  BOOST_TEST(!tine::all_of(sched, v, big));
  BOOST_TEST(!tine::none_of(sched, v, big));
  const auto same = [](const only_moved& a, const only_moved& b) { return a.get() == b.get(); };
  BOOST_TEST(tine::equal(sched, v, v.begin(), same));
  const auto [in1, in2] = tine::mismatch(sched, v, v.begin(), same);
  BOOST_TEST((in1 == v.end()));
  const std::vector<no_default> plain = plain_values();
  BOOST_TEST(tine::count(sched, plain, no_default(0)) == std::ranges::count(plain, no_default(0)));

  const auto smallest = tine::min_element(sched, v, std::ranges::less{}, &only_moved::get);
  BOOST_TEST((smallest - v.begin() == std::ranges::min_element(values) - values.begin()));
  const auto largest = tine::max_element(sched, v, std::ranges::less{}, &only_moved::get);
  BOOST_TEST((largest - v.begin() == std::ranges::max_element(values) - values.begin()));
  const auto [lo, hi] = tine::minmax_element(sched, v, std::ranges::less{}, &only_moved::get);
  const auto [slo, shi] = std::ranges::minmax_element(values);
  BOOST_TEST((lo - v.begin() == slo - values.begin()));
  BOOST_TEST((hi - v.begin() == shi - values.begin()));
}

TINE_SCHEDULER_TEST_CASE(sorts_and_merges, schedulers) {
  std::vector<only_moved> v = moved_values();
  std::vector<long> expected = get_all(v);
  std::ranges::sort(expected);
  tine::sort(sched, v, std::ranges::less{}, &only_moved::get);
  BOOST_TEST((get_all(v) == expected));
  std::vector<only_moved> w = moved_values();
  tine::stable_sort(sched, w, std::ranges::greater{}, &only_moved::get);
  std::ranges::reverse(expected);
  BOOST_TEST((get_all(w) == expected));

  std::vector<no_default> a = plain_values();
  std::vector<no_default> b = plain_values();
  const auto by_value = [](const no_default& x, const no_default& y) { return x.value < y.value; };
  std::ranges::sort(a, by_value);
  std::ranges::sort(b, by_value);
  std::vector<no_default> merged(2 * n, no_default(-1));
  std::vector<no_default> serial(2 * n, no_default(-1));
  tine::merge(sched, a, b, merged.begin(), by_value);
  std::ranges::merge(a, b, serial.begin(), by_value);
  BOOST_TEST((merged == serial));

  std::vector<only_moved> t = moved_values();
  BOOST_TEST(tine::sync_wait(sched, in_a_task, &t) == 1008);
}

BOOST_AUTO_TEST_SUITE_END()
