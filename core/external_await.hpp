#ifndef TINE_CORE_EXTERNAL_AWAIT_HPP
#define TINE_CORE_EXTERNAL_AWAIT_HPP

/// \file external_await.hpp
/// `tine::await_adapter<T>`: the seam through which a layer above the core makes an asynchronous
/// operation of another runtime awaitable inside a task (a P2300 sender, an I/O request, another
/// library's future). The task suspends as at a join that waits (its worker goes on with other
/// work) and resumes on its own scheduler once the operation has completed, whichever thread
/// completed it.
///
/// ```
/// template <>
/// struct tine::await_adapter<my_request> {
///   struct operation {             // lives in the awaiting task's frame; may be immovable
///     my_request request;
///     tine::resume_token done;
///     void start(tine::resume_token token) noexcept {
///       done = token;
///       request.on_finish([this] { done.resume(); });  // any thread, exactly once
///       request.begin();
///     }
///     int result() { return request.value(); }      // on the task's worker; may throw
///   };
///   static operation adapt(my_request&& r, std::stop_token stop) { return {std::move(r)}; }
/// };
/// // in a task: int v = co_await my_request{...};
/// ```
///
/// The contract, in the order things happen:
/// 1. `co_await x` in a task, where `await_adapter<std::remove_cvref_t<decltype(x)>>` is
///    specialised, first checks that the task may wait here (std::logic_error, as for a future:
///    not between a fork and its join, not on `tine::mpi_pool`, and the task's scheduler known).
/// 2. `await_adapter<T>::adapt(T&& x, std::stop_token stop)` (x is moved, or copied from an
///    lvalue) returns the *operation*, constructed in place in the task's frame: it need not be
///    movable. `stop` is the awaiting task's `tine::get_stop_token()`: stopped when the task's
///    root or innermost stop scope is asked to stop, so the operation can register a
///    `std::stop_callback` on it (at `adapt` or at `start`). adapt may throw: the co_await throws.
/// 3. `op.start(tine::resume_token token)`, on the task's worker, after the task has left it: the
///    foreign work begins. Exactly once, from any thread, the operation calls `token.resume()`
///    when it has completed; it may do so inside start itself (the task then goes on at once, on
///    this worker). From the moment `resume()` is called the task may run and the operation may
///    be destroyed: `resume()` is the operation's last act. start may throw only if the work did
///    not begin and `resume()` will never be called: the task then goes on here and the
///    co_await throws.
/// 4. `op.result()`, on a worker of the task's scheduler after resumption: the co_await's value
///    (void or any type), or an exception, which comes out of the co_await.
/// 5. The operation is destroyed at the end of the full expression holding the co_await.
///
/// `resume()` never resumes the task on the completing thread: it submits it to the scheduler
/// it ran on, which counts it as pending work meanwhile (its destructor waits for it, as for a
/// task awaiting a future). Tasks that await nothing foreign pay nothing for this seam.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <concepts>
#include <coroutine>
#include <stop_token>
#include <type_traits>
#include <utility>

#include <tine/core/frame.hpp>
#include <tine/core/parked_task.hpp>
#include <tine/core/stop.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {

/// Specialise for a type `T` (a class of your own or another library's) to make `co_await t`
/// legal in a task; see the file comment for what the specialisation provides. May be a partial
/// specialisation constrained with `requires`. The primary template is never defined.
template <typename T>
struct await_adapter;

namespace detail {
struct external_wait;
}

/// What an awaited operation calls, once, when it has completed (see the file comment). Copyable
/// and trivially so; a default-constructed token refers to no task and must not be resumed.
class resume_token {
 public:
  resume_token() noexcept = default;

  /// The operation has completed: the awaiting task goes back to its scheduler (or, when called
  /// inside start, goes on at once after it). Any thread; exactly once; never blocks.
  void resume() const noexcept;

 private:
  friend struct detail::external_wait;
  explicit resume_token(detail::external_wait* w) noexcept : m_wait(w) {}
  detail::external_wait* m_wait = nullptr;
};

namespace detail {

/// The operation await_adapter<T>::adapt makes of a T.
template <typename T>
using adapted_operation =
    decltype(await_adapter<T>::adapt(std::declval<T&&>(), std::declval<std::stop_token>()));

/// The part of an external await that the completing thread sees: the parked task and the
/// handshake between start() returning and resume() being called.
struct external_wait : parked_task {
  /// Where the await is: start() still running (`starting`), the operation completed before
  /// start() returned (`completed`), or the task suspended (`suspended`). Whichever of
  /// resume() and the awaiting worker moves second acts: resume() submits the task if it is
  /// suspended; the worker goes on at once if the operation completed.
  enum class phase : unsigned char { starting, completed, suspended };
  std::atomic<phase> at{phase::starting};

  resume_token token() noexcept { return resume_token(this); }

  /// After start() returned: true if the task is suspended (the operation will resume it),
  /// false if the operation completed meanwhile (the task goes on here).
  bool suspend_after_start() noexcept {
    // acq_rel: release publishes the parked task to a resume() that comes later; acquire sees
    // what the operation wrote before a resume() that came first (its result).
    return at.exchange(phase::suspended, std::memory_order_acq_rel) == phase::starting;
  }

  void complete() noexcept {
    // acq_rel: release publishes the operation's result to the worker that resumes the task
    // here or after start(); acquire sees the parked task's fields before submitting it.
    if (at.exchange(phase::completed, std::memory_order_acq_rel) == phase::suspended) {
      submit_back(
          "tine::resume_token::resume: the scheduler of a task awaiting a foreign operation "
          "refused to take it back (its schedule() threw); the task cannot resume");
    }
  }

  static void arrive(submit_node* node) { static_cast<external_wait*>(node)->resume_here(); }
};

/// Whether `co_await t` in a task goes through the adapter: await_adapter is specialised for
/// t's type (its adapt takes that type as an rvalue and a stop token).
template <typename T>
concept adapted = requires {
  await_adapter<std::remove_cvref_t<T>>::adapt(std::declval<std::remove_cvref_t<T>&&>(),
                                               std::declval<std::stop_token>());
};

/// The awaitable of `co_await t` for an adapted T; lives in the task's frame.
template <typename T>
class external_awaitable : external_wait {
  using operation = adapted_operation<T>;
  static_assert(
      requires(operation& op, resume_token r) {
        op.start(r);
        op.result();
      },
      "tine::await_adapter<T>::adapt must return an operation with start(tine::resume_token) and "
      "result() (see core/external_await.hpp)");

 public:
  template <typename U>
  external_awaitable(frame& f, U&& value)
      : m_stop(checked_stop_token(f)), m_op(make(std::forward<U>(value), m_stop)) {
    task = &f;
  }

  bool await_ready() const noexcept { return false; }

  bool await_suspend(std::coroutine_handle<>) {
    worker_runtime& rt = runtime();
    park(task, rt, &external_wait::arrive);
    try {
      m_op.start(token());
    } catch (...) {
      unpark(rt);  // the contract: the work did not begin, nobody will resume the task
      throw;
    }
    if (suspend_after_start()) {
      return true;  // the task may already run elsewhere: touch nothing of it
    }
    unpark(rt);  // completed inside start(): go on here
    return false;
  }

  decltype(auto) await_resume() { return m_op.result(); }

 private:
  /// The operation, made in place (returned as a prvalue, so it need not move).
  template <typename U>
  static operation make(U&& value, const std::stop_token& stop) {
    if constexpr (std::is_lvalue_reference_v<U> || std::is_const_v<std::remove_reference_t<U>>) {
      if constexpr (std::is_copy_constructible_v<T>) {
        return await_adapter<T>::adapt(T(value), stop);
      } else {
        static_assert(std::is_copy_constructible_v<T>,
                      "tine::await_adapter: co_await on an lvalue (or const) object copies it "
                      "for adapt, and this type cannot be copied; write co_await std::move(x)");
      }
    } else {
      return await_adapter<T>::adapt(std::forward<U>(value), stop);
    }
  }

  /// The checks of contract point 1, then the awaiting task's token.
  static std::stop_token checked_stop_token(frame& f) {
    check_can_park(f, runtime(), "tine::await_adapter", "a foreign operation");
    return tine::get_stop_token();
  }

  std::stop_token m_stop;  // before m_op: given to adapt
  operation m_op;
};

}  // namespace detail

inline void resume_token::resume() const noexcept { m_wait->complete(); }

}  // namespace tine

#endif  // TINE_CORE_EXTERNAL_AWAIT_HPP
