#ifndef TINE_SCHEDULERS_INLINE_SCHEDULER_HPP
#define TINE_SCHEDULERS_INLINE_SCHEDULER_HPP

/// \file inline_scheduler.hpp
/// `tine::inline_scheduler`: a single worker thread. Forked children run in program order and
/// nothing is ever stolen by another thread, so runs are deterministic: the scheduler for tests,
/// debugging and measuring the runtime's serial overhead.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/schedulers/liveness.hpp>

namespace tine {

/// A scheduler with one worker thread: deterministic runs, no stealing (see the file comment).
class inline_scheduler {
 public:
  inline_scheduler() : m_thread([this] { loop(); }) {}

  /// Roots spawned here and tasks of it suspended on a future: the destructor waits for them
  /// (scheduler_ref.hpp).
  std::atomic<std::size_t>& pending_work() noexcept { return m_pending; }

  inline_scheduler(const inline_scheduler&) = delete;
  inline_scheduler& operator=(const inline_scheduler&) = delete;

  /// Waits for the roots spawned here and its tasks suspended on a future, then stops the worker
  /// after it has run everything already submitted. Destroy the scheduler only once every
  /// sync_wait on it has returned.
  ~inline_scheduler() {
    m_liveness.check(
        "a tine::inline_scheduler was destroyed twice (its destructor ran again on the same "
        "object)");
    // acquire: pairs with the release decrements of pending work.
    for (auto pause = std::chrono::microseconds(20); m_pending.load(std::memory_order_acquire) != 0;
         pause = std::min(pause * 2, std::chrono::microseconds(2000))) {
      std::this_thread::sleep_for(pause);
    }
    m_stop.store(true, std::memory_order_release);
    wake();
    m_thread.join();
    m_liveness.end();
  }

  /// Queues `node` for the worker; any thread. Used after the destructor ran, it ends the
  /// program with a message instead of queuing work that would never run (see liveness.hpp).
  void schedule(submit_node* node) noexcept {
    m_liveness.check(
        "a tine::inline_scheduler was used after it was destroyed: work was submitted to it "
        "(sync_wait, an algorithm, resume_on) after its destructor had stopped its worker, and "
        "would never run; keep the scheduler alive until every use of it has returned");
    m_context.submit(node);
    wake();
  }

  /// The worker's context (for inspection; the worker thread owns it).
  worker_context& context() noexcept { return m_context; }

 private:
  void wake() noexcept {
    // release: the queued node (and the stop flag) are visible to the worker once it sees the
    // new epoch; the worker re-checks its queue after reading the epoch, so no wake-up is lost.
    m_epoch.fetch_add(1, std::memory_order_release);
    m_epoch.notify_one();
  }

  void loop() {
    m_context.set_worker_count(1);
    m_context.set_scheduler(*this);
    m_context.bind();
    for (;;) {
      // acquire: pairs with wake(); read before checking for work so a concurrent submission
      // either is seen by the checks below or changes the epoch we then wait on.
      const std::uint32_t epoch = m_epoch.load(std::memory_order_acquire);
      // One submission, then one continuation, in turn: a stream of submissions (tasks moving
      // here with resume_on) cannot starve the continuations, nor the other way round. A task
      // that moved away may have left continuations in our deque; they go before a submission
      // (newest first, worker_context::steal_from), so that a task moving here cannot end by
      // taking back a continuation its parent pushed in a later strand (docs/extending.md).
      bool ran = m_context.deque_size() == 0 && m_context.run_one_submission();
      ran = m_context.steal_from(m_context) == steal_status::success || ran;
      if (ran) {
        continue;
      }
      if (m_stop.load(std::memory_order_acquire)) {
        break;
      }
      m_epoch.wait(epoch, std::memory_order_acquire);
    }
    m_context.unbind();
  }

  worker_context m_context{1024, /*unshared=*/true};  // nobody else ever steals from it
  std::atomic<std::uint32_t> m_epoch{0};
  std::atomic<bool> m_stop{false};
  std::atomic<std::size_t> m_pending{0};
  detail::liveness m_liveness;
  std::thread m_thread;  // last: it starts in the constructor, with every member above made
};

static_assert(scheduler<inline_scheduler>);

}  // namespace tine

#endif  // TINE_SCHEDULERS_INLINE_SCHEDULER_HPP
