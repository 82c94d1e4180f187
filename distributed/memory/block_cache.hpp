#ifndef TINE_DISTRIBUTED_MEMORY_BLOCK_CACHE_HPP
#define TINE_DISTRIBUTED_MEMORY_BLOCK_CACHE_HPP

/// \file block_cache.hpp
/// This process's cache of other ranks' global-vector memory (internal to global_store.cpp).
///
/// Reads of small ranges held by other ranks go through fixed-size lines (`line_bytes` of one
/// rank's block of one vector): a line missing here is fetched whole with one MPI_Get, and a
/// later read of any part of it costs no MPI. Larger reads (more than `bypass_lines` lines) are
/// fetched directly and not kept, so that a stream of big leaves does not flush the lines small
/// reads reuse. The cache holds at most `capacity` bytes of lines (TINE_MPI_CACHE_BYTES, default
/// 16 MiB; 0 turns it off) and evicts the least recently used line. Views never point into it:
/// a checkout copies out of it, so a line can go at any time and nothing is pinned.
///
/// Coherence, for a data-race-free fork-join program (docs/distributed_internals.md, "Global
/// memory's cache and consistency"):
/// - a write to another rank's elements goes there (MPI_Put, flushed) and then drops the lines
///   it overlaps here, before the writer goes on: what follows it on this rank refetches them;
/// - what other ranks wrote reaches this rank's strands only through a steal of a continuation
///   from another rank, a join completed here with arrivals, or a new root: each calls
///   `invalidate()`, which makes every line stale at once (an epoch);
/// - a line fetched while a write on this process dropped lines, or while an invalidation
///   happened, serves the read that fetched it but is not kept: it may hold older bytes.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace tine::mpi::detail {

class block_cache {
 public:
  static constexpr std::uint64_t line_bytes = 4096;
  /// Reads spanning more lines than this bypass the cache.
  static constexpr std::uint64_t bypass_lines = 64;

  /// This process's cache (its capacity read from TINE_MPI_CACHE_BYTES at first use).
  static block_cache& instance();

  explicit block_cache(std::uint64_t capacity_bytes);

  /// Copies bytes [from, from + bytes) of `rank`'s block (`block_bytes` long) of vector `store`,
  /// whose window is `window`, into `out`, through the cache. Returns false, having done
  /// nothing, when the range is too large to cache (the caller fetches it directly); otherwise
  /// adds the bytes it fetched with MPI to `fetched`.
  bool read(MPI_Win window, std::uint32_t store, int rank, std::uint64_t from, std::uint64_t bytes,
            std::uint64_t block_bytes, std::byte* out, std::uint64_t& fetched);

  /// After writing bytes [from, from + bytes) of `rank`'s block of `store` there: drops the
  /// lines they overlap.
  void forget(std::uint32_t store, int rank, std::uint64_t from, std::uint64_t bytes);

  /// Drops every line of `store` (its vector is being destroyed).
  void forget_store(std::uint32_t store);

  /// An acquire point (a steal from another rank, a join with arrivals, a root): every line
  /// becomes stale.
  void invalidate() noexcept;

  std::uint64_t capacity() const noexcept { return m_capacity_lines * line_bytes; }

  /// Lines read from the cache, and lines fetched into it, so far (tine::mpi::traffic).
  std::uint64_t hits() const noexcept { return m_hits.load(std::memory_order_relaxed); }
  std::uint64_t misses() const noexcept { return m_misses.load(std::memory_order_relaxed); }

 private:
  struct key {
    std::uint32_t store;
    int rank;
    std::uint64_t line;
    friend bool operator==(const key&, const key&) = default;
  };
  struct key_hash {
    std::size_t operator()(const key& k) const noexcept;
  };
  struct line {
    key name;
    std::uint64_t epoch;
    std::unique_ptr<std::byte[]> bytes;
  };
  using lru_list = std::list<line>;  ///< most recently used first

  /// Keeps `l` (the lock held), evicting the least recently used line when full.
  void keep(line&& l);

  std::uint64_t m_capacity_lines;
  std::mutex m_mutex;
  lru_list m_lines;
  std::unordered_map<key, lru_list::iterator, key_hash> m_index;
  std::uint64_t m_epoch = 0;      ///< bumped by invalidate()
  std::uint64_t m_forgotten = 0;  ///< bumped by forget()
  // relaxed: counts, read between collective calls that order them.
  std::atomic<std::uint64_t> m_hits{0};
  std::atomic<std::uint64_t> m_misses{0};
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_MEMORY_BLOCK_CACHE_HPP
