#ifndef TINE_CORE_WORKER_HOOKS_HPP
#define TINE_CORE_WORKER_HOOKS_HPP

/// \file worker_hooks.hpp
/// The core's side of observability: the events only the runtime sees (a task suspending at a
/// join and resuming, a stacklet taken from or given back to the heap) reach a scheduler's
/// observer through a small table of function pointers that the scheduler hands to each
/// `worker_context` before binding it (`worker_context::observe`).
///
/// Why this costs nothing on the hot path: the fork / call / return path and the pointer-bump
/// stack allocation never look at the table. It is tested (one load and a predicted branch) only
/// where the runtime already does something expensive: a join that suspends (it follows a steal
/// and a contended atomic), the last arrival of a stolen join, and a stacklet going to or from
/// the heap (a call to operator new / mmap). Without an observer the pointer stays null.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>

namespace tine {

/// Functions the runtime calls with the observer pointer of a `hook_binding`. Each is called on
/// the worker thread the binding belongs to, and must not throw.
struct worker_hooks {
  /// A task of this worker suspended at a join (explicit, or its end) to wait for stolen
  /// children.
  void (*join_suspended)(void* observer, std::size_t worker) noexcept;
  /// The last stolen child arrived on this worker and the task it waited for resumes here.
  void (*join_resumed)(void* observer, std::size_t worker) noexcept;
  /// A stacklet of `bytes` (header included) was taken from the heap by this worker.
  void (*stacklet_allocated)(void* observer, std::size_t worker, std::size_t bytes) noexcept;
  /// A stacklet of `bytes` (header included) was given back to the heap by this worker.
  void (*stacklet_freed)(void* observer, std::size_t worker, std::size_t bytes) noexcept;
};

/// What one worker context reports to: a table, the observer it passes along, the worker index.
/// Owned by the scheduler; must outlive the binding of the context.
struct hook_binding {
  const worker_hooks* hooks = nullptr;
  void* observer = nullptr;
  std::size_t worker = 0;
};

namespace detail {

/// The binding of the worker bound to this thread (set by worker_context::bind when the context
/// is observed), for the stacklet functions, which do not see the worker's runtime. Read it only
/// through read_tls_hooks() (see TINE_TLS_ACCESSOR in config.hpp).
inline thread_local const hook_binding* tls_hooks = nullptr;

TINE_TLS_ACCESSOR const hook_binding* read_tls_hooks() noexcept { return tls_hooks; }
TINE_TLS_ACCESSOR void write_tls_hooks(const hook_binding* b) noexcept { tls_hooks = b; }

// The notes are out of line: they are reached from code that is inlined into every task's
// coroutine body (a join's suspension path frees a cached stacklet), and inlining their bodies
// there grows it enough that the compiler stops inlining the fork and join steps of the hot
// path. A call on a path that already calls the heap costs nothing measurable.

/// Called where a stacklet has just come from the heap (a cold path: see the file comment).
TINE_NOINLINE inline void note_stacklet_allocated(std::size_t bytes) noexcept {
  if (const hook_binding* b = read_tls_hooks(); TINE_UNLIKELY(b != nullptr)) {
    b->hooks->stacklet_allocated(b->observer, b->worker, bytes);
  }
}

/// Called where a stacklet is about to go back to the heap.
TINE_NOINLINE inline void note_stacklet_freed(std::size_t bytes) noexcept {
  if (const hook_binding* b = read_tls_hooks(); TINE_UNLIKELY(b != nullptr)) {
    b->hooks->stacklet_freed(b->observer, b->worker, bytes);
  }
}

/// The join notes of worker_runtime, out of line for the same reason.
TINE_NOINLINE inline void note_join(const hook_binding* b, bool resumed) noexcept {
  if (resumed) {
    b->hooks->join_resumed(b->observer, b->worker);
  } else {
    b->hooks->join_suspended(b->observer, b->worker);
  }
}

/// Silences the calling thread's binding for a scope: a worker's stacks are made and destroyed
/// by whichever thread builds and destroys the pool, which may be a worker of another, observed
/// pool; those allocations are not that worker's.
class muted_hooks {
 public:
  muted_hooks() noexcept : m_saved(read_tls_hooks()) {
    if (m_saved != nullptr) {
      write_tls_hooks(nullptr);
    }
  }
  ~muted_hooks() {
    if (m_saved != nullptr) {
      write_tls_hooks(m_saved);
    }
  }
  muted_hooks(const muted_hooks&) = delete;
  muted_hooks& operator=(const muted_hooks&) = delete;

 private:
  const hook_binding* m_saved;
};

}  // namespace detail
}  // namespace tine

#endif  // TINE_CORE_WORKER_HOOKS_HPP
