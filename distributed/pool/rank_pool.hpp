#ifndef TINE_DISTRIBUTED_POOL_RANK_POOL_HPP
#define TINE_DISTRIBUTED_POOL_RANK_POOL_HPP

/// \file rank_pool.hpp
/// What `tine::mpi_pool` is on each rank, apart from its victim policy (internal): the pool's
/// communicator, the uni-address region, the rank's workers (the constructing thread and
/// `workers_per_rank - 1` threads of the pool's), their contexts and (with more than one rank)
/// their lanes and the rank's `rank_worker`, the idle workers' look for work, and the
/// collective run of one root task. The policy, a template parameter of `mpi_pool`, reaches the
/// steal loop as function pointers.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <tine/core/root_sink.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>
#include <tine/distributed/pool/pool_hooks.hpp>
#include <tine/distributed/pool_counters.hpp>
#include <tine/distributed/pool_options.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>

namespace tine::mpi::detail {

class offer_slot;
class rank_worker;
class worker_lane;

/// The victim policy as the steal loop calls it: `next(policy, thief, rng)`.
struct victim_chooser {
  std::size_t (*next)(const void* policy, std::size_t thief, xoshiro256ss& rng);
  const void* policy;
};

/// The victims of a root's steals: among the ranks, and among the workers of a rank.
struct victim_choosers {
  victim_chooser ranks;
  victim_chooser workers;
};

/// Also the pool as the layer above it sees it (a `resource_host`, pool_hooks.hpp): global
/// vectors are made on it through that interface alone.
class rank_pool final : public resource_host {
 public:
  /// The least address space each stacklet of a worker takes in its slice (committed only as
  /// touched). A stolen continuation moves with its frame and its stack allocations: in one
  /// piece while they share a stacklet, in several (each a round trip more) when they do not,
  /// which stacklets this large make rare.
  static constexpr std::size_t min_stacklet_bytes = std::size_t{8} << 20;

  /// Collective over `options.comm` (see mpi_pool's constructor).
  explicit rank_pool(const pool_options& options);

  /// Collective. On the constructing thread: stops the pool's threads.
  ~rank_pool();

  rank_pool(const rank_pool&) = delete;
  rank_pool& operator=(const rank_pool&) = delete;

  int rank() const noexcept override { return m_rank; }
  int size() const noexcept override { return m_size; }
  std::size_t workers_per_rank() const noexcept { return m_workers; }

  /// The ranks as a topology, what the victim policy is built over (rank_topology.hpp).
  const topology& ranks() const noexcept { return *m_ranks; }

  pool_counters counters() const noexcept;
  std::vector<std::uint32_t> steal_latencies_ns() const;
  const uni_address_region& region() const noexcept { return *m_region; }

  /// The pool's communicator (a duplicate of the one it was made with).
  MPI_Comm comm() const noexcept override { return m_comm; }

  /// Its node in ranks().
  std::size_t machine_of(int rank) const override;

  /// Collective, outside tasks (resource_host::agree_on_resource_call): a global vector's
  /// construction or destruction, counted among the pool's collective calls.
  void agree_on_resource_call(bool made, std::uint64_t elements,
                              std::uint64_t element_bytes) override;

  /// Runs `root` on rank 0's first worker (its sink `sink`, its result's `value_bytes` bytes at
  /// `value`; the root ends on rank 0, where it was made), idle workers stealing with victims
  /// from `victims`,
  /// then gives every rank the outcome: the bytes are copied into `value` on the other ranks,
  /// or the root's exception, rebuilt from its description, is thrown on all of them.
  /// `signature` identifies the root's function: it must be the same on every rank. Collective.
  void run_root(submit_node* root, tine::detail::waiting_sink& sink, void* value,
                std::size_t value_bytes, std::uint64_t signature, victim_choosers victims);

 private:
  class worker_session;  // binds the first worker to the calling thread for one root

  /// Collective, in the constructor: throws std::invalid_argument on every rank if the ranks'
  /// parameters differ.
  void check_same_parameters(std::size_t workers, std::size_t slice_bytes);

  /// Worker `w`, idle: runs what is left with it, continues a frame whose join completed, or
  /// tries one steal (a worker of this rank, another worker's lane, another rank).
  void work_or_steal(std::size_t w);

  /// Worker `w` >= 1, on its own thread: during each root, looks for work until the root ends.
  void serve(std::size_t w);

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_size = 1;
  std::size_t m_workers = 1;
  std::thread::id m_thread;
  std::unique_ptr<uni_address_region> m_region;
  std::vector<std::unique_ptr<offer_slot>> m_slots;  // with more than one rank: one per worker
  std::vector<std::unique_ptr<worker_context>> m_contexts;
  std::unique_ptr<rank_worker> m_worker;              // with more than one rank
  std::vector<std::unique_ptr<worker_lane>> m_lanes;  // with more than one rank
  std::uint64_t m_roots = 0;
  std::uint64_t m_calls = 0;  // collective calls made (every rank), for collective_call
  std::unique_ptr<topology> m_ranks;
  std::vector<xoshiro256ss> m_random;  // one per worker
  /// Per worker, steals from the rank's other workers (written by that worker only).
  std::vector<std::uint64_t> m_local_steals;
  std::vector<std::uint64_t> m_lane_steals;  // of those, from another worker's lane

  // The pool's threads (workers 1 and up) and when they work: from a root's start, while
  // m_running is true; m_parked counts those back to waiting for the next root.
  std::vector<std::thread> m_threads;
  std::mutex m_park;
  std::condition_variable m_wake;
  std::condition_variable m_all_parked;
  std::uint64_t m_root_number = 0;  // under m_park
  std::size_t m_parked = 0;         // under m_park
  bool m_stop = false;              // under m_park
  /// relaxed: the workers poll it; the root's end is ordered by m_park (below).
  std::atomic<bool> m_running{false};
  victim_choosers m_victims{};  // the current root's, written under m_park before it starts
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_RANK_POOL_HPP
