#ifndef TINE_DISTRIBUTED_MEMORY_GLOBAL_STORE_HPP
#define TINE_DISTRIBUTED_MEMORY_GLOBAL_STORE_HPP

/// \file global_store.hpp
/// The memory of one `tine::mpi::global_vector` on this rank (internal to global_vector.hpp):
/// the vector's elements spread over the pool's ranks in equal contiguous blocks (rank r holds
/// elements [r * B, (r + 1) * B), B = ceil(n / ranks)), each rank's block in an MPI window that
/// every rank reads and writes with one-sided operations. The blocks of the ranks on one machine
/// (as the pool's topology sees it: TINE_MPI_RANKS_PER_MACHINE can split a machine) are in
/// shared memory, mapped into each of those ranks: those ranks use each other's blocks in place,
/// as threads would. A global span names its vector by an id that is the same on every rank, so
/// that a span carried by a stolen frame means the same elements wherever it runs.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tine/distributed/global_traffic.hpp>  // traffic(), whose counts stores keep

namespace tine::mpi::detail {

class resource_host;

class global_store {
 public:
  /// Collective over the pool's ranks, outside tasks: every rank makes the same store (checked
  /// like the pool's other collective calls). `pool` is the pool as its resources see it
  /// (pool_hooks.hpp). Throws std::logic_error inside a task; std::bad_alloc.
  global_store(resource_host& pool, std::uint64_t elements, std::size_t element_bytes);

  /// Collective. Ends the program with a message if a checkout of it is live.
  ~global_store();

  global_store(const global_store&) = delete;
  global_store& operator=(const global_store&) = delete;

  std::uint32_t id() const noexcept { return m_id; }
  std::uint64_t size() const noexcept { return m_size; }

  /// Elements per rank: rank r holds [r * block(), (r + 1) * block()); at least 1.
  std::uint64_t block() const noexcept { return m_block; }

  /// The store named `id` on this rank. Throws std::logic_error when there is none (its vector
  /// was destroyed, or the id came from elsewhere).
  static global_store& find(std::uint32_t id);

  /// Where elements [first, first + count) are in this process's memory, when all of them are
  /// in one block mapped here, this rank's or another rank's of its machine (and count > 0);
  /// null otherwise. Also an acquire: what the block's writers published before (in the
  /// fork-join order) is visible through the pointer.
  std::byte* local(std::uint64_t first, std::uint64_t count) const noexcept;

  /// Whether local(first, count) would give a pointer (without its acquire).
  bool maps(std::uint64_t first, std::uint64_t count) const noexcept;

  /// Any thread: copies elements [first, first + count) into `out`, from the ranks that hold
  /// them (this one's own by memcpy), and returns when they are here.
  void fetch(std::byte* out, std::uint64_t first, std::uint64_t count);

  /// Any thread: writes `in` over elements [first, first + count) where they are held, and
  /// returns when the writes are complete there (visible to any rank's later fetch).
  void store(const std::byte* in, std::uint64_t first, std::uint64_t count);

  /// Any thread: after writing elements in place (`local`), makes the writes visible to other
  /// ranks' fetches and in-place reads that follow.
  void publish_local() noexcept;

  /// A checkout begins (`copied`: not in place) and ends: counted, for the destructor's check
  /// and for traffic().
  void checked_out(bool copied) noexcept;
  void checked_in() noexcept { m_live.fetch_sub(1, std::memory_order_relaxed); }

 private:
  /// The bytes of elements `rank` holds.
  std::uint64_t held_bytes(int rank) const noexcept;

  /// Calls `piece(rank, first, count)` for each rank's part of [first, first + count), in order.
  template <typename Piece>
  void for_each_piece(std::uint64_t first, std::uint64_t count, Piece&& piece) const;

  resource_host& m_pool;
  MPI_Comm m_comm = MPI_COMM_NULL;
  MPI_Comm m_machine = MPI_COMM_NULL;  ///< the ranks whose blocks are mapped here
  MPI_Win m_shared = MPI_WIN_NULL;     ///< the blocks, in shared memory over m_machine
  MPI_Win m_window = MPI_WIN_NULL;     ///< the same memory, for one-sided operations
  std::byte* m_base = nullptr;         ///< this rank's block
  std::vector<std::byte*> m_mapped;    ///< per rank: its block here, or null
  std::uint64_t m_size = 0;
  std::uint64_t m_block = 0;  ///< elements per rank (the last ranks may hold fewer, or none)
  std::size_t m_element_bytes = 0;
  int m_rank = 0;
  int m_ranks = 1;
  std::uint32_t m_id = 0;
  // relaxed: a count read only by the destructor, after the tasks that checked out ended.
  std::atomic<std::int64_t> m_live{0};
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_MEMORY_GLOBAL_STORE_HPP
