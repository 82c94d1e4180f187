#ifndef TINE_SCHEDULERS_POOL_OBSERVER_HPP
#define TINE_SCHEDULERS_POOL_OBSERVER_HPP

/// \file pool_observer.hpp
/// What a pool reports to an observer: the `tine::pool_observer` concept, the default
/// `tine::no_observer` (nothing is reported, and nothing is compiled in), `tine::observer_base`
/// (every hook empty, to derive from), and `tine::observers<A, B>` (reports to two observers).
/// See docs/observability.md.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace tine {

/// A type a pool can report its workers' events to (busy_pool<Policy, Observer>,
/// lazy_pool<Policy, Observer>). The pool calls, with `w` the index of the worker it happens on:
///
/// - `attach(n)`: once, from the pool's constructor before any worker starts, `n` workers (it may
///   allocate, and throw: the pool's constructor then throws);
/// - `on_worker_start(w)` / `on_worker_stop(w)`: first and last event of each worker thread;
/// - `on_steal_attempt(w, v)`: worker w looks at victim v's deque (v == w: its own);
/// - `on_steal(w, v)`: w took a continuation from v, and resumes it right after the call;
/// - `on_submission(w)`: w takes a submitted task (a root task or a resume_on arrival) to run it;
/// - `on_work_done(w)`: the submission or stolen continuation (and all it led to) returned to w's
///   loop: w looks for work again;
/// - `on_sleep(w)` / `on_wake(w)`: w parks on its event count and wakes (lazy_pool only);
/// - `on_join_suspend(w)` / `on_join_resume(w)`: a task suspends at a join on w, waiting for
///   stolen children; the last of them arrives on w and resumes a task (from the core);
/// - `on_stacklet_alloc(w, bytes)` / `on_stacklet_free(w, bytes)`: w took a stacklet from the
///   heap or gave one back (from the core; stacks move between workers at joins, so a worker may
///   free what another allocated).
///
/// Every hook but attach is called on worker w's own thread, so per-worker state needs no lock.
/// Those hooks must be noexcept (several run where an exception cannot be reported) and should
/// be cheap (they run between tasks). Timestamps are the observer's business: it reads its own
/// clock in the hook. The pool holds a reference: the observer must outlive the pool.
template <typename O>
concept pool_observer = requires(O& o, std::size_t w, std::size_t v) {
  o.attach(w);
  { o.on_worker_start(w) } noexcept;
  { o.on_worker_stop(w) } noexcept;
  { o.on_steal_attempt(w, v) } noexcept;
  { o.on_steal(w, v) } noexcept;
  { o.on_submission(w) } noexcept;
  { o.on_work_done(w) } noexcept;
  { o.on_sleep(w) } noexcept;
  { o.on_wake(w) } noexcept;
  { o.on_join_suspend(w) } noexcept;
  { o.on_join_resume(w) } noexcept;
  { o.on_stacklet_alloc(w, v) } noexcept;
  { o.on_stacklet_free(w, v) } noexcept;
};

/// Every hook, empty: derive from it and define only the hooks you need (a derived class's
/// member hides the base's).
struct observer_base {
  void attach(std::size_t) noexcept {}
  void on_worker_start(std::size_t) noexcept {}
  void on_worker_stop(std::size_t) noexcept {}
  void on_steal_attempt(std::size_t, std::size_t) noexcept {}
  void on_steal(std::size_t, std::size_t) noexcept {}
  void on_submission(std::size_t) noexcept {}
  void on_work_done(std::size_t) noexcept {}
  void on_sleep(std::size_t) noexcept {}
  void on_wake(std::size_t) noexcept {}
  void on_join_suspend(std::size_t) noexcept {}
  void on_join_resume(std::size_t) noexcept {}
  void on_stacklet_alloc(std::size_t, std::size_t) noexcept {}
  void on_stacklet_free(std::size_t, std::size_t) noexcept {}
};

/// The pools' default: no observer. A pool with it reports nothing unless TINE_TRACE or
/// TINE_STATS is set when it is built (env_observer.hpp): it then reports to an observer of
/// tine's library. Otherwise it holds a null pointer, tested between pieces of work and never per
/// task, and binds no hook table to its workers' contexts.
struct no_observer final : observer_base {};

/// Reports every event to `a` and then `b` (both must outlive the pool). Nest it for more:
/// `tine::observers<A, tine::observers<B, C>>`.
template <pool_observer A, pool_observer B>
class observers {
 public:
  observers(A& a, B& b) noexcept : m_a(&a), m_b(&b) {}

  A& first() const noexcept { return *m_a; }
  B& second() const noexcept { return *m_b; }

  /// Not noexcept: an observer's attach may throw (trace_observer allocates its buffers), and
  /// the pool's constructor passes that on.
  void attach(std::size_t n) {
    m_a->attach(n);
    m_b->attach(n);
  }
  void on_worker_start(std::size_t w) noexcept {
    (m_a->on_worker_start(w), m_b->on_worker_start(w));
  }
  void on_worker_stop(std::size_t w) noexcept { (m_a->on_worker_stop(w), m_b->on_worker_stop(w)); }
  void on_steal_attempt(std::size_t w, std::size_t v) noexcept {
    m_a->on_steal_attempt(w, v);
    m_b->on_steal_attempt(w, v);
  }
  void on_steal(std::size_t w, std::size_t v) noexcept {
    m_a->on_steal(w, v);
    m_b->on_steal(w, v);
  }
  void on_submission(std::size_t w) noexcept { (m_a->on_submission(w), m_b->on_submission(w)); }
  void on_work_done(std::size_t w) noexcept { (m_a->on_work_done(w), m_b->on_work_done(w)); }
  void on_sleep(std::size_t w) noexcept { (m_a->on_sleep(w), m_b->on_sleep(w)); }
  void on_wake(std::size_t w) noexcept { (m_a->on_wake(w), m_b->on_wake(w)); }
  void on_join_suspend(std::size_t w) noexcept {
    (m_a->on_join_suspend(w), m_b->on_join_suspend(w));
  }
  void on_join_resume(std::size_t w) noexcept { (m_a->on_join_resume(w), m_b->on_join_resume(w)); }
  void on_stacklet_alloc(std::size_t w, std::size_t bytes) noexcept {
    m_a->on_stacklet_alloc(w, bytes);
    m_b->on_stacklet_alloc(w, bytes);
  }
  void on_stacklet_free(std::size_t w, std::size_t bytes) noexcept {
    m_a->on_stacklet_free(w, bytes);
    m_b->on_stacklet_free(w, bytes);
  }

 private:
  A* m_a;
  B* m_b;
};

static_assert(pool_observer<observer_base>);
static_assert(pool_observer<no_observer>);

namespace detail {

/// True when `O` is a real observer (anything but no_observer): the pools test it with
/// `if constexpr`.
template <typename O>
inline constexpr bool is_observed = !std::is_same_v<O, no_observer>;

/// The readable refusal of a type that is not a pool_observer (a static_assert in each pool).
template <typename O>
inline constexpr bool check_pool_observer() {
  static_assert(pool_observer<O>,
                "tine: the pool's Observer does not satisfy tine::pool_observer: it needs the hook "
                "attach(n) and the noexcept hooks on_worker_start(w), on_worker_stop(w), "
                "on_steal_attempt(w, v), "
                "on_steal(w, v), on_submission(w), on_work_done(w), on_sleep(w), on_wake(w), "
                "on_join_suspend(w), on_join_resume(w), on_stacklet_alloc(w, bytes), "
                "on_stacklet_free(w, bytes) (derive from tine::observer_base to get empty ones; "
                "see docs/extending.md)");
  return pool_observer<O>;
}

}  // namespace detail
}  // namespace tine

#endif  // TINE_SCHEDULERS_POOL_OBSERVER_HPP
