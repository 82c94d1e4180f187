#ifndef TINE_CORE_FORK_CALL_HPP
#define TINE_CORE_FORK_CALL_HPP

/// \file fork_call.hpp
/// `tine::fork` and `tine::call` (libfork paper, algorithm 3).
///
/// Both start a child task on the current worker's stack and switch to it at once (symmetric
/// transfer). `fork` first pushes the parent's continuation onto the worker's deque, where a
/// thief may take it; `call` does not, so nothing can be stolen. Results are written to `*result`
/// and, like exceptions, are safe to use after the next `co_await tine::join()`.
///
/// ```
/// co_await tine::fork(&a, fib, n - 1);  // child runs now; the rest of this task may be stolen
/// co_await tine::call(&b, fib, n - 2);  // plain call, nothing to steal
/// co_await tine::join();                // wait for the forked child
/// ```
///
/// Argument lifetimes: the child is created from references to the arguments. A parameter taken
/// by value is copied or converted into the child's frame (always safe). A reference parameter
/// must refer to an object that outlives the join, such as a local of the parent. Rejected at
/// compile time (core/argument_check.hpp): in `fork`, a temporary argument bound to a reference
/// parameter (it dies when the parent's co_await statement ends, possibly on a thief while the
/// child runs; `call` accepts it); in `fork` and `call`, an argument that must be converted to
/// bind to a reference parameter (the converted temporary dies before the child starts); and
/// rvalue reference parameters of a task. For generic callables only the first rule is checked,
/// by a trial call: argument_check.hpp lists what it decides. The callable itself is referenced
/// by the child: pass a named callable, a function, or a capture-less lambda.
///
/// A callable that cannot be called with the arguments, or that does not return a `tine::task<T>`,
/// is reported by one static_assert in one sentence (core/callable_check.hpp).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <exception>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tine/core/callable_check.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/held_views.hpp>
#include <tine/core/request.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {
namespace detail {

template <typename Request>
struct spawn_awaitable;

/// What fork and call return: the child's function, its arguments (by reference: they live until
/// the end of the co_await expression, and the child copies what it takes by value when it is
/// created) and where to put the result. `Fork` selects whether the parent is offered to thieves.
template <bool Fork, typename R, typename F, typename... Args>
struct spawn_request {
  using tine_request = void;
  using child_task = std::invoke_result_t<F, Args...>;
  using value_type = typename task_value<child_task>::type;
  static constexpr bool is_fork = Fork;

  R* result;
  F&& fn;
  std::tuple<Args&&...> args;
  [[no_unique_address]] await_check check{};

  /// The awaitable refers to this request, a temporary that lives until the co_await completes;
  /// returning a small object keeps GCC from copying the whole request into the frame again.
  spawn_awaitable<spawn_request> bind(frame& f) && noexcept {
    check.awaited();
    check_no_held_view();
    if constexpr (Fork) {
      (void)f;
      return {this, {}};
    } else {
      return {this, {&f}};
    }
  }
};

/// What a call's awaitable keeps of its parent for await_resume; a fork's keeps nothing (every
/// word of an awaitable is stored into the task's coroutine frame at each co_await).
template <bool Fork>
struct spawn_parent {
  frame* parent;
};
template <>
struct spawn_parent<true> {};

template <typename Request>
struct spawn_awaitable {
  Request* request;
  [[no_unique_address]] spawn_parent<Request::is_fork> kept;

  bool await_ready() const noexcept { return false; }

  // always_inline: GCC would otherwise keep this out of line in the task's coroutine (it weighs
  // the cold handler too), which costs a call and its register traffic on every fork.
  TINE_ALWAYS_INLINE std::coroutine_handle<> await_suspend(std::coroutine_handle<> self) {
    constexpr bool Fork = Request::is_fork;
    using value_type = typename Request::value_type;
    using R = std::remove_pointer_t<decltype(Request::result)>;
    // From the handle, which is in a register, rather than from the awaitable in the frame.
    frame* const parent = frame_of(self);
    worker_runtime& rt = runtime();
    [[maybe_unused]] const bool opens_scope = Fork && !parent->in_scope;
    if constexpr (Fork) {
      if (opens_scope) {
        // First fork of this scope: remember the stack the parent lives on, before the child is
        // allocated (which may move the top to a new stacklet), so the worker that resumes the
        // parent after the join can adopt it.
        parent->in_scope = true;
        parent->stack = rt.top();
      }
    }
    Request& req = *request;
    std::coroutine_handle<> child_handle;
    try {
      // The task object is a temporary that ends with this statement, before the push below.
      // Clang (seen with 16) keeps an object returned in memory here (the task) in the parent's
      // coroutine frame, since this function is inlined into the coroutine; the frame may be
      // resumed by a thief as soon as the parent is pushed, and its next fork reuses that slot.
      // A task object that lived to the end of the try block was read again (its destructor's
      // check) after the push, and saw the thief's next child: a worker destroyed another's
      // child (seen on the distributed pool, 1 run in 12 of a stealing test under clang).
      promise<value_type>* p = task_access::release(std::apply(
          [&req](auto&&... a) {
            return std::invoke(std::forward<decltype(req.fn)>(req.fn),
                               std::forward<decltype(a)>(a)...);
          },
          std::move(req.args)));
      if constexpr (!std::is_void_v<value_type> && !std::is_void_v<R>) {
        p->set_result(req.result);
      } else if constexpr (!std::is_void_v<value_type>) {
        p->discard_result();
      }
      p->frame_header.parent = parent;
      if constexpr (Fork) {
        // The child's place in the fork tree (tine::dprng, reducers/pedigree.hpp): the parent's
        // count of ranks so far, captured now because a thief may run the parent on while the child
        // runs. One load, one store, one add. A called child keeps the zeros its constructor
        // wrote: its parent waits, so its rank can be claimed later, only if a generator asks.
        p->frame_header.pedigree = forked_pedigree(parent->pedigree.spawned);
        parent->pedigree.spawned += pedigree_step;
      }
      p->frame_header.kind = Fork ? frame_kind::fork : frame_kind::call;
      child_handle = handle_of(&p->frame_header);
      if constexpr (Fork) {
        bool offered = false;
        try {
          // From here a thief may resume the parent: touch it no more.
          offered = rt.push(parent, child_handle.address());
        } catch (...) {
          child_handle.destroy();  // the deque could not grow
          throw;
        }
        if (TINE_UNLIKELY(!offered)) {
          // Not to start (its scope was stopped, or a sibling threw: push_checks.hpp): the task
          // goes on to its join, which rethrows what the scope holds.
          child_handle.destroy();
          return self;
        }
      }
    } catch (...) {
      child_could_not_start(parent, opens_scope);  // rethrows, or keeps it for the join
      return self;                                 // the task goes on at once
    }
    return rt.transfer(child_handle);
  }

  /// Called in the handler of an exception that kept the child from starting (no memory for its
  /// frame or the deque, an argument's copy threw): as if the child had thrown at once. Stolen
  /// since the last join, children may still run, so the task must not leave its scope: the
  /// exception is kept for the join and the task goes on (this returns). Otherwise it comes out
  /// of the co_await (rethrown here), and a first fork opens no scope.
  TINE_NOINLINE static void child_could_not_start(frame* parent, bool opens_scope) {
    if (parent->steals != 0) {
      parent->stash_exception(std::current_exception());
      runtime().request_check();  // its later forks start no child (push_checks.hpp)
      return;
    }
    if (opens_scope) {
      parent->in_scope = false;
    }
    throw;
  }

  void await_resume() const {
    if constexpr (!Request::is_fork) {
      // Outside a fork-join scope a call is a function call: its child's exception comes out
      // here, before anything reads its result. Inside a scope every exception waits for the
      // join (siblings may still run, and the task's handler could not join them).
      frame* parent = kept.parent;
      if (TINE_UNLIKELY(parent->holds_exception(std::memory_order_relaxed)) && !parent->in_scope) {
        std::rethrow_exception(parent->take_exception());
      }
    }
  }
};

}  // namespace detail

// Deliberately unconstrained but for telling the two forms apart: a call with the wrong callable
// or arguments is reported by the one static_assert of detail::check_task_function that fits.

/// Forks `fn(args...)`: runs it now, leaving the rest of this task to thieves; its result is
/// written to `*result`, valid after the next `co_await tine::join()`.
template <typename R, typename F, typename... Args>
  requires detail::result_pointer<R*>
[[nodiscard(
    "tine::fork does nothing unless co_awaited: the child never runs and *result is "
    "never written")]] auto
fork(R* result, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::fork, R, F, Args...>()) {
    return detail::spawn_request<true, R, F, Args...>{
        result, std::forward<F>(fn), std::forward_as_tuple(std::forward<Args>(args)...)};
  } else {
    detail::explain_refusal<F, Args...>();
    return detail::rejected_request{};
  }
}

/// Forks `fn(args...)` and discards its result.
template <typename F, typename... Args>
  requires detail::callable_first<F>
[[nodiscard("tine::fork does nothing unless co_awaited: the child never runs")]] auto fork(
    F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::fork, void, F, Args...>()) {
    return detail::spawn_request<true, void, F, Args...>{
        nullptr, std::forward<F>(fn), std::forward_as_tuple(std::forward<Args>(args)...)};
  } else {
    detail::explain_refusal<F, Args...>();
    return detail::rejected_request{};
  }
}

/// Calls `fn(args...)` as a child task (nothing can be stolen); result in `*result`.
template <typename R, typename F, typename... Args>
  requires detail::result_pointer<R*>
[[nodiscard(
    "tine::call does nothing unless co_awaited: the child never runs and *result is "
    "never written")]] auto
call(R* result, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::call, R, F, Args...>()) {
    return detail::spawn_request<false, R, F, Args...>{
        result, std::forward<F>(fn), std::forward_as_tuple(std::forward<Args>(args)...)};
  } else {
    detail::explain_refusal<F, Args...>();
    return detail::rejected_request{};
  }
}

/// Calls `fn(args...)` as a child task and discards its result.
template <typename F, typename... Args>
  requires detail::callable_first<F>
[[nodiscard("tine::call does nothing unless co_awaited: the child never runs")]] auto call(
    F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::call, void, F, Args...>()) {
    return detail::spawn_request<false, void, F, Args...>{
        nullptr, std::forward<F>(fn), std::forward_as_tuple(std::forward<Args>(args)...)};
  } else {
    detail::explain_refusal<F, Args...>();
    return detail::rejected_request{};
  }
}

}  // namespace tine

#endif  // TINE_CORE_FORK_CALL_HPP
