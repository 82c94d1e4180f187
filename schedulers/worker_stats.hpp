#ifndef TINE_SCHEDULERS_WORKER_STATS_HPP
#define TINE_SCHEDULERS_WORKER_STATS_HPP

/// \file worker_stats.hpp
/// Per-worker counters of tine's pools: `tine::worker_stats` (a plain snapshot you read) and
/// `tine::detail::worker_counters` (the live counters a worker bumps).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstdint>

namespace tine {

/// What one worker of a pool has done since the pool started. A snapshot: each field is read
/// separately (relaxed), so fields may be from slightly different instants.
struct worker_stats {
  std::uint64_t submissions_run = 0;   ///< Root tasks and resume_on arrivals run from its queue.
  std::uint64_t steals_attempted = 0;  ///< Victims probed (its own deque included).
  std::uint64_t steals_succeeded = 0;  ///< Continuations stolen and run.
  std::uint64_t sleeps = 0;            ///< Times it went to sleep (lazy_pool only; 0 in busy_pool).

  worker_stats& operator+=(const worker_stats& o) noexcept {
    submissions_run += o.submissions_run;
    steals_attempted += o.steals_attempted;
    steals_succeeded += o.steals_succeeded;
    sleeps += o.sleeps;
    return *this;
  }
};

namespace detail {

/// The live counters. Written only by their worker, read by anyone.
class worker_counters {
 public:
  void submission_run() noexcept { bump(m_submissions_run); }
  void steal_attempted() noexcept { bump(m_steals_attempted); }
  void steal_succeeded() noexcept { bump(m_steals_succeeded); }
  void slept() noexcept { bump(m_sleeps); }

  worker_stats snapshot() const noexcept {
    // relaxed: statistics; nothing is read on the strength of them.
    return {m_submissions_run.load(std::memory_order_relaxed),
            m_steals_attempted.load(std::memory_order_relaxed),
            m_steals_succeeded.load(std::memory_order_relaxed),
            m_sleeps.load(std::memory_order_relaxed)};
  }

 private:
  static void bump(std::atomic<std::uint64_t>& c) noexcept {
    // Single writer: a relaxed load and store instead of a locked read-modify-write. Atomic only
    // so that readers on other threads do not race.
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  std::atomic<std::uint64_t> m_submissions_run{0};
  std::atomic<std::uint64_t> m_steals_attempted{0};
  std::atomic<std::uint64_t> m_steals_succeeded{0};
  std::atomic<std::uint64_t> m_sleeps{0};
};

}  // namespace detail
}  // namespace tine

#endif  // TINE_SCHEDULERS_WORKER_STATS_HPP
