// The implicit join at a task's end: what the runtime does when a task returns or throws between a
// fork and its join. The checked build stops such programs with a message (checked_test.cpp);
// this file is built unchecked to test the release runtime's own guarantees: the children finish
// before the task's frame goes, the exception reaches the caller, nothing crashes, and the
// completion of a deep chain of such tasks runs in constant C++ stack.
#undef TINE_CHECKED
#define TINE_CHECKED 0

#include <boost/test/unit_test.hpp>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/spin_backoff.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/core/death.hpp"
#include "tests/sanitizers.hpp"

namespace {

struct test_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

tine::task<void> slow_child(std::atomic<int>* done) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  done->fetch_add(1);
  co_return;
}

// Throws between fork and join: the children must still complete first.
tine::task<void> parent_throws(std::atomic<int>* done) {
  co_await tine::fork(slow_child, done);
  co_await tine::fork(slow_child, done);
  throw test_error("parent");
  co_await tine::join();  // not reached
}

// Returns without joining: the implicit join at the end waits for the children.
tine::task<void> forgets_join(std::atomic<int>* done) {
  co_await tine::fork(slow_child, done);
  co_await tine::fork(slow_child, done);
  co_return;
}

template <typename Sched>
void check_implicit_joins(Sched& sched) {
  std::atomic<int> done{0};
  BOOST_CHECK_EXCEPTION(tine::sync_wait(sched, parent_throws, &done), test_error,
                        [](const test_error& e) { return std::string(e.what()) == "parent"; });
  BOOST_TEST(done.load() == 2);  // both children finished before the exception surfaced
  done = 0;
  tine::sync_wait(sched, forgets_join, &done);
  BOOST_TEST(done.load() == 2);
}

// ---- a deep cascade of implicit joins ---------------------------------------------------------
// chain(n) forks chain(n - 1) and returns without joining. chain(n - 1) waits until chain(n)'s
// continuation has run, which only a thief can do while the child occupies its worker: so every
// level is stolen, every level ends at its implicit join with its child outstanding, and the
// leaf's completion finishes all of them, one after the other.
struct cascade {
  explicit cascade(long depth) : continued(std::make_unique<std::atomic<bool>[]>(depth + 2)) {}
  std::unique_ptr<std::atomic<bool>[]> continued;  // continued[n]: chain(n) ran past its fork
  std::atomic<long> leaves{0};
};

tine::task<void> chain(cascade* c, long n, bool wait_for_parent) {
  if (wait_for_parent) {
    tine::detail::spin_backoff backoff;
    // acquire: pairs with the release store of the parent's continuation.
    while (!c->continued[n + 1].load(std::memory_order_acquire)) {
      backoff.idle();
    }
  }
  if (n == 0) {
    c->leaves.fetch_add(1, std::memory_order_relaxed);
    co_return;
  }
  co_await tine::fork(chain, c, n - 1, true);
  c->continued[n].store(true, std::memory_order_release);
  co_return;  // no join: the last strand to finish completes this task
}

using tine_tests::thread_sanitizer;

// Threads created while one of these lives (the pool's workers) get `bytes` of stack: the
// process-wide default of pthread_create, restored at the end. Not under ThreadSanitizer, whose
// pthread_create then fails (EINVAL): there the workers keep the default stacks.
class small_thread_stacks {
 public:
  explicit small_thread_stacks(std::size_t bytes) {
    if constexpr (thread_sanitizer) {
      return;
    }
    pthread_attr_t attr;
    BOOST_TEST_REQUIRE(pthread_getattr_default_np(&saved_) == 0);
    BOOST_TEST_REQUIRE(pthread_attr_init(&attr) == 0);
    BOOST_TEST_REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
    BOOST_TEST_REQUIRE(pthread_setattr_default_np(&attr) == 0);
    pthread_attr_destroy(&attr);
  }
  ~small_thread_stacks() {
    if constexpr (thread_sanitizer) {
      return;
    }
    pthread_setattr_default_np(&saved_);
    pthread_attr_destroy(&saved_);
  }
  small_thread_stacks(const small_thread_stacks&) = delete;
  small_thread_stacks& operator=(const small_thread_stacks&) = delete;

 private:
  pthread_attr_t saved_;
};

tine::task<std::size_t> own_stack_size() {
  pthread_attr_t attr;
  std::size_t bytes = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
  }
  co_return bytes;
}

// ---- a stack_array alive when the task throws between fork and join ---------------------------
struct throw_state {
  std::atomic<bool> parent_threw{false};
  std::atomic<int> children_done{0};
};

tine::task<void> writes_late(throw_state* s, long* slot) {
  tine::detail::spin_backoff backoff;
  // acquire: pairs with the parent's release store just before it throws.
  while (!s->parent_threw.load(std::memory_order_acquire)) {
    backoff.idle();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the parent has unwound by now
  *slot = 42;  // the array's memory is kept until the join
  s->children_done.fetch_add(1);
  co_return;
}

tine::task<long> partial_results_then_throw(throw_state* s) {
  tine::stack_array<long> parts = co_await tine::stack_alloc<long>(4);
  co_await tine::fork(writes_late, s, &parts[0]);  // waits, so a thief runs the rest of this task
  s->parent_threw.store(true, std::memory_order_release);
  throw test_error("partial");
  co_await tine::join();  // not reached
  co_return parts[0];
}

// ---- an unstarted task destroyed on a thief's stack -------------------------------------------
tine::task<int> value(int v) { co_return v; }

tine::task<void> wait_until_set(std::atomic<bool>* flag) {
  tine::detail::spin_backoff backoff;
  while (!flag->load(std::memory_order_acquire)) {
    backoff.idle();
  }
  co_return;
}

tine::task<void> holds_a_task_across_a_steal(std::atomic<bool>* flag) {
  {
    tine::task<int> held = value(1);  // created, never started
    co_await tine::fork(wait_until_set, flag);
    flag->store(true, std::memory_order_release);  // we run on a thief now
  }                                                // `held` is destroyed here, on the thief
  co_await tine::join();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(implicit_join)

BOOST_AUTO_TEST_CASE(on_the_inline_scheduler) {
  tine::inline_scheduler sched;
  check_implicit_joins(sched);
}

BOOST_AUTO_TEST_CASE(with_stealing, *boost::unit_test::timeout(120)) {
  tine::testing::simple_pool pool(3);
  for (int round = 0; round < 10; ++round) {
    check_implicit_joins(pool);
  }
}

// Before the completion paths became a loop, each level nested a few C++ calls: 300,000 levels
// overflowed an 8 MiB thread stack, so each level took at least 28 bytes of it. The workers here
// get 512 KiB stacks, on which that code would have overflowed before 19,000 levels: 60,000 keeps
// a threefold margin (except under ThreadSanitizer, see small_thread_stacks). Every level is a
// steal that waits for the other worker, which is slow on a loaded machine; the small stack is
// what keeps the depth, and the test's time, small.
BOOST_AUTO_TEST_CASE(deep_cascade_of_stolen_forks, *boost::unit_test::timeout(600)) {
  constexpr long depth = 60'000;
  const small_thread_stacks stacks(512 * 1024);
  tine::busy_pool<> pool(2);
  if constexpr (!thread_sanitizer) {
    BOOST_TEST(tine::sync_wait(pool, own_stack_size) <= 512u * 1024);  // the workers got them
  }
  cascade c(depth);
  tine::sync_wait(pool, chain, &c, depth, false);
  BOOST_TEST(c.leaves.load() == 1);
  BOOST_TEST(pool.stats().steals_succeeded >= static_cast<std::uint64_t>(depth));
  // The pool still works: every stack went back where it belongs.
  cascade small(1000);
  tine::sync_wait(pool, chain, &small, 1000L, false);
  BOOST_TEST(small.leaves.load() == 1);
}

BOOST_AUTO_TEST_CASE(stack_array_alive_when_the_task_throws_while_stolen,
                     *boost::unit_test::timeout(120)) {
  tine::busy_pool<> pool(2);
  for (int round = 0; round < 20; ++round) {
    throw_state s;
    BOOST_CHECK_EXCEPTION(tine::sync_wait(pool, partial_results_then_throw, &s), test_error,
                          [](const test_error& e) { return std::string(e.what()) == "partial"; });
    BOOST_TEST(s.children_done.load() == 1);
  }
}

// Refused in every build: freeing its frame on the thief's stack would corrupt both stacks.
BOOST_AUTO_TEST_CASE(unstarted_task_destroyed_on_a_thief_stops_the_program) {
  const auto r = tine_tests::run_in_child([] {
    tine::busy_pool<> pool(2);
    std::atomic<bool> flag{false};
    tine::sync_wait(pool, holds_a_task_across_a_steal, &flag);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("a tine::task that was never started was destroyed on another "
                                "worker") != std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_SUITE_END()
