#ifndef TINE_CORE_CONTEXT_HPP
#define TINE_CORE_CONTEXT_HPP

/// \file context.hpp
/// The worker context: the per-thread state of a worker (its work-stealing deque, its submission
/// queue and the stack it currently owns), reached through one thread_local pointer, and the small
/// API a scheduler plugin uses to run, steal and submit work.

#include <coroutine>
#include <cstddef>
#include <optional>

#include <tine/core/config.hpp>
#include <tine/core/deque.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/core/submission_queue.hpp>
#include <tine/core/submit_node.hpp>

namespace tine {

class worker_context;

namespace detail {
/// The context bound to this thread, or null on a thread that is not a worker.
inline thread_local worker_context* tls_context = nullptr;

/// Reads tls_context. Code that can run inside a coroutine reads it only through here (see
/// TINE_TLS_ACCESSOR: Clang may otherwise use a thread_local's address from before a suspension).
TINE_TLS_ACCESSOR worker_context* read_tls_context() noexcept { return tls_context; }
}  // namespace detail

/// Per-worker state. A scheduler creates one per worker thread, binds it on that thread with
/// `bind()`, and drives it from its loop:
///
/// ```
/// ctx.bind();
/// while (running) {
///   if (ctx.run_one_submission()) continue;          // root tasks, resume_on arrivals
///   if (ctx.steal_from(victim) == steal_status::success) continue;  // victim may be ctx itself
///   ...back off or sleep...
/// }
/// ctx.unbind();
/// ```
///
/// Rules: `bind`, `unbind`, `run_one_submission`, `run_submitted` and `steal_from` are called by
/// the owning thread only, between two pieces of work (never from inside a task); `submit`,
/// `has_submissions` and `deque_size` may be called from any thread.
class worker_context {
 public:
  /// `unshared`: a promise by the scheduler that no other thread ever steals from this context
  /// (true for a scheduler with a single worker, which steals from itself only when idle). The
  /// worker then takes back its parents without the deque's store-load fence.
  explicit worker_context(std::size_t deque_capacity = 1024, bool unshared = false)
      : m_deque(deque_capacity),
        m_top(detail::make_stacklet(detail::initial_stacklet_bytes, nullptr)),
        m_unshared(unshared) {}

  worker_context(const worker_context&) = delete;
  worker_context& operator=(const worker_context&) = delete;

  ~worker_context() {
    detail::free_stack(m_top);
    for (std::size_t i = 0; i < m_spares; ++i) {
      detail::free_stack(m_spare[i]);
    }
  }

  /// Makes this the calling thread's context. A thread holds at most one.
  void bind() noexcept {
    if (detail::tls_context != nullptr) {
      detail::fatal("worker_context::bind: this thread is already bound to a worker context");
    }
    detail::tls_context = this;
  }

  void unbind() noexcept {
    if (detail::tls_context != this) {
      detail::fatal("worker_context::unbind: this context is not bound to the calling thread");
    }
    detail::tls_context = nullptr;
  }

  /// Queues `node` for this worker; any thread. Returns true if the queue looked empty before.
  bool submit(submit_node* node) noexcept { return m_submitted.push(node); }

  bool has_submissions() const noexcept { return !m_submitted.empty(); }

  /// Approximate number of stealable continuations in this worker's deque; any thread.
  std::size_t deque_size() const noexcept { return m_deque.size(); }

  /// Owner: runs one queued submission if there is one.
  bool run_one_submission() {
    submit_node* node = m_submitted.pop();
    if (node == nullptr) {
      return false;
    }
    run_submitted(node);
    return true;
  }

  /// Owner: runs `node` (which may come from any queue of the scheduler's choosing) now.
  void run_submitted(submit_node* node) {
    check_idle("run_submitted");
    node->run(node);
  }

  /// Owner: tries to steal one continuation from `victim` (possibly *this) and runs it.
  steal_status steal_from(worker_context& victim) {
    check_idle("steal_from");
    steal_result<detail::frame*> got = victim.m_deque.steal();
    if (got.status == steal_status::success) {
      // Only the thief that took the continuation touches `steals` until the join; the deque's
      // push (release) / steal (acquire) orders the previous owner's writes before ours.
      ++got.value->steals;
      resume(detail::handle_of(got.value));
    }
    return got.status;
  }

  // ---- internals used by tine's awaitables -------------------------------------------------

  /// Runs `h` and whatever it transfers to, until the chain suspends with nothing to run next.
  void resume(std::coroutine_handle<> h) {
#if TINE_SYMMETRIC_TRANSFER
    h.resume();
#else
    while (h) {
      m_next = nullptr;
      h.resume();
      h = m_next;
    }
#endif
  }

  /// What an await_suspend returns to switch to `next`: `next` itself (a tail call) or, in
  /// trampoline builds, a no-op after recording `next` for resume()'s loop.
  TINE_ALWAYS_INLINE std::coroutine_handle<> transfer(std::coroutine_handle<> next) noexcept {
#if TINE_SYMMETRIC_TRANSFER
    return next;
#else
    m_next = next;
    return std::noop_coroutine();
#endif
  }

  /// The deque of continuations (parents that forked).
  deque<detail::frame*>& tasks() noexcept { return m_deque; }

  /// Owner: takes back the most recent continuation of the deque.
  TINE_ALWAYS_INLINE std::optional<detail::frame*> pop_task() noexcept {
    return m_unshared ? m_deque.pop_unshared() : m_deque.pop();
  }

  /// Top stacklet of the stack this worker owns.
  detail::stacklet*& top() noexcept { return m_top; }

  /// Gives up the current stack (now owned by a suspended task) and starts a fresh one.
  void release_stack() {
    if (m_spares != 0) {
      m_top = m_spare[--m_spares];
    } else {
      m_top = detail::make_stacklet(detail::initial_stacklet_bytes, nullptr);
    }
  }

  /// Takes ownership of the stack whose top is `stack`; the current stack must be empty.
  void adopt_stack(detail::stacklet* stack) noexcept {
    if (m_top == stack) {
      return;
    }
    TINE_ASSERT(detail::stack_is_empty(m_top),
                "a worker adopts a stack only when its own is empty");
    // Keep a few empty stacks for the next releases: a worker that steals often releases and
    // adopts stacks in turn, and should not go to the heap for each.
    detail::trim_cache(m_top);
    if (m_spares < max_spares) {
      m_spare[m_spares++] = m_top;
    } else {
      detail::free_stack(m_top);
    }
    m_top = stack;
  }

 private:
  void check_idle(const char* what) noexcept {
    if (detail::tls_context != this) {
      detail::fatal(
          "worker_context: run_submitted/steal_from called on a thread this context is not bound "
          "to");
    }
    if (!detail::stack_is_empty(m_top)) {
      (void)what;
      detail::fatal(
          "worker_context: run_submitted/steal_from called from inside a task (the worker's stack "
          "is not empty)");
    }
  }

  deque<detail::frame*> m_deque;
  intrusive_mpsc<submit_node> m_submitted;
  detail::stacklet* m_top;
  static constexpr std::size_t max_spares = 4;
  detail::stacklet* m_spare[max_spares] = {};  ///< Empty stacks (one stacklet each) to reuse.
  std::size_t m_spares = 0;
  bool m_unshared;
#if !TINE_SYMMETRIC_TRANSFER
  std::coroutine_handle<> m_next;
#endif
};

/// The worker context bound to the calling thread, or null when it is not a worker.
inline worker_context* current_worker() noexcept { return detail::read_tls_context(); }

namespace detail {

/// The context of the calling worker thread; tasks only ever run on one.
TINE_ALWAYS_INLINE worker_context& context() noexcept {
  worker_context* ctx = read_tls_context();
  TINE_ASSERT(ctx != nullptr, "tine code ran on a thread that is not a worker");
  return *ctx;
}

}  // namespace detail
}  // namespace tine

#endif  // TINE_CORE_CONTEXT_HPP
