// reduce performs no heap allocation per call: global operator new is replaced by a
// counting one, and malloc is wrapped at link time (-Wl,--wrap=malloc, see BUILD.bazel) to also
// count the stacklets tine's segmented stacks take from malloc. After a warm-up call, repeated
// reduces on the same scheduler must allocate nothing: the root job lives on the caller's stack,
// frames and partial results on the workers' stacks.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include <tine/algorithms/reduce.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {
std::atomic<long> g_news{0};
std::atomic<long> g_mallocs{0};
}  // namespace

extern "C" void* __real_malloc(std::size_t);
extern "C" void* __wrap_malloc(std::size_t n) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __real_malloc(n);
}

// The replaceable allocation functions, all routed to malloc (hence counted twice: both counts
// are reported).
void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_news.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return ::operator new(n, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

struct counts {
  long news;
  long mallocs;
};

// Allocations during `rounds` reduces of a warmed-up scheduler. No Boost.Test macro runs inside
// the measured region (they allocate).
template <typename Sched>
counts measure(Sched& sched, const std::vector<double>& v, int rounds, bool* correct) {
  const double expected = std::accumulate(v.begin(), v.end(), 0.0);
  *correct = tine::reduce(sched, v, 0.0, std::plus<>{}) == expected;  // warm-up
  *correct = *correct && tine::reduce(sched, v, 0.0, std::plus<>{}, tine::grain{1000}) == expected;
  const long news = g_news.load();
  const long mallocs = g_mallocs.load();
  for (int i = 0; i < rounds; ++i) {
    *correct = *correct && tine::reduce(sched, v, 0.0, std::plus<>{}) == expected;
    *correct = *correct && tine::reduce(sched, v.begin(), v.end(), 0.0, std::plus<>{},
                                        tine::grain{1000}) == expected;
  }
  return {g_news.load() - news, g_mallocs.load() - mallocs};
}

std::vector<double> data() {
  std::vector<double> v(100000);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<double>(i % 1000);  // exact sums in any grouping
  }
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation)

BOOST_AUTO_TEST_CASE(the_counters_work) {
  const long before = g_news.load();
  auto* p = new std::string(100, 'x');
  delete p;
  BOOST_TEST(g_news.load() > before);
  const long m = g_mallocs.load();
  void* volatile q = std::malloc(10);  // volatile: GCC removes a malloc/free pair otherwise
  std::free(q);
  BOOST_TEST(g_mallocs.load() > m);
}

// The deterministic scheduler: nothing is stolen, so nothing at all may allocate.
BOOST_AUTO_TEST_CASE(reduce_on_the_inline_scheduler_does_not_allocate) {
  tine::inline_scheduler sched;
  const std::vector<double> v = data();
  bool correct = false;
  const counts c = measure(sched, v, 200, &correct);
  BOOST_TEST(correct);
  BOOST_TEST(c.news == 0);
  BOOST_TEST(c.mallocs == 0);
}

// tine's pools: submission is intrusive and sync_wait's root job lives on the caller's stack, so
// operator new is never called. Steals can still move whole stacks between workers; a worker
// that gives its stack to a suspended task takes its spare stacklet or a fresh one (malloc), so
// stacklet mallocs are reported, not required to be zero (a core matter: see docs/algorithms.md).
using pools = boost::mpl::list<tine_test::busy2, tine_test::lazy2>;

BOOST_AUTO_TEST_CASE_TEMPLATE(reduce_on_pools_does_not_call_operator_new, Sched, pools) {
  Sched sched;
  const std::vector<double> v = data();
  bool correct = false;
  const counts c = measure(sched, v, 200, &correct);
  BOOST_TEST(correct);
  BOOST_TEST(c.news == 0);
  BOOST_TEST_MESSAGE("400 reduces: " << c.news << " operator new, " << c.mallocs
                                     << " malloc (stacklets)");
}

BOOST_AUTO_TEST_SUITE_END()
