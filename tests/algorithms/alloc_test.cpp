// reduce (and count_if, min_element, minmax_element, fill, copy, invoke) perform no heap
// allocation per call: global operator new is replaced by a counting one, and malloc is wrapped at
// link time (-Wl,--wrap=malloc, see BUILD.bazel) to also count the stacklets tine's segmented
// stacks take from malloc. After a warm-up call, repeated calls on the same scheduler must
// allocate nothing: the root job lives on the caller's stack, frames and partial results on the
// workers' stacks.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include <tine/algorithms/copy.hpp>
#include <tine/algorithms/count.hpp>
#include <tine/algorithms/extrema.hpp>
#include <tine/algorithms/fill.hpp>
#include <tine/algorithms/invoke.hpp>
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

// Allocations during `rounds` calls of `run` (which says whether its results were right) after
// a warm-up call. No Boost.Test macro runs inside the measured region.
template <typename Run>
counts measure_calls(int rounds, bool* correct, Run run) {
  *correct = run();
  const long news = g_news.load();
  const long mallocs = g_mallocs.load();
  for (int i = 0; i < rounds; ++i) {
    *correct = run() && *correct;
  }
  return {g_news.load() - news, g_mallocs.load() - mallocs};
}

// One round of the small algorithms on `v` (values i % 1000), `scratch` and `out` (as large).
template <typename Sched>
bool small_algorithms(Sched& sched, const std::vector<double>& v, std::vector<double>& scratch,
                      std::vector<double>& out) {
  bool ok = tine::count_if(sched, v, [](double x) { return x < 10.0; }) ==
            static_cast<long>(v.size() / 100);
  ok = ok && *tine::min_element(sched, v) == 0.0;
  ok = ok && *tine::minmax_element(sched, v.begin(), v.end(), tine::grain{1000}).max == 999.0;
  ok = ok && tine::fill(sched, scratch, 2.0) == scratch.end();
  ok = ok && tine::copy(sched, v, out.begin()) == out.end() && out.back() == v.back();
  int a = 0;
  int b = 0;
  tine::invoke(
      sched, [&a] { a = 1; }, [&b] { b = 2; });
  return ok && a == 1 && b == 2;
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

BOOST_AUTO_TEST_CASE(small_algorithms_on_the_inline_scheduler_do_not_allocate) {
  tine::inline_scheduler sched;
  const std::vector<double> v = data();
  std::vector<double> scratch(v.size());
  std::vector<double> out(v.size());
  bool correct = false;
  const counts c =
      measure_calls(100, &correct, [&] { return small_algorithms(sched, v, scratch, out); });
  BOOST_TEST(correct);
  BOOST_TEST(c.news == 0);
  BOOST_TEST(c.mallocs == 0);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(small_algorithms_on_pools_do_not_call_operator_new, Sched, pools) {
  Sched sched;
  const std::vector<double> v = data();
  std::vector<double> scratch(v.size());
  std::vector<double> out(v.size());
  bool correct = false;
  const counts c =
      measure_calls(100, &correct, [&] { return small_algorithms(sched, v, scratch, out); });
  BOOST_TEST(correct);
  BOOST_TEST(c.news == 0);
  BOOST_TEST_MESSAGE("100 rounds of 6 small algorithms: " << c.news << " operator new, "
                                                          << c.mallocs << " malloc (stacklets)");
}

BOOST_AUTO_TEST_SUITE_END()
