#ifndef TINE_CORE_OWNER_FENCE_HPP
#define TINE_CORE_OWNER_FENCE_HPP

/// \file owner_fence.hpp
/// `tine::owner_fence`: how a worker's pops are ordered against steals from its deque, chosen by
/// the scheduler when it builds the worker_context.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

namespace tine {

/// How a worker takes back its parents from its deque (the owner's `pop`) against thieves'
/// steals: the store-load fence between the two, and who pays for it.
enum class owner_fence {
  /// A full store-load fence in every pop and every steal: the deque as published. The default of
  /// a worker_context shared with thieves.
  full,
  /// Only a compiler barrier in pop; each steal from this worker pays a process-wide barrier
  /// (Linux membarrier, microseconds) instead. Cheaper joins where steals are rare. Falls back
  /// to `full` where the system does not support it (and under ThreadSanitizer).
  asymmetric,
  /// No fence at all: a promise that no other thread ever steals from this worker (a scheduler
  /// with a single worker, which steals from itself only when idle).
  none,
};

}  // namespace tine

#endif  // TINE_CORE_OWNER_FENCE_HPP
