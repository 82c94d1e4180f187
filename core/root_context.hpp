#ifndef TINE_CORE_ROOT_CONTEXT_HPP
#define TINE_CORE_ROOT_CONTEXT_HPP

/// \file root_context.hpp
/// What the tasks of one root share: whether they were asked to stop, and who else must hear of
/// it. One lives with each root (sync_wait's, spawn's) and one with each stop scope inside a root
/// (`tine::stop_scope`).
///
/// How a task finds it, for free on the fork path: every stacklet header names the context of the
/// tasks on it. A stack holds the tasks of one root at a time (a worker starts a root, a steal or
/// a resumption only on an empty stack), so the context is set where a worker starts on an empty
/// stack (a root, a stolen continuation: from the header of the stacklet the stolen frame
/// recorded) and copied into each new stacklet of the stack. A stop scope begins a stacklet of its
/// own, so that the tasks below it (and thieves of their continuations) see the scope's context
/// while the tasks above it keep theirs.
///
/// Two ways to hear of a stop, for two kinds of reader:
/// - forks and `tine::stop_requested()` read the flags: this context's and its enclosing ones'
///   (`stopped()`), a few loads, nothing to register;
/// - whatever must *act* on a stop (a future a task awaits, a root spawned with this scope's
///   token, a user's `std::stop_callback`) registers a callback on the context's
///   `std::stop_token`, made on first use: a `std::stop_source` that is stopped when this context
///   or an enclosing one is (a nested scope's source listens to its parent's). A context nobody
///   asked a token of costs nothing more than its flag.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>

#include <tine/core/push_checks.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/stop_forwarding.hpp>

namespace tine::detail {

struct root_context {
  /// Set by request_stop (any thread); read by the root's tasks. Its own request only: an
  /// enclosing scope's is its own flag (stopped() reads both).
  std::atomic<bool> stop{false};
  /// The scope this one is nested in (null for a root): a stop of an enclosing scope stops this
  /// one too. It outlives this one (a scope ends before the task that opened it).
  const root_context* parent = nullptr;
  /// The scheduler the root was started on (null in a scope: see the parent), through which its
  /// tasks are resumed when their worker does not say which scheduler it belongs to.
  std::optional<scheduler_ref> scheduler;

  root_context() noexcept = default;
  root_context(const root_context&) = delete;
  root_context& operator=(const root_context&) = delete;
  ~root_context() { delete m_link.load(std::memory_order_relaxed); }

  /// Whether this scope or one it is nested in was asked to stop.
  bool stopped() const noexcept {
    for (const root_context* c = this; c != nullptr; c = c->parent) {
      // acquire: a stop requested after something the requester wrote is seen with it.
      if (c->stop.load(std::memory_order_acquire)) {
        return true;
      }
    }
    return false;
  }

  /// Asks this scope to stop (any thread): sets the flag, asks every worker to look before its
  /// next fork (push_checks.hpp), and runs the callbacks registered on the token, on this thread.
  /// Returns false, doing nothing, if it was asked before.
  bool request_stop() noexcept {
    // seq_cst: with the token's creation (link()), either this sees the source or the creator
    // sees the flag (Dekker's pattern), so no registered callback misses the stop; and release
    // for stopped()'s acquire.
    if (stop.exchange(true, std::memory_order_seq_cst)) {
      return false;
    }
    push_hook_registry::instance().request_checks();
    if (source_link* l = m_link.load(std::memory_order_seq_cst)) {
      l->source.request_stop();
    }
    return true;
  }

  /// A token that is stopped when this scope or an enclosing one is asked to stop. Throws
  /// std::bad_alloc (the first call makes the context's std::stop_source).
  std::stop_token token() const { return link()->source.get_token(); }

 private:
  /// The context's std::stop_source, and the callback that stops it when the parent's does.
  struct source_link {
    struct forward {
      std::stop_source* to;
      void operator()() const noexcept { to->request_stop(); }
    };
    std::stop_source source;
    stop_forwarding<forward> from_parent;
  };

  source_link* link() const {
    // acquire: a link made by another thread is seen whole.
    if (source_link* l = m_link.load(std::memory_order_acquire)) {
      return l;
    }
    auto made = std::make_unique<source_link>();
    if (parent != nullptr) {
      // Runs at once (stopping `made`) if the parent's source is already stopped.
      made->from_parent.link(parent->link()->source.get_token(),
                             source_link::forward{&made->source});
    }
    source_link* expected = nullptr;
    // seq_cst: see request_stop. On failure another thread's link is taken (acquire) and ours,
    // with its registration on the parent, goes.
    if (!m_link.compare_exchange_strong(expected, made.get(), std::memory_order_seq_cst,
                                        std::memory_order_acquire)) {
      return expected;
    }
    source_link* l = made.release();
    if (stop.load(std::memory_order_seq_cst)) {
      l->source.request_stop();
    }
    return l;
  }

  mutable std::atomic<source_link*> m_link{nullptr};
};

}  // namespace tine::detail

#endif  // TINE_CORE_ROOT_CONTEXT_HPP
