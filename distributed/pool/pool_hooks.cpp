#include <tine/distributed/pool/pool_hooks.hpp>

#include <atomic>

namespace tine::mpi::detail {
namespace {

/// The registered table. Stored with release (after the table was filled in) and loaded with
/// acquire at each read, so a reader that sees the pointer sees the table's functions. A worker
/// that reads null while a table is being registered misses nothing: the table is registered by
/// the first global vector's constructor, outside tasks, and the roots that use that vector start
/// after it (every worker takes a root's work after the pool's park lock, which orders the store
/// before it); before any vector exists there is nothing to announce to.
std::atomic<const pool_hooks*> registered{nullptr};

}  // namespace

void set_pool_hooks(const pool_hooks& hooks) noexcept {
  const pool_hooks* expected = nullptr;
  // release on success: publishes the table; relaxed on failure: only compared below.
  if (!registered.compare_exchange_strong(expected, &hooks, std::memory_order_release,
                                          std::memory_order_relaxed) &&
      expected != &hooks) {
    tine::detail::fatal("tine::mpi_pool: internal error: a second table of pool hooks");
  }
}

const pool_hooks* pool_hooks_now() noexcept {
  return registered.load(std::memory_order_acquire);  // pairs with set_pool_hooks' release
}

}  // namespace tine::mpi::detail
