#ifndef TINE_DISTRIBUTED_POOL_MESSAGES_HPP
#define TINE_DISTRIBUTED_POOL_MESSAGES_HPP

/// \file messages.hpp
/// Internal: every message the distributed pool sends, its tag and its bytes, with one encode and
/// one decode each, so that the wire format is written down once (and tested by a round trip,
/// tests/distributed/messages_test.cpp).
///
/// - An **arrival** (point to point, to a frame's home rank): a strand arrived at the join of a
///   frame whose continuation was stolen: how many strands it stands for, a child's result to
///   write into the frame, the frame's own pieces when the frame itself comes home, and the
///   description of an exception (exception_transport.hpp).
/// - A **release** (point to point, to the rank that stored an exception): a token of that
///   rank's exception store was taken, in the root numbered `generation`.
/// - A root's **outcome** (broadcast from rank 0 after each root): whether it threw, the length
///   of the exception's description (broadcast next), then the result's bytes.
///
/// Every rank runs the same executable (the uni-address rule), so the formats need no version or
/// byte-order field. A message shorter than its header says is a defect: decoding it ends the
/// program with a message instead of reading past the buffer.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tine/distributed/pool/frame_range.hpp>

namespace tine::mpi::detail {

/// The tags of the pool's point-to-point messages, on the pool's own communicator.
inline constexpr int arrival_tag = 1;
inline constexpr int release_tag = 2;

/// Bytes to write at an address of the receiving rank (a child's result, or a piece of a frame
/// that comes home).
struct patch {
  std::byte* at;
  std::vector<std::byte> bytes;
};

/// An arrival as the sender describes it: addresses and sizes, nothing copied yet.
struct arrival_out {
  std::uintptr_t frame = 0;             ///< the frame, at its home rank's address
  std::uint64_t strands = 0;            ///< the strands this arrival stands for
  const void* result_at = nullptr;      ///< where a child's result goes in the frame (or null)
  std::span<const std::byte> result;    ///< its bytes
  std::span<const range_piece> pieces;  ///< the frame's pieces, when the frame comes home
  bool threw = false;                   ///< an exception goes with the arrival
  /// Its description; empty when it threw and the sender had no memory to describe it (the
  /// home then rebuilds std::bad_alloc).
  std::string_view exception;
};

/// An arrival as the home rank receives it.
struct arrival_in {
  std::uintptr_t frame = 0;
  std::uint64_t strands = 0;
  std::optional<patch> result;
  std::vector<patch> pieces;
  bool threw = false;
  std::string exception;  ///< empty with `threw`: std::bad_alloc
};

/// The bytes of an arrival. Throws std::bad_alloc.
std::vector<std::byte> encode_arrival(const arrival_out& a);
/// Reads an arrival. Throws std::bad_alloc.
arrival_in decode_arrival(std::span<const std::byte> bytes);

/// A release: `token` of the receiver's exception store was taken in root `generation`.
struct release_message {
  std::uint64_t token = 0;
  std::uint64_t generation = 0;
};
/// A release is sent as these bytes (a fixed size, no allocation).
using release_bytes = std::array<std::byte, 2 * sizeof(std::uint64_t)>;
release_bytes encode_release(const release_message& r) noexcept;
release_message decode_release(std::span<const std::byte> bytes) noexcept;

/// The first bytes of a root's outcome; the result's bytes follow.
struct outcome_header {
  std::uint32_t threw = 0;              ///< 1: an exception escaped the root task
  std::uint32_t description_bytes = 0;  ///< its description, broadcast next when it threw
};
/// The size of an outcome carrying `value_bytes` of result.
constexpr std::size_t outcome_size(std::size_t value_bytes) noexcept {
  return sizeof(outcome_header) + value_bytes;
}
/// Writes an outcome into `out` (outcome_size(value.size()) bytes).
void encode_outcome(std::span<std::byte> out, const outcome_header& head,
                    std::span<const std::byte> value) noexcept;
/// Reads an outcome's header from `in`; `value`, when given, receives the result's bytes.
outcome_header decode_outcome(std::span<const std::byte> in, std::span<std::byte> value) noexcept;

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_MESSAGES_HPP
