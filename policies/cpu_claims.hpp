#ifndef TINE_POLICIES_CPU_CLAIMS_HPP
#define TINE_POLICIES_CPU_CLAIMS_HPP

/// \file cpu_claims.hpp
/// The process-wide record of which cpus pool workers are pinned to, so that two pools of one
/// program do not pin their workers to the same cores while others idle.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <vector>

#include <tine/policies/topology.hpp>

namespace tine {

struct claimed_topology;

/// A pool's entry in the process-wide count of workers pinned to each cpu.
///
/// While a claim lives, each place of the topology it was made from counts once on that place's
/// cpu (places without a cpu count nowhere). Destroying the claim, or moving from it, takes its
/// counts back. busy_pool and lazy_pool hold one for their lifetime: made from their topology when
/// given one (the workers are pinned exactly there), or by claim_least_used_cores() when given a
/// worker count. A scheduler of your own that pins threads can hold one too, so that the pools
/// avoid its cpus.
///
/// Thread-safe: the counts are behind one mutex, taken only to make, release and read claims
/// (pool construction and destruction), never by a running worker.
class cpu_claim {
 public:
  /// Claims nothing.
  cpu_claim() noexcept = default;

  /// Counts one worker on the cpu of every place of `topo` that has one.
  explicit cpu_claim(const topology& topo);

  cpu_claim(cpu_claim&& other) noexcept;
  cpu_claim& operator=(cpu_claim&& other) noexcept;
  cpu_claim(const cpu_claim&) = delete;
  cpu_claim& operator=(const cpu_claim&) = delete;

  /// Takes this claim's counts back.
  ~cpu_claim();

  /// The cpus this claim counts on, one entry per place with a cpu (in place order).
  const std::vector<unsigned>& cpus() const noexcept { return m_cpus; }

  /// How many workers the live claims of the process count on `cpu` now.
  static std::size_t workers_on(unsigned cpu);

 private:
  friend claimed_topology claim_least_used_cores(std::size_t n_workers);
  std::vector<unsigned> m_cpus;
};

/// A topology and the claim on its cpus.
struct claimed_topology {
  tine::topology places;
  cpu_claim claim;
};

/// Lays `n_workers` on the cores the live claims use least (topology::discover_avoiding over
/// their counts) and claims them, under the claims' lock: two pools built at the same time from
/// two threads do not both pick the same free core. The first pool of a process gets exactly
/// topology::discover(n_workers); a second, built while the first lives, starts on the cores the
/// first left free. Throws as topology::discover(n_workers).
claimed_topology claim_least_used_cores(std::size_t n_workers);

/// Claims `topo`'s cpus as they are: the pools' layout when given a topology.
claimed_topology claim_cores(tine::topology topo);

}  // namespace tine

#endif  // TINE_POLICIES_CPU_CLAIMS_HPP
