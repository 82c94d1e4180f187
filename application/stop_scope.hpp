#ifndef TINE_APPLICATION_STOP_SCOPE_HPP
#define TINE_APPLICATION_STOP_SCOPE_HPP

/// \file stop_scope.hpp
/// `tine::stop_scope`: runs a child task whose whole subtree can be stopped without stopping the
/// rest of the root, which is what a parallel search needs when one branch finds the answer.
///
/// ```
/// std::optional<long> r;  // nullopt when a task inside asked the scope to stop
/// co_await tine::call(&r, tine::stop_scope, search, problem);
/// // inside search's subtree: tine::request_stop() stops this scope only
/// ```
///
/// Call (or fork) `tine::stop_scope` with the task function and its arguments. Inside the
/// subtree, `tine::request_stop()` stops the scope: its forks no longer start children and its
/// tasks see `tine::stop_requested()`. When the subtree has ended, the scope decides, in this
/// order:
/// - an exception other than `tine::cancelled` passes through;
/// - if the root or an enclosing scope was asked to stop by then, it throws `tine::cancelled`
///   (the enclosing stop comes out of the scope, whether or not a fork inside saw it);
/// - if the scope itself was asked to stop by then, the caller receives `std::nullopt` (for a
///   task returning void: `false`), whether or not a fork inside saw the request;
/// - otherwise the value (`true`).
///
/// Cost: a scope's tasks begin a stacklet of their own (the cached one above the caller's, or a
/// new one), so that they and thieves of their continuations find the scope (root_context.hpp);
/// nothing else changes on the fork path.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <optional>
#include <type_traits>

#include <tine/core/cancelled.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/root_context.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {
namespace detail {

template <typename T>
using scope_result = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;

struct stop_scope_fn {
  template <typename F, typename... Args>
    requires task_function<F&, Args&...>
  auto operator()(F fn, Args... args) const
      -> task<scope_result<typename task_value<std::invoke_result_t<F&, Args&...>>::type>> {
    using T = typename task_value<std::invoke_result_t<F&, Args&...>>::type;
    root_context scope;
    {
      worker_runtime& rt = runtime();
      scope.parent = rt.top()->context;
      begin_scope_stacklet(rt.top(), &scope);
    }
    scope_result<T> result{};
    try {
      if constexpr (std::is_void_v<T>) {
        co_await tine::call(fn, args...);
        result = true;
      } else {
        T value{};
        co_await tine::call(&value, fn, args...);
        result = std::move(value);
      }
    } catch (const cancelled&) {
      end_scope_stacklet(runtime().top(), &scope);
      // acquire (in stopped() and here): the request that caused it is seen; the subtree has
      // joined, and the stop was requested before the cancelled it caused was thrown.
      if ((scope.parent != nullptr && scope.parent->stopped()) ||
          !scope.stop.load(std::memory_order_acquire)) {
        throw;  // an enclosing stop, or a cancelled this scope did not cause
      }
      co_return scope_result<T>{};
    } catch (...) {
      end_scope_stacklet(runtime().top(), &scope);
      throw;
    }
    // The subtree completed. A stop requested meanwhile that no fork saw (after the last fork,
    // say) is still reported: the rule must not depend on where the request fell.
    if (scope.parent != nullptr && scope.parent->stopped()) {
      throw cancelled();
    }
    if (scope.stop.load(std::memory_order_acquire)) {
      co_return scope_result<T>{};
    }
    co_return result;
  }
};

}  // namespace detail

/// See the file comment: `co_await tine::call(&r, tine::stop_scope, fn, args...)`.
inline constexpr detail::stop_scope_fn stop_scope{};

}  // namespace tine

#endif  // TINE_APPLICATION_STOP_SCOPE_HPP
