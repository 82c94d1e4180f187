#ifndef TINE_DISTRIBUTED_POOL_COUNTERS_HPP
#define TINE_DISTRIBUTED_POOL_COUNTERS_HPP

/// \file pool_counters.hpp
/// `tine::mpi::pool_counters`: what one rank of a `tine::mpi_pool` has done so far
/// (`mpi_pool::counters()`), for benchmarks, tests and diagnostics.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>

namespace tine::mpi {

/// What one rank's pool has done so far (`mpi_pool::counters()`).
struct pool_counters {
  std::uint64_t steals = 0;  ///< continuations this rank took from other ranks
  /// of those, continuations whose stack allocations had begun new stacklets, so that they moved
  /// in several pieces
  std::uint64_t pieced_steals = 0;
  std::uint64_t steal_attempts = 0;  ///< tries to take one, successful or not
  std::uint64_t bytes_migrated = 0;  ///< frame bytes fetched for the continuations it took
  std::uint64_t remote_joins = 0;    ///< arrivals at the join of a frame held by another rank
  std::uint64_t rma_operations = 0;  ///< one-sided MPI operations this rank issued
  std::uint64_t roots = 0;           ///< root tasks this rank ran (sync_wait calls on rank 0)
  /// continuations the rank's workers took from each other's deques (and lanes)
  std::uint64_t local_steals = 0;
  /// of those, continuations a worker had offered to other ranks (taken from its lane through
  /// this rank's own window)
  std::uint64_t lane_steals = 0;
  /// messages (arrivals at joins, releases of exceptions) received by idle workers of the rank,
  /// which poll MPI themselves, rather than by its progress thread
  std::uint64_t messages_by_workers = 0;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_POOL_COUNTERS_HPP
