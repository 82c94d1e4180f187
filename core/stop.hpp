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
///
/// A stop reaches further, in the standard's vocabulary: `tine::get_stop_token()` is a
/// `std::stop_token` of the task's innermost stop scope (or root), so a `std::stop_callback` on
/// it passes the stop on to anything (an I/O request, another runtime's work); a future a task
/// awaits is stopped with the task's scope; and a root started with a token,
/// `tine::spawn(token, sched, fn, args...)` or `tine::sync_wait(token, sched, fn, args...)`, is
/// stopped when the token is (docs/application.md, "What a stop reaches").

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <stop_token>

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
  c->request_stop();  // then every worker looks before its next fork, and callbacks run here
  return true;
}

/// A `std::stop_token` that is stopped when the calling task's innermost stop scope, its root or
/// an enclosing scope is asked to stop (as `stop_requested()` turns true); outside a task, or in
/// one no stop reaches, a token that is never stopped. Register a `std::stop_callback` on it to
/// pass a stop on: the callback runs on the thread that requests the stop (any thread, a worker
/// included), so it should be short and must not block. The token may outlive the task; once its
/// root has ended it is never stopped. Throws std::bad_alloc (a scope's first token allocates
/// its `std::stop_source`).
inline std::stop_token get_stop_token() {
  detail::worker_runtime* rt = detail::read_tls_runtime();
  if (rt == nullptr) {
    return {};
  }
  const detail::root_context* c = rt->top()->context;
  return c != nullptr ? c->token() : std::stop_token();
}

}  // namespace tine

#endif  // TINE_CORE_STOP_HPP
