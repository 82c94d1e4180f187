// The segmented stack: FILO allocation, geometric growth, the cached stacklet, and deep recursion.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace d = tine::detail;

namespace {

std::size_t count_stacklets(d::stacklet* top) {
  std::size_t n = 0;
  for (d::stacklet* s = top; s != nullptr; s = s->prev) {
    ++n;
  }
  return n;
}

tine::task<long> chain(long n) {
  if (n == 0) {
    co_return 0;
  }
  long r = 0;
  co_await tine::call(&r, chain, n - 1);
  co_await tine::join();
  co_return r + 1;
}

tine::task<long> fork_chain(long n) {
  if (n == 0) {
    co_return 0;
  }
  long r = 0;
  co_await tine::fork(&r, fork_chain, n - 1);
  co_await tine::join();
  co_return r + 1;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stack)

BOOST_AUTO_TEST_CASE(random_filo_push_pop) {
  d::stacklet* top = d::make_stacklet(64, nullptr);
  std::mt19937_64 rng(42);
  struct alloc {
    std::byte* p;
    std::size_t n;
    unsigned char tag;
  };
  std::vector<alloc> live;
  for (int step = 0; step < 200000; ++step) {
    const bool push = live.empty() || (rng() % 100) < 52;
    if (push) {
      const std::size_t n = 1 + rng() % (rng() % 8 == 0 ? 5000 : 100);
      auto* p = static_cast<std::byte*>(d::stack_push(top, n));
      if (reinterpret_cast<std::uintptr_t>(p) % d::stack_alignment != 0) {
        BOOST_FAIL("misaligned stack allocation");
      }
      const auto tag = static_cast<unsigned char>(step);
      for (std::size_t i = 0; i < n; ++i) {
        p[i] = std::byte{tag};
      }
      live.push_back({p, n, tag});
    } else {
      alloc a = live.back();
      live.pop_back();
      bool intact = true;  // nothing else wrote over it
      for (std::size_t i = 0; i < a.n; ++i) {
        intact = intact && a.p[i] == std::byte{a.tag};
      }
      BOOST_REQUIRE(intact);
      d::stack_pop(top, a.p);
    }
  }
  while (!live.empty()) {
    d::stack_pop(top, live.back().p);
    live.pop_back();
  }
  BOOST_TEST(d::stack_is_empty(top));
  d::free_stack(top);
}

BOOST_AUTO_TEST_CASE(growth_is_geometric) {
  d::stacklet* top = d::make_stacklet(256, nullptr);
  std::vector<void*> ptrs;
  std::size_t prev_capacity = top->capacity();
  for (int i = 0; i < 2000; ++i) {
    d::stacklet* before = top;
    ptrs.push_back(d::stack_push(top, 100));
    if (top != before) {
      BOOST_TEST(top->capacity() >= 2 * prev_capacity);
      BOOST_TEST(top->prev == before);
      prev_capacity = top->capacity();
    }
  }
  // 2000 * 112 bytes from a 256-byte start: about log2(224000 / 256) stacklets.
  BOOST_TEST(count_stacklets(top) <= 12U);
  for (auto it = ptrs.rbegin(); it != ptrs.rend(); ++it) {
    d::stack_pop(top, *it);
  }
  BOOST_TEST(d::stack_is_empty(top));
  d::free_stack(top);
}

BOOST_AUTO_TEST_CASE(emptied_stacklet_is_cached_against_hot_splitting) {
  d::stacklet* top = d::make_stacklet(128, nullptr);
  d::stacklet* bottom = top;
  void* a = d::stack_push(top, 128);  // fills the first stacklet
  BOOST_TEST(top == bottom);
  void* b = d::stack_push(top, 64);  // splits
  d::stacklet* second = top;
  BOOST_TEST(second != bottom);
  for (int i = 0; i < 1000; ++i) {  // the hot split: the same stacklet is reused, never freed
    d::stack_pop(top, b);
    BOOST_TEST(top == bottom);
    BOOST_TEST(bottom->next == second);
    b = d::stack_push(top, 64);
    BOOST_TEST(top == second);
  }
  // A request larger than the cache replaces it.
  d::stack_pop(top, b);
  void* big = d::stack_push(top, 100000);
  BOOST_TEST(top != second);
  BOOST_TEST(top->capacity() >= 100000U);
  d::stack_pop(top, big);
  d::stack_pop(top, a);
  BOOST_TEST(d::stack_is_empty(top));
  d::free_stack(top);
}

BOOST_AUTO_TEST_CASE(large_stacklets_are_mapped_and_never_cached) {
  d::stacklet* top = d::make_stacklet(1024, nullptr);
  d::stacklet* bottom = top;
  // Larger than mapped_stacklet_bytes: comes from the OS in whole pages, usable to the last byte.
  const std::size_t big = 3 * d::mapped_stacklet_bytes + 100;
  auto* p = static_cast<std::byte*>(d::stack_push(top, big));
  BOOST_TEST(top != bottom);
  BOOST_TEST((sizeof(d::stacklet) + top->capacity()) % d::page_bytes == 0U);
  p[0] = std::byte{1};
  p[big - 1] = std::byte{2};
  d::stack_pop(top, p);
  BOOST_TEST(top == bottom);
  // Far more than twice its predecessor: made for one allocation, freed as soon as it empties.
  BOOST_TEST(bottom->next == nullptr);
  BOOST_TEST(d::stack_is_empty(top));
  d::free_stack(top);
}

// The cache rule along a geometric sequence: every stacklet of it is kept as a cache when it
// empties, a parked stack drops its cache (trim_cache).
BOOST_AUTO_TEST_CASE(geometric_stacklets_are_cached_and_trimmed_when_parked) {
  d::stacklet* top = d::make_stacklet(1024, nullptr);
  d::stacklet* bottom = top;
  std::vector<void*> ptrs;
  while (top == bottom) {
    ptrs.push_back(d::stack_push(top, 256));
  }
  d::stacklet* second = top;
  BOOST_TEST(second->capacity() <= 2 * bottom->capacity() + d::page_bytes);
  d::stack_pop(top, ptrs.back());
  ptrs.pop_back();
  BOOST_TEST(top == bottom);
  BOOST_TEST(bottom->next == second);
  d::trim_cache(bottom);
  BOOST_TEST(bottom->next == nullptr);
  for (auto it = ptrs.rbegin(); it != ptrs.rend(); ++it) {
    d::stack_pop(top, *it);
  }
  BOOST_TEST(d::stack_is_empty(top));
  d::free_stack(top);
}

namespace {

// Resident memory of this process, from /proc (Linux).
long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      long kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(1 << 20, '\n');
  }
  return -1;
}

tine::task<long> touch_a_big_array(std::size_t bytes) {
  tine::stack_array<char> big = co_await tine::stack_alloc<char>(bytes);
  for (std::size_t i = 0; i < bytes; i += 4096) {
    big[i] = 1;
  }
  co_return static_cast<long>(big.size());
}

}  // namespace

// One 256 MiB stack allocation must not keep 256 MiB resident once it is freed.
BOOST_AUTO_TEST_CASE(a_huge_stack_allocation_is_returned_to_the_os) {
  tine::inline_scheduler sched;
  constexpr std::size_t bytes = std::size_t{256} << 20;
  const long before = resident_kib();
  BOOST_TEST(tine::sync_wait(sched, touch_a_big_array, bytes) == static_cast<long>(bytes));
  const long after = resident_kib();
  BOOST_TEST(before > 0);
  BOOST_TEST(after - before < 64 * 1024, "resident before " << before << " KiB, after " << after);
}

// A chain of 10^6 nested calls: the segmented stack grows on the heap and symmetric transfer (or
// the trampoline, in unoptimised and sanitizer builds) keeps the thread's own stack flat.
BOOST_AUTO_TEST_CASE(million_deep_call_chain, *boost::unit_test::timeout(300)) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, chain, 1000000L) == 1000000L);
  BOOST_TEST(tine::sync_wait(sched, fork_chain, 1000000L) == 1000000L);
  // The worker's stack is empty again, back to one stacklet plus at most one cached.
  BOOST_TEST(tine::sync_wait(sched, chain, 10L) == 10L);
}

BOOST_AUTO_TEST_SUITE_END()
