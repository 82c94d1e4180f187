#ifndef TINE_DISTRIBUTED_REMOTE_OBJECTS_HPP
#define TINE_DISTRIBUTED_REMOTE_OBJECTS_HPP

/// \file remote_objects.hpp
/// `tine::mpi::remote_objects`: blocks of a rank's slice that other ranks may free, reclaimed by
/// *local collection* ("Distributed Continuation Stealing is More Scalable than You Might Think",
/// section III-B).
///
/// With continuation stealing a frame or a join record allocated on one rank is often finished
/// with on another. Freeing it remotely must not cost the remote side locks or round trips: it
/// sets the block's free bit with one `MPI_Put` that it does not wait for. The owner keeps every
/// block in a doubly linked list; a block freed locally leaves the list at once, and when the
/// blocks' total size passes a limit the owner walks the list and reclaims the ones whose bit
/// is set. Everything but the put is the owner's own memory and code.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>

#include <tine/distributed/uni_address_region.hpp>

namespace tine::mpi {

class remote_objects {
 public:
  /// Blocks come from `region`'s slice of this rank; reclaiming starts when the live blocks'
  /// total size reaches `collect_above` bytes.
  explicit remote_objects(uni_address_region& region,
                          std::size_t collect_above = std::size_t{1} << 20) noexcept
      : m_region(region), m_limit(collect_above) {}

  /// Returns every block still held to the region (owner).
  ~remote_objects();

  remote_objects(const remote_objects&) = delete;
  remote_objects& operator=(const remote_objects&) = delete;

  /// Owner: `bytes` of usable memory (64-byte aligned) in this rank's slice, or null when the
  /// slice is full even after reclaiming.
  void* allocate(std::size_t bytes) noexcept;

  /// Owner: frees a block of this rank's at once.
  void free_local(void* p) noexcept;

  /// Any rank other than the block's owner: marks `p` free with one MPI_Put to the owner, not
  /// waited for (it completes by the next flush of the region's window to that rank).
  static void free_remote(const uni_address_region& region, void* p) noexcept;

  /// Owner: reclaims every block whose free bit is set; returns how many.
  std::size_t collect() noexcept;

  /// Owner: blocks allocated and not yet reclaimed (freed remotely but not collected included).
  std::size_t live_blocks() const noexcept { return m_blocks; }

  /// Owner: their total size in bytes, headers included.
  std::size_t live_bytes() const noexcept { return m_bytes; }

 private:
  struct alignas(64) header {
    header* prev;
    header* next;
    std::size_t bytes;    ///< the whole block, header included
    std::uint64_t freed;  ///< set to 1 by free_remote's put; read by collect
  };

  static header* header_of(void* p) noexcept { return static_cast<header*>(p) - 1; }
  void unlink_and_release(header* h) noexcept;

  uni_address_region& m_region;
  std::size_t m_limit;
  header* m_head = nullptr;
  std::size_t m_blocks = 0;
  std::size_t m_bytes = 0;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_REMOTE_OBJECTS_HPP
