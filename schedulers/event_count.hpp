#ifndef TINE_SCHEDULERS_EVENT_COUNT_HPP
#define TINE_SCHEDULERS_EVENT_COUNT_HPP

/// \file event_count.hpp
/// `tine::event_count`: lets threads sleep until "something changed" without a mutex, and without
/// the lost wake-up of a naive `if (!ready) sleep();`.
///
/// A waiter announces itself, re-checks its condition, and only then sleeps:
///
/// ```
/// auto key = ec.prepare_wait();
/// if (condition()) { ec.cancel_wait(); return; }   // re-check after announcing
/// ec.commit_wait(key);                              // sleeps unless notified since prepare_wait
/// ```
///
/// A notifier first makes the condition true (any atomic store) and then calls `notify_one()` or
/// `notify_all()`. Guarantee: either the waiter's re-check sees the condition, or the notifier sees
/// the announced waiter and wakes it (a commit_wait whose key is stale returns at once). So a
/// wake-up is never lost, and a notifier with no waiter pays one uncontended read-modify-write.
///
/// Built on C++20 `std::atomic<uint32_t>::wait/notify` (a futex on Linux). The key is a 32-bit
/// epoch: a waiter could miss a notification only if exactly 2^32 notifications happened between
/// its prepare_wait and its commit_wait, which we accept.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstdint>

namespace tine {

/// Sleep until notified without losing a wake-up: prepare_wait, re-check, commit_wait (see the
/// file comment).
class event_count {
 public:
  /// What `prepare_wait` returns and `commit_wait` takes: the epoch seen when announcing.
  using key = std::uint32_t;

  event_count() noexcept = default;
  event_count(const event_count&) = delete;
  event_count& operator=(const event_count&) = delete;

  /// Announces that the calling thread is about to sleep. Follow it with exactly one of
  /// cancel_wait() or commit_wait(key), after re-checking the condition.
  key prepare_wait() noexcept {
    // acq_rel read-modify-write: pairs with the read-modify-write in announced_waiters(). Both
    // are RMWs of this one variable, so they are totally ordered: if the notifier's comes first,
    // ours reads its value (release sequence) and synchronises with it, so the notifier's
    // condition write is visible to our re-check; if ours comes first, the notifier reads our
    // increment and wakes us. (A fence-based Dekker handshake would do the same more cheaply,
    // but ThreadSanitizer does not support atomic_thread_fence.)
    m_waiters.fetch_add(1, std::memory_order_acq_rel);
    // acquire: if this reads a notifier's increment, everything before that notification
    // (including making the condition true) is visible to our re-check.
    return m_epoch.load(std::memory_order_acquire);
  }

  /// Withdraws a prepare_wait (the condition turned out to be true).
  void cancel_wait() noexcept {
    // relaxed: a stale count only makes a notifier bump the epoch for nobody (harmless).
    m_waiters.fetch_sub(1, std::memory_order_relaxed);
  }

  /// Sleeps until a notification after the prepare_wait that returned `k`; returns at once if one
  /// already happened.
  void commit_wait(key k) noexcept {
    // acquire: the notifier's release increment (and so its condition) happens-before our
    // return. wait() re-checks the value against `k` before blocking and loops over spurious
    // futex returns, so it returns only once the epoch differs from `k`.
    m_epoch.wait(k, std::memory_order_acquire);
    // relaxed: we no longer sleep; a notifier that still counts us wakes nobody.
    m_waiters.fetch_sub(1, std::memory_order_relaxed);
  }

  /// Wakes one waiter if any (after the caller made its condition true). Returns whether a
  /// waiter was announced.
  bool notify_one() noexcept {
    if (!announced_waiters()) {
      return false;
    }
    // release: publishes the condition to the waiter that reads this epoch (see prepare_wait).
    m_epoch.fetch_add(1, std::memory_order_release);
    m_epoch.notify_one();
    return true;
  }

  /// Wakes every waiter (after the caller made its condition true). Returns whether any waiter
  /// was announced.
  bool notify_all() noexcept {
    if (!announced_waiters()) {
      return false;
    }
    // release: as in notify_one.
    m_epoch.fetch_add(1, std::memory_order_release);
    m_epoch.notify_all();
    return true;
  }

  /// How many threads are between prepare_wait and the end of cancel/commit_wait (a snapshot,
  /// for tests and statistics).
  std::uint32_t waiters() const noexcept { return m_waiters.load(std::memory_order_relaxed); }

 private:
  bool announced_waiters() noexcept {
    // acq_rel read-modify-write that changes nothing: see prepare_wait. It must come after the
    // caller's write of the condition; a plain load here could miss a waiter that announced
    // itself just before and then missed the condition (store-load reordering).
    return m_waiters.fetch_add(0, std::memory_order_acq_rel) != 0;
  }

  // Separate lines: waiters are counted on every sleep, the epoch is what sleepers block on.
  alignas(64) std::atomic<std::uint32_t> m_epoch{0};
  alignas(64) std::atomic<std::uint32_t> m_waiters{0};
};

}  // namespace tine

#endif  // TINE_SCHEDULERS_EVENT_COUNT_HPP
