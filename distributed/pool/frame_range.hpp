#ifndef TINE_DISTRIBUTED_POOL_FRAME_RANGE_HPP
#define TINE_DISTRIBUTED_POOL_FRAME_RANGE_HPP

/// \file frame_range.hpp
/// The bytes that move with a stolen continuation (internal to `tine::mpi_pool`), and how they
/// are named in the workers' offer slots.
///
/// A continuation F moves with its frame and its own stack allocations: from F's first byte to
/// the end of the allocations F made before the fork (a task allocates on its stack only outside
/// a fork-join scope, so nothing of F's lies above the child being forked). Usually that is one
/// contiguous stretch of one stacklet. When F's allocations did not fit F's stacklet they begin a
/// new one, and the range is several pieces: from F to the end of F's stacklet's use, every
/// stacklet in between whole, and the start of the last stacklet (the one that was the top when
/// F's scope opened, which F records in its frame header as `stack`) up to the child.
///
/// An offered item names the range in 64 bits: F's first byte (64-byte aligned, below 2^47), a
/// flag for a range of several pieces, and the size of the range's last piece. A thief finds the
/// other pieces by reading the victim's frame header and stacklet headers (the stacklets between
/// do not change while F's scope is open: the worker that allocated them has parked them, or runs
/// above them).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tine/core/frame.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>

namespace tine::mpi::detail {

/// A stretch of a continuation's bytes.
struct range_piece {
  std::byte* at;
  std::size_t bytes;
};

/// The most bytes one piece of a range may hold (22 bits of 64-byte units): a task's stack
/// allocations in one stacklet beyond this make its continuation unable to move, and the fork
/// that would offer it throws std::length_error.
inline constexpr std::size_t max_piece_bytes = ((std::size_t{1} << 22) - 1) * 64;

/// The item for `parent`'s continuation, on the rank that allocated it (its home), when it forks
/// `child` (the child's coroutine frame, not null: the range ends where the child begins, or at
/// the top of the stacklet when the child began another). Throws std::length_error when a piece
/// exceeds max_piece_bytes.
std::uint64_t item_at_home(tine::detail::frame* parent, const void* child);

/// The frame an item names.
tine::detail::frame* item_frame(std::uint64_t item) noexcept;

/// Copies the continuation `item` names from rank `victim` into this rank's memory at the same
/// addresses, and returns its pieces (the stretches of the frame and its allocations, without the
/// stacklet headers read on the way). Counts the one-sided operations in `operations`.
std::vector<range_piece> fetch_range(const uni_address_region& region, int victim,
                                     std::uint64_t item, std::uint64_t& operations);

/// The first byte of `f`'s coroutine frame (handle_of's address).
std::byte* start_of(tine::detail::frame* f) noexcept;

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_FRAME_RANGE_HPP
