#ifndef TINE_DISTRIBUTED_RANK_POOL_HPP
#define TINE_DISTRIBUTED_RANK_POOL_HPP

/// \file rank_pool.hpp
/// What `tine::mpi_pool` is on each rank, apart from its victim policy (internal): the pool's
/// communicator, the uni-address region, the rank's deque of continuations, the worker's context
/// and (with more than one rank) its backend, and the collective run of one root task. The
/// policy, a template parameter of `mpi_pool`, reaches the steal loop as a function pointer.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <tine/core/context.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/distributed/uni_address_region.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>

namespace tine::mpi {

class rma_deque;

/// What one rank's pool has done so far (`mpi_pool::counters()`).
struct pool_counters {
  std::uint64_t steals = 0;          ///< continuations this rank took from other ranks
  /// of those, continuations whose stack allocations had begun new stacklets, so that they moved
  /// in several pieces
  std::uint64_t pieced_steals = 0;
  std::uint64_t steal_attempts = 0;  ///< tries to take one, successful or not
  std::uint64_t bytes_migrated = 0;  ///< frame bytes fetched for the continuations it took
  std::uint64_t remote_joins = 0;    ///< arrivals at the join of a frame held by another rank
  std::uint64_t rma_operations = 0;  ///< one-sided MPI operations this rank issued
  std::uint64_t roots = 0;           ///< root tasks this rank ran (sync_wait calls on rank 0)
};

namespace detail {

class rank_worker;

/// The victim policy as the steal loop calls it: `next(policy, thief, rng)`.
struct victim_chooser {
  std::size_t (*next)(const void* policy, std::size_t thief, xoshiro256ss& rng);
  const void* policy;
};

class rank_pool {
 public:
  /// Default capacity of each rank's deque of continuations (it holds one fewer).
  static constexpr std::size_t default_deque_capacity = std::size_t{1} << 16;

  /// The least address space each stacklet of a worker takes in its slice (committed only as
  /// touched). A stolen continuation moves with its frame and its stack allocations: in one
  /// piece while they share a stacklet, in several (each a round trip more) when they do not,
  /// which stacklets this large make rare.
  static constexpr std::size_t min_stacklet_bytes = std::size_t{8} << 20;

  /// Collective over `comm` (see mpi_pool's constructor).
  rank_pool(MPI_Comm comm, std::size_t slice_bytes, std::size_t deque_capacity);

  /// Collective. On the constructing thread.
  ~rank_pool();

  rank_pool(const rank_pool&) = delete;
  rank_pool& operator=(const rank_pool&) = delete;

  int rank() const noexcept { return m_rank; }
  int size() const noexcept { return m_size; }

  /// The ranks as a topology, what the victim policy is built over (rank_topology.hpp).
  const topology& ranks() const noexcept { return *m_ranks; }

  pool_counters counters() const noexcept;
  std::vector<std::uint32_t> steal_latencies_ns() const;
  const uni_address_region& region() const noexcept { return *m_region; }

  /// Runs `root` on rank 0 (its sink `sink`, its result's `value_bytes` bytes at `value`; the
  /// root ends on rank 0, where it was made), idle ranks stealing with victims from `victims`,
  /// then gives every rank the outcome: the bytes are copied into `value` on the other ranks,
  /// or the root's exception, rebuilt from its description, is thrown on all of them.
  /// `signature` identifies the root's function: it must be the same on every rank. Collective.
  void run_root(submit_node* root, tine::detail::waiting_sink& sink, void* value,
                std::size_t value_bytes, std::uint64_t signature, victim_chooser victims);

 private:
  class worker_session;  // binds the worker to the calling thread for one root

  /// Collective, in the constructor: throws std::invalid_argument on every rank if the ranks'
  /// parameters differ.
  void check_same_parameters(std::size_t slice_bytes, std::size_t deque_capacity);

  /// The worker, idle: continues a frame whose join completed, or tries one steal.
  void work_or_steal(const victim_chooser& victims);

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_size = 1;
  std::thread::id m_thread;
  std::unique_ptr<uni_address_region> m_region;
  std::unique_ptr<rma_deque> m_deque;
  std::unique_ptr<worker_context> m_context;
  std::unique_ptr<rank_worker> m_worker;  // with more than one rank
  std::uint64_t m_roots = 0;
  std::uint64_t m_calls = 0;  // collective calls made (every rank), for collective_call
  std::unique_ptr<topology> m_ranks;
  xoshiro256ss m_random{0};
};

}  // namespace detail
}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_RANK_POOL_HPP
