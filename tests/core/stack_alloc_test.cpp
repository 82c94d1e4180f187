// The stack allocation API: arrays on the task's own stack, FILO, outside fork-join scopes.
#include <boost/test/unit_test.hpp>

#include <numeric>
#include <stdexcept>
#include <string>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/simple_pool.hpp>

namespace {

tine::task<long> square(long i) { co_return (i * i); }

// The typical use: a buffer for the partial results of a fork-join scope.
tine::task<long> sum_of_squares(long n) {
  tine::stack_array<long> parts = co_await tine::stack_alloc<long>(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    co_await tine::fork(&parts[static_cast<std::size_t>(i)], square, i);
  }
  co_await tine::join();
  co_return std::accumulate(parts.begin(), parts.end(), 0L);
}

// Nested arrays, of different types and sizes, some larger than a stacklet.
tine::task<std::size_t> nested(std::size_t n) {
  auto a = co_await tine::stack_alloc<char>(3);
  auto b = co_await tine::stack_alloc<double>(n);
  auto c = co_await tine::stack_alloc<std::string>(2);
  auto e = co_await tine::stack_alloc<int>(0);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<double>(i);
  }
  c[0] = "constructed";
  c[1] = std::string(100, 'x');  // owns heap memory: the destructor must run (ASan checks)
  long r = 0;
  co_await tine::call(&r, sum_of_squares, 10L);
  co_await tine::join();
  const bool ok = a.size() == 3 && b.size() == n && b[n - 1] == static_cast<double>(n - 1) &&
                  c[0] == "constructed" && e.empty() && r == 285;
  co_return ok ? n : 0;
}

tine::task<bool> alloc_inside_scope() {
  long r = 0;
  co_await tine::fork(&r, square, 3L);
  bool threw = false;
  try {
    auto bad = co_await tine::stack_alloc<int>(4);
  } catch (const std::logic_error&) {
    threw = true;
  }
  co_await tine::join();
  co_return threw&& r == 9;
}

struct copy_throws {
  copy_throws() = default;
  copy_throws(const copy_throws&) { throw std::runtime_error("copy"); }
};

tine::task<int> takes_copy(copy_throws) { co_return 1; }

// A fork whose child cannot even be created (an argument's copy throws) opens no scope: the task
// may still allocate on its stack afterwards.
tine::task<bool> failed_fork_opens_no_scope() {
  copy_throws arg;
  int r = 0;
  bool threw = false;
  try {
    co_await tine::fork(&r, takes_copy, arg);
  } catch (const std::runtime_error&) {
    threw = true;
  }
  auto buf = co_await tine::stack_alloc<int>(4);  // would throw std::logic_error inside a scope
  buf[3] = 7;
  co_await tine::join();
  co_return threw&& buf[3] == 7;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stack_alloc)

BOOST_AUTO_TEST_CASE(a_failed_fork_opens_no_scope) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, failed_fork_opens_no_scope));
}

BOOST_AUTO_TEST_CASE(partial_results_buffer) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, sum_of_squares, 1000L) == 332833500L);
  BOOST_TEST(tine::sync_wait(sched, sum_of_squares, 0L) == 0L);
}

BOOST_AUTO_TEST_CASE(nested_and_large_arrays) {
  tine::inline_scheduler sched;
  for (std::size_t n : {1U, 100U, 5000U, 300000U}) {
    BOOST_TEST(tine::sync_wait(sched, nested, n) == n);
  }
}

BOOST_AUTO_TEST_CASE(with_stealing, *boost::unit_test::timeout(120)) {
  tine::testing::simple_pool pool(3);
  for (int i = 0; i < 20; ++i) {
    BOOST_TEST(tine::sync_wait(pool, sum_of_squares, 1000L) == 332833500L);
    BOOST_TEST(tine::sync_wait(pool, nested, 5000U) == 5000U);
  }
}

BOOST_AUTO_TEST_CASE(allocation_inside_a_fork_join_scope_is_rejected) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, alloc_inside_scope));
}

BOOST_AUTO_TEST_SUITE_END()
