#ifndef TINE_CORE_STOP_HPP
#define TINE_CORE_STOP_HPP

/// \file stop.hpp
/// Cooperative cancellation seen from inside a task.
///
/// ```
/// tine::task<void> branch(node n) {
///   if (tine::stop_requested()) co_return;  // a few loads, no atomic read-modify-write
///   ...
/// }
/// ```
///
/// A stop is requested on a root with `future::request_stop()`, or from inside a task with
/// `tine::request_stop()`, which stops the task's innermost stop scope or, outside any, its root
/// (a parallel search stops its siblings when it finds the answer). Once stopped, forks in it
/// do not start their children: the forking task gets a `tine::cancelled` for its join instead,
/// and so the root ends with `tine::cancelled` unless its tasks catch it and return a value
/// anyway. A `call` still runs its child (it is part of the calling task's own work).
/// On `tine::mpi_pool` a stop reaches the tasks on the rank whose root (rank 0) or stop scope
/// it is, whichever worker of the rank runs them; continuations that other ranks took, and what
/// they call and fork there, are not reached: there `request_stop()` returns false and forks
/// start their children (docs/distributed.md).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>

#include <tine/core/cancelled.hpp>
#include <tine/core/push_checks.hpp>
#include <tine/core/root_context.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {

/// Whether the calling task's root, or a stop scope it runs in, was asked to stop; false outside
/// a task.
inline bool stop_requested() noexcept {
  detail::worker_runtime* rt = detail::read_tls_runtime();
  if (rt == nullptr) {
    return false;
  }
  const detail::root_context* c = rt->top()->context;
  return c != nullptr && c->stopped();
}

/// Asks the calling task's innermost stop scope (or its root) to stop; returns false, doing
/// nothing, outside a task or in one no stop reaches (on `tine::mpi_pool`, a continuation another
/// rank took, and what it runs there).
inline bool request_stop() noexcept {
  detail::worker_runtime* rt = detail::read_tls_runtime();
  if (rt == nullptr) {
    return false;
  }
  detail::root_context* c = rt->top()->context;
  if (c == nullptr) {
    return false;
  }
  if (!c->stop.load(std::memory_order_relaxed)) {
    // release: see root_context::stop. Then every worker looks before its next fork.
    c->stop.store(true, std::memory_order_release);
    detail::push_hook_registry::instance().request_checks();
  }
  return true;
}

}  // namespace tine

#endif  // TINE_CORE_STOP_HPP
