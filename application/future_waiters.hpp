#ifndef TINE_APPLICATION_FUTURE_WAITERS_HPP
#define TINE_APPLICATION_FUTURE_WAITERS_HPP

/// \file future_waiters.hpp
/// Internal: the three ways a `tine::future`'s outcome reaches whoever waits for it — a task
/// (parked like a join that waits, resumed on its own scheduler), any other C++20 coroutine
/// (resumed on the completing thread) and an `on_complete` callback — and the checks `future`'s
/// blocking calls and destructor make. Users include <tine/application/future.hpp>.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <chrono>
#include <coroutine>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <tine/application/future_state.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/parked_task.hpp>
#include <tine/core/stop_forwarding.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine::detail {

/// Throws the logic_error of a blocking call made on a worker thread.
inline void refuse_blocking_on_worker(const char* function) {
  if (current_worker() != nullptr) {
    throw std::logic_error(std::string(function) +
                           ": called on a tine worker thread, which would block it (and could "
                           "deadlock its pool); inside a task use co_await std::move(future)");
  }
}

/// Whether `now + d` is past the steady clock's range (computed without overflowing: the
/// comparison is in double-precision seconds, which are exact enough for the question).
template <typename Rep, typename Period>
bool beyond_clock(std::chrono::steady_clock::time_point now,
                  const std::chrono::duration<Rep, Period>& d) noexcept {
  using seconds = std::chrono::duration<double>;
  return seconds(d) >= seconds(std::chrono::steady_clock::time_point::max() - now);
}

/// A pending future dropped on a worker: true when nothing explains the drop (see the file
/// comment), which checked builds report.
inline bool unexplained_drop(const future_state_base& s) noexcept {
  // A continuation (an on_complete callback) still hears of the outcome.
  if (s.context.stop.load(std::memory_order_relaxed) || s.has_continuation() ||
      std::uncaught_exceptions() > 0) {
    return false;
  }
  worker_runtime* rt = read_tls_runtime();
  const root_context* mine = rt != nullptr ? rt->top()->context : nullptr;
  return mine == nullptr || !mine->stopped();
}

/// fatal(), with the exception's what() when it has one.
[[noreturn]] inline void fatal_with_exception(const char* message, std::exception_ptr e) noexcept {
  try {
    std::rethrow_exception(std::move(e));
  } catch (const std::exception& x) {
    fatal(message, x.what());
  } catch (...) {
    fatal(message, "(an exception not derived from std::exception)");
  }
}

/// An await is a continuation too: refused where one was registered, even if the outcome is
/// there already and the await would not register anything.
inline void refuse_second_continuation(const future_state_base& s) {
  if (s.has_continuation()) {
    throw std::logic_error(
        "tine::future: it already has a continuation; a future's outcome goes to one place "
        "(co_await it, when_all it, or give it one on_complete callback)");
  }
}

/// Takes the outcome out of `state`, dropping the reference `owner` held.
template <typename T>
T take_outcome(future_state<T>* state) {
  struct releaser {
    future_state<T>* s;
    ~releaser() { s->release(); }
  } guard{state};
  if (state->exception) {
    // Moved out: the exception object then dies with the caller's last reference, on the
    // caller's thread, whichever thread frees the state.
    std::rethrow_exception(std::exchange(state->exception, nullptr));
  }
  if constexpr (!std::is_void_v<T>) {
    return std::move(state->value);
  }
}

/// `co_await std::move(future)` inside a task: the task parks its stack and suspends; the
/// outcome's arrival schedules it back on the scheduler it ran on (parked_task.hpp; the awaitable
/// lives in the task's frame and is the submission).
template <typename T>
struct future_awaitable : future_waiter, parked_task {
  future_state<T>* state;

  /// Passes a stop of the awaiting task's root (or stop scope) on to the awaited root.
  struct forward_stop {
    future_state_base* to;
    void operator()() const noexcept { to->request_stop(); }
  };
  /// Registered while the task waits: from suspension until its arrival.
  stop_forwarding<forward_stop> stop_link;

  future_awaitable(future_state<T>* s, frame* f) noexcept : future_waiter{&notify}, state(s) {
    task = f;
  }

  bool await_ready() const {
    if (state == nullptr) {
      throw std::logic_error(
          "tine::future: co_await on a future that holds no outcome (moved "
          "from, already taken, or detached)");
    }
    refuse_second_continuation(*state);
    check_can_park(*task, runtime(), "tine::future", "a future");
    return state->ready();
  }

  bool await_suspend(std::coroutine_handle<>) {
    worker_runtime& rt = runtime();
    if (root_context* c = rt.top()->context) {
      // First, so that nothing is to undo if it throws (std::bad_alloc: the context's first
      // token). Runs at once if the awaiting task's root or scope is already stopped.
      stop_link.link(c->token(), forward_stop{state});
    }
    park(task, rt, &arrive);
    bool registered = false;
    try {
      registered = state->set_waiter(this);
    } catch (...) {
      undo_suspend(rt);
      throw;
    }
    if (!registered) {
      undo_suspend(rt);  // the outcome came meanwhile: go on here
      return false;
    }
    return true;  // from here the task may already run elsewhere: touch nothing of it
  }

  T await_resume() { return take_outcome(std::exchange(state, nullptr)); }

  ~future_awaitable() {
    if (state != nullptr) {
      state->release();  // an await that threw before suspending
    }
  }

 private:
  void undo_suspend(worker_runtime& rt) noexcept {
    unpark(rt);
    stop_link.reset();
  }

  static void notify(future_waiter* w) noexcept {
    static_cast<future_awaitable*>(w)->submit_back(
        "tine::future: the scheduler of a task awaiting a future refused to take it back "
        "(its schedule() threw); the task cannot resume");
  }

  static void arrive(submit_node* node) {
    auto* self = static_cast<future_awaitable*>(node);
    // The awaited root is done: its stop no longer matters. (Waits, should a stop request be
    // passing it on at this moment on another thread: the state is alive until await_resume.)
    self->stop_link.reset();
    self->resume_here();
  }
};

/// `co_await std::move(future)` in any other coroutine: resumed on the completing thread.
template <typename T>
struct future_coroutine_awaiter : future_waiter {
  future_state<T>* state;
  std::coroutine_handle<> waiting;

  explicit future_coroutine_awaiter(future_state<T>* s) noexcept
      : future_waiter{&notify}, state(s) {}

  bool await_ready() const {
    if (state == nullptr) {
      throw std::logic_error(
          "tine::future: co_await on a future that holds no outcome (moved "
          "from, already taken, or detached)");
    }
    refuse_second_continuation(*state);
    return state->ready();
  }
  bool await_suspend(std::coroutine_handle<> h) {
    waiting = h;
    return state->set_waiter(this);
  }
  T await_resume() { return take_outcome(std::exchange(state, nullptr)); }
  ~future_coroutine_awaiter() {
    if (state != nullptr) {
      state->release();
    }
  }

 private:
  static void notify(future_waiter* w) noexcept {
    static_cast<future_coroutine_awaiter*>(w)->waiting.resume();
  }
};

/// A callback given to future::on_complete, on the heap until it runs.
template <typename F>
struct callback_waiter : future_waiter {
  F fn;
  explicit callback_waiter(F f) : future_waiter{&notify}, fn(std::move(f)) {}
  static void notify(future_waiter* w) noexcept {
    auto* self = static_cast<callback_waiter*>(w);
    try {
      self->fn();
    } catch (...) {
      fatal_with_exception(
          "tine::future::on_complete: the callback threw (it runs on the completing thread, "
          "where nothing can catch it)",
          std::current_exception());
    }
    delete self;
  }
};

}  // namespace tine::detail

#endif  // TINE_APPLICATION_FUTURE_WAITERS_HPP
