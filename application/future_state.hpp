#ifndef TINE_APPLICATION_FUTURE_STATE_HPP
#define TINE_APPLICATION_FUTURE_STATE_HPP

/// \file future_state.hpp
/// What a `tine::future` and the work it waits for share (internal): the outcome (a value or an
/// exception), whether it is there yet, at most one continuation to run when it arrives (a task
/// or coroutine that awaits it, a callback, a `when_all`), the stop request of the root, and two
/// references, the future's and the work's, the last of which frees it.
///
/// Completing is wait-free for the completer unless a thread blocks in `wait`: one exchange hands
/// over the outcome and takes the continuation, one store marks it ready once the continuation
/// has run, and one load tells whether anybody sleeps.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <tine/core/cancelled.hpp>
#include <tine/core/push_checks.hpp>
#include <tine/core/root_sink.hpp>

namespace tine {
namespace detail {

/// Something to run once when a future's outcome arrives (on the thread that completes it).
struct future_waiter {
  void (*notify)(future_waiter* self) noexcept;
};

/// The handler for exceptions that escape detached roots (see set_detached_exception_handler).
struct detached_handler {
  static std::mutex& mutex() noexcept {
    static std::mutex m;
    return m;
  }
  static std::function<void(std::exception_ptr)>& handler() noexcept {
    static std::function<void(std::exception_ptr)> h;
    return h;
  }
  static void report(std::exception_ptr e) noexcept {
    std::function<void(std::exception_ptr)> h;
    {
      std::lock_guard lock(mutex());
      h = handler();
    }
    if (h) {
      try {
        h(std::move(e));
        return;
      } catch (...) {
        std::fputs("tine: the handler of detached roots' exceptions threw; ignored\n", stderr);
        return;
      }
    }
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      std::fprintf(stderr, "tine: a detached root task ended with an exception: %s\n", x.what());
    } catch (...) {
      std::fputs(
          "tine: a detached root task ended with an exception not derived from "
          "std::exception\n",
          stderr);
    }
  }
};

class future_state_base : public root_sink {
 public:
  /// Whether the outcome is there and its continuation (if one was registered) has run: so a
  /// thread that waits on a future with an on_complete callback returns after the callback.
  bool ready() const noexcept {
    // acquire: the outcome written before complete() published it.
    return m_waiter.load(std::memory_order_acquire) == done_marker();
  }

  /// Whether a continuation was registered (set_waiter was called), whether or not it ran.
  bool has_continuation() const noexcept { return m_continued; }

  /// Registers `w` to run when the outcome arrives. False, registering nothing, if it already
  /// has: the caller runs its continuation itself, at once. Throws std::logic_error if a
  /// continuation was registered before, whether or not the outcome has arrived since (so that
  /// the mistake shows in every run, not only when the timing is unlucky).
  bool set_waiter(future_waiter* w) {
    if (m_continued) {
      throw std::logic_error(
          "tine::future: it already has a continuation; a future's outcome goes to one place "
          "(co_await it, when_all it, or give it one on_complete callback)");
    }
    m_continued = true;
    void* expected = nullptr;
    // acq_rel: on success our writes (the waiter's fields) reach the completer; on failure we see
    // the outcome.
    if (m_waiter.compare_exchange_strong(expected, w, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
      return true;
    }
    // Only the outcome can have been published meanwhile: every registration passes the test
    // of m_continued above, on the one thread that holds the future.
    return false;  // the caller goes on with the outcome at once
  }

  /// Blocks the calling thread until the outcome is there.
  void wait() noexcept {
    if (ready()) {
      return;
    }
    std::unique_lock lock(m_mutex);
    // seq_cst, with the completer's seq_cst exchange and load: either it sees us blocked, or we
    // see the outcome (Dekker's pattern), so no wake-up is lost.
    m_blocked.store(true, std::memory_order_seq_cst);
    m_cv.wait(lock, [this] { return done_seq_cst(); });
  }

  /// As wait(), giving up at `deadline`; true if the outcome is there.
  template <typename Clock, typename Duration>
  bool wait_until(const std::chrono::time_point<Clock, Duration>& deadline) noexcept {
    if (ready()) {
      return true;
    }
    std::unique_lock lock(m_mutex);
    m_blocked.store(true, std::memory_order_seq_cst);
    return m_cv.wait_until(lock, deadline, [this] { return done_seq_cst(); });
  }

  /// Asks the root's tasks to stop (root_context.hpp); nothing once the outcome is there.
  void request_stop() noexcept {
    if (ready()) {
      return;
    }
    if (context.request_stop() && on_stop != nullptr) {
      on_stop(this);
    }
  }

  /// What else a stop request does (a when_all's: stop its inputs); null: nothing.
  void (*on_stop)(future_state_base*) noexcept = nullptr;

  /// The future gives up its reference: the work goes on, and an exception it ends with goes to
  /// the handler of detached roots.
  void detach() noexcept {
    // seq_cst, against on_complete's exchange and load: one of the two sees the other, and the
    // report is made once (report_detached).
    m_detached.store(true, std::memory_order_seq_cst);
    if (published_seq_cst()) {
      report_detached();
    }
    release();
  }

  /// One more reference (a stop_handle's).
  void retain() noexcept {
    // relaxed: taken from a reference already held, which orders everything before.
    m_refs.fetch_add(1, std::memory_order_relaxed);
  }

  /// Drops a reference (the future's, the work's, a stop_handle's); the last frees the state.
  void release() noexcept {
    // acq_rel: the last one sees every write of the other before it frees.
    if (m_refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      m_destroy(this);
    }
  }

 protected:
  /// `destroy` frees the most derived object; `finish` (null: none) runs first when the root
  /// ends, before the outcome is published.
  future_state_base(void (*destroy)(future_state_base*) noexcept, std::atomic<std::size_t>* pending,
                    void (*finish)(future_state_base*) noexcept = nullptr) noexcept
      : root_sink(&future_state_base::on_complete),
        m_pending(pending),
        m_destroy(destroy),
        m_finish(finish) {}
  ~future_state_base() = default;

  /// Publishes the outcome (exception, or the value the derived class holds), runs the
  /// continuation, then marks the outcome ready and wakes blocked threads (so `get` returns after
  /// an on_complete callback, whose captures may live in the getter's frame), and drops the
  /// work's reference.
  static void on_complete(root_sink* sink) noexcept {
    auto* self = static_cast<future_state_base*>(sink);
    if (self->m_finish != nullptr) {
      self->m_finish(self);
    }
    std::atomic<std::size_t>* pending = self->m_pending;
    // seq_cst: publishes the outcome (release), takes the waiter (acquire), and orders the load
    // of m_detached after it (see detach()). From here set_waiter hands the outcome over at once.
    void* waiter = self->m_waiter.exchange(running_marker(), std::memory_order_seq_cst);
    if (self->m_detached.load(std::memory_order_seq_cst)) {
      self->report_detached();
    }
    if (waiter != nullptr) {
      static_cast<future_waiter*>(waiter)->notify(static_cast<future_waiter*>(waiter));
    }
    // seq_cst: with wait()'s seq_cst store of m_blocked and load of m_waiter (Dekker's pattern),
    // either this load sees the thread blocked or that thread sees the outcome ready.
    self->m_waiter.store(done_marker(), std::memory_order_seq_cst);
    if (self->m_blocked.load(std::memory_order_seq_cst)) {
      {
        std::lock_guard lock(self->m_mutex);
      }  // the waiter is in wait(), or sees the outcome
      self->m_cv.notify_all();
    }
    self->release();
    if (pending != nullptr) {
      // release: the scheduler's destructor, which waits for zero, sees this root finished.
      pending->fetch_sub(1, std::memory_order_release);
    }
  }

 private:
  static void* done_marker() noexcept {
    static char marker;
    return &marker;
  }

  /// Set while the continuation runs: the outcome is published but not yet ready().
  static void* running_marker() noexcept {
    static char marker;
    return &marker;
  }

  bool done_seq_cst() const noexcept {
    return m_waiter.load(std::memory_order_seq_cst) == done_marker();
  }

  bool published_seq_cst() const noexcept {
    void* w = m_waiter.load(std::memory_order_seq_cst);
    return w == done_marker() || w == running_marker();
  }

  /// A detached root's exception goes to the handler, once (detach and completion may both see
  /// that it is due).
  void report_detached() noexcept {
    // relaxed: only who reports is decided here; the exception was published before either
    // side looked.
    if (!exception || m_reported.exchange(true, std::memory_order_relaxed)) {
      return;
    }
    if (context.stop.load(std::memory_order_relaxed)) {
      try {
        std::rethrow_exception(exception);
      } catch (const cancelled&) {
        return;  // the stop that was asked for: nothing to report
      } catch (...) {
      }
    }
    detached_handler::report(exception);
  }

  std::atomic<void*> m_waiter{nullptr};  ///< null, a future_waiter*, running_ or done_marker()
  std::atomic<std::uint32_t> m_refs{2};  ///< the future's, the work's, and stop_handles
  /// A continuation was registered. Plain: only the thread that holds the future registers
  /// one (a future is for one thread at a time), and nobody else reads it.
  bool m_continued = false;
  std::atomic<bool> m_detached{false};
  std::atomic<bool> m_reported{false};
  std::atomic<bool> m_blocked{false};  ///< a thread sleeps (or slept) in wait
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::atomic<std::size_t>* m_pending;  ///< the scheduler's count of pending work, or null
  void (*m_destroy)(future_state_base*) noexcept;
  void (*m_finish)(future_state_base*) noexcept;
};

/// Where the value goes.
template <typename T>
struct future_value {
  T value{};
};
template <>
struct future_value<void> {};

template <typename T>
class future_state : public future_state_base, public future_value<T> {
 protected:
  using future_state_base::future_state_base;
};

}  // namespace detail

/// Sets the function that receives the exceptions escaping detached roots (any thread; it is
/// called on the worker that finished the root and must not block it for long); an empty
/// function restores the default, which prints the exception's `what()` to stderr and goes on.
/// Returns the previous handler.
inline std::function<void(std::exception_ptr)> set_detached_exception_handler(
    std::function<void(std::exception_ptr)> handler) {
  std::lock_guard lock(detail::detached_handler::mutex());
  return std::exchange(detail::detached_handler::handler(), std::move(handler));
}

}  // namespace tine

#endif  // TINE_APPLICATION_FUTURE_STATE_HPP
