/// \file rank_worker_steal.cpp
/// The rank_worker's remote-steal leg: the item a worker offers for a continuation
/// (item_for), and a thief's take of another lane's offer, which copies the frame's pieces from
/// the victim rank to the same addresses and runs it (try_steal), with the steal statistics.
///
/// Locking, shared with rank_worker_joins.cpp and rank_worker.cpp: m_mutex guards the frames held
/// from other ranks (with the join records and ready frames); it is held only to read or record
/// one, never across the one-sided operations of a steal. m_latencies_mutex guards the latency
/// samples; the other statistics are relaxed atomics.

#include <tine/distributed/pool/rank_worker.hpp>

#include <chrono>
#include <stdexcept>

#include <tine/distributed/pool/pool_hooks.hpp>
#include <tine/distributed/pool/run_taken.hpp>

namespace tine::mpi::detail {

using tine::detail::frame;

std::optional<std::uint64_t> rank_worker::item_for(frame* f, const void* child) {
  {
    // A frame this rank stole moves on with the item it came with: its range has not changed.
    std::lock_guard lock(m_mutex);
    if (const auto held = m_held.find(f); held != m_held.end()) {
      return held->second.item;
    }
  }
  if (home_of(f) != m_rank) {
    tine::detail::fatal("tine::mpi_pool: a frame of another rank forked here without being stolen");
  }
  // A frame of ours whose continuation was taken in this scope (by another worker of the rank,
  // or back from its lane when idle) runs on another stack than its own: its running
  // child is not where its allocations end, and on its own stacklet another worker may still
  // run an older child above them. Its range is not known: it stays on this rank. Nor is it
  // known without its child: a continuation given back to the deque by a pop that found another's
  // (no child named) has a child still running above it, often on another worker, and a range
  // up to the stacklet's top would carry that child's frame along, to be written back over the
  // live one when the frame returns home through a steal. (That lost arrivals at joins.)
  if (f->steals != 0 || child == nullptr) {
    return std::nullopt;
  }
  try {
    return item_at_home(f, child);
  } catch (const std::length_error&) {
    return std::nullopt;  // too large to move: it stays on this rank
  }
}

bool rank_worker::try_steal(int victim, offer_slot& slot, worker_context& context) {
  if (victim != m_rank) {
    m_attempts.fetch_add(1, std::memory_order_relaxed);
  }
  const auto start_time = std::chrono::steady_clock::now();
  const std::optional<std::uint64_t> got = slot.take(victim);
  if (!got.has_value()) {
    return false;
  }
  frame* f = item_frame(*got);
  // From another rank: its bytes come here. (From another worker's lane of this rank, they are
  // here, and so is its entry if the frame came from another rank.)
  if (victim != m_rank) {
    std::uint64_t operations = 0;
    std::vector<range_piece> pieces = fetch_range(m_region, victim, *got, operations);
    m_region_operations.fetch_add(operations, std::memory_order_relaxed);
    const auto took =
        static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - start_time)
                                       .count());
    {
      std::lock_guard lock(m_latencies_mutex);
      if (m_latencies.size() < max_latency_samples) {
        m_latencies.push_back(took);
      }
    }
    std::uint64_t bytes = 0;
    for (const range_piece& p : pieces) {
      bytes += p.bytes;
    }
    m_bytes.fetch_add(bytes, std::memory_order_relaxed);
    m_pieced_steals.fetch_add(pieces.size() > 1 ? 1 : 0, std::memory_order_relaxed);
    m_steals.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard lock(m_mutex);
      m_held[f] = held_frame{*got, std::move(pieces)};
    }
    // The continuation follows what its strand did on the victim's rank: what this rank's
    // layers above hold of other ranks' data may predate those writes.
    announce_acquire(acquire_point::steal);
  }
  run_taken(context, f);
  return true;
}

}  // namespace tine::mpi::detail
