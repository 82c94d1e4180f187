// tine::merge against std::ranges::merge, over every scheduler, pairs of input sizes, patterns
// and grains; ties taken from the first range; two projections; a std::list first range, a
// std::deque and a temporary second range; a comparator that throws; the task form.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include <tine/algorithms/merge.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

// (key, which range, position): equal keys show which range a merge took them from.
struct tagged {
  int key = 0;
  int source = 0;
  std::size_t index = 0;
  friend bool operator==(const tagged&, const tagged&) = default;
};

enum class pattern { random, many_duplicates, all_equal, first_all_smaller, interleaved };
constexpr pattern patterns[] = {pattern::random, pattern::many_duplicates, pattern::all_equal,
                                pattern::first_all_smaller, pattern::interleaved};

// A sorted run of n elements of range `source` (0 or 1).
std::vector<tagged> make_run(std::size_t n, pattern p, int source, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<tagged> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    int key = 0;
    switch (p) {
      case pattern::random:
        key = static_cast<int>(rng() % 1000000);
        break;
      case pattern::many_duplicates:
        key = static_cast<int>(rng() % 8);
        break;
      case pattern::all_equal:
        key = 3;
        break;
      case pattern::first_all_smaller:
        key = static_cast<int>(i) + (source == 0 ? 0 : 1 << 30);
        break;
      case pattern::interleaved:
        key = 2 * static_cast<int>(i) + source;
        break;
    }
    v[i] = {key, source, 0};
  }
  std::ranges::sort(v, {}, &tagged::key);
  for (std::size_t i = 0; i < n; ++i) {
    v[i].index = i;
  }
  return v;
}

const std::size_t sizes[] = {0, 1, 2, 7, 97, 1031, 50021};

using tine_test::sanitized;

// Under the sanitizers, large merges take two patterns and two grains (the automatic one and a
// random one): CI runs this binary under ASan and TSan too.
bool skipped(std::size_t total, pattern p) {
  return sanitized && total > 2100 && p != pattern::random && p != pattern::many_duplicates;
}

std::vector<tine::grain> grains_for(std::size_t total, unsigned seed) {
  std::vector<tine::grain> gs = tine_test::grains(total, seed);
  if (sanitized && total > 2100) {
    gs = {gs.front(), gs.back()};
  }
  return gs;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(merge)

TINE_SCHEDULER_TEST_CASE(matches_std_merge_and_takes_ties_from_the_first_range, schedulers) {
  for (std::size_t na : sizes) {
    for (std::size_t nb : sizes) {
      for (pattern p : patterns) {
        if (skipped(na + nb, p)) {
          continue;
        }
        const std::vector<tagged> a = make_run(na, p, 0, 3);
        const std::vector<tagged> b = make_run(nb, p, 1, 4);
        std::vector<tagged> expected(na + nb);
        std::ranges::merge(a, b, expected.begin(), {}, &tagged::key, &tagged::key);
        for (tine::grain g : grains_for(na + nb, 13)) {
          std::vector<tagged> out(na + nb);
          auto end = tine::merge(sched, a, b, out.begin(), std::ranges::less{}, &tagged::key,
                                 &tagged::key, g);
          BOOST_TEST((out == expected),
                     "na=" << na << " nb=" << nb << " pattern=" << int(p) << " grain=" << g.size);
          BOOST_TEST((end == out.end()));
        }
      }
    }
  }
}

// clang-format off
// [docs:merge_basic]
TINE_SCHEDULER_TEST_CASE(merge_two_sorted_vectors, schedulers) {
  std::vector<int> evens = {0, 2, 4, 6, 8};
  std::vector<int> odds = {1, 3, 5};
  std::vector<int> out(evens.size() + odds.size());
  auto end = tine::merge(sched, evens, odds, out.begin());
  BOOST_TEST((out == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 8}));
  BOOST_TEST((end == out.end()));
}
// [docs:merge_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(two_projections_and_a_comparator, schedulers) {
  // Descending by |x| in the first range, by -y in the second: both project to one order.
  std::vector<int> a(3001);
  std::vector<long> b(2003);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int>(a.size() - i) * (i % 2 == 0 ? 1 : -1);
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = -static_cast<long>(b.size() - i) - 1;
  }
  auto magnitude = [](int x) { return static_cast<long>(x < 0 ? -x : x); };
  auto negated = [](long y) { return -y; };
  std::vector<long> out(a.size() + b.size());
  std::vector<long> expected(out.size());
  std::ranges::merge(a, b, expected.begin(), std::ranges::greater{}, magnitude, negated);
  tine::merge(sched, a, b, out.begin(), std::ranges::greater{}, magnitude, negated,
              tine::grain{64});
  BOOST_TEST((out == expected));
}

TINE_SCHEDULER_TEST_CASE(other_containers_and_a_temporary_second_range, schedulers) {
  std::vector<int> va(4001);
  std::vector<int> vb(3001);
  for (std::size_t i = 0; i < va.size(); ++i) {
    va[i] = static_cast<int>(3 * i);
  }
  for (std::size_t i = 0; i < vb.size(); ++i) {
    vb[i] = static_cast<int>(5 * i);
  }
  std::vector<int> expected(va.size() + vb.size());
  std::ranges::merge(va, vb, expected.begin());

  // A list first: its iterators are gathered (input.hpp).
  const std::list<int> la(va.begin(), va.end());
  const std::deque<int> db(vb.begin(), vb.end());
  std::vector<int> out(expected.size());
  tine::merge(sched, la, db, out.begin(), tine::grain{100});
  BOOST_TEST((out == expected));

  // An iterator pair first, a deque output, a temporary second range (moved into the task).
  std::deque<int> dout(expected.size());
  auto end = tine::merge(sched, va.begin(), va.end(), std::vector<int>(vb), dout.begin(),
                         std::ranges::less{}, tine::grain{50});
  BOOST_TEST(std::ranges::equal(dout, expected));
  BOOST_TEST((end == dout.end()));

  std::fill(out.begin(), out.end(), -1);
  tine::merge(sched, std::span<const int>(va), std::span<const int>(vb), out.begin());
  BOOST_TEST((out == expected));
}

TINE_SCHEDULER_TEST_CASE(a_throwing_comparator_reaches_the_caller, schedulers) {
  const std::vector<tagged> a = make_run(20011, pattern::many_duplicates, 0, 5);
  const std::vector<tagged> b = make_run(10007, pattern::random, 1, 6);
  std::atomic<std::size_t> calls{0};
  std::size_t throw_at = 0;
  tine_test::gauge running;
  auto comp = [&](int x, int y) {
    tine_test::gauge::scope in(&running);
    if (calls.fetch_add(1) + 1 == throw_at) {
      throw tine_test::test_error("comparison");
    }
    return x < y;
  };
  std::vector<tagged> out(a.size() + b.size());
  tine::merge(sched, a, b, out.begin(), comp, &tagged::key, &tagged::key, tine::grain{500});
  const std::size_t total = calls.load();
  for (std::size_t k : tine_test::throw_points(total, 8)) {
    calls = 0;
    throw_at = k + 1;
    BOOST_CHECK_THROW(
        tine::merge(sched, a, b, out.begin(), comp, &tagged::key, &tagged::key, tine::grain{500}),
        tine_test::test_error);
    BOOST_TEST(running.live.load() == 0);
  }
}

namespace {

// clang-format off
// [docs:merge_in_a_task]
// Merges the two sorted halves of `v` into `out` from inside a task.
tine::task<void> merge_halves(const std::vector<int>* v, std::vector<int>* out) {
  const auto mid = v->begin() + static_cast<std::ptrdiff_t>(v->size() / 2);
  std::vector<int>::iterator end;
  co_await tine::call(&end, tine::async::merge, v->begin(), mid,
                      std::span<const int>(mid, v->end()), out->begin());
  co_await tine::join();
}
// [docs:merge_in_a_task end]
// clang-format on

}  // namespace

TINE_SCHEDULER_TEST_CASE(task_form, schedulers) {
  std::vector<int> v(10001);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int>(i < v.size() / 2 ? 2 * i : 2 * (i - v.size() / 2) + 1);
  }
  std::vector<int> out(v.size());
  tine::sync_wait(sched, merge_halves, &v, &out);
  std::vector<int> expected = v;
  std::sort(expected.begin(), expected.end());
  BOOST_TEST((out == expected));
}

BOOST_AUTO_TEST_SUITE_END()
