#ifndef TINE_ALGORITHMS_GRAIN_HPP
#define TINE_ALGORITHMS_GRAIN_HPP

/// \file grain.hpp
/// How finely the algorithms split their input.
///
/// Every algorithm halves its index range recursively (fork the left half, call the right half,
/// join) until a piece has at most `grain` elements; such a *leaf* runs serially.
///
/// The default (`tine::grain{}`, or passing nothing) aims at 64 leaves per worker:
///
///     grain = ceil(n / (64 * workers)), at least 1
///
/// Many more leaves than workers let a worker that finishes early steal the remaining work of a
/// slower one: the last leaf to finish is what the others wait for, so it should be a small part
/// of the whole (bench/journal/2026-11-22-algorithms-vs-tbb-par.md measures the tail for 8 and 64
/// leaves per worker). The number of tasks stays 64 * workers per call whatever `n` is, so the fork
/// overhead is bounded. `workers` is the number of workers of the scheduler the algorithm runs on,
/// as the scheduler declares it to its workers (`tine::current_worker_count()`; tine's schedulers
/// all do), else `std::thread::hardware_concurrency()`. The blocking and the task forms compute it
/// alike, on the worker that starts the algorithm. There is deliberately no larger lower bound:
/// with an expensive body a leaf of one element is right. For a very cheap body on a small input
/// the whole call costs about as much as the scheduler's wake-up; pass a grain to keep small inputs
/// serial, for example `tine::grain{4096}`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <thread>

#include <tine/core/worker_context.hpp>

namespace tine {

/// The largest number of elements a leaf processes serially; `grain{}` chooses automatically.
struct grain {
  std::size_t size = 0;  ///< 0: automatic (see the rule above)

  constexpr grain() noexcept = default;
  constexpr explicit grain(std::size_t elements) noexcept : size(elements) {}
};

namespace detail {

/// Leaves per worker in the automatic grain.
inline constexpr std::size_t leaves_per_worker = 64;

/// The machine's hardware threads, read once: the call behind it may read /sys.
inline std::size_t hardware_workers() noexcept {
  static const std::size_t n = [] {
    const unsigned h = std::thread::hardware_concurrency();
    return h == 0 ? std::size_t{1} : std::size_t{h};
  }();
  return n;
}

/// Workers of the scheduler running the calling task, as it declared them
/// (`tine::current_worker_count()`), else the machine's hardware threads.
inline std::size_t workers_here() noexcept {
  const std::size_t n = current_worker_count();
  return n == 0 ? hardware_workers() : n;
}

/// ceil(n / d) for d > 0. `(n + d - 1) / d` would wrap for a large n or d (a grain near
/// SIZE_MAX).
constexpr std::size_t ceil_div(std::size_t n, std::size_t d) noexcept {
  return n / d + (n % d != 0 ? 1 : 0);
}

/// Leaves of sort, stable_sort and merge hold at least this many elements when the grain is
/// automatic: their per-element work is a comparison, and a smaller piece gains less from running
/// in parallel than the merging passes it adds cost (a sort of a few hundred elements cut into 64
/// leaves per worker would spend most of its time merging). Inputs up to this size sort (merge)
/// serially, as TBB's parallel_sort does below its own cutoff; a nested sort of many small rows
/// then costs one serial sort per row.
inline constexpr std::size_t min_comparison_leaf = 1024;

/// The leaf size for `n` elements: the user's grain, or the automatic rule.
constexpr std::size_t leaf_size(std::size_t n, grain g, std::size_t workers) noexcept {
  if (g.size != 0) {
    return g.size;
  }
  // Saturated: a scheduler reporting an absurd size must not wrap the leaf count (to 0, even).
  const std::size_t w = workers == 0 ? 1 : workers;
  const std::size_t leaves = w > SIZE_MAX / leaves_per_worker ? SIZE_MAX : leaves_per_worker * w;
  const std::size_t size = ceil_div(n, leaves);
  return size == 0 ? 1 : size;
}

/// leaf_size for the algorithms whose leaves only compare (sort, merge): the automatic rule
/// raised to min_comparison_leaf; a user's grain as it is.
constexpr std::size_t comparison_leaf_size(std::size_t n, grain g, std::size_t workers) noexcept {
  const std::size_t size = leaf_size(n, g, workers);
  return g.size == 0 && size < min_comparison_leaf ? min_comparison_leaf : size;
}

}  // namespace detail
}  // namespace tine

#endif  // TINE_ALGORITHMS_GRAIN_HPP
