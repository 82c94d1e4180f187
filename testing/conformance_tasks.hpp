#ifndef TINE_TESTING_CONFORMANCE_TASKS_HPP
#define TINE_TESTING_CONFORMANCE_TASKS_HPP

/// \file conformance_tasks.hpp
/// The tasks the conformance kit runs on a scheduler, and the shared state through which the
/// ones that wait give up at a deadline. Internal to the kit (namespace `conformance_detail`);
/// scheduler_conformance.hpp is the API.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tine/application/resume_on.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/conformance_observer.hpp>

namespace tine::testing::conformance_detail {

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
  // One slot per child: they run in parallel.
  std::vector<int> results(static_cast<std::size_t>(n));
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

// What tasks that wait for something share: they give up at the deadline and say so.
struct waiting_state {
  std::atomic<bool> released{false};
  std::atomic<bool> timed_out{false};
  std::atomic<int> running{0};
  clock_type::time_point deadline;

  // True while not released and before the deadline; records giving up.
  bool keep_waiting() {
    // acquire: pairs with the release store in release().
    if (released.load(std::memory_order_acquire)) {
      return false;
    }
    if (clock_type::now() > deadline) {
      timed_out.store(true, std::memory_order_relaxed);  // read after sync_wait returns
      return false;
    }
    return true;
  }

  void release() { released.store(true, std::memory_order_release); }
};

// Spins without suspending until released (or the deadline): holds its worker.
inline task<void> spin_until_released(waiting_state* st) {
  st->running.fetch_add(1, std::memory_order_relaxed);
  while (st->keep_waiting()) {
    std::this_thread::yield();  // be kind to oversubscribed workers sharing the core
  }
  co_return;
}

// Holds `workers` workers at once: workers - 1 forked spinners (each fork's continuation must
// be stolen for the next), then this task spins itself.
inline task<void> hold_workers(std::size_t workers, waiting_state* st) {
  for (std::size_t i = 1; i < workers; ++i) {
    co_await fork(spin_until_released, st);
  }
  co_await call(spin_until_released, st);
  co_await join();
}

struct starvation_state {
  std::atomic<int> finished{0};
  int finishers = 0;
  clock_type::time_point deadline;
  std::atomic<bool> timed_out{false};
};

// Spins (no suspension) until every finisher is done, or gives up at the deadline.
inline task<void> spinner(starvation_state* st) {
  while (st->finished.load(std::memory_order_acquire) < st->finishers) {
    if (clock_type::now() > st->deadline) {
      st->timed_out.store(true, std::memory_order_relaxed);
      break;
    }
    std::this_thread::yield();
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

// Moves away to `other` and finishes there: the continuation of its parent, which its fork left
// in this worker's deque, stays there.
inline task<void> move_away(inline_scheduler* other, std::atomic<bool>* arrived) {
  co_await resume_on(*other);
  arrived->store(true, std::memory_order_relaxed);
}

// workers - 1 spinners hold every other worker; then a child moves away, leaving this task's
// continuation in the deque of the one free worker, which only that worker can steal (from
// itself) until the spinners give up.
inline task<void> leave_parent_in_own_deque(std::size_t workers, inline_scheduler* other,
                                            std::atomic<bool>* arrived, waiting_state* st) {
  for (std::size_t i = 1; i < workers; ++i) {
    co_await fork(spin_until_released, st);
  }
  co_await fork(move_away, other, arrived);
  st->release();  // reached only once a worker resumes this continuation
  co_await join();
}

// Moves back onto `s` until released, or gives up at the deadline. It never waits inside a
// task: each round is a fresh submission.
template <scheduler S>
task<void> resubmitter(S* s, waiting_state* st) {
  while (st->keep_waiting()) {
    co_await resume_on(*s);
  }
}

// Forks `loopers` resubmitters, then releases them: that takes this task's continuation, which
// each fork leaves in a deque, to be resumed while they loop.
template <scheduler S>
task<void> resubmit_until_released(S* s, std::size_t loopers, waiting_state* st) {
  for (std::size_t i = 0; i < loopers; ++i) {
    co_await fork(resubmitter<S>, s, st);
  }
  st->release();
  co_await join();
}

// Calls schedule from a worker `rounds` times (moving onto `s` again), each time checking that
// it resumed on a worker, not inside the schedule call.
template <scheduler S>
task<void> move_onto(S* s, int rounds, std::atomic<int>* wrong) {
  for (int r = 0; r < rounds; ++r) {
    co_await resume_on(*s);
    if (in_schedule_depth() != 0 || current_worker() == nullptr) {
      wrong->fetch_add(1, std::memory_order_relaxed);
    }
  }
}

template <scheduler S>
task<void> workers_move_onto(S* s, std::size_t tasks, std::atomic<int>* wrong) {
  for (std::size_t i = 0; i < tasks; ++i) {
    co_await fork(move_onto<S>, s, 20, wrong);
  }
  co_await join();
}

inline task<int> nothing() { co_return 1; }

}  // namespace tine::testing::conformance_detail

#endif  // TINE_TESTING_CONFORMANCE_TASKS_HPP
