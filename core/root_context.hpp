#ifndef TINE_CORE_ROOT_CONTEXT_HPP
#define TINE_CORE_ROOT_CONTEXT_HPP

/// \file root_context.hpp
/// What the tasks of one root share: whether they were asked to stop. One lives with each root
/// (sync_wait's, spawn's) and one with each stop scope inside a root (`tine::stop_scope`).
///
/// How a task finds it, for free on the fork path: every stacklet header names the context of the
/// tasks on it. A stack holds the tasks of one root at a time (a worker starts a root, a steal or
/// a resumption only on an empty stack), so the context is set where a worker starts on an empty
/// stack (a root, a stolen continuation: from the header of the stacklet the stolen frame
/// recorded) and copied into each new stacklet of the stack. A stop scope begins a stacklet of its
/// own, so that the tasks below it (and thieves of their continuations) see the scope's context
/// while the tasks above it keep theirs.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <optional>

#include <tine/core/scheduler_ref.hpp>

namespace tine::detail {

struct root_context {
  /// Set by request_stop (any thread); read by the root's tasks. release/acquire: a stop
  /// requested after something the requester wrote is seen with it.
  std::atomic<bool> stop{false};
  /// The scope this one is nested in (null for a root): a stop of an enclosing scope stops this
  /// one too.
  const root_context* parent = nullptr;
  /// The scheduler the root was started on (null in a scope: see the parent), through which its
  /// tasks are resumed when their worker does not say which scheduler it belongs to.
  std::optional<scheduler_ref> scheduler;

  /// Whether this scope or one it is nested in was asked to stop.
  bool stopped() const noexcept {
    for (const root_context* c = this; c != nullptr; c = c->parent) {
      if (c->stop.load(std::memory_order_acquire)) {
        return true;
      }
    }
    return false;
  }
};

}  // namespace tine::detail

#endif  // TINE_CORE_ROOT_CONTEXT_HPP
