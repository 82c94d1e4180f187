#ifndef TINE_ALGORITHMS_INVOKE_HPP
#define TINE_ALGORITHMS_INVOKE_HPP

/// \file invoke.hpp
/// `tine::invoke`: runs a few callables in parallel and returns when all are done (TBB's
/// `parallel_invoke`).
///
/// ```
/// tine::invoke(pool, [&] { left = build(a); }, [&] { right = build(b); });   // blocking
/// co_await tine::call(tine::async::invoke, f, g, h);                         // in a task
/// ```
///
/// Each callable is called with no arguments. It may be a plain callable, whose result (if any)
/// is discarded, or return a `tine::task<T>`, which then runs as a child task (its own forks run
/// in parallel too; its result is discarded). The callables are moved or copied into the task,
/// and all but the last are forked, in order, and the last is called: with n callables, n - 1
/// forks and one join, all on the workers' stacks (no heap). Every callable runs at most once:
/// once one has thrown, those not started yet do not start (their work would be wasted), and the
/// first exception thrown is rethrown once the ones started have finished (the others are
/// dropped). The last callable is called, so it runs unless an exception came first.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <array>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_context.hpp>

namespace tine {
namespace detail {

/// One callable of an invoke, its type erased so that a loop can start them all: the callable
/// lives in the frame of invoke_run, `run` is invoke_one for its type.
struct invoke_entry {
  void* callable;
  task<void> (*run)(void*);
};

/// Runs one callable as a child task.
template <typename F>
task<void> invoke_one(void* p) {
  F& f = *static_cast<F*>(p);
  if constexpr (task_type<std::invoke_result_t<F&>>) {
    co_await call(f);
    co_await join();
  } else {
    static_cast<void>(std::invoke(f));  // a plain callable's result is discarded
  }
  co_return;
}

/// The callables are this frame's parameters; the children refer to them.
template <typename... F>
task<void> invoke_run(param<F>... fs) {
  std::array<invoke_entry, sizeof...(F)> entries = {invoke_entry{&arg(fs), &invoke_one<F>}...};
  // A child that could not start (no memory for its frame) must not leave the scope open: its
  // exception is kept and rethrown after the join. The exceptions of the callables themselves
  // wait in the frame for the join (inside a fork-join scope, even the call's do), and once one
  // is there the forks that follow do not start their children.
  std::exception_ptr error;
  constexpr std::size_t last = sizeof...(F) - 1;
  for (std::size_t i = 0; i < last; ++i) {
    try {
      co_await fork(entries[i].run, entries[i].callable);
    } catch (...) {
      error = error ? error : std::current_exception();
    }
  }
  try {
    co_await call(entries[last].run, entries[last].callable);
  } catch (...) {
    error = error ? error : std::current_exception();
  }
  co_await join();
  if (error) {
    std::rethrow_exception(error);
  }
}

template <typename... F>
consteval bool check_invoke() {
  static_assert(sizeof...(F) != 0, "tine::invoke: give at least one callable to run");
  static_assert((std::move_constructible<F> && ...),
                "tine::invoke(f...): each callable must be movable or copyable (it is moved or "
                "copied into the task)");
  static_assert((std::invocable<F&> && ...),
                "tine::invoke(f...): each callable must be callable with no arguments (wrap a "
                "call with arguments in a lambda: [&] { g(x); })");
  return sizeof...(F) != 0 && (std::move_constructible<F> && ...) && (std::invocable<F&> && ...);
}

/// Task form of invoke. The callables are taken by value, so a temporary lambda may be passed
/// to `tine::fork` too.
struct async_invoke_fn {
  template <typename... F>
  auto operator()(F... fs) const {
    if constexpr (check_invoke<F...>()) {
      return invoke_run<F...>(std::move(fs)...);
    }
  }
};

/// Blocking invoke: `sync_wait` of the task form; on a worker thread, std::logic_error naming
/// the task form instead.
struct invoke_fn {
  template <scheduler Sch, typename... F>
  void operator()(Sch& sched, F&&... fs) const {
    if constexpr (check_invoke<std::decay_t<F>...>()) {
      if (current_worker() != nullptr) {
        throw std::logic_error(
            "tine::invoke: called on a worker thread (inside a task or an algorithm's body), "
            "where waiting would block the worker; inside a task use co_await "
            "tine::call(tine::async::invoke, f1, f2, ...) instead");
      }
      sync_wait(sched, async_invoke_fn{}, std::forward<F>(fs)...);
    }
  }
};

}  // namespace detail

/// Blocking invoke: `tine::invoke(sched, f1, f2, ...)` runs the callables in parallel on
/// `sched` and returns when all are done, rethrowing the first exception if one threw. Call it
/// from a thread that is not one of the scheduler's workers (inside a task, use the task form).
inline constexpr detail::invoke_fn invoke{};

namespace async {

/// Task form of invoke: `co_await tine::call(tine::async::invoke, f1, f2, ...)`.
inline constexpr detail::async_invoke_fn invoke{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_INVOKE_HPP
