#ifndef TINE_DISTRIBUTED_POOL_POOL_HOOKS_HPP
#define TINE_DISTRIBUTED_POOL_POOL_HOOKS_HPP

/// \file pool_hooks.hpp
/// What the pool announces to a layer above it (internal to `tine::mpi_pool`). Global memory
/// (global_store.cpp) registers a table of functions here; the pool includes nothing of it, and
/// runs the same with no table registered.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>

namespace tine::mpi::detail {

class rank_pool;

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
  void (*closing)(const rank_pool& pool) noexcept = nullptr;
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
