#ifndef TINE_SCHEDULERS_POOL_BASE_HPP
#define TINE_SCHEDULERS_POOL_BASE_HPP

/// \file pool_base.hpp
/// What busy_pool and lazy_pool share: the workers (threads, contexts, counters, handles), the
/// topology and victim policy, choosing a worker for a submission, the per-worker activity that
/// destruction waits on, and the destruction itself. Each pool supplies its worker loop and its
/// way of waking a worker (CRTP, no virtual calls). The link to the observer is in
/// pool_observation.hpp, the defaults (worker count, fence) in pool_defaults.hpp.

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

#include <tine/core/owner_fence.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/core/worker_hooks.hpp>
#include <tine/policies/cpu_claims.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>
#include <tine/schedulers/env_observer.hpp>
#include <tine/schedulers/liveness.hpp>
#include <tine/schedulers/pool_defaults.hpp>
#include <tine/schedulers/pool_observation.hpp>
#include <tine/schedulers/pool_observer.hpp>
#include <tine/schedulers/pool_worker.hpp>
#include <tine/schedulers/shared_submissions.hpp>
#include <tine/schedulers/worker_activity.hpp>
#include <tine/schedulers/worker_stats.hpp>

namespace tine {
namespace detail {

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
  pool_worker& worker(std::size_t i) {
    check_alive();
    return *at(i).handle;
  }

  /// A snapshot of worker i's counters. Throws std::out_of_range if i >= size().
  worker_stats stats(std::size_t i) const { return at(i).counters.snapshot(); }

  /// Work the pool's destructor waits for that no queue of it shows: roots spawned on it
  /// (tine::spawn) and its tasks suspended on a future. tine counts it (scheduler_ref.hpp).
  std::atomic<std::size_t>& pending_work() noexcept { return m_pending; }

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
    explicit worker_slot(std::size_t workers) : context(1024, detail::pool_owner_fence(workers)) {}

    worker_context context;
    // Written by the worker alone; read by stats() and the destructor.
    alignas(64) worker_counters counters;
    worker_activity activity;
    std::unique_ptr<pool_worker> handle;
    std::thread thread;
  };

  /// The pool's places and its claim on their cpus, held until the pool is gone (after its
  /// workers are joined), so that pools built meanwhile avoid those cpus.
  explicit pool_base(claimed_topology placed, observer_link<Observer> link = {},
                     const char* pool_name = "pool")
      : m_topology(std::move(placed.places)),
        m_claim(std::move(placed.claim)),
        m_policy(m_topology),
        m_observer(std::move(link)) {
    if constexpr (!is_observed<Observer>) {
      m_env.observer = env_observer::from_environment(pool_name);
      if (TINE_UNLIKELY(m_env.observer != nullptr)) {
        m_env.link = std::make_unique<observer_link<env_observer>>(*m_env.observer);
      }
    } else {
      (void)pool_name;
    }
    m_workers.reserve(m_topology.size());
    for (std::size_t i = 0; i < m_topology.size(); ++i) {
      m_workers.push_back(std::make_unique<worker_slot>(m_topology.size()));
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
      // A task of this pool awaiting a future comes back through the pool (and wakes it).
      m_workers[i]->context.set_scheduler(*self);
    }
    if constexpr (is_observed<Observer>) {
      m_observer.attach(size());
      for (std::size_t i = 0; i < size(); ++i) {
        m_workers[i]->context.observe(m_observer.binding(i));
      }
    } else if (m_env.link != nullptr) {
      m_env.link->attach(size());
      for (std::size_t i = 0; i < size(); ++i) {
        m_workers[i]->context.observe(m_env.link->binding(i));
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
    m_liveness.check(
        "a tine pool was destroyed twice (its destructor ran again on the same object)");
    if (read_pool_identity().pool == this) {
      fatal(
          "a tine pool was destroyed by one of its own workers (from inside a task), which would "
          "wait for itself forever");
    }
    wait_for_pending();
    wait_until_quiescent();
    stop_and_join();
    // A task that moved in (resume_on from another scheduler) after the pool drained would wait
    // forever in a dead queue and its sync_wait caller with it: say so rather than lose it.
    for (const auto& w : m_workers) {
      if (!m_shared.empty() || w->context.has_submissions() || w->context.deque_size() != 0) {
        (void)pool_name;
        fatal(
            "a tine pool was destroyed while a task was still moving into it (resume_on from "
            "another scheduler after the pool had drained); destroy a pool only after every "
            "sync_wait on it has returned");
      }
    }
    m_liveness.end();
  }

  /// Ends the program with a message if the pool's destructor has run (see liveness.hpp); called
  /// where work comes in.
  void check_alive() const noexcept {
    m_liveness.check(
        "a tine pool (busy_pool or lazy_pool) was used after it was destroyed: work was "
        "submitted to it (sync_wait, an algorithm, resume_on) after its destructor had stopped "
        "its workers, and would never run; keep a pool alive until every use of it has returned");
  }

  /// Queues a plain schedule()'s `node`: a worker of this pool queues a task coming back on
  /// itself (it stays local, and its worker is awake); a new root (submit_node::starts_root: a
  /// spawn from a task of this pool) and anyone else's submission go to the shared queue, which
  /// every worker looks at, so that no busy worker holds it up (a worker that spawned two roots
  /// would otherwise run them one after the other). Returns the worker whose own queue took it,
  /// or size() for the shared queue.
  std::size_t place(submit_node* node) noexcept {
    check_alive();
    if (const pool_identity me = read_pool_identity(); me.pool == this && !node->starts_root) {
      (void)slot(me.index).context.submit(node);
      return me.index;
    }
    m_shared.push(node);
    return size();
  }

  /// Whether the shared queue is empty (a snapshot).
  bool shared_empty() const noexcept { return m_shared.empty(); }

  /// What one look for work found (look_for_work).
  enum class look_outcome {
    worked,      ///< it ran a submission or a stolen continuation
    look_again,  ///< nothing ran, but work is about: a lost race, or it skipped the queues
    nothing      ///< nothing to do: the pool may back off or sleep
  };

  /// One look for work by worker `me`, the step both pools' loops repeat, each around it with its
  /// own idling (busy_pool spins, lazy_pool sleeps). In order:
  /// - its own submissions, then the shared ones, unless its own deque holds continuations (they
  ///   go first, newest first, so that a task moving here cannot end by taking back a
  ///   continuation its parent pushed in a later strand: docs/extending.md) or the last look ran
  ///   a submission (`deques_next`, the loop's: a task that moves back here with resume_on in a
  ///   loop, waiting for its parent's continuation, must not keep the worker on submissions
  ///   forever, so submissions and steal attempts alternate while both are about);
  /// - a steal: from its own deque if that holds continuations (after a resume_on nobody else
  ///   may take them soon), else from the victim the policy picks, probed first (an empty deque
  ///   costs no stack check and no activity stores).
  /// `runner` is what the pool does around work it took: `taken()` once a piece is taken, before
  /// it runs, `done()` after it ran, `took_shared()` after taking a shared submission
  /// (no_runner: nothing). `watch` reports the events (watched<Observer> or env_watch).
  template <typename Runner, typename Watch>
  look_outcome look_for_work(std::size_t me, worker_context& ctx, xoshiro256ss& rng,
                             bool& deques_next, Runner& runner, const Watch& watch) {
    auto& counters = slot(me).counters;
    const bool deques_first = deques_next || ctx.deque_size() != 0;
    deques_next = false;
    if (!deques_first && ctx.has_submissions()) {
      // Counted before it runs: a sync_wait that returns has then seen its submission counted.
      counters.submission_run();
      watch([me](auto& o) { o.on_submission(me); });
      begin_work(me);
      runner.taken();
      ctx.run_one_submission();
      runner.done();
      end_work(me);
      watch([me](auto& o) { o.on_work_done(me); });
      deques_next = true;
      return look_outcome::worked;
    }
    if (!deques_first && run_shared_submission(
                             me, ctx,
                             [&runner] {
                               runner.taken();
                               runner.took_shared();
                             },
                             [&runner] { runner.done(); }, watch)) {
      deques_next = true;
      return look_outcome::worked;
    }
    const look_outcome idle = deques_first ? look_outcome::look_again : look_outcome::nothing;
    const std::size_t victim = ctx.deque_size() != 0 ? me : policy().next_victim(me, rng);
    worker_context& target = slot(victim).context;
    counters.steal_attempted();
    watch([me, victim](auto& o) { o.on_steal_attempt(me, victim); });
    if (target.deque_size() == 0) {
      return idle;
    }
    begin_work(me);
    const steal_status got = steal(
        ctx, target, me, victim, [&runner] { runner.taken(); }, watch);
    end_work(me);
    if (got == steal_status::success) {
      runner.done();
      counters.steal_succeeded();
      watch([me](auto& o) { o.on_work_done(me); });
      return look_outcome::worked;
    }
    return got == steal_status::lost ? look_outcome::look_again : idle;
  }

  /// A pool that does nothing around the work its workers take.
  struct no_runner {
    void taken() noexcept {}
    void done() noexcept {}
    void took_shared() noexcept {}
  };

  /// Worker `me`: takes one submission from the shared queue, if there is one and no other
  /// worker is taking one, and runs it between `before()` and `after()`. Returns whether it ran
  /// one. When memory is too short to run it now, the submission goes back to the queue (the
  /// worker's submissions_run then counts one that did not run).
  template <typename Before, typename After, typename Watch>
  bool run_shared_submission(std::size_t me, worker_context& ctx, Before&& before, After&& after,
                             const Watch& watch) {
    if (m_shared.empty()) {
      return false;
    }
    begin_work(me);  // before the taking, as always (see worker_activity)
    submit_node* node = m_shared.try_take();
    if (node == nullptr) {
      end_work(me);
      return false;
    }
    // Counted before it runs: a sync_wait that returns has then seen its submission counted.
    slot(me).counters.submission_run();
    watch([me](auto& o) { o.on_submission(me); });
    before();
    bool ran = true;
    try {
      ctx.run_submitted(node);
    } catch (const std::bad_alloc&) {
      m_shared.push(node);  // not run: let a worker (maybe this one, later) try again
      ran = false;
    }
    after();
    end_work(me);
    watch([me](auto& o) { o.on_work_done(me); });
    return ran;
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
  // Every hook call of the pools goes through a watch: watched<Observer> for a pool with an
  // observer, env_watch for one without (see env_observer.hpp).

  /// ctx.steal_from(target), calling `on_taken()` and reporting the steal once a continuation was
  /// taken, before it resumes.
  template <typename OnTaken, typename Watch>
  TINE_ALWAYS_INLINE steal_status steal(worker_context& ctx, worker_context& target, std::size_t me,
                                        std::size_t victim, OnTaken&& on_taken,
                                        const Watch& watch) {
    return ctx.steal_from(target, [&] {
      on_taken();
      watch([me, victim](auto& o) { o.on_steal(me, victim); });
    });
  }

  // ---- work accounting ----------------------------------------------------------------------
  // Only for the destructor, which waits until no work is left: each worker announces in its own
  // worker_activity that it is taking or running a piece of work. Two plain stores to the
  // worker's own line per piece, no shared read-modify-write (lazy_pool counts its runners
  // separately, for its sleep protocol, and only for work actually taken).

  /// Owner `me`: about to take a piece of work (before the taking, so it is never invisible).
  TINE_ALWAYS_INLINE void begin_work(std::size_t me) noexcept { slot(me).activity.begin(); }

  /// Owner `me`: done with it (or the attempt to take it failed).
  TINE_ALWAYS_INLINE void end_work(std::size_t me) noexcept { slot(me).activity.end(); }

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
    static_cast<Derived*>(pool)->check_alive();
    static_cast<Derived*>(pool)->schedule_to(index, node);
  }

  void thread_main(std::size_t i) {
    (void)pin_current_thread(m_topology, i);  // unpinned is slower, never wrong
    tls_pool_identity = {this, i};
    worker_context& ctx = m_workers[i]->context;
    ctx.bind();
    if constexpr (is_observed<Observer>) {
      run_watched(i, ctx, watched<Observer>{&m_observer.get()});
    } else {
      run_watched(i, ctx, env_watch{m_env.observer.get()});
    }
    ctx.unbind();
    tls_pool_identity = {};
  }

  template <typename Watch>
  void run_watched(std::size_t i, worker_context& ctx, const Watch& watch) {
    watch([i](auto& o) { o.on_worker_start(i); });
    static_cast<Derived*>(this)->run_worker(i, ctx, watch);
    watch([i](auto& o) { o.on_worker_stop(i); });
  }

  /// Sleeps until no spawned root and no task awaiting a future is left (pending_work).
  void wait_for_pending() const noexcept {
    auto pause = std::chrono::microseconds(20);
    // acquire: pairs with the release decrements, so what those pieces of work did is done.
    while (m_pending.load(std::memory_order_acquire) != 0) {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
  }

  /// Polls until no worker is busy and nothing is queued or stealable, with every worker's
  /// activity unchanged across the checks (so no work was taken, hence none created, meanwhile).
  /// A worker announces a piece of work before taking it and the taking releases that
  /// announcement (worker_activity.hpp), while the queue and deque reads below acquire: a look
  /// that finds work gone therefore finds its taker busy, or its activity changed.
  void wait_until_quiescent() const noexcept {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
      // The counters only grow, so an unchanged sum means every one is unchanged.
      std::uint64_t before = 0;
      bool idle = true;
      for (const auto& w : m_workers) {
        const std::uint64_t e = w->activity.read();
        before += e;
        idle = idle && !worker_activity::busy(e);
      }
      if (idle) {
        bool empty = m_shared.empty();
        for (const auto& w : m_workers) {
          empty = empty && !w->context.has_submissions() && w->context.deque_size() == 0;
        }
        std::uint64_t after = 0;
        for (const auto& w : m_workers) {
          after += w->activity.read();
        }
        if (empty && after == before) {
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
  // After m_workers: destroyed first, once the derived destructor has joined the workers.
  [[no_unique_address]] env_observation<Observer> m_env;
  // Its own line: idle busy workers poll it (the shared queue aligns its own lines).
  alignas(64) std::atomic<bool> m_stop{false};
  liveness m_liveness;  // read where work comes in, written once: beside m_stop, also read-mostly
  shared_submissions m_shared;
  // Its own line: spawns from outside and completions on the workers write it.
  alignas(64) std::atomic<std::size_t> m_pending{0};
};

}  // namespace detail
}  // namespace tine

#endif  // TINE_SCHEDULERS_POOL_BASE_HPP
