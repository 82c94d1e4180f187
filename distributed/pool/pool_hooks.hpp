#ifndef TINE_DISTRIBUTED_POOL_POOL_HOOKS_HPP
#define TINE_DISTRIBUTED_POOL_POOL_HOOKS_HPP

/// \file pool_hooks.hpp
/// Where the pool and a layer above it meet (internal to `tine::mpi_pool`), the one file of the
/// pool that global memory includes. The pool announces its acquire points and its end to a
/// table of functions that the layer registers here (global_store.cpp), and lends the layer its
/// ranks and its collective calls as a `resource_host`; the pool includes nothing of the layer,
/// and runs the same with no table registered. A separate Bazel target (//distributed/pool:hooks),
/// so that memory builds on this file and not on the pool.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace tine::mpi::detail {

/// A pool as the collective resources made on it (a global vector's store) see it: its ranks,
/// where they are, and its sequence of collective calls. rank_pool is the implementation; a
/// layer above holds only this, so that it builds on this file alone. Called outside tasks, on
/// the thread that made the pool (the resources are made and destroyed there), where these calls
/// cost nothing that matters.
class resource_host {
 public:
  /// The pool's communicator (a duplicate of the one it was made with).
  virtual MPI_Comm comm() const noexcept = 0;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  /// The machine `rank` is on, as the pool's topology of its ranks draws machines (its NUMA node
  /// there: TINE_MPI_RANKS_PER_MACHINE can split a machine); ranks that share one may share
  /// memory.
  virtual std::size_t machine_of(int rank) const = 0;
  /// Collective, outside tasks: the ranks agree that they all make (`made`) or destroy a
  /// resource of `elements` elements of `element_bytes` bytes on the pool, in the same place
  /// among the pool's collective calls (collective_call.hpp: a rank that disagrees ends the job
  /// with a message, which names the call's kind, allocate or deallocate).
  virtual void agree_on_resource_call(bool made, std::uint64_t elements,
                                      std::uint64_t element_bytes) = 0;

 protected:
  // Never destroyed through this interface: the pool owns itself (mpi_pool holds a rank_pool).
  resource_host() = default;
  ~resource_host() = default;
  resource_host(const resource_host&) = default;
  resource_host& operator=(const resource_host&) = default;
  resource_host(resource_host&&) = default;
  resource_host& operator=(resource_host&&) = default;
};

/// Where a rank's strands come to follow work done elsewhere.
enum class acquire_point : std::uint8_t {
  steal,  ///< a continuation stolen from another rank is about to run here
  join,   ///< a frame goes on after its strands arrived, some perhaps from other ranks
  root,   ///< a new root task starts, after every rank's earlier roots
};

/// The functions a layer gives the pool. Either may be null.
struct pool_hooks {
  /// Any worker of the rank, at `where`: what other ranks wrote before this point (in fork-join
  /// order) must be visible to this rank's strands from here on.
  void (*acquire)(acquire_point where) noexcept = nullptr;
  /// ~rank_pool, on the constructing thread, first (before the ranks agree on the destroy call):
  /// the layer ends the program, with its own message, while resources made on `pool` live.
  void (*closing)(const resource_host& pool) noexcept = nullptr;
};

/// Registers `hooks` (static storage: it is never copied) for every pool of the process. Once:
/// calling it again with the same table does nothing; with another table is an internal error
/// that ends the program. Outside tasks.
void set_pool_hooks(const pool_hooks& hooks) noexcept;

/// The registered table, or null.
const pool_hooks* pool_hooks_now() noexcept;

/// Runs the registered `acquire` hook, if any.
inline void announce_acquire(acquire_point where) noexcept {
  if (const pool_hooks* hooks = pool_hooks_now(); hooks != nullptr && hooks->acquire != nullptr) {
    hooks->acquire(where);
  }
}

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_POOL_HOOKS_HPP
