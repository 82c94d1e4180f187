#ifndef TINE_SCHEDULERS_WORKER_ACTIVITY_HPP
#define TINE_SCHEDULERS_WORKER_ACTIVITY_HPP

/// \file worker_activity.hpp
/// `tine::detail::worker_activity`: whether a pool's worker is taking or running a piece of work,
/// for the pool's destructor, which waits until no work is left. A counter that only its worker
/// writes (odd while busy), so the worker's hot path pays two plain stores to a line of its own
/// and no shared read-modify-write.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstdint>

namespace tine::detail {

class worker_activity {
 public:
  /// Owner: about to take a piece of work (a submission from its queue, a continuation from a
  /// deque). Call before the taking, so that the work is never invisible to a destructor: it is
  /// queued, in a deque, or announced here.
  void begin() noexcept { bump(); }

  /// Owner: that piece of work is done (or the attempt to take it failed).
  void end() noexcept { bump(); }

  /// Any thread: the counter; odd while the worker is busy, changed whenever it took something.
  std::uint64_t read() const noexcept {
    // acquire: pairs with bump's release, so a reader that sees the worker idle also sees what
    // it pushed or queued while it was busy.
    return m_epoch.load(std::memory_order_acquire);
  }

  static constexpr bool busy(std::uint64_t epoch) noexcept { return (epoch & 1U) != 0; }

 private:
  void bump() noexcept {
    // Single writer: a relaxed load and a release store instead of a locked read-modify-write.
    // begin's store is followed by the taking (the steal's seq_cst CAS on the deque's `top`, the
    // queue's acq_rel detach or release batch store), which releases it in turn: a destructor
    // whose acquire read of the deque or queue sees the work gone also sees the worker busy.
    m_epoch.store(m_epoch.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  std::atomic<std::uint64_t> m_epoch{0};
};

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_WORKER_ACTIVITY_HPP
