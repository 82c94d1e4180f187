#ifndef TINE_CORE_WORKER_CONTEXT_HPP
#define TINE_CORE_WORKER_CONTEXT_HPP

/// \file worker_context.hpp
/// `tine::worker_context`: what a scheduler plugin drives, one per worker thread. It owns the
/// worker's deque of continuations, its stacks and its submission queue; its public members are
/// all a scheduler author may call. (The runtime internals tasks use are in worker_runtime.hpp.)

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <new>
#include <optional>
#include <stdexcept>

#include <tine/core/deque.hpp>
#include <tine/core/final.hpp>
#include <tine/core/owner_fence.hpp>
#include <tine/core/process_boundary.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/submission_queue.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {

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
/// `has_submissions` and `deque_size` may be called from any thread. A scheduler must not let
/// either kind of work starve the other: between two submissions, a worker also looks at the
/// deques (see docs/extending.md).
class worker_context {
 public:
  /// `unshared`: a promise by the scheduler that no other thread ever steals from this context
  /// (true for a scheduler with a single worker, which steals from itself only when idle). The
  /// worker then takes back its parents without the deque's store-load fence. Throws
  /// std::bad_alloc.
  explicit worker_context(std::size_t deque_capacity = 1024, bool unshared = false)
      : worker_context(deque_capacity, unshared ? owner_fence::none : owner_fence::full) {}

  /// A context whose deque orders its owner's pops against steals as `fence` says (see
  /// owner_fence). Throws std::bad_alloc.
  worker_context(std::size_t deque_capacity, owner_fence fence)
      : m_runtime(deque_capacity, fence, this) {}

  /// The fence this worker's pops use: `fence` as constructed, except `asymmetric` where the
  /// system does not support it, which is `full`.
  owner_fence fence() const noexcept { return m_runtime.fence(); }

  worker_context(const worker_context&) = delete;
  worker_context& operator=(const worker_context&) = delete;

  /// Makes this the calling thread's context. A thread holds at most one.
  void bind() noexcept {
    if (detail::tls_runtime != nullptr) {
      detail::fatal("worker_context::bind: this thread is already bound to a worker context");
    }
    detail::tls_runtime = &m_runtime;
    detail::tls_frame_stack = &m_runtime.top();
    if (m_runtime.hooks() != nullptr) {
      detail::write_tls_hooks(m_runtime.hooks());
    }
  }

  /// Undoes bind() (and set_backend()) on the bound thread.
  void unbind() noexcept {
    if (detail::tls_runtime != &m_runtime) {
      detail::fatal("worker_context::unbind: this context is not bound to the calling thread");
    }
    if (m_runtime.backend() != nullptr) {
      uninstall_backend();
    }
    detail::tls_runtime = nullptr;
    detail::tls_frame_stack = &detail::no_worker_top;
    if (m_runtime.hooks() != nullptr) {
      detail::write_tls_hooks(nullptr);
    }
  }

  /// Declares how many workers the scheduler driving this context has, so that tasks can size
  /// their work to it (the parallel algorithms' automatic grain does, through
  /// `tine::current_worker_count()`). 0, the default, means "not declared": such code then assumes
  /// the machine's hardware threads. Call before bind(), or on the owning thread between two
  /// pieces of work.
  void set_worker_count(std::size_t workers) noexcept { m_worker_count = workers; }

  /// What set_worker_count() declared (0: nothing).
  std::size_t worker_count() const noexcept { return m_worker_count; }

  /// Declares the scheduler this worker belongs to: `tine::current_scheduler()` returns it to the
  /// tasks running here, and a task of this worker that awaits a future is resumed through it.
  /// Without it, both use the scheduler the task's root was started on (which is the same unless
  /// the task moved with resume_on). Call before bind(), on any thread.
  void set_scheduler(scheduler_ref s) noexcept { m_scheduler = s; }

  /// The scheduler declared with set_scheduler, or null.
  const scheduler_ref* scheduler() const noexcept {
    return m_scheduler.has_value() ? &*m_scheduler : nullptr;
  }

  /// Reports the core's cold-path events of this worker (joins that suspend and resume,
  /// stacklets from and to the heap) to `binding` (see worker_hooks.hpp); null stops reporting.
  /// Call before bind(), on any thread; `binding` must outlive the binding of the context.
  void observe(const hook_binding* binding) noexcept { m_runtime.set_hooks(binding); }

  /// Installs `backend` on this worker (null: uninstalls it; see worker_backend.hpp): at the
  /// forks after request_offer() its `offer` may take continuations from the deque, and its
  /// `take_back` gives them back when the deque runs dry. When it has a process boundary
  /// (`boundary()`, process_boundary.hpp), the worker's frames may leave the process: arrivals
  /// at the joins of frames whose continuations were taken are counted by the boundary, the
  /// worker's stacklets come from its source (the worker's idle stacks are made anew from it if
  /// they came from elsewhere) and exceptions stored in its frames are encoded by its codec;
  /// without one, the stacklets come from the heap and frames keep the `std::exception_ptr`. The
  /// backend's thieves run the continuations they take with resume_stolen(). Owner, bound,
  /// between two pieces of work, with the deque empty (else a documented abort); `unbind()`
  /// uninstalls it. `backend` and its boundary must outlive the installation (and the
  /// boundary's stacklet source, the context). Throws std::bad_alloc, installing nothing, when
  /// the new stacks cannot be made.
  void set_backend(worker_backend* backend) {
    if (detail::tls_runtime != &m_runtime) {
      detail::fatal("worker_context::set_backend: called on a thread this context is not bound to");
    }
    if (!detail::stack_is_empty(m_runtime.top()) || m_runtime.continuations().size() != 0) {
      detail::fatal(
          "worker_context::set_backend: called from inside a task (the worker's stack or deque "
          "is not empty)");
    }
    if (m_runtime.backend() != nullptr) {
      uninstall_backend();
    }
    if (backend == nullptr) {
      return;
    }
    m_saved_source = detail::read_tls_stacklet_source();
    m_saved_codec = detail::read_tls_exception_codec();
    m_saved_leave = detail::frames_may_leave_process();
    // Read once: the worker keeps what the boundary says in its own fields and the thread's.
    process_boundary* boundary = backend->boundary();
    detail::set_stacklet_source(boundary != nullptr ? boundary->stacklets() : nullptr);
    try {
      m_runtime.stacks().renew_from_current_source();
    } catch (...) {
      detail::set_stacklet_source(m_saved_source);
      throw;
    }
    detail::set_exception_codec(boundary != nullptr ? &boundary->exceptions() : nullptr);
    detail::set_frames_leave_process(boundary != nullptr);
    m_runtime.set_backend(backend, boundary);
  }

  /// The installed worker backend, or null.
  worker_backend* backend() const noexcept { return m_runtime.backend(); }

  /// Owner, between two pieces of work: takes one continuation, as steal_from() does (the newest
  /// of its own deque from `*this`, one try at the oldest of another worker's), without running
  /// it (null: none), for a scheduler that runs it with resume_stolen(), as workers with a
  /// backend do (their frames' stacks may be another process's, which steal_from() would read).
  detail::frame* take_continuation(worker_context& victim) noexcept {
    check_idle();
    if (&victim == this) {
      return m_runtime.take_newest();
    }
    steal_result<detail::frame*> got = victim.m_runtime.continuations().steal();
    return got.status == steal_status::success ? got.value : nullptr;
  }

  /// Any thread: the installed backend's `offer` is called at this worker's next fork (once; ask
  /// again for more). Without a backend, the next fork only checks for stop requests.
  void request_offer() noexcept { m_runtime.request_check(); }

  /// Owner: runs a continuation that this worker took from a worker backend (its own or
  /// another worker's) as a thief, and returns when the work it led to is done. Counts the
  /// steal in the frame, as steal_from() does, for the join; the queue's steal must order the
  /// pusher's writes to the frame before this call (a release push and an acquire steal).
  /// Continuations resumed this way are reached by stop requests unless the installed backend
  /// has a process boundary that says they are not (`process_boundary::stops_reach`): its
  /// thieves may be other processes, where the root's context is not. Throws std::bad_alloc,
  /// without running it, when memory is too short: keep it and retry.
  void resume_stolen(detail::frame* continuation) {
    check_idle();
    if (!reserve()) {
      throw std::bad_alloc();
    }
    ++continuation->steals;
    const process_boundary* boundary = m_runtime.boundary();
    if (boundary == nullptr || boundary->stops_reach(continuation)) {
      m_runtime.take_over(continuation);
    } else {
      m_runtime.enter(nullptr);
    }
    m_runtime.strands().begin_stolen(continuation);
    m_runtime.resume(detail::handle_of(continuation));
  }

  /// Owner: continues `f` after the last strand arrived at its join elsewhere: a process
  /// boundary whose `arrive` returned false everywhere (the arrivals counted in another process)
  /// calls this on the worker that owns `f`'s stack, between two pieces of work, once `f` may
  /// run. The worker adopts `f`'s stack and resumes `f` (or, when `f` had reached its end, ends
  /// it), and returns when the work that leads to is done.
  void resume_joined(detail::frame* f) {
    check_idle();
    if (!reserve()) {
      throw std::bad_alloc();
    }
    m_runtime.stacks().adopt(f->stack);
    // The backend counted the arrivals: every strand of f's scope has left its record with f.
    m_runtime.strands().merge(f);
    m_runtime.note_join_resumed();
    if (!f->at_final) {
      m_runtime.resume(detail::handle_of(f));
      return;
    }
    detail::release_deferred(m_runtime, f);
    m_runtime.resume(detail::completion::finish(f));
  }

  /// Queues `node` for this worker; any thread. Returns true if the queue looked empty before.
  bool submit(submit_node* node) noexcept { return m_submitted.push(node); }

  bool has_submissions() const noexcept { return !m_submitted.empty(); }

  /// Approximate number of stealable continuations in this worker's deque; any thread.
  std::size_t deque_size() const noexcept { return m_runtime.continuations().size(); }

  /// Owner: runs one queued submission if there is one. Returns false, leaving the queue as it
  /// is, when there is none or when memory is too short to run one now (try again later).
  bool run_one_submission() {
    check_idle();
    if (!reserve()) {
      return false;
    }
    submit_node* node = m_submitted.pop();
    if (node == nullptr) {
      return false;
    }
    node->run(node);
    return true;
  }

  /// Owner: runs `node` (which may come from any queue of the scheduler's choosing) now. Throws
  /// std::bad_alloc, without running it, when memory is too short: keep the node and retry.
  void run_submitted(submit_node* node) {
    check_idle();
    if (!reserve()) {
      throw std::bad_alloc();
    }
    node->run(node);
  }

  /// Owner: tries to steal one continuation from `victim` and runs it: the oldest of another
  /// worker's deque, or, from `*this`, the newest of its own (a worker takes its own back in the
  /// order its children would have). Reports `empty` without looking when memory is too short to
  /// run work now. A scheduler steals from its worker's own deque before it steals elsewhere
  /// (docs/extending.md).
  steal_status steal_from(worker_context& victim) {
    return steal_from(victim, [] {});
  }

  /// As steal_from(victim), calling `on_steal()` after a continuation was taken and before it
  /// resumes: a scheduler's observer sees the steal at the moment it happens (the call returns
  /// only when the work it led to is done).
  template <typename OnSteal>
  steal_status steal_from(worker_context& victim, OnSteal&& on_steal) {
    check_idle();
    if (!reserve()) {
      return steal_status::empty;
    }
    if (&victim == this) {
      // Its own continuations, newest first (see take_own).
      return take_own(on_steal) ? steal_status::success : steal_status::empty;
    }
    steal_result<detail::frame*> got = victim.m_runtime.continuations().steal();
    if (got.status == steal_status::success) {
      // Only the thief that took the continuation touches `steals` until the join; the deque's
      // push (release) / steal (acquire) orders the previous owner's writes before ours. The
      // continuation's root: from the stacklet it recorded when its scope opened.
      ++got.value->steals;
      m_runtime.take_over(got.value);
      m_runtime.strands().begin_stolen(got.value);
      on_steal();
      m_runtime.resume(detail::handle_of(got.value));
    }
    return got.status;
  }

 private:
  /// The worker, idle, takes back the newest continuation of its own deque and runs it, counted
  /// as a steal (the child that pushed it ended elsewhere, or moved away, so its join counts
  /// it). Newest first: with schedulers that look at their own deque before other work (see
  /// docs/extending.md), a worker's deque then only holds the continuations of the chain it
  /// runs, in the order it pushed them, and the continuation a returning child takes back is
  /// always the one its own fork pushed. Were an older one taken first, the chain it starts
  /// could end in a child whose parent has a newer continuation in the deque (pushed by a later
  /// fork, in a later stolen strand); the child would take that one back as if it were its own
  /// and run it in its own strand: right for the join's count, but out of serial order for
  /// tine::reducer's views (worker_strands.hpp).
  template <typename OnSteal>
  TINE_NOINLINE bool take_own(OnSteal& on_steal) {
    detail::frame* f = m_runtime.take_newest();
    if (f == nullptr) {
      return false;
    }
    ++f->steals;  // ours alone now: the deque's pop took it
    m_runtime.take_over(f);
    m_runtime.strands().begin_stolen(f);
    on_steal();
    m_runtime.resume(detail::handle_of(f));
    return true;
  }

  /// What a worker must hold before it takes work, so that nothing it does then needs memory
  /// it could fail to get: a spare stack to park on, and what the strand layer needs to begin a
  /// strand (worker_strands.hpp).
  bool reserve() noexcept { return m_runtime.stacks().reserve() && m_runtime.strands().reserve(); }

  void check_idle() noexcept {
    if (detail::tls_runtime != &m_runtime) {
      detail::fatal(
          "worker_context: run_submitted/run_one_submission/steal_from called on a thread this "
          "context is not bound to");
    }
    if (!detail::stack_is_empty(m_runtime.top())) {
      detail::fatal(
          "worker_context: run_submitted/run_one_submission/steal_from called from inside a "
          "task (the worker's stack is not empty)");
    }
  }

  /// The thread's stacklet source, exception codec and whether its frames may leave the process,
  /// as they were before set_backend, restored when the backend goes (its stacklets go back to
  /// its source when they are freed).
  void uninstall_backend() noexcept {
    m_runtime.set_backend(nullptr, nullptr);
    detail::set_exception_codec(m_saved_codec);
    detail::set_frames_leave_process(m_saved_leave);
    m_saved_leave = false;
    detail::set_stacklet_source(m_saved_source);
    m_saved_codec = nullptr;
    m_saved_source = nullptr;
  }

  detail::worker_runtime m_runtime;
  const detail::stacklet_source* m_saved_source = nullptr;
  const detail::exception_codec* m_saved_codec = nullptr;
  bool m_saved_leave = false;
  intrusive_mpsc<submit_node> m_submitted;
  std::size_t m_worker_count = 0;
  std::optional<scheduler_ref> m_scheduler;
};

/// The worker context bound to the calling thread, or null when it is not a worker.
inline worker_context* current_worker() noexcept {
  detail::worker_runtime* rt = detail::read_tls_runtime();
  return rt == nullptr ? nullptr : rt->owner();
}

namespace detail {
/// The scheduler a task running on `rt` belongs to: its worker's declared one, or its root's
/// (null when neither is known: a continuation another process took).
inline const scheduler_ref* home_scheduler(worker_runtime& rt) noexcept {
  if (const scheduler_ref* declared = rt.owner()->scheduler()) {
    return declared;
  }
  for (const root_context* c = rt.top()->context; c != nullptr; c = c->parent) {
    if (c->scheduler.has_value()) {
      return &*c->scheduler;
    }
  }
  return nullptr;
}
}  // namespace detail

/// The scheduler the calling task runs on (its worker's, see worker_context::set_scheduler, or
/// else its root's), to spawn work beside it. Throws std::logic_error outside a task.
inline scheduler_ref current_scheduler() {
  detail::worker_runtime* rt = detail::read_tls_runtime();
  const scheduler_ref* s = rt != nullptr ? detail::home_scheduler(*rt) : nullptr;
  if (s == nullptr) {
    throw std::logic_error(
        "tine::current_scheduler: called outside a task of a root started by sync_wait or "
        "spawn");
  }
  return *s;
}

/// The number of workers of the scheduler running the calling task, as its scheduler declared it
/// (worker_context::set_worker_count); 0 when the caller is not a worker or nothing was declared.
inline std::size_t current_worker_count() noexcept {
  const worker_context* w = current_worker();
  return w == nullptr ? 0 : w->worker_count();
}

}  // namespace tine

#endif  // TINE_CORE_WORKER_CONTEXT_HPP
