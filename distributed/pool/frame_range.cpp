#include <tine/distributed/pool/frame_range.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tine/core/stacklet.hpp>

namespace tine::mpi::detail {
namespace {

using tine::detail::frame;
using tine::detail::stack_alignment;
using tine::detail::stacklet;

// An item: bits 0-40 the frame's first byte / 64, bit 41 "several pieces", bits 42-63 the last
// piece's size in 64-byte units.
constexpr unsigned spans_bit = 41;
constexpr unsigned size_shift = 42;
constexpr std::uint64_t address_mask = (std::uint64_t{1} << spans_bit) - 1;

std::byte* item_start(std::uint64_t item) noexcept {
  return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>((item & address_mask) << 6));
}

bool item_spans(std::uint64_t item) noexcept { return ((item >> spans_bit) & 1) != 0; }

std::size_t item_last_bytes(std::uint64_t item) noexcept {
  return static_cast<std::size_t>(item >> size_shift) * stack_alignment;
}

/// The frame header of the coroutine frame at `start` (handle_of's inverse).
frame* frame_at(std::byte* start) noexcept {
  return static_cast<frame*>(__builtin_coro_promise(start, alignof(frame), false));
}

bool in(stacklet* s, const std::byte* p) noexcept { return p >= s->base() && p < s->end; }

// A stolen frame's range has a piece in each stacklet from the frame's own to the last; more than
// this many means the headers read were not a stack.
constexpr int max_walk = 64;

}  // namespace

std::byte* start_of(frame* f) noexcept {
  return static_cast<std::byte*>(tine::detail::handle_of(f).address());
}

frame* item_frame(std::uint64_t item) noexcept { return frame_at(item_start(item)); }

std::uint64_t item_at_home(frame* parent, const void* child) {
  std::byte* start = start_of(parent);
  const auto address = reinterpret_cast<std::uintptr_t>(start);
  if ((address & (stack_alignment - 1)) != 0 || (address >> 6) > address_mask) {
    tine::detail::fatal("tine::mpi_pool: a frame outside the uni-address region forked");
  }
  // The last piece ends where the child begins, when the child is in the stacklet that was the
  // top when the scope opened; otherwise (the child began a new stacklet) where that stacklet's
  // use ends.
  if (child == nullptr) {
    tine::detail::fatal("tine::mpi_pool: internal error: a range asked for without its child");
  }
  stacklet* top = parent->stack;
  const auto* c = static_cast<const std::byte*>(child);
  const bool spans = !in(top, start);
  const std::byte* from = spans ? top->base() : start;
  const std::byte* to = in(top, c) && c > from ? c : top->sp;
  const auto bytes = static_cast<std::size_t>(to - from);
  if (bytes > max_piece_bytes) {
    throw std::length_error(
        "tine::mpi_pool: a task's frame and stack allocations in one stacklet exceed " +
        std::to_string(max_piece_bytes >> 20) +
        " MiB, the most a continuation can carry to another rank");
  }
  return (address >> 6) | (std::uint64_t{spans} << spans_bit) |
         (static_cast<std::uint64_t>(bytes / stack_alignment) << size_shift);
}

std::vector<range_piece> fetch_range(const uni_address_region& region, int victim,
                                     std::uint64_t item, std::uint64_t& operations) {
  std::byte* start = item_start(item);
  const std::size_t last = item_last_bytes(item);
  if (!item_spans(item)) {
    region.fetch(victim, start, last);
    ++operations;
    return {range_piece{start, last}};
  }
  // Several pieces: the frame header names the last stacklet; its headers lead back to the
  // frame's own. Headers of this rank's own stacklets (a frame of ours taken back from a thief)
  // are read in place: they are live, and a copy from the victim must not overwrite them.
  frame* f = frame_at(start);
  region.fetch(victim, start,
               static_cast<std::size_t>(reinterpret_cast<std::byte*>(f + 1) - start));
  ++operations;
  std::vector<range_piece> pieces;
  stacklet* s = f->stack;
  for (int i = 0;; ++i) {
    if (i == max_walk || s == nullptr || !region.contains(s)) {
      tine::detail::fatal(
          "tine::mpi_pool: internal error: the stacklets of a stolen continuation could not be "
          "followed");
    }
    if (region.home_rank(s) != region.rank()) {
      region.fetch(victim, s, sizeof(stacklet));
      ++operations;
    }
    if (in(s, start)) {
      pieces.push_back({start, static_cast<std::size_t>(s->sp - start)});
      break;
    }
    pieces.push_back({s->base(), i == 0 ? last : static_cast<std::size_t>(s->sp - s->base())});
    s = s->prev;
  }
  std::reverse(pieces.begin(), pieces.end());
  for (const range_piece& p : pieces) {
    region.fetch(victim, p.at, p.bytes);
    ++operations;
  }
  return pieces;
}

}  // namespace tine::mpi::detail
