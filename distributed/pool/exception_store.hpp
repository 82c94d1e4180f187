#ifndef TINE_DISTRIBUTED_POOL_EXCEPTION_STORE_HPP
#define TINE_DISTRIBUTED_POOL_EXCEPTION_STORE_HPP

/// \file exception_store.hpp
/// Where a rank of a distributed pool keeps the exceptions stored in task frames (internal to
/// `tine::mpi_pool`). A frame holds an exception as a token, since a frame may move to another
/// rank and an `exception_ptr` means nothing there. The token names an entry of the rank that
/// stored it: the original `exception_ptr`, in this process, and the exception's description
/// (exception_transport.hpp), in a block of the rank's slice of the uni-address region, where
/// any rank can read it with one-sided operations. The rank that stored it gets the original
/// back; another rank reads the description, rebuilds the exception with its type, and tells the
/// owner, which frees the entry. Every entry is freed when its token is taken, so a root may
/// store any number of exceptions, one after another.
///
/// Threads: `put`, `take`, `collect` and `clear` on one thread at a time (the rank's workers call
/// them under the rank_worker's lock); `release` on any thread.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <tine/distributed/foundation/uni_address_region.hpp>

namespace tine::mpi::detail {

class exception_store {
 public:
  explicit exception_store(uni_address_region& region) noexcept : m_region(region) {}
  ~exception_store() { clear(); }
  exception_store(const exception_store&) = delete;
  exception_store& operator=(const exception_store&) = delete;

  /// Keeps `e` and returns its token (never 0 unless memory is so short that not even the
  /// original could be kept: the token 0 is then taken as std::bad_alloc).
  std::uintptr_t put(std::exception_ptr e) noexcept;

  /// The exception of `token`, which is freed if it is this rank's. A token of another rank is
  /// read from that rank: `release_to` is then set to it, and the caller must tell it to
  /// `release` the token; otherwise -1. Counts the one-sided operations in `operations`.
  std::exception_ptr take(std::uintptr_t token, int& release_to,
                          std::uint64_t& operations) noexcept;

  /// Another rank took `token`, one of this rank's: it is freed at the next collect().
  void release(std::uintptr_t token);

  /// Frees the entries other ranks took.
  void collect() noexcept;

  /// Frees every entry (at the end of a root, none should be left).
  void clear() noexcept;

  /// Entries not yet taken.
  std::size_t size() const noexcept { return m_entries.size(); }

 private:
  struct entry {
    std::exception_ptr original;
    std::size_t block_bytes;  ///< 0: the description is not in the slice (it was full)
  };

  void erase(std::unordered_map<std::uintptr_t, entry>::iterator it) noexcept;

  uni_address_region& m_region;
  std::unordered_map<std::uintptr_t, entry> m_entries;
  std::uint32_t m_next_local = 0;  ///< for the tokens of entries kept without a block
  std::mutex m_mutex;              ///< m_released
  std::vector<std::uintptr_t> m_released;
  std::vector<std::uintptr_t> m_collecting;  ///< worker only: m_released, swapped out
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_EXCEPTION_STORE_HPP
