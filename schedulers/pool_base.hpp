#ifndef TINE_SCHEDULERS_POOL_BASE_HPP
#define TINE_SCHEDULERS_POOL_BASE_HPP

/// \file pool_base.hpp
/// What busy_pool and lazy_pool share: the workers (threads, contexts, counters, handles), the
/// topology and victim policy, choosing a worker for a submission, the work accounting that
/// destruction waits on, and the destruction itself. Each pool supplies its worker loop and its
/// way of waking a worker (CRTP, no virtual calls). Also the link to the pool's observer.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tine/core/context.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_hooks.hpp>
#include <tine/policies/cpu_claims.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>
#include <tine/schedulers/pool_observer.hpp>
#include <tine/schedulers/pool_worker.hpp>
#include <tine/schedulers/worker_stats.hpp>

namespace tine {
namespace detail {

/// The default worker count: one per hardware thread, at least one (hardware_concurrency() may
/// return 0 when it does not know).
inline std::size_t default_worker_count() noexcept {
  return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

/// Which pool (if any) the calling thread is a worker of, and its index there.
struct pool_identity {
  const void* pool = nullptr;
  std::size_t index = 0;
};
inline thread_local pool_identity tls_pool_identity;

/// Reads tls_pool_identity; schedule() and a pool's destructor may run inside a task, hence the
/// accessor (see TINE_TLS_ACCESSOR).
TINE_TLS_ACCESSOR pool_identity read_pool_identity() noexcept { return tls_pool_identity; }

/// Throws the pools' "0 workers" error.
[[noreturn]] inline void throw_no_workers(const char* pool_name) {
  throw std::invalid_argument(std::string("tine::") + pool_name +
                              ": a pool needs at least one worker, but 0 workers were requested");
}

/// How a pool reaches its observer: a pointer to it, and the hook table and per-worker bindings
/// through which the core reports its events (worker_hooks.hpp).
template <typename Observer>
class observer_link {
 public:
  explicit observer_link(Observer& o) noexcept : m_observer(&o) {}

  Observer& get() const noexcept { return *m_observer; }

  /// Makes the bindings of `n` workers (before any starts) and tells the observer.
  void attach(std::size_t n) {
    m_bindings = std::make_unique<hook_binding[]>(n);
    for (std::size_t i = 0; i < n; ++i) {
      m_bindings[i] = hook_binding{&table, m_observer, i};
    }
    m_observer->attach(n);
  }

  const hook_binding* binding(std::size_t i) const noexcept { return &m_bindings[i]; }

 private:
  static Observer& of(void* o) noexcept { return *static_cast<Observer*>(o); }
  static constexpr worker_hooks table = {
      [](void* o, std::size_t w) noexcept { of(o).on_join_suspend(w); },
      [](void* o, std::size_t w) noexcept { of(o).on_join_resume(w); },
      [](void* o, std::size_t w, std::size_t bytes) noexcept { of(o).on_stacklet_alloc(w, bytes); },
      [](void* o, std::size_t w, std::size_t bytes) noexcept { of(o).on_stacklet_free(w, bytes); },
  };

  Observer* m_observer;
  std::unique_ptr<hook_binding[]> m_bindings;
};

/// No observer: nothing to hold (and, [[no_unique_address]] in pool_base, no byte of the pool).
template <>
class observer_link<no_observer> {};

template <typename Derived, victim_policy Policy, typename Observer = no_observer>
class pool_base {
 public:
  /// The victim policy the workers use.
  using policy_type = Policy;

  /// The observer the workers report to (no_observer: none).
  using observer_type = Observer;

  pool_base(const pool_base&) = delete;
  pool_base& operator=(const pool_base&) = delete;

  /// The number of workers.
  std::size_t size() const noexcept { return m_workers.size(); }

  /// The places the workers were laid out on (and pinned to, where the topology has cpus). For
  /// a pool built from a worker count, the cores other pools of the process used least when it
  /// was built (see cpu_claims.hpp).
  const tine::topology& topology() const noexcept { return m_topology; }

  /// Worker `i` as a scheduler of its own: `co_await tine::resume_on(pool.worker(i))`. The
  /// reference lives as long as the pool. Throws std::out_of_range if i >= size().
  pool_worker& worker(std::size_t i) { return *at(i).handle; }

  /// A snapshot of worker i's counters. Throws std::out_of_range if i >= size().
  worker_stats stats(std::size_t i) const { return at(i).counters.snapshot(); }

  /// The counters of all workers added together.
  worker_stats stats() const noexcept {
    worker_stats sum;
    for (const auto& w : m_workers) {
      sum += w->counters.snapshot();
    }
    return sum;
  }

 protected:
  struct alignas(64) worker_slot {
    // A single worker is the only thread that ever steals from its deque (only when idle).
    explicit worker_slot(bool alone) : context(1024, /*unshared=*/alone) {}

    worker_context context;
    worker_counters counters;
    std::unique_ptr<pool_worker> handle;
    std::thread thread;
  };

  /// The pool's places and its claim on their cpus, held until the pool is gone (after its
  /// workers are joined), so that pools built meanwhile avoid those cpus.
  explicit pool_base(claimed_topology placed, observer_link<Observer> link = {})
      : m_topology(std::move(placed.places)),
        m_claim(std::move(placed.claim)),
        m_policy(m_topology),
        m_observer(std::move(link)) {
    m_workers.reserve(m_topology.size());
    for (std::size_t i = 0; i < m_topology.size(); ++i) {
      m_workers.push_back(std::make_unique<worker_slot>(m_topology.size() == 1));
      m_workers.back()->context.set_worker_count(m_topology.size());
    }
  }

  ~pool_base() = default;

  /// Starts the threads. Called at the end of the derived constructor, once everything the loop
  /// reads exists. On failure (the OS refuses a thread) stops what started and rethrows.
  void start() {
    auto* self = static_cast<Derived*>(this);
    for (std::size_t i = 0; i < size(); ++i) {
      m_workers[i]->handle = std::make_unique<pool_worker>(self, i, &submit_to);
    }
    if constexpr (is_observed<Observer>) {
      m_observer.attach(size());
      for (std::size_t i = 0; i < size(); ++i) {
        m_workers[i]->context.observe(m_observer.binding(i));
      }
    }
    try {
      for (std::size_t i = 0; i < size(); ++i) {
        m_workers[i]->thread = std::thread([this, i] { thread_main(i); });
      }
    } catch (...) {
      stop_and_join();
      throw;
    }
  }

  /// The destructor's work: waits until the pool holds no work, stops the workers and joins
  /// them. Called first thing in the derived destructor, while the derived members still exist.
  void shutdown(const char* pool_name) noexcept {
    if (read_pool_identity().pool == this) {
      fatal(
          "a tine pool was destroyed by one of its own workers (from inside a task), which would "
          "wait for itself forever");
    }
    wait_until_quiescent();
    stop_and_join();
    // A task that moved in (resume_on from another scheduler) after the pool drained would wait
    // forever in a dead queue and its sync_wait caller with it: say so rather than lose it.
    for (const auto& w : m_workers) {
      if (w->context.has_submissions() || w->context.deque_size() != 0) {
        (void)pool_name;
        fatal(
            "a tine pool was destroyed while a task was still moving into it (resume_on from "
            "another scheduler after the pool had drained); destroy a pool only after every "
            "sync_wait on it has returned");
      }
    }
  }

  /// The worker a plain schedule() goes to: the caller itself if it is one of our workers (a task
  /// moving back to this pool stays local), else the next one round-robin.
  std::size_t pick_worker() noexcept {
    if (const pool_identity me = read_pool_identity(); me.pool == this) {
      return me.index;
    }
    // relaxed: only spreads submissions; any interleaving is a fine assignment.
    return m_next.fetch_add(1, std::memory_order_relaxed) % size();
  }

  worker_slot& slot(std::size_t i) noexcept { return *m_workers[i]; }
  const worker_slot& slot(std::size_t i) const noexcept { return *m_workers[i]; }
  const Policy& policy() const noexcept { return m_policy; }
  bool stopping() const noexcept {
    // acquire: pairs with the release store in stop_and_join (orders nothing else today, but a
    // worker that exits must not act on state older than the decision to stop).
    return m_stop.load(std::memory_order_acquire);
  }

  // ---- observation -------------------------------------------------------------------------
  // Every hook call of the pools goes through these two, behind `if constexpr`: with
  // no_observer they are empty and the worker loops compile to the code without observation.

  /// Calls `f(observer)` if the pool has an observer.
  template <typename F>
  TINE_ALWAYS_INLINE void notify(F&& f) noexcept {
    if constexpr (is_observed<Observer>) {
      f(m_observer.get());
    } else {
      (void)f;
    }
  }

  /// ctx.steal_from(target), reporting a successful steal (before the continuation resumes).
  TINE_ALWAYS_INLINE steal_status steal(worker_context& ctx, worker_context& target,
                                        std::size_t me, std::size_t victim) {
    if constexpr (is_observed<Observer>) {
      return ctx.steal_from(target, [&] { m_observer.get().on_steal(me, victim); });
    } else {
      (void)me;
      (void)victim;
      return ctx.steal_from(target);
    }
  }

  // ---- work accounting ----------------------------------------------------------------------
  // m_work packs two counters: the low 32 bits count workers currently running something (a
  // submission, or a steal attempt and what it runs); the high 32 bits count how many times
  // any worker started. Destruction waits for "nobody running, nothing queued, and nobody
  // started meanwhile"; lazy_pool also reads the running count to keep a thief awake.

  static constexpr std::uint64_t one_start = std::uint64_t{1} << 32U;
  static constexpr std::uint32_t running(std::uint64_t w) noexcept {
    return static_cast<std::uint32_t>(w);
  }

  /// Before taking a piece of work (so the work is never invisible: it is queued, in a deque,
  /// or counted here). Returns the number of workers running before this one.
  std::uint32_t begin_work() noexcept {
    // seq_cst: lazy_pool's sleep decision ("am I the last thief while someone runs?") reads
    // this counter after writing its thief count, and this write precedes our own thief-count
    // write: the single total order of seq_cst operations makes one side see the other.
    return running(m_work.fetch_add(one_start + 1, std::memory_order_seq_cst));
  }

  void end_work() noexcept {
    // seq_cst: see begin_work; also makes the deque pushes of the finished work visible to
    // a destructor that reads this value.
    m_work.fetch_sub(1, std::memory_order_seq_cst);
  }

  std::uint32_t running_now() const noexcept {
    // seq_cst: see begin_work.
    return running(m_work.load(std::memory_order_seq_cst));
  }

 private:
  const worker_slot& at(std::size_t i) const {
    if (i >= size()) {
      throw std::out_of_range("tine pool: worker index " + std::to_string(i) +
                              " out of range (size " + std::to_string(size()) + ")");
    }
    return *m_workers[i];
  }
  worker_slot& at(std::size_t i) { return const_cast<worker_slot&>(std::as_const(*this).at(i)); }

  static void submit_to(void* pool, std::size_t index, submit_node* node) noexcept {
    static_cast<Derived*>(pool)->schedule_to(index, node);
  }

  void thread_main(std::size_t i) {
    (void)pin_current_thread(m_topology, i);  // unpinned is slower, never wrong
    tls_pool_identity = {this, i};
    worker_context& ctx = m_workers[i]->context;
    ctx.bind();
    notify([i](Observer& o) { o.on_worker_start(i); });
    static_cast<Derived*>(this)->run_worker(i, ctx);
    notify([i](Observer& o) { o.on_worker_stop(i); });
    ctx.unbind();
    tls_pool_identity = {};
  }

  /// Polls until no worker runs anything and nothing is queued or stealable, with the start
  /// count unchanged across the checks (so no work was taken, hence none created, meanwhile).
  void wait_until_quiescent() noexcept {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
      // seq_cst: pairs with begin_work/end_work (see there).
      const std::uint64_t before = m_work.load(std::memory_order_seq_cst);
      if (running(before) == 0) {
        bool empty = true;
        for (const auto& w : m_workers) {
          empty = empty && !w->context.has_submissions() && w->context.deque_size() == 0;
        }
        if (empty && m_work.load(std::memory_order_seq_cst) == before) {
          return;
        }
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
  }

  void stop_and_join() noexcept {
    // release: see stopping().
    m_stop.store(true, std::memory_order_release);
    static_cast<Derived*>(this)->wake_all();
    for (auto& w : m_workers) {
      if (w->thread.joinable()) {
        w->thread.join();
      }
    }
  }

  tine::topology m_topology;
  cpu_claim m_claim;  // destroyed after the derived destructor has joined the workers
  Policy m_policy;
  std::vector<std::unique_ptr<worker_slot>> m_workers;
  [[no_unique_address]] observer_link<Observer> m_observer;
  alignas(64) std::atomic<std::uint64_t> m_work{0};
  alignas(64) std::atomic<std::size_t> m_next{0};
  std::atomic<bool> m_stop{false};
};

}  // namespace detail
}  // namespace tine

#endif  // TINE_SCHEDULERS_POOL_BASE_HPP
