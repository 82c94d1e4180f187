#ifndef TINE_SCHEDULERS_BUSY_POOL_HPP
#define TINE_SCHEDULERS_BUSY_POOL_HPP

/// \file busy_pool.hpp
/// `tine::busy_pool`: one pinned worker per requested core, each looking for work all the time
/// (libfork paper, section III-D, the "busy" scheduler). The lowest latency, at the price of
/// keeping every worker's core busy even when there is nothing to do: an idle busy_pool costs
/// about one core-second per second per worker (it yields the core to other runnable threads,
/// but never sleeps). See docs/schedulers.md.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <thread>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/policies/cpu_claims.hpp>
#include <tine/policies/numa_victims.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>
#include <tine/schedulers/pool_base.hpp>
#include <tine/schedulers/pool_observer.hpp>
#include <tine/schedulers/spin_backoff.hpp>

namespace tine {

/// A work-stealing pool whose workers never sleep.
///
/// - `schedule(node)` (any thread): a worker of this pool submitting a task coming back here
///   queues on itself; new roots (spawned by its tasks) and anyone else's submissions go to the
///   pool's shared queue, which every worker takes from. `worker(i).schedule(node)` queues on
///   worker i, which alone runs it.
/// - Each worker loops: one look for work (pool_base::look_for_work: a submission of its own
///   queue or of the shared queue, or one continuation from a victim named by `Policy`, its own
///   deque first; after a submission the next look is a steal attempt, so submissions never
///   starve continuations); when there was none, back off (pause, then yield).
/// - Destruction waits until the pool holds no work (see docs/schedulers.md, "Destruction").
///
/// `Observer` (default `no_observer`: none, compiled away) receives the workers' events; see
/// pool_observer.hpp and docs/observability.md. A pool with an observer is built from a reference
/// to it, which must outlive the pool: `tine::busy_pool pool(2, my_observer);`.
template <victim_policy Policy = numa_victims, typename Observer = no_observer>
class busy_pool : public detail::pool_base<busy_pool<Policy, Observer>, Policy, Observer> {
  static_assert(detail::check_pool_observer<Observer>());
  using base = detail::pool_base<busy_pool<Policy, Observer>, Policy, Observer>;
  friend base;

 public:
  /// `n` workers pinned to the cores the process's other pools use least: the first pool gets
  /// `topology::discover(n)`, a second one built while it lives starts on the cores it left free
  /// (`claim_least_used_cores`, cpu_claims.hpp). Throws std::invalid_argument if n == 0.
  explicit busy_pool(std::size_t n = detail::default_worker_count())
    requires(!detail::is_observed<Observer>)
      : base(claim_cores_for(n), {}, "busy_pool") {
    this->start();
  }

  /// As busy_pool(n), reporting to `observer` (which must outlive the pool).
  busy_pool(std::size_t n, Observer& observer)
    requires detail::is_observed<Observer>
      : base(claim_cores_for(n), detail::observer_link<Observer>(observer)) {
    this->start();
  }

  /// One worker per place of `topo`, pinned exactly there where the place has a cpu (a
  /// synthetic topology runs unpinned): a layout of your own, such as
  /// `topology::discover(n, cpus)` on chosen cpus, or NUMA logic under test. Its cpus count as
  /// used while the pool lives, so pools built from a worker count avoid them.
  explicit busy_pool(tine::topology topo)
    requires(!detail::is_observed<Observer>)
      : base(claim_cores(std::move(topo)), {}, "busy_pool") {
    this->start();
  }

  /// As busy_pool(topo), reporting to `observer` (which must outlive the pool).
  busy_pool(tine::topology topo, Observer& observer)
    requires detail::is_observed<Observer>
      : base(claim_cores(std::move(topo)), detail::observer_link<Observer>(observer)) {
    this->start();
  }

  /// Waits until every piece of work given to the pool has finished, then stops the workers.
  ~busy_pool() { this->shutdown("busy_pool"); }

  /// Queues `node` for the pool; any thread. From one of the pool's own workers (a task moving
  /// back here) it stays with that worker; from elsewhere, the first worker to look takes it.
  void schedule(submit_node* node) noexcept { (void)this->place(node); }

 private:
  static claimed_topology claim_cores_for(std::size_t n) {
    if (n == 0) {
      detail::throw_no_workers("busy_pool");
    }
    return claim_least_used_cores(n);
  }

  void schedule_to(std::size_t i, submit_node* node) noexcept {
    (void)this->slot(i).context.submit(node);
  }

  void wake_all() noexcept {}  // nobody sleeps

  template <typename Watch>
  void run_worker(std::size_t me, worker_context& ctx, const Watch& watch) {
    xoshiro256ss rng(me);
    detail::spin_backoff backoff;
    typename base::no_runner runner;
    bool deques_next = false;  // see pool_base::look_for_work; a plain local, nothing shared
    for (;;) {
      const auto found = this->look_for_work(me, ctx, rng, deques_next, runner, watch);
      if (found == base::look_outcome::worked) {
        backoff.reset();
        continue;
      }
      if (found == base::look_outcome::look_again) {
        continue;
      }
      if (this->stopping() && !ctx.has_submissions() && ctx.deque_size() == 0 &&
          this->shared_empty()) {
        break;
      }
      backoff.idle();
    }
  }
};

/// `tine::busy_pool pool;` (and with a worker count or a topology): the default victim policy.
busy_pool() -> busy_pool<>;
busy_pool(std::size_t) -> busy_pool<>;
busy_pool(tine::topology) -> busy_pool<>;
template <typename Observer>
busy_pool(std::size_t, Observer&) -> busy_pool<numa_victims, Observer>;
template <typename Observer>
busy_pool(tine::topology, Observer&) -> busy_pool<numa_victims, Observer>;

static_assert(scheduler<busy_pool<>>);

}  // namespace tine

#endif  // TINE_SCHEDULERS_BUSY_POOL_HPP
