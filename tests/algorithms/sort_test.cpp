// tine::sort and tine::stable_sort against std::sort and std::stable_sort, over every scheduler,
// input sizes, patterns and grains; stability; comparators with projections; std::deque and
// std::list inputs; move-only elements; a comparator that throws at its first, last or a random
// call (the range must then be a permutation of the input); the buffer's allocation failing; the
// task forms.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <tine/algorithms/sort.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

// The sort's buffer is its only allocation of exactly `g_fail_size` bytes: when that is set,
// global operator new refuses it, to check that std::bad_alloc reaches the caller. Every
// replaceable form (but the aligned ones, unused here) goes to malloc, so news and deletes match.
namespace {
std::atomic<std::size_t> g_fail_size{0};
}  // namespace

// GCC inlines these into callers and then sees malloc'd memory reach operator delete.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  if (size != 0 && size == g_fail_size.load(std::memory_order_relaxed)) {
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

using tine_test::schedulers;

using tine_test::sanitized;

enum class pattern { random, sorted, reversed, all_equal, many_duplicates };
constexpr pattern patterns[] = {pattern::random, pattern::sorted, pattern::reversed,
                                pattern::all_equal, pattern::many_duplicates};

std::vector<int> make_input(std::size_t n, pattern p, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case pattern::random:
        v[i] = static_cast<int>(rng());
        break;
      case pattern::sorted:
        v[i] = static_cast<int>(i);
        break;
      case pattern::reversed:
        v[i] = static_cast<int>(n - i);
        break;
      case pattern::all_equal:
        v[i] = 7;
        break;
      case pattern::many_duplicates:
        v[i] = static_cast<int>(rng() % 16);
        break;
    }
  }
  return v;
}

// An element with a key to sort by and its original position, to see stability. A move marks
// its source, so an element lost by a sort (only its moved-from husk left) cannot go unseen.
struct item {
  static constexpr std::size_t moved_from = ~std::size_t{0};
  int key = 0;
  std::size_t index = 0;

  item() = default;
  item(int k, std::size_t i) : key(k), index(i) {}
  item(const item&) = default;
  item& operator=(const item&) = default;
  item(item&& other) noexcept : key(other.key), index(other.index) { other.index = moved_from; }
  item& operator=(item&& other) noexcept {
    key = other.key;
    index = other.index;
    other.index = moved_from;
    return *this;
  }
  friend bool operator==(const item&, const item&) = default;
};

std::vector<item> make_items(std::size_t n, pattern p, unsigned seed) {
  const std::vector<int> keys = make_input(n, p, seed);
  std::vector<item> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = item(keys[i], i);
  }
  return v;
}

// Whether `v` holds each index 0..n-1 exactly once with its original key.
bool is_permutation_of(std::vector<item> v, const std::vector<item>& input) {
  std::ranges::sort(v, {}, &item::index);
  return v == input;
}

// Large inputs take the automatic grain and one random grain under the sanitizers.
std::vector<tine::grain> grains_for(std::size_t n, unsigned seed) {
  std::vector<tine::grain> gs = tine_test::grains(n, seed);
  if (sanitized && n > 1031) {
    gs.resize(1);
    gs.push_back(tine_test::grains(n, seed).back());
  }
  return gs;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sort)

TINE_SCHEDULER_TEST_CASE(matches_std_sort, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    for (pattern p : patterns) {
      if (sanitized && n > 1031 && p != pattern::random && p != pattern::many_duplicates) {
        continue;
      }
      const std::vector<int> input = make_input(n, p, 11);
      std::vector<int> expected = input;
      std::sort(expected.begin(), expected.end());
      for (tine::grain g : grains_for(n, 5)) {
        std::vector<int> v = input;
        auto end = tine::sort(sched, v, std::ranges::less{}, std::identity{}, g);
        BOOST_TEST((v == expected), "n=" << n << " pattern=" << int(p) << " grain=" << g.size);
        BOOST_TEST((end == v.end()));
        std::vector<int> w = input;
        tine::stable_sort(sched, w.begin(), w.end(), g);
        BOOST_TEST((w == expected), "stable n=" << n << " grain=" << g.size);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(stable_sort_keeps_the_order_of_equal_keys, schedulers) {
  for (std::size_t n : tine_test::sizes) {
    for (pattern p : {pattern::many_duplicates, pattern::all_equal, pattern::random}) {
      const std::vector<item> input = make_items(n, p, 23);
      std::vector<item> expected = input;
      std::ranges::stable_sort(expected, std::ranges::greater{}, &item::key);
      for (tine::grain g : grains_for(n, 9)) {
        std::vector<item> v = input;
        tine::stable_sort(sched, v, std::ranges::greater{}, &item::key, g);
        BOOST_TEST((v == expected), "n=" << n << " pattern=" << int(p) << " grain=" << g.size);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(sort_with_a_comparator_and_a_projection, schedulers) {
  const std::vector<item> input = make_items(10007, pattern::many_duplicates, 3);
  std::vector<item> v = input;
  auto by_key_descending = [](int a, int b) { return a > b; };
  tine::sort(sched, v, by_key_descending, &item::key, tine::grain{100});
  BOOST_TEST(std::ranges::is_sorted(v, by_key_descending, &item::key));
  BOOST_TEST(is_permutation_of(v, input));
}

// clang-format off
// [docs:sort_basic]
TINE_SCHEDULER_TEST_CASE(sort_and_stable_sort, schedulers) {
  std::vector<double> v = {3.5, -1.0, 2.25, 0.0, 8.0, -7.5};
  tine::sort(sched, v);
  BOOST_TEST((v == std::vector<double>{-7.5, -1.0, 0.0, 2.25, 3.5, 8.0}));

  struct person {
    std::string name;
    int age;
  };
  std::vector<person> people = {{"Ada", 36}, {"Bob", 25}, {"Cy", 36}, {"Di", 25}};
  tine::stable_sort(sched, people, std::ranges::less{}, &person::age);  // by age, stable
  std::vector<std::string> names;
  for (const person& p : people) {
    names.push_back(p.name);
  }
  BOOST_TEST((names == std::vector<std::string>{"Bob", "Di", "Ada", "Cy"}));
}
// [docs:sort_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(deque_and_list_inputs, schedulers) {
  const std::vector<int> input = make_input(5003, pattern::many_duplicates, 17);
  std::vector<int> expected = input;
  std::sort(expected.begin(), expected.end());

  std::deque<int> d(input.begin(), input.end());
  auto dend = tine::sort(sched, d, tine::grain{64});
  BOOST_TEST(std::ranges::equal(d, expected));
  BOOST_TEST((dend == d.end()));

  // A list goes through the gathered iterators (input.hpp): its elements are sorted in place.
  std::list<int> l(input.begin(), input.end());
  auto lend = tine::stable_sort(sched, l, std::ranges::less{}, std::identity{}, tine::grain{64});
  BOOST_TEST(std::ranges::equal(l, expected));
  BOOST_TEST((lend == l.end()));

  std::list<int> l2(input.begin(), input.end());
  tine::sort(sched, l2.begin(), l2.end(), std::ranges::greater{});
  BOOST_TEST(std::ranges::is_sorted(l2, std::ranges::greater{}));
  BOOST_TEST(std::ranges::equal(std::vector<int>(l2.rbegin(), l2.rend()), expected));
}

TINE_SCHEDULER_TEST_CASE(move_only_elements, schedulers) {
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{1031}, std::size_t{20011}}) {
    const std::vector<item> keys = make_items(n, pattern::many_duplicates, 31);
    std::vector<std::unique_ptr<item>> v;
    std::vector<std::unique_ptr<item>> w;
    for (const item& k : keys) {
      v.push_back(std::make_unique<item>(k));
      w.push_back(std::make_unique<item>(k));
    }
    auto key_of = [](const std::unique_ptr<item>& p) { return p->key; };
    tine::sort(sched, v, std::ranges::less{}, key_of, tine::grain{50});
    tine::stable_sort(sched, w, [](const std::unique_ptr<item>& a, const std::unique_ptr<item>& b) {
      return a->key < b->key;
    });
    std::vector<item> sorted;
    std::vector<item> stable;
    for (std::size_t i = 0; i < n; ++i) {
      BOOST_REQUIRE(v[i] != nullptr);
      BOOST_REQUIRE(w[i] != nullptr);
      sorted.push_back(*v[i]);
      stable.push_back(*w[i]);
    }
    BOOST_TEST(std::ranges::is_sorted(sorted, {}, &item::key));
    BOOST_TEST(is_permutation_of(sorted, keys));
    std::vector<item> expected = keys;
    std::ranges::stable_sort(expected, {}, &item::key);
    BOOST_TEST((stable == expected), "n=" << n);
  }
}

TINE_SCHEDULER_TEST_CASE(a_throwing_comparator_leaves_a_permutation, schedulers) {
  for (std::size_t n : {std::size_t{2}, std::size_t{97}, std::size_t{1031}, std::size_t{20011}}) {
    const std::vector<item> input = make_items(n, pattern::many_duplicates, 41);
    for (tine::grain g : {tine::grain{}, tine::grain{1}, tine::grain{40}}) {
      for (bool stable : {false, true}) {
        // Count the comparisons of a run (the same every time: the splits depend on sizes and
        // grain only), then throw at the first, the last and a random one.
        std::atomic<std::size_t> calls{0};
        std::size_t throw_at = 0;
        tine_test::gauge running;
        auto comp = [&](int a, int b) {
          tine_test::gauge::scope in(&running);
          if (calls.fetch_add(1) + 1 == throw_at) {
            throw tine_test::test_error("comparison");
          }
          return a < b;
        };
        auto run = [&](std::vector<item>& v) {
          if (stable) {
            tine::stable_sort(sched, v, comp, &item::key, g);
          } else {
            tine::sort(sched, v, comp, &item::key, g);
          }
        };
        std::vector<item> dry = input;
        run(dry);
        const std::size_t total = calls.load();
        BOOST_REQUIRE(total > 0);
        for (std::size_t k : tine_test::throw_points(total, 7)) {
          calls = 0;
          throw_at = k + 1;
          std::vector<item> v = input;
          BOOST_CHECK_THROW(run(v), tine_test::test_error);
          BOOST_TEST(running.live.load() == 0);
          BOOST_TEST(is_permutation_of(v, input), "n=" << n << " grain=" << g.size
                                                       << " stable=" << stable << " throw at "
                                                       << k + 1 << " of " << total);
        }
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(the_buffer_failing_to_allocate_reaches_the_caller, schedulers) {
  const std::vector<item> input = make_items(4099, pattern::random, 43);
  std::vector<item> v = input;
  g_fail_size = input.size() * sizeof(item);
  BOOST_CHECK_THROW(tine::stable_sort(sched, v, std::ranges::less{}, &item::key, tine::grain{64}),
                    std::bad_alloc);
  g_fail_size = 0;
  BOOST_TEST((v == input));  // untouched
  tine::stable_sort(sched, v, std::ranges::less{}, &item::key, tine::grain{64});
  BOOST_TEST(std::ranges::is_sorted(v, {}, &item::key));
}

namespace {

// clang-format off
// [docs:sort_in_a_task]
// Sorts two vectors at once from inside a task: the second sort runs while the first may be
// stolen, and each is itself parallel.
tine::task<void> sort_both(std::vector<int>* a, std::vector<int>* b) {
  std::vector<int>::iterator end_a;
  std::vector<int>::iterator end_b;
  co_await tine::fork(&end_a, tine::async::sort, *a);
  co_await tine::call(&end_b, tine::async::stable_sort, *b, std::ranges::greater{});
  co_await tine::join();
}
// [docs:sort_in_a_task end]
// clang-format on

}  // namespace

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<int> a = make_input(30011, pattern::random, 51);
  std::vector<int> b = make_input(20011, pattern::many_duplicates, 53);
  std::vector<int> ea = a;
  std::vector<int> eb = b;
  std::sort(ea.begin(), ea.end());
  std::sort(eb.begin(), eb.end(), std::greater<>{});
  tine::sync_wait(sched, sort_both, &a, &b);
  BOOST_TEST((a == ea));
  BOOST_TEST((b == eb));
  // A temporary container: sorted in the task's frame, the result dangles.
  auto end = tine::sort(sched, std::vector<int>{3, 1, 2});
  static_assert(std::is_same_v<decltype(end), std::ranges::dangling>);
}

BOOST_AUTO_TEST_SUITE_END()
