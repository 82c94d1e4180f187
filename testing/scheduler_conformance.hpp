#ifndef TINE_TESTING_SCHEDULER_CONFORMANCE_HPP
#define TINE_TESTING_SCHEDULER_CONFORMANCE_HPP

/// \file scheduler_conformance.hpp
/// The conformance kit: the behaviours tine relies on, checked on any type satisfying
/// `tine::scheduler`. Use it from a Boost.Test case:
///
/// ```
/// BOOST_AUTO_TEST_CASE(my_scheduler_conforms) {
///   my_scheduler s(4);
///   tine::testing::run_conformance(s, {.workers = 4});
/// }
/// ```
///
/// Each `check_*` function is usable on its own. Every concurrent check is bounded in time: a
/// scheduler that loses or starves work makes a check fail (or, at worst, the test's own timeout
/// fire), never hang silently. Each check takes well under a second on 2 cores, a few seconds
/// under ThreadSanitizer.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <chrono>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace tine::testing {

/// What the kit may assume about the scheduler under test.
struct conformance_options {
  /// Workers the scheduler runs: the starvation check keeps up to workers - 1 of them spinning,
  /// the resubmission check keeps all of them resubmitting.
  std::size_t workers = 1;
  /// Depth of the deep-recursion check (a chain of `call`s, then one of `fork`s).
  long depth = 100000;
  /// External threads calling sync_wait at once.
  int external_threads = 6;
  /// How long a blocked check waits before it reports failure.
  std::chrono::milliseconds patience{10000};
};

namespace conformance_detail {

struct kit_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await fork(&a, fib, n - 1);
  co_await call(&b, fib, n - 2);
  co_await join();
  co_return a + b;
}

inline long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

inline task<long> identity(long v) { co_return v; }

// Many forks in one scope, then several scopes in one task.
inline task<long> wide(long width, int scopes) {
  long total = 0;
  std::vector<long> parts(static_cast<std::size_t>(width));
  for (int s = 0; s < scopes; ++s) {
    for (long i = 0; i < width; ++i) {
      co_await fork(&parts[static_cast<std::size_t>(i)], identity, i + s);
    }
    co_await join();
    total += std::accumulate(parts.begin(), parts.end(), 0L);
  }
  co_return total;
}

inline task<int> throw_if(int v, int bad) {
  if (v == bad) {
    throw kit_error("child " + std::to_string(v));
  }
  co_return v;
}

inline task<int> several_children_throw(int n) {
  std::vector<int> results(
      static_cast<std::size_t>(n));  // one slot per child: they run in parallel
  for (int i = 0; i < n; ++i) {
    co_await fork(&results[static_cast<std::size_t>(i)], throw_if, i % 3, 0);  // every third throws
  }
  co_await join();
  co_return std::accumulate(results.begin(), results.end(), 0);
}

inline task<void> count_child(std::atomic<int>* done) {
  done->fetch_add(1, std::memory_order_relaxed);
  co_return;
}

// Throws between fork and join the way tasks should (docs/tour.md): catch, join, rethrow.
inline task<void> parent_throws_in_scope(std::atomic<int>* done) {
  std::exception_ptr error;
  try {
    co_await fork(count_child, done);
    co_await fork(count_child, done);
    throw kit_error("parent");
  } catch (...) {
    error = std::current_exception();
  }
  co_await join();  // both children complete first
  std::rethrow_exception(error);
}

inline task<long> call_chain(long depth) {
  if (depth == 0) {
    co_return 0;
  }
  long r = 0;
  co_await call(&r, call_chain, depth - 1);
  co_await join();
  co_return r + 1;
}

inline task<long> fork_chain(long depth) {
  if (depth == 0) {
    co_return 0;
  }
  long r = 0;
  co_await fork(&r, fork_chain, depth - 1);
  co_await join();
  co_return r + 1;
}

inline task<long> partial_sums(int n) {
  stack_array<long> parts = co_await stack_alloc<long>(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    co_await fork(&parts[static_cast<std::size_t>(i)], fib, i % 12);
  }
  co_await join();
  co_return std::accumulate(parts.begin(), parts.end(), 0L);
}

// Hops to `other` and back `rounds` times, doing fork-join work on each side.
template <scheduler S>
task<long> hop(S* home, inline_scheduler* other, int rounds) {
  long sum = 0;
  for (int r = 0; r < rounds; ++r) {
    co_await resume_on(*other);
    long a = 0;
    co_await fork(&a, fib, 10);
    co_await join();
    co_await resume_on(*home);
    long b = 0;
    co_await fork(&b, fib, 11);
    co_await join();
    sum += a + b;
  }
  co_return sum;
}

template <scheduler S>
task<bool> sync_wait_inside(S* s) {
  try {
    (void)sync_wait(*s, fib, 3);
  } catch (const std::logic_error&) {
    co_return true;
  }
  co_return false;
}

struct starvation_state {
  std::atomic<int> finished{0};
  int finishers = 0;
  std::chrono::steady_clock::time_point deadline;
  std::atomic<bool> timed_out{false};
};

// Spins (no suspension) until every finisher is done, or gives up at the deadline.
inline task<void> spinner(starvation_state* st) {
  while (st->finished.load(std::memory_order_acquire) < st->finishers) {
    if (std::chrono::steady_clock::now() > st->deadline) {
      st->timed_out.store(true, std::memory_order_relaxed);
      break;
    }
    std::this_thread::yield();  // be kind to oversubscribed workers sharing the core
  }
  co_return;
}

inline task<void> finisher(starvation_state* st) {
  long r = 0;
  co_await call(&r, fib, 8);
  co_await join();
  st->finished.fetch_add(1, std::memory_order_release);
}

inline task<void> starve(std::size_t spinners, starvation_state* st) {
  for (std::size_t i = 0; i < spinners; ++i) {
    co_await fork(spinner, st);
  }
  for (int i = 0; i < st->finishers; ++i) {
    co_await fork(finisher, st);
  }
  co_await join();
}

struct resubmission_state {
  std::atomic<bool> released{false};
  std::chrono::steady_clock::time_point deadline;
  std::atomic<bool> timed_out{false};
};

// Moves back onto `s` (on tine's pools: onto the same worker) until released, or gives up at the
// deadline. It never waits inside a task: each round is a fresh submission.
template <scheduler S>
task<void> resubmitter(S* s, resubmission_state* st) {
  // acquire: pairs with the release store in resubmit_until_released.
  while (!st->released.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > st->deadline) {
      st->timed_out.store(true, std::memory_order_relaxed);  // read after sync_wait returns
      break;
    }
    co_await resume_on(*s);
  }
}

// Forks `loopers` resubmitters, then releases them: that takes this task's continuation, which
// each fork leaves in a deque, to be resumed while they loop.
template <scheduler S>
task<void> resubmit_until_released(S* s, std::size_t loopers, resubmission_state* st) {
  for (std::size_t i = 0; i < loopers; ++i) {
    co_await fork(resubmitter<S>, s, st);
  }
  st->released.store(true, std::memory_order_release);
  co_await join();
}

}  // namespace conformance_detail

/// The rule `check_resubmission` checks, as it reports a violation (see docs/extending.md).
inline constexpr const char* resubmission_rule =
    "submissions must not starve continuations: a worker that keeps finding submissions must "
    "still, after a bounded number of them, try to steal a continuation (from its own deque "
    "first)";

/// fork/join results: fib, a wide fan-out (many forks per scope), several scopes per task.
template <scheduler S>
void check_fork_join(S& s) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: fork/join");
  BOOST_TEST(sync_wait(s, d::fib, 20) == d::fib_serial(20));
  BOOST_TEST(sync_wait(s, d::fib, 0) == 0);
  // width 1000, 3 scopes: sum over s of (0+...+999 + 1000 s)
  BOOST_TEST(sync_wait(s, d::wide, 1000L, 3) == 3 * 499500L + 1000L * (0 + 1 + 2));
}

/// Exceptions: from one child, several children, and the parent between fork and join, rethrown
/// at the join and out of sync_wait; children always complete first.
template <scheduler S>
void check_exceptions(S& s) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: exceptions");
  BOOST_CHECK_THROW(sync_wait(s, d::throw_if, 1, 1), d::kit_error);
  BOOST_CHECK_THROW(sync_wait(s, d::several_children_throw, 30), d::kit_error);
  std::atomic<int> done{0};
  BOOST_CHECK_THROW(sync_wait(s, d::parent_throws_in_scope, &done), d::kit_error);
  BOOST_TEST(done.load() == 2);
  BOOST_TEST(sync_wait(s, d::fib, 15) == d::fib_serial(15));  // still usable afterwards
}

/// Deep recursion: a chain of `depth` calls, then of `depth` forks.
template <scheduler S>
void check_deep_recursion(S& s, long depth) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: deep recursion");
  BOOST_TEST(sync_wait(s, d::call_chain, depth) == depth);
  BOOST_TEST(sync_wait(s, d::fork_chain, depth) == depth);
}

/// The stack allocation API: partial results of a scope in a stack_array.
template <scheduler S>
void check_stack_alloc(S& s) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: stack_alloc");
  long expected = 0;
  for (int i = 0; i < 500; ++i) {
    expected += d::fib_serial(i % 12);
  }
  BOOST_TEST(sync_wait(s, d::partial_sums, 500) == expected);
}

/// Explicit scheduling: a task moves to another scheduler (an inline_scheduler) and back.
template <scheduler S>
void check_explicit_scheduling(S& s) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: explicit scheduling");
  inline_scheduler other;
  BOOST_TEST(sync_wait(s, d::hop<S>, &s, &other, 20) == 20 * (55 + 89));
}

/// Many external threads call sync_wait at once (more roots than workers: oversubscription).
template <scheduler S>
void check_external_threads(S& s, int threads) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: external threads");
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < threads; ++t) {
    callers.emplace_back([&s, &wrong, t] {
      for (int i = 0; i < 10; ++i) {
        const int n = 8 + (t + i) % 8;
        if (sync_wait(s, d::fib, n) != d::fib_serial(n)) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& c : callers) {
    c.join();
  }
  BOOST_TEST(wrong.load() == 0);
}

/// sync_wait on a worker thread throws std::logic_error instead of deadlocking.
template <scheduler S>
void check_sync_wait_on_worker(S& s) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: sync_wait on a worker");
  BOOST_TEST(sync_wait(s, d::sync_wait_inside<S>, &s));
}

/// Starvation: up to workers - 1 tasks spin (never suspending) until many small tasks forked
/// after them have finished; the scheduler must still run those on the remaining worker(s).
template <scheduler S>
void check_starvation(S& s, std::size_t workers, std::chrono::milliseconds patience) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: starvation");
  d::starvation_state st;
  st.finishers = 64;
  st.deadline = std::chrono::steady_clock::now() + patience;
  sync_wait(s, d::starve, workers > 1 ? workers - 1 : 0, &st);
  BOOST_TEST(!st.timed_out.load());
  BOOST_TEST(st.finished.load() == st.finishers);
}

/// Submissions must not starve continuations: `workers` tasks (at least one) move back onto the
/// scheduler with `resume_on` in a loop until their parent's continuation, which their forks left
/// in a deque, releases them. A scheduler whose workers always take a submission when there is
/// one never resumes that parent; the loopers then give up after `patience` and the check fails,
/// naming the rule.
template <scheduler S>
void check_resubmission(S& s, std::size_t workers, std::chrono::milliseconds patience) {
  namespace d = conformance_detail;
  BOOST_TEST_CHECKPOINT("conformance: resubmission");
  d::resubmission_state st;
  st.deadline = std::chrono::steady_clock::now() + patience;
  sync_wait(s, d::resubmit_until_released<S>, &s, std::max<std::size_t>(workers, 1), &st);
  BOOST_TEST(!st.timed_out.load(), "scheduler breaks the rule \""
                                       << resubmission_rule << "\" (docs/extending.md): tasks "
                                       << "resubmitting themselves in a loop waited "
                                       << patience.count()
                                       << " ms for their parent's continuation, which never ran");
}

/// Every check above, in order.
template <scheduler S>
void run_conformance(S& s, const conformance_options& opts = {}) {
  check_fork_join(s);
  check_exceptions(s);
  check_deep_recursion(s, opts.depth);
  check_stack_alloc(s);
  check_explicit_scheduling(s);
  check_external_threads(s, opts.external_threads);
  check_sync_wait_on_worker(s);
  check_starvation(s, opts.workers, opts.patience);
  check_resubmission(s, opts.workers, opts.patience);
}

}  // namespace tine::testing

#endif  // TINE_TESTING_SCHEDULER_CONFORMANCE_HPP
