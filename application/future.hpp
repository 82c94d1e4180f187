#ifndef TINE_APPLICATION_FUTURE_HPP
#define TINE_APPLICATION_FUTURE_HPP

/// \file future.hpp
/// `tine::future<T>`: the outcome of work started without waiting (`tine::spawn`,
/// `tine::when_all`), to be waited for, polled, awaited, or stopped.
///
/// ```
/// tine::future<long> f = tine::spawn(pool, fib, 40);  // returns at once; the root runs on pool
/// do_other_things();
/// long r = f.get();  // blocks until done; rethrows the root's exception
/// ```
///
/// - `get()` (once), `wait()`, `wait_for()`, `wait_until()` block the calling thread; on a tine
///   worker they always throw std::logic_error instead, ready or not (blocking a worker can
///   deadlock its pool): inside a task, `co_await std::move(f)`.
/// - `co_await std::move(f)` inside a task suspends the task like a join that waits: the worker
///   goes on with other work and the task resumes on its own scheduler when the outcome arrives.
///   Allowed outside a fork-join scope only (join first), as `resume_on`. While it waits, a stop
///   of the awaiting task's root or stop scope is passed on to the future (its root is asked to
///   stop too). From any other C++20 coroutine, `co_await` resumes the coroutine on the thread
///   that completes the future.
/// - `request_stop()` asks the root's tasks to stop (idempotent; nothing once done; from another
///   thread, through a `stop_handle()`, since a future is for one thread at a time):
///   forks no longer start children, `tine::stop_requested()` is true in its tasks, and a root
///   that has not started does not. The outcome is then `tine::cancelled`, unless the root
///   returns a value anyway.
/// - Destroying a future whose outcome is not there requests a stop and waits, like
///   `std::jthread`. On a tine worker it cannot wait: it requests the stop and detaches; checked
///   builds stop the program there instead when nothing explains the drop (nobody asked the
///   future's root to stop, it has no on_complete callback, the dropping task's own root is not
///   stopped, no exception is unwinding): a task that forgot to `co_await` its future would
///   otherwise lose the work silently. `detach()` lets the work go on alone; the scheduler's
///   destructor still waits for it, and an exception it ends with goes to the handler set with
///   `tine::set_detached_exception_handler`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <tine/application/future_state.hpp>
#include <tine/application/future_waiters.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/task.hpp>  // dependent_false
#include <tine/core/worker_context.hpp>

namespace tine {

template <typename T>
class future;

namespace detail {
struct future_access;
}  // namespace detail

/// Asks a root to stop from any thread, at any time, however long its future lives: what
/// `future::stop_handle()` returns. Copyable; keeps the root's state (not its work) alive.
class stop_handle {
 public:
  stop_handle() noexcept = default;
  stop_handle(const stop_handle& other) noexcept : m_state(other.m_state) {
    if (m_state != nullptr) {
      m_state->retain();
    }
  }
  stop_handle& operator=(const stop_handle& other) noexcept {
    stop_handle copy(other);
    std::swap(m_state, copy.m_state);
    return *this;
  }
  ~stop_handle() {
    if (m_state != nullptr) {
      m_state->release();
    }
  }

  /// As future::request_stop (nothing once the outcome is there, or for an empty handle).
  void request_stop() const noexcept {
    if (m_state != nullptr) {
      m_state->request_stop();
    }
  }

 private:
  template <typename>
  friend class future;
  explicit stop_handle(detail::future_state_base* s) noexcept : m_state(s) { m_state->retain(); }

  detail::future_state_base* m_state = nullptr;
};

template <typename T>
class [[nodiscard(
    "a tine::future that is dropped at once stops its work, then waits for it (on a tine "
    "worker, which must not wait: lets it go, and checked builds stop there); keep it, or call "
    "detach()")]] future {
 public:
  using value_type = T;

  /// A future with no outcome (valid() is false).
  future() noexcept = default;

  future(future&& other) noexcept : m_state(std::exchange(other.m_state, nullptr)) {}
  future& operator=(future&& other) noexcept {
    if (this != &other) {
      abandon();
      m_state = std::exchange(other.m_state, nullptr);
    }
    return *this;
  }
  future(const future&) = delete;
  future& operator=(const future&) = delete;

  /// If the outcome is not there: requests a stop and waits for it (detaches instead on a tine
  /// worker, which must not block).
  ~future() { abandon(); }

  /// Whether this future holds an outcome to come (not moved from, taken or detached).
  bool valid() const noexcept { return m_state != nullptr; }

  /// Whether the outcome is there; never blocks. False for an invalid future.
  bool ready() const noexcept { return m_state != nullptr && m_state->ready(); }

  /// Blocks until the outcome is there. Throws std::logic_error on a tine worker or if invalid.
  void wait() const {
    check("tine::future::wait");
    m_state->wait();
  }

  /// Blocks until the outcome is there or `d` has passed. A duration too long for the steady
  /// clock's range (`duration::max()`, say) waits without a limit.
  template <typename Rep, typename Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& d) const {
    check("tine::future::wait_for");
    const auto now = std::chrono::steady_clock::now();
    if (detail::beyond_clock(now, d)) {
      m_state->wait();
      return std::future_status::ready;
    }
    return wait_until(now + std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }

  /// Blocks until the outcome is there or `deadline`. A deadline beyond the clock's range of
  /// `Clock::now()` plus its duration (`time_point::max()`, say) waits without a limit.
  template <typename Clock, typename Duration>
  std::future_status wait_until(const std::chrono::time_point<Clock, Duration>& deadline) const {
    check("tine::future::wait_until");
    const auto now = Clock::now();
    if (deadline > now && detail::beyond_clock(std::chrono::steady_clock::now(), deadline - now)) {
      m_state->wait();
      return std::future_status::ready;
    }
    return m_state->wait_until(deadline) ? std::future_status::ready : std::future_status::timeout;
  }

  /// Waits, then returns the value or rethrows the root's exception; the future is then invalid.
  T get() {
    check("tine::future::get");
    m_state->wait();
    return detail::take_outcome(std::exchange(m_state, nullptr));
  }

  /// Asks the root's tasks to stop (see the file comment). Thread-safe, idempotent; nothing once
  /// the outcome is there or on an invalid future.
  void request_stop() noexcept {
    if (m_state != nullptr) {
      m_state->request_stop();
    }
  }

  /// A handle that requests a stop from any thread, even while this future is used or after it
  /// is gone (a future itself, like std::future, is for one thread at a time). Empty if invalid.
  tine::stop_handle stop_handle() const noexcept {
    return m_state != nullptr ? tine::stop_handle(m_state) : tine::stop_handle();
  }

  /// Lets the work go on without this future, which becomes invalid (see the file comment).
  void detach() noexcept {
    if (m_state != nullptr) {
      std::exchange(m_state, nullptr)->detach();
    }
  }

  /// Calls `fn()` once when the outcome arrives, on the completing thread (at once, here, if it
  /// is already there); the future stays valid, and ready() turns true (and wait and get
  /// return) only once `fn` has returned. One continuation per future (on_complete, co_await,
  /// when_all): a second throws std::logic_error. `fn` must not throw.
  template <typename F>
  void on_complete(F fn) {
    if (m_state == nullptr) {
      throw std::logic_error("tine::future::on_complete: the future holds no outcome");
    }
    auto* w = new detail::callback_waiter<std::decay_t<F>>(std::move(fn));
    bool registered = false;
    try {
      registered = m_state->set_waiter(w);
    } catch (...) {
      delete w;
      throw;
    }
    if (!registered) {
      w->notify(w);  // already there: run it now (it deletes itself)
    }
  }

  // Inside a task: `co_await std::move(f)` (see the file comment).
  using tine_request = void;
  detail::future_awaitable<T> bind(detail::frame& f) && noexcept {
    return detail::future_awaitable<T>(std::exchange(m_state, nullptr), &f);
  }
  /// `co_await f` on a named future: refused, since awaiting takes the outcome out of the future.
  template <typename Self = future>
  detail::future_awaitable<T> bind(detail::frame& f) & noexcept {
    static_assert(detail::dependent_false<Self>,
                  "tine::future: write co_await std::move(f): awaiting a future takes its outcome "
                  "and leaves the future empty, so it must be an rvalue");
    return std::move(*this).bind(f);
  }

  /// In any other coroutine: resumed on the thread that completes the future.
  detail::future_coroutine_awaiter<T> operator co_await() && noexcept {
    return detail::future_coroutine_awaiter<T>(std::exchange(m_state, nullptr));
  }
  template <typename Self = future>
  detail::future_coroutine_awaiter<T> operator co_await() & noexcept {
    static_assert(detail::dependent_false<Self>,
                  "tine::future: write co_await std::move(f): awaiting a future takes its outcome "
                  "and leaves the future empty, so it must be an rvalue");
    return std::move(*this).operator co_await();
  }

 private:
  friend struct detail::future_access;
  explicit future(detail::future_state<T>* s) noexcept : m_state(s) {}

  void check(const char* function) const {
    if (m_state == nullptr) {
      throw std::logic_error(std::string(function) +
                             ": the future holds no outcome (moved from, already taken, or "
                             "detached)");
    }
    // Ready or not: a call that only works when the outcome happens to be there already would
    // pass in testing and throw under load.
    detail::refuse_blocking_on_worker(function);
  }

  void abandon() noexcept {
    detail::future_state<T>* s = std::exchange(m_state, nullptr);
    if (s == nullptr) {
      return;
    }
    if (!s->ready()) {
      if (current_worker() != nullptr) {
#if TINE_CHECKED
        if (detail::unexplained_drop(*s)) {
          detail::fatal(
              "tine::future: a future whose work still runs was dropped on a tine worker without "
              "being awaited, stopped or detached (a task forgot co_await std::move(f)?); "
              "co_await it to wait, call f.detach() to let the work run on, or f.request_stop() "
              "before dropping it to cancel the work. Without checks the work is stopped and "
              "detached");
        }
#endif
        s->request_stop();
        s->detach();  // a worker must not block: the scheduler's destructor waits instead
        return;
      }
      s->request_stop();
      s->wait();
    }
    s->release();
  }

  detail::future_state<T>* m_state = nullptr;
};

namespace detail {
struct future_access {
  template <typename T>
  static future<T> make(future_state<T>* s) noexcept {
    return future<T>(s);
  }
  /// The state `f` holds (null: none), left in it.
  template <typename T>
  static const future_state<T>* peek(const future<T>& f) noexcept {
    return f.m_state;
  }
  /// Takes the state (and its reference) out of `f`, which becomes invalid.
  template <typename T>
  static future_state<T>* release(future<T>& f) noexcept {
    return std::exchange(f.m_state, nullptr);
  }
};
}  // namespace detail

}  // namespace tine

#endif  // TINE_APPLICATION_FUTURE_HPP
