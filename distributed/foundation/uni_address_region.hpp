#ifndef TINE_DISTRIBUTED_FOUNDATION_UNI_ADDRESS_REGION_HPP
#define TINE_DISTRIBUTED_FOUNDATION_UNI_ADDRESS_REGION_HPP

/// \file uni_address_region.hpp
/// The virtual address range where a distributed pool's task stacks live: the same range on every
/// rank, so that a frame copied from one rank to another, byte for byte, lands at the address it
/// had, and every pointer into frames and stack allocations stays valid (the uni-address idea of
/// "Distributed Continuation Stealing is More Scalable than You Might Think").
///
/// The range is split into one *slice* per rank: a rank allocates stacklets only in its own
/// slice, so two ranks never allocate the same address, and a copy of another rank's frame never
/// overlaps this rank's own. (The paper's runtime shares one range between all ranks and moves
/// suspended stacks aside; slices cost address space instead, P times the slice size on every
/// rank, which 47-bit address spaces afford up to about 10^5 ranks of 1 GiB: see
/// docs/distributed_internals.md.) Reserving costs no memory: pages are committed when first
/// touched.
///
/// The whole range is exposed as one MPI window, so `fetch` (MPI_Get) and `store` (MPI_Put) move
/// bytes between the same address on two ranks, whichever slice they are in.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <tine/core/stacklet.hpp>

namespace tine::mpi::detail {

class uni_address_region {
 public:
  /// Default size of each rank's slice: the most task-stack memory one rank may allocate.
  static constexpr std::size_t default_slice_bytes = std::size_t{1} << 30;

  /// Collective over `comm`: reserves `slice_bytes` (rounded up to 64 KiB) times the size of
  /// `comm` at the same address on every rank and exposes it as a window. Throws
  /// std::runtime_error, on every rank, if no address is free on all of them.
  explicit uni_address_region(MPI_Comm comm, std::size_t slice_bytes = default_slice_bytes);

  /// Collective: frees the window and the range.
  ~uni_address_region();

  uni_address_region(const uni_address_region&) = delete;
  uni_address_region& operator=(const uni_address_region&) = delete;

  std::byte* base() const noexcept { return m_base; }
  std::size_t slice_bytes() const noexcept { return m_slice; }
  int rank() const noexcept { return m_rank; }
  int size() const noexcept { return m_size; }

  /// First byte of `rank`'s slice.
  std::byte* slice_begin(int rank) const noexcept {
    return m_base + static_cast<std::size_t>(rank) * m_slice;
  }

  bool contains(const void* p) const noexcept {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= m_base && b < m_base + static_cast<std::size_t>(m_size) * m_slice;
  }

  /// The rank whose slice holds `p` (where it was allocated), or -1 outside the region.
  int home_rank(const void* p) const noexcept {
    return contains(p) ? static_cast<int>((static_cast<const std::byte*>(p) - m_base) / m_slice)
                       : -1;
  }

  /// Copies [p, p + n) from rank `from`'s memory to the same addresses here, complete on return.
  void fetch(int from, void* p, std::size_t n) const;

  /// Copies [p, p + n) of this rank's memory to the same addresses on rank `to`, complete there
  /// on return.
  void store(int to, const void* p, std::size_t n) const;

  /// A block of at least `bytes` (64-byte aligned) in this rank's slice, or null when the slice
  /// is full. Blocks come in powers of two from 8 KiB; any thread of the rank.
  void* allocate(std::size_t bytes) noexcept;

  /// Returns a block from allocate(); blocks of 256 KiB and more give their pages back at once.
  void deallocate(void* p, std::size_t bytes) noexcept;

  /// Bytes of this rank's slice handed out by allocate() and not yet returned.
  std::size_t allocated_bytes() const noexcept {
    std::lock_guard lock(m_mutex);
    return m_in_use;
  }

  /// The size of the block allocate(bytes) hands out: the next power of two from 8 KiB.
  static std::size_t block_bytes(std::size_t bytes) noexcept;

  /// This rank's slice as a source of stacklets: a worker backend that returns it from
  /// `stacklets()` (or `tine::detail::set_stacklet_source` on the worker thread) makes every task
  /// frame and stack allocation of that worker live in the slice. Each stacklet takes a whole
  /// block. Any thread of the rank, like allocate().
  const tine::detail::stacklet_source* stacklet_source() const noexcept { return &m_stacklets; }

  /// Makes every stacklet of stacklet_source() take at least `bytes` of the slice (address space,
  /// committed as touched). Owner thread only, before the stacklets it should apply to are made.
  void set_min_stacklet_bytes(std::size_t bytes) noexcept { m_min_stacklet = bytes; }

  MPI_Win window() const noexcept { return m_window; }

 private:
  static constexpr std::size_t min_block_log2 = 13;  // 8 KiB
  static constexpr std::size_t classes = 40;

  static std::size_t class_of(std::size_t bytes) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  MPI_Win m_window = MPI_WIN_NULL;
  std::byte* m_base = nullptr;
  std::size_t m_slice = 0;
  int m_rank = 0;
  int m_size = 1;
  /// The allocator's state below: the rank's workers allocate and free stacklets (rarely: they
  /// keep spare stacks) from several threads.
  mutable std::mutex m_mutex;
  std::byte* m_bump = nullptr;          ///< First never-allocated byte of this rank's slice.
  std::array<void*, classes> m_free{};  ///< Free blocks of each size class, linked through them.
  std::size_t m_in_use = 0;
  tine::detail::stacklet_source m_stacklets;
  std::size_t m_min_stacklet = 0;
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_FOUNDATION_UNI_ADDRESS_REGION_HPP
