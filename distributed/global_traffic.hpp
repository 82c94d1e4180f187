#ifndef TINE_DISTRIBUTED_GLOBAL_TRAFFIC_HPP
#define TINE_DISTRIBUTED_GLOBAL_TRAFFIC_HPP

/// \file global_traffic.hpp
/// `tine::mpi::traffic()`: what this process's checkouts of global vectors (global_vector.hpp)
/// have cost so far: views, bytes moved between ranks, and the hits and misses of the cache of
/// other machines' elements (docs/distributed.md, "Global memory").
///
/// ```
/// const tine::mpi::global_traffic before = tine::mpi::traffic();
/// double sum = tine::reduce(pool, v, 0.0, std::plus<>{});
/// std::uint64_t fetched = tine::mpi::traffic().bytes_fetched - before.bytes_fetched;
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>

namespace tine::mpi {

/// What this process's checkouts of global vectors have cost so far (all vectors, all pools):
/// read by benchmarks and tests between collective calls.
struct global_traffic {
  std::uint64_t checkouts = 0;         ///< views made
  std::uint64_t copied_checkouts = 0;  ///< of those, views that copied (not all in place)
  std::uint64_t bytes_fetched = 0;     ///< bytes read from other ranks
  std::uint64_t bytes_stored = 0;      ///< bytes written to other ranks
  std::uint64_t cache_hits = 0;        ///< lines of other ranks' memory read from this rank's cache
  std::uint64_t cache_misses = 0;      ///< lines fetched into it
};

/// This process's totals since it started.
global_traffic traffic() noexcept;

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_GLOBAL_TRAFFIC_HPP
