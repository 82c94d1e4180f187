#ifndef TINE_CORE_WORKER_RUNTIME_HPP
#define TINE_CORE_WORKER_RUNTIME_HPP

/// \file worker_runtime.hpp
/// The part of a worker that tine's awaitables use while tasks run: the deque of continuations,
/// the stacks, and the switch from one coroutine to the next. Internal: scheduler authors use
/// `tine::worker_context` (worker_context.hpp), which owns one of these.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <tine/core/cancelled.hpp>
#include <tine/core/deque.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/owner_fence.hpp>
#include <tine/core/process_boundary.hpp>
#include <tine/core/push_checks.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/worker_hooks.hpp>
#include <tine/core/worker_stacks.hpp>
#include <tine/core/worker_strands.hpp>

namespace tine {

class worker_context;

namespace detail {

/// The calling thread's stack pointer (an estimate is enough: it is compared with a limit). The asm
/// is volatile so that the value is read where it is used, never reused from before a suspension
/// point (the coroutine may have resumed on another thread since).
TINE_ALWAYS_INLINE std::uintptr_t stack_pointer() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  std::uintptr_t sp;
  asm volatile("movq %%rsp, %0" : "=r"(sp));
  return sp;
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
  std::uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
#else
  char here;
  return reinterpret_cast<std::uintptr_t>(&here);
#endif
}

/// A fork found the check marker (push_checks.hpp): true if `parent`'s child must not start,
/// because `parent` already holds an exception (a sibling threw) or its root or stop scope was
/// asked to stop (then `parent` gets a tine::cancelled for its join).
TINE_NOINLINE inline bool check_fork(frame* parent) {
  const root_context* context = parent->stack != nullptr ? parent->stack->context : nullptr;
  const bool stopped = context != nullptr && context->stopped();
  // acquire: the exception stored by a child on another worker (whose marker request we saw).
  if (stopped && !parent->holds_exception(std::memory_order_acquire)) {
    parent->stash_exception(std::make_exception_ptr(cancelled()));
  }
  return stopped || parent->holds_exception(std::memory_order_acquire);
}

class worker_runtime {
 public:
  /// How deep the thread's stack may grow below `resume()` before a switch goes through the
  /// resume loop instead of nesting (see transfer()).
  static constexpr std::uintptr_t transfer_depth_limit = std::uintptr_t{32} * 1024;

  /// Throws std::bad_alloc.
  worker_runtime(std::size_t deque_capacity, owner_fence fence, worker_context* owner)
      : m_deque(deque_capacity, fence), m_owner(owner), m_unshared(fence == owner_fence::none) {
    push_hook_registry::instance().add(&m_push_hook);
  }

  ~worker_runtime() { push_hook_registry::instance().remove(&m_push_hook); }

  /// The fence in effect (asymmetric only where the deque could split it).
  owner_fence fence() const noexcept {
    if (m_unshared) {
      return owner_fence::none;
    }
    return m_deque.asymmetric_fences() ? owner_fence::asymmetric : owner_fence::full;
  }

  worker_runtime(const worker_runtime&) = delete;
  worker_runtime& operator=(const worker_runtime&) = delete;

  worker_context* owner() const noexcept { return m_owner; }

  /// Runs `h` and whatever it switches to, until the chain suspends with nothing to run next.
  void resume(std::coroutine_handle<> h) {
    m_transfer_floor = stack_pointer() - transfer_depth_limit;
    while (h) {
      m_next = nullptr;
      h.resume();
      h = m_next;
    }
  }

  /// What an await_suspend returns to switch to `next`.
  ///
  /// Returning `next` is symmetric transfer. The compiler turns it into a tail call only when it
  /// can (GCC: at -O2 and up, without -fno-optimize-sibling-calls, and not always under
  /// sanitizers); otherwise every switch nests a call, and a long run would overflow the
  /// thread's stack. No macro tells the two apart, so tine checks the depth itself: while the
  /// stack is shallow, `next` is returned; once it is `transfer_depth_limit` below resume(),
  /// `next` is recorded and a no-op returned, which unwinds the nested calls back to resume()'s
  /// loop, and the loop starts `next`. With tail calls the limit is never reached and the check
  /// costs a compare; without them the program still runs, in bounded stack, at any -O level.
  TINE_ALWAYS_INLINE std::coroutine_handle<> transfer(std::coroutine_handle<> next) noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // The compare reads the stack pointer itself rather than a copy in another register (one
    // instruction fewer on every switch). Volatile by being asm goto: never hoisted or merged
    // across a suspension point, so it sees the thread the coroutine runs on now.
    asm goto("cmpq %0, %%rsp\n\tja %l1" : : "m"(m_transfer_floor) : "cc" : shallow);
#else
    if (TINE_LIKELY(stack_pointer() > m_transfer_floor)) {
      return next;
    }
#endif
    m_next = next;
    return std::noop_coroutine();
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  shallow:
    return next;
#endif
  }

  /// Owner: offers the continuation of `parent` to thieves (`child`: the child just forked, or
  /// null; see worker_backend::offer) and returns true; or returns false, offering nothing,
  /// when the child must not start (push_checks.hpp). Throws std::bad_alloc if the deque cannot
  /// grow (or what an installed worker_backend's offer throws).
  TINE_ALWAYS_INLINE bool push(frame* parent, void* child) {
    // acquire: with the check marker comes what it was set for (push_checks.hpp); a plain load
    // on x86-64, like the relaxed one it replaced.
    if (TINE_UNLIKELY(m_push_hook.load(std::memory_order_acquire) != nullptr)) {
      return push_cold(parent, child);
    }
    m_deque.push(parent);
    return true;
  }

  /// Any thread: this worker looks before its next fork starts a child (push_checks.hpp).
  void request_check() noexcept { detail::request_check(m_push_hook); }

  /// Owner, on an empty stack: the tasks it runs next belong to `context` (a root, a stop scope,
  /// or null: none); if that was asked to stop, forks look first (root_context.hpp).
  void enter(root_context* context) noexcept {
    top()->context = context;
    if (context != nullptr && context->stopped()) {
      request_check();
    }
  }

  /// Owner, on an empty stack: the worker begins running `f`, a continuation it stole or took
  /// back. `f`'s root or stop scope becomes the running stack's; if that was asked to stop, or
  /// `f` holds an exception that arrived while it waited, forks look first (push_checks.hpp: this
  /// worker may have used up the check requested for it on other work).
  void take_over(frame* f) noexcept {
    enter(f->stack->context);
    // acquire: the exception of a child that arrived on another worker, stored before its
    // arrival asked every worker to look.
    if (m_relays && f->holds_exception(std::memory_order_acquire)) {
      request_check();
    }
  }

  /// Owner: a task that moved (resume_on) or awaited a future resumes here, on its own stack,
  /// which this worker adopted (outside a fork-join scope: it holds no exception). If its root
  /// or stop scope was asked to stop while it waited, forks look first. Reads the stack's header
  /// only: thieves of continuations on that stack read it at the same time.
  void resume_moved(const frame* f) noexcept {
    const root_context* context = f->stack->context;
    if (context != nullptr && context->stopped()) {
      request_check();
    }
  }

  /// Owner: the worker stops running the tasks that wait on `f` (`f` suspends at its join or
  /// moves away, or a child of `f` arrives at a join whose frame goes on elsewhere). A check
  /// marker still set here stood for those tasks too: it goes with them, as `f`'s relay
  /// (push_checks.hpp). Inline only the test of the marker (as a fork's).
  TINE_ALWAYS_INLINE void hand_over(frame* f) noexcept {
    // acquire: with the marker comes what it was set for (a relay takes it to other workers).
    if (TINE_UNLIKELY(m_push_hook.load(std::memory_order_acquire) != nullptr)) {
      hand_over_cold(f);
    }
  }

  /// Owner: a task that held a relay ended, and `parent`, which it returns to, goes on here next.
  /// If `parent` holds an exception (a child threw in its fork-join scope), its later forks must
  /// look: the marker is set again; otherwise `parent` takes the relay on (push_checks.hpp).
  void relay_to(frame* parent) noexcept {
    // acquire: as take_over's.
    if (parent->holds_exception(std::memory_order_acquire)) {
      request_check();
    } else {
      parent->set_relay();
    }
  }

  /// A strand arrives at the join of `f`, which a thief took: the installed backend's process
  /// boundary counts it, or the core's counter in the frame (join_counter.hpp). True if it
  /// arrived last.
  bool count_arrival(frame* f, join_arrival& a) noexcept {
    if (TINE_UNLIKELY(m_boundary != nullptr)) {
      return m_boundary->arrive(f, a);
    }
    return detail::count_arrival(f, a);
  }

  /// Owner: takes back the most recent continuation of the deque or, once the deque is empty, of
  /// the installed backend (which holds older ones than the deque: worker_backend::offer); null
  /// when thieves took it. (A pointer, not an optional: GCC 12 at -O1 and under TSan warns that a
  /// copied empty optional's value may be uninitialised.)
  TINE_ALWAYS_INLINE frame* pop() noexcept {
    // Only the empty case looks for a backend, so a pop that finds its parent pays nothing for it.
    // One pop for every fence: the deque knows whether it has thieves (owner_fence::none).
    if (std::optional<frame*> mine = m_deque.pop()) {
      return *mine;
    }
    if (TINE_LIKELY(m_backend == nullptr)) {
      return nullptr;
    }
    return pop_from_backend();
  }

  /// Owner, between two pieces of work: takes back the newest continuation of its own deque (null:
  /// none, or thieves took it), as a returning child would (worker_context::steal_from).
  frame* take_newest() noexcept {
    std::optional<frame*> f = m_unshared ? m_deque.pop_unshared() : m_deque.pop();
    return f ? *f : nullptr;
  }

  /// What continuations are offered to when asked (null: none), and `boundary`, `b`'s process
  /// boundary, which counts arrivals and says which frames stops reach (null: the frames stay in
  /// this process). Owner, between two pieces of work, with the deque empty
  /// (worker_context::set_backend checks).
  void set_backend(worker_backend* b, process_boundary* boundary) noexcept {
    m_backend = b;
    m_boundary = boundary;
    m_offer_every_fork = b != nullptr && b->offers_at_every_fork();
    m_relays = m_boundary == nullptr && !m_offer_every_fork;
    if (m_offer_every_fork) {
      request_check();  // and it stays: push_cold leaves it set for this backend
    }
  }
  worker_backend* backend() const noexcept { return m_backend; }
  process_boundary* boundary() const noexcept { return m_boundary; }

  deque<frame*>& continuations() noexcept { return m_deque; }
  const deque<frame*>& continuations() const noexcept { return m_deque; }

  worker_stacks& stacks() noexcept { return m_stacks; }
  stacklet*& top() noexcept { return m_stacks.top(); }

  /// The strand this worker runs, for the layer that keeps state per strand (worker_strands.hpp).
  worker_strands& strands() noexcept { return m_strands; }

  /// The observer binding (null when nobody observes this worker); see worker_hooks.hpp.
  const hook_binding* hooks() const noexcept { return m_hooks; }
  void set_hooks(const hook_binding* b) noexcept { m_hooks = b; }

  /// A task suspended at a join on this worker. Cold: follows a steal (see worker_hooks.hpp).
  void note_join_suspended() const noexcept {
    if (TINE_UNLIKELY(m_hooks != nullptr)) {
      note_join(m_hooks, false);
    }
  }

  /// The last stolen child arrived here and resumes the task that waited at its join.
  void note_join_resumed() const noexcept {
    if (TINE_UNLIKELY(m_hooks != nullptr)) {
      note_join(m_hooks, true);
    }
  }

 private:
  /// A fork of a worker that was asked to look first (push_checks.hpp), or whose backend asked
  /// for an offer; or a continuation given back to the deque (`child` null: no fork).
  TINE_NOINLINE [[gnu::cold]] bool push_cold(frame* parent, void* child) {
    // Whether this fork looks: every fork of a worker whose frames stay in this process; where
    // they may cross the process boundary, the forks of frames whose root's context is this
    // process's, as the boundary says (one from another process must start its child: its
    // context is there). Before the offer, which may take the parent's continuation and start the
    // child.
    const bool checks =
        child != nullptr && (m_boundary == nullptr || m_boundary->stops_reach(parent));
    // The check marker. Cleared before looking (acq_rel): a request made after this sets it
    // again, and one made before is seen below with what it was for. Kept for a backend that is
    // offered every fork (two atomic operations less per fork, which it would only set again),
    // and, on a worker whose frames stay here, when nothing forks: the check is for a fork (an
    // offer made then leaves it for the next fork, which looks). Where frames cross the boundary
    // nothing relays the marker, and an offer uses it up.
    if (!m_offer_every_fork && (checks || m_boundary != nullptr)) {
      m_push_hook.exchange(nullptr, std::memory_order_acq_rel);
    }
    if (checks) {
      if (check_fork(parent)) {
        request_check();  // the task goes on forking: keep looking
        return false;
      }
      if (m_relays) {
        // Nothing to stop here, but the check may have been meant for a task waiting on this
        // one (a caller with a stored exception): this task's end passes it on. Before the push,
        // which publishes it to a thief.
        parent->set_relay();
      }
    }
    if (m_backend != nullptr && m_backend->offer(parent, child, m_deque)) {
      return true;
    }
    m_deque.push(parent);
    return true;
  }
  TINE_NOINLINE [[gnu::cold]] void hand_over_cold(frame* f) noexcept {
    if (m_relays) {
      f->set_relay();
    }
  }
  TINE_NOINLINE [[gnu::cold]] frame* pop_from_backend() noexcept { return m_backend->take_back(); }

  deque<frame*> m_deque;
  worker_stacks m_stacks;
  worker_strands m_strands;
  worker_context* m_owner;
  std::uintptr_t m_transfer_floor = 0;
  std::coroutine_handle<> m_next;
  const hook_binding* m_hooks = nullptr;
  worker_backend* m_backend = nullptr;
  /// The backend's boundary(), read at installation: null while frames stay in this process,
  /// whose forks then look for stops and exceptions at the marker.
  process_boundary* m_boundary = nullptr;
  bool m_offer_every_fork = false;  ///< the backend's offers_at_every_fork()
  /// Forks check, at the marker only: a marker used up on a task that needed nothing is relayed.
  bool m_relays = true;
  /// What every fork tests: null, or the check marker (push_checks.hpp).
  /// Written by other threads only to set the marker.
  std::atomic<void*> m_push_hook{nullptr};
  bool m_unshared;
};

/// The runtime of the worker bound to this thread, or null on a thread that is not a worker.
/// Inside tasks, read it only through read_tls_runtime() (see TINE_TLS_ACCESSOR in config.hpp).
inline thread_local worker_runtime* tls_runtime = nullptr;

TINE_TLS_ACCESSOR worker_runtime* read_tls_runtime() noexcept { return tls_runtime; }

/// Where the calling thread's task frames are allocated: the top-stacklet slot of the worker bound
/// to it, or, on a thread that is not a worker, `no_worker_top`, a stack that refuses to grow
/// (stacklet.hpp). Kept beside tls_runtime so that a task's ramp neither tests for a worker nor
/// loads the runtime before the stack: one load reaches the top stacklet. Set with tls_runtime by
/// worker_context::bind and unbind; read inside tasks only through read_tls_frame_stack().
inline thread_local stacklet** tls_frame_stack = &no_worker_top;

TINE_TLS_ACCESSOR stacklet** read_tls_frame_stack() noexcept { return tls_frame_stack; }

/// The runtime of the calling worker thread; tasks only ever run on one.
TINE_ALWAYS_INLINE worker_runtime& runtime() noexcept {
  worker_runtime* rt = read_tls_runtime();
  TINE_ASSERT(rt != nullptr, "tine code ran on a thread that is not a worker");
  return *rt;
}

}  // namespace detail
}  // namespace tine

#endif  // TINE_CORE_WORKER_RUNTIME_HPP
