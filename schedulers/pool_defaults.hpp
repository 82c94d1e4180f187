#ifndef TINE_SCHEDULERS_POOL_DEFAULTS_HPP
#define TINE_SCHEDULERS_POOL_DEFAULTS_HPP

/// \file pool_defaults.hpp
/// What busy_pool and lazy_pool choose when their user does not: how many workers, and the fence
/// each worker's deque pop uses.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <cstddef>
#include <thread>

#include <tine/core/owner_fence.hpp>

namespace tine::detail {

/// The most workers a pool may have for its pops to be fenced asymmetrically by default. Each
/// steal then interrupts every running worker of the process (membarrier), so the heavy side's
/// total cost grows with the number of workers as well as with the steals, while the saving (a
/// locked instruction per join) stays the same per worker
/// (bench/journal/2026-11-24-scheduler-costs.md has the gain at two workers). Past this size the
/// published protocol (a full fence in every pop) is kept until a larger machine measures
/// otherwise.
inline constexpr std::size_t asymmetric_fence_max_workers = 8;

/// The fence a pool of `workers` workers gives each of them: none for a single worker (nobody
/// else steals from it), else TINE_POOL_OWNER_FENCE if the build defines it (`full` or
/// `asymmetric`), else asymmetric up to asymmetric_fence_max_workers and full beyond.
/// (asymmetric falls back to full where the system cannot provide it: worker_runtime::fence().)
constexpr owner_fence pool_owner_fence(std::size_t workers) noexcept {
  if (workers == 1) {
    return owner_fence::none;
  }
#if defined(TINE_POOL_OWNER_FENCE)
  return owner_fence::TINE_POOL_OWNER_FENCE;
#else
  return workers <= asymmetric_fence_max_workers ? owner_fence::asymmetric : owner_fence::full;
#endif
}

/// The default worker count: one per hardware thread, at least one (hardware_concurrency() may
/// return 0 when it does not know).
inline std::size_t default_worker_count() noexcept {
  return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_POOL_DEFAULTS_HPP
