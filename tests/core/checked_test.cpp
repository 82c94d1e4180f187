// The checked build (TINE_CHECKED, on when NDEBUG is not defined): each misuse it can see stops
// the program with a message naming the mistake. Each case runs in a child process.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <stdexcept>
#include <string>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/spin_backoff.hpp>

#include "tests/core/death.hpp"

#if !TINE_CHECKED
#error "checked_test.cpp tests the checked build: build it without NDEBUG"
#endif

namespace {

tine::task<int> value(int v) { co_return v; }

// Without the (void), the compiler warns about the discarded request ([[nodiscard]]): that is the
// first line of defence, the checked build the second.
tine::task<int> forgets_co_await_on_fork() {
  int r = 0;
  (void)tine::fork(&r, value, 1);
  co_await tine::join();
  co_return r;
}

tine::task<int> forgets_co_await_on_call() {
  int r = 0;
  (void)tine::call(&r, value, 1);
  co_return r;
}

tine::task<int> forgets_co_await_on_join() {
  int r = 0;
  co_await tine::fork(&r, value, 1);
  (void)tine::join();
  co_return r;
}

tine::task<int> returns_between_fork_and_join() {
  int r = 0;
  co_await tine::fork(&r, value, 1);
  co_return r;  // no join
}

tine::task<void> wait_until_set(std::atomic<bool>* flag) {
  tine::detail::spin_backoff backoff;
  while (!flag->load(std::memory_order_acquire)) {
    backoff.idle();
  }
  co_return;
}

tine::task<void> throws_while_a_child_runs(std::atomic<bool>* flag) {
  co_await tine::fork(wait_until_set, flag);  // occupies its worker until we have thrown
  flag->store(true, std::memory_order_release);
  throw std::runtime_error("between fork and join");
  co_await tine::join();
}

tine::task<int> frees_stack_arrays_out_of_order() {
  auto a = co_await tine::stack_alloc<int>(4);
  auto b = co_await tine::stack_alloc<int>(4);
  {
    tine::stack_array<int> moved = std::move(a);  // freed here, below b: out of order
  }
  co_return static_cast<int>(b.size());
}

// Both workers of a pool return between a fork and its join at the same moment: each forked
// child waits for the other at a barrier before it returns.
tine::task<int> returns_after_meeting(std::atomic<int>* arrived) {
  int r = 0;
  co_await tine::fork(&r, value, 1);
  arrived->fetch_add(1, std::memory_order_acq_rel);
  tine::detail::spin_backoff backoff;
  while (arrived->load(std::memory_order_acquire) < 2) {
    backoff.idle();
  }
  co_return r;  // no join
}

tine::task<void> two_workers_forget_to_join(std::atomic<int>* arrived) {
  co_await tine::fork(returns_after_meeting, arrived);  // the rest goes on on a thief
  co_await tine::call(returns_after_meeting, arrived);
  co_await tine::join();
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

template <typename Fn>
void expect_fatal(Fn fn, const std::string& message) {
  const auto r = tine_tests::run_in_child([fn] {
    tine::inline_scheduler sched;
    (void)tine::sync_wait(sched, fn);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find(message) != std::string::npos, r.stderr_text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(checked)

BOOST_AUTO_TEST_CASE(a_request_that_is_never_awaited) {
  const std::string message = "request was created but never co_awaited";
  expect_fatal(forgets_co_await_on_fork, message);
  expect_fatal(forgets_co_await_on_call, message);
  expect_fatal(forgets_co_await_on_join, message);
}

BOOST_AUTO_TEST_CASE(a_return_between_fork_and_join) {
  expect_fatal(returns_between_fork_and_join, "a task returned between a fork and its join");
}

BOOST_AUTO_TEST_CASE(a_throw_while_children_run) {
  const auto r = tine_tests::run_in_child([] {
    tine::busy_pool<> pool(2);
    std::atomic<bool> flag{false};
    try {
      tine::sync_wait(pool, throws_while_a_child_runs, &flag);
    } catch (const std::exception&) {
    }
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("a task threw between a fork and its join while its children "
                                "were running") != std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_CASE(a_mistake_made_by_two_workers_at_once_is_reported_once) {
  for (int run = 0; run < 10; ++run) {
    const auto r = tine_tests::run_in_child([] {
      tine::busy_pool<> pool(2);
      std::atomic<int> arrived{0};
      tine::sync_wait(pool, two_workers_forget_to_join, &arrived);
    });
    BOOST_TEST(r.aborted);
    BOOST_TEST(occurrences(r.stderr_text, "a task returned between a fork and its join") == 1U,
               r.stderr_text);
  }
}

BOOST_AUTO_TEST_CASE(stack_frees_out_of_order) {
  expect_fatal(frees_stack_arrays_out_of_order, "tine::stack_array freed out of order");
}

// The control: the same programs written correctly run to the end in the checked build.
BOOST_AUTO_TEST_CASE(correct_programs_are_not_stopped) {
  const auto r = tine_tests::run_in_child([] {
    tine::inline_scheduler sched;
    if (tine::sync_wait(sched, value, 7) != 7) {
      std::_Exit(3);
    }
  });
  BOOST_TEST(!r.aborted);
  BOOST_TEST(r.exit_code == 0);
}

BOOST_AUTO_TEST_SUITE_END()
