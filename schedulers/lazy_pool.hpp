#ifndef TINE_SCHEDULERS_LAZY_POOL_HPP
#define TINE_SCHEDULERS_LAZY_POOL_HPP

/// \file lazy_pool.hpp
/// `tine::lazy_pool`: a work-stealing pool whose workers sleep when there is nothing for them
/// (libfork paper, section III-D, the "lazy" scheduler: Lin, Huang and Wong's adaptive scheme,
/// applied per NUMA node). An idle lazy_pool uses no cpu; see docs/schedulers.md.
///
/// The sleep/wake protocol (the why of every step is at the code):
/// - Workers are grouped by the NUMA node of their place. Each node counts its *thieves*: awake
///   workers that are looking for work, and its *sleepers*. The pool counts its *runners*: workers
///   running something (a submission, or a continuation they stole: a steal attempt that takes
///   nothing changes no count).
/// - A worker looks for work (its submissions, then steals; a steal attempt after each submission,
///   so submissions cannot starve continuations) for a while, then tries to sleep on its own
///   event count: it announces itself, and stays awake if it has a submission, if any deque
///   holds a continuation, or if it is its node's last thief while some worker runs.
/// - A worker about to run something becomes a runner. If it was the first runner of the pool it
///   wakes a sleeper in every other node without a thief; if it was its node's last thief it
///   wakes a sleeper of its node. So while any work runs, each node keeps a thief awake. Waking
///   reads the node's sleeper count first: one read when nobody sleeps.
/// - `worker(i).schedule` queues on worker i and wakes it (only it can pop its own queue).
///   `schedule` from outside the pool queues on the pool's shared queue, which any worker takes
///   from, and wakes the worker that last took from it, or if that one was awake (perhaps busy
///   with a long task) a sleeper of any node.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/policies/cpu_claims.hpp>
#include <tine/policies/numa_victims.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>
#include <tine/schedulers/event_count.hpp>
#include <tine/schedulers/pool_base.hpp>
#include <tine/schedulers/pool_observer.hpp>
#include <tine/schedulers/spin_backoff.hpp>

namespace tine {

/// A work-stealing pool whose idle workers sleep; same interface as busy_pool.
///
/// `Observer` (default `no_observer`: none, compiled away) receives the workers' events; see
/// pool_observer.hpp and docs/observability.md. A pool with an observer is built from a reference
/// to it, which must outlive the pool: `tine::lazy_pool pool(2, my_observer);`.
template <victim_policy Policy = numa_victims, typename Observer = no_observer>
class lazy_pool : public detail::pool_base<lazy_pool<Policy, Observer>, Policy, Observer> {
  static_assert(detail::check_pool_observer<Observer>());
  using base = detail::pool_base<lazy_pool<Policy, Observer>, Policy, Observer>;
  friend base;

 public:
  /// Rounds a worker keeps looking for work before it tries to sleep: a few pause bursts, then
  /// yields (tens of microseconds in all), so a burst of small root tasks does not pay a
  /// futex wake-up each.
  static constexpr std::uint32_t spin_rounds = detail::spin_backoff::pause_rounds + 16;

  /// `n` workers pinned to the cores the process's other pools use least: the first pool gets
  /// `topology::discover(n)`, a second one built while it lives starts on the cores it left free
  /// (`claim_least_used_cores`, cpu_claims.hpp). Throws std::invalid_argument if n == 0.
  explicit lazy_pool(std::size_t n = detail::default_worker_count())
    requires(!detail::is_observed<Observer>)
      : lazy_pool(claim_cores_for(n), detail::observer_link<Observer>{}) {}

  /// As lazy_pool(n), reporting to `observer` (which must outlive the pool).
  lazy_pool(std::size_t n, Observer& observer)
    requires detail::is_observed<Observer>
      : lazy_pool(claim_cores_for(n), detail::observer_link<Observer>(observer)) {}

  /// One worker per place of `topo`, pinned exactly there where the place has a cpu, grouped by
  /// `topo.numa_node(i)`: a layout of your own, such as `topology::discover(n, cpus)` on chosen
  /// cpus (a synthetic topology tests the per-node logic on any machine; it runs unpinned). Its
  /// cpus count as used while the pool lives, so pools built from a worker count avoid them.
  explicit lazy_pool(tine::topology topo)
    requires(!detail::is_observed<Observer>)
      : lazy_pool(claim_cores(std::move(topo)), detail::observer_link<Observer>{}) {}

  /// As lazy_pool(topo), reporting to `observer` (which must outlive the pool).
  lazy_pool(tine::topology topo, Observer& observer)
    requires detail::is_observed<Observer>
      : lazy_pool(claim_cores(std::move(topo)), detail::observer_link<Observer>(observer)) {}

  /// Waits until every piece of work given to the pool has finished, then stops the workers.
  ~lazy_pool() { this->shutdown("lazy_pool"); }

  /// Queues `node` for the pool; any thread. From one of the pool's own workers, a task coming
  /// back here stays with that worker; a new root (spawned by a task here), or a node from
  /// elsewhere, goes to the shared queue, and a sleeping worker is woken to take it (any worker
  /// that looks first may).
  void schedule(submit_node* node) noexcept {
    if (this->place(node) == this->size()) {
      wake_for_shared();
    }
  }

 private:
  lazy_pool(claimed_topology placed, detail::observer_link<Observer> link)
      : base(std::move(placed), std::move(link), "lazy_pool"),
        m_sleep(std::make_unique<event_count[]>(this->size())),
        m_nodes(std::make_unique<node_state[]>(this->topology().numa_nodes())) {
    for (std::size_t i = 0; i < this->size(); ++i) {
      node_state& n = m_nodes[this->topology().numa_node(i)];
      n.members.push_back(i);
      // Every worker starts as a thief; it leaves the count when it first goes to sleep.
      // relaxed: the threads do not exist yet; starting them publishes this.
      n.thieves.fetch_add(1, std::memory_order_relaxed);
      m_node_of.push_back(this->topology().numa_node(i));
    }
    this->start();
  }

  struct alignas(64) node_state {
    std::atomic<std::uint32_t> thieves{0};
    // Workers of the node between announcing a sleep (after their prepare_wait) and waking.
    std::atomic<std::uint32_t> sleepers{0};
    std::atomic<std::uint32_t> next_wake{0};
    std::vector<std::size_t> members;
  };

  static claimed_topology claim_cores_for(std::size_t n) {
    if (n == 0) {
      detail::throw_no_workers("lazy_pool");
    }
    return claim_least_used_cores(n);
  }

  void schedule_to(std::size_t i, submit_node* node) noexcept {
    // submit() returns false when an earlier submission is still unpublished to the worker: its
    // submitter wakes the worker (and the worker cannot sleep while the queue is non-empty, see
    // try_sleep), so one wake-up per batch is enough.
    if (this->slot(i).context.submit(node)) {
      m_sleep[i].notify_one();
    }
  }

  void wake_all() noexcept {
    for (std::size_t i = 0; i < this->size(); ++i) {
      m_sleep[i].notify_one();
    }
  }

  /// After a push to the shared queue: makes sure a worker comes to take it. The worker that last
  /// took a shared submission (its core the likeliest to be awake) is told through its own event
  /// count, which cannot lose the wake-up: it either sees the submission in try_sleep or is
  /// woken. If it was not asleep it may be running a long task, so a sleeper of any node is woken
  /// instead if there is one (a best effort: a worker that falls asleep just now re-checks the
  /// queue in try_sleep anyway).
  void wake_for_shared() noexcept {
    // relaxed: only a preference.
    if (m_sleep[m_last_taker.load(std::memory_order_relaxed)].notify_one()) {
      return;
    }
    for (std::size_t h = 0; h < this->topology().numa_nodes(); ++h) {
      if (wake_one_in(h)) {
        return;
      }
    }
  }

  /// Wakes one sleeping worker of node `g`, if any sleeps; returns whether it woke one. Rotates
  /// the starting point so wake-ups spread over the node.
  bool wake_one_in(std::size_t g) noexcept {
    node_state& n = m_nodes[g];
    // seq_cst: our caller's preceding seq_cst read-modify-write of a thief count (or seq_cst read
    // of another node's) read the value a sleeper's decrement wrote, or a later one; that
    // sleeper counted itself here before decrementing, so we see it (see try_sleep). A sleeper
    // not counted yet has not decided: its own checks will see the runner we are about to be.
    if (n.sleepers.load(std::memory_order_seq_cst) == 0) {
      return false;
    }
    // relaxed: only spreads the choice.
    const std::size_t start = n.next_wake.fetch_add(1, std::memory_order_relaxed);
    for (std::size_t k = 0; k < n.members.size(); ++k) {
      // notify_one's read-modify-write pairs with the sleeper's prepare_wait (event_count.hpp).
      if (m_sleep[n.members[(start + k) % n.members.size()]].notify_one()) {
        return true;
      }
    }
    return false;
  }

  /// The calling worker (of node g) is about to run something it took (a submission still
  /// queued, or a continuation it just stole).
  void become_runner(std::size_t g) noexcept {
    // Runner count first, thief count second: a thief deciding to sleep writes its thief count
    // and then reads the runner count (try_sleep), the mirror image; with both seq_cst, at least
    // one of the two sees the other.
    if (m_running.fetch_add(1, std::memory_order_seq_cst) == 0) {
      // First runner of the pool: nodes whose every worker sleeps need a thief now.
      for (std::size_t h = 0; h < this->topology().numa_nodes(); ++h) {
        // seq_cst: pairs with the thief's decrement in try_sleep (see above).
        if (h != g && m_nodes[h].thieves.load(std::memory_order_seq_cst) == 0) {
          wake_one_in(h);
        }
      }
    }
    // seq_cst: as above. If we were the node's last thief, someone else must look for work.
    if (m_nodes[g].thieves.fetch_sub(1, std::memory_order_seq_cst) == 1) {
      wake_one_in(g);
    }
  }

  void become_thief(std::size_t g) noexcept {
    // Thief first, then not a runner: the node never looks thief-less and idle because of us.
    // seq_cst: as in become_runner.
    m_nodes[g].thieves.fetch_add(1, std::memory_order_seq_cst);
    // seq_cst: see become_runner.
    m_running.fetch_sub(1, std::memory_order_seq_cst);
  }

  /// What this pool does around the work a worker takes: a runner while it runs (its node's
  /// thief count and the pool's runner count drive the sleep protocol, become_runner), and which
  /// worker took the last shared submission (the one woken for the next).
  struct node_runner {
    lazy_pool* pool;
    std::size_t me;
    std::size_t g;
    void taken() noexcept { pool->become_runner(g); }
    void done() noexcept { pool->become_thief(g); }
    void took_shared() noexcept {
      // relaxed: a preference; written only when it changes.
      if (pool->m_last_taker.load(std::memory_order_relaxed) != me) {
        pool->m_last_taker.store(me, std::memory_order_relaxed);
      }
    }
  };

  /// One look for work (pool_base::look_for_work); true if it found (and ran) some, or should
  /// look again at once. A runner only once something was taken: a lost race or an empty deque
  /// costs no shared write. Until become_runner a stolen continuation is in no deque and no
  /// count, which the sleep protocol allows: whoever decides to sleep meanwhile is woken by that
  /// become_runner if it leaves a node without a thief (see try_sleep).
  template <typename Watch>
  bool try_work(std::size_t me, worker_context& ctx, xoshiro256ss& rng, bool& deques_next,
                const Watch& watch) {
    node_runner runner{this, me, m_node_of[me]};
    return this->look_for_work(me, ctx, rng, deques_next, runner, watch) !=
           base::look_outcome::nothing;
  }

  bool any_stealable() const noexcept {
    for (std::size_t i = 0; i < this->size(); ++i) {
      if (this->slot(i).context.deque_size() != 0) {
        return true;
      }
    }
    return false;
  }

  enum class sleep_outcome { slept, stayed_awake, stop };

  /// Sleeps unless something needs this worker awake.
  template <typename Watch>
  sleep_outcome try_sleep(std::size_t me, worker_context& ctx, const Watch& watch) {
    event_count& ec = m_sleep[me];
    node_state& node = m_nodes[m_node_of[me]];
    // Announce first, check second: a submitter or a new runner that changes what we check
    // after this point sees our announcement and wakes us (event_count's guarantee).
    const event_count::key k = ec.prepare_wait();
    // seq_cst: counted before our thief-count decrement below, which a waker reads (see
    // wake_one_in); uncounted on every way out.
    node.sleepers.fetch_add(1, std::memory_order_seq_cst);
    const auto stay_awake = [&] {
      node.sleepers.fetch_sub(1, std::memory_order_relaxed);  // relaxed: we are awake after all
      ec.cancel_wait();
    };
    // any_stealable covers our own deque: only we push to it, and only while running a task, so
    // a continuation left there (say, by a child that moved away with resume_on) keeps us awake
    // until we take it; nobody else may ever do so.
    if (ctx.has_submissions() || !this->shared_empty() || any_stealable()) {
      stay_awake();
      return sleep_outcome::stayed_awake;
    }
    if (this->stopping()) {
      stay_awake();
      return sleep_outcome::stop;
    }
    // seq_cst, both: see become_runner. The last thief of a node stays awake while any worker
    // runs: that work may fork continuations for it to steal.
    if (node.thieves.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        m_running.load(std::memory_order_seq_cst) != 0) {
      node.thieves.fetch_add(1, std::memory_order_seq_cst);
      stay_awake();
      return sleep_outcome::stayed_awake;
    }
    this->slot(me).counters.slept();
    watch([me](auto& o) { o.on_sleep(me); });
    ec.commit_wait(k);
    // relaxed: awake; a waker that still counts us only looks for a sleeper in vain.
    node.sleepers.fetch_sub(1, std::memory_order_relaxed);
    watch([me](auto& o) { o.on_wake(me); });
    // seq_cst: as in become_runner. Awake again, hence a thief.
    node.thieves.fetch_add(1, std::memory_order_seq_cst);
    return sleep_outcome::slept;
  }

  template <typename Watch>
  void run_worker(std::size_t me, worker_context& ctx, const Watch& watch) {
    xoshiro256ss rng(me);
    detail::spin_backoff backoff;
    bool deques_next = false;  // see try_work
    for (;;) {
      if (try_work(me, ctx, rng, deques_next, watch)) {
        backoff.reset();
        continue;
      }
      if (backoff.rounds() < spin_rounds) {
        backoff.idle();
        continue;
      }
      switch (try_sleep(me, ctx, watch)) {
        case sleep_outcome::slept:
          backoff.reset();
          break;
        case sleep_outcome::stayed_awake:
          backoff.idle();  // still past spin_rounds: yield, look once more, try again
          break;
        case sleep_outcome::stop:
          return;
      }
    }
  }

  std::unique_ptr<event_count[]> m_sleep;  // one per worker: a submission must wake its target
  std::unique_ptr<node_state[]> m_nodes;
  std::vector<std::size_t> m_node_of;
  // Workers running something they took; written on every submission and successful steal.
  alignas(64) std::atomic<std::uint32_t> m_running{0};
  // The worker that last took a shared submission: the one woken for the next.
  alignas(64) std::atomic<std::size_t> m_last_taker{0};
};

/// `tine::lazy_pool pool;` (and with a worker count or a topology): the default victim policy.
lazy_pool() -> lazy_pool<>;
lazy_pool(std::size_t) -> lazy_pool<>;
lazy_pool(tine::topology) -> lazy_pool<>;
template <typename Observer>
lazy_pool(std::size_t, Observer&) -> lazy_pool<numa_victims, Observer>;
template <typename Observer>
lazy_pool(tine::topology, Observer&) -> lazy_pool<numa_victims, Observer>;

static_assert(scheduler<lazy_pool<>>);

}  // namespace tine

#endif  // TINE_SCHEDULERS_LAZY_POOL_HPP
