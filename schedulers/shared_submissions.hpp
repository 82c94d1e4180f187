#ifndef TINE_SCHEDULERS_SHARED_SUBMISSIONS_HPP
#define TINE_SCHEDULERS_SHARED_SUBMISSIONS_HPP

/// \file shared_submissions.hpp
/// `tine::detail::shared_submissions`: a pool's queue of submissions that any of its workers may
/// run (root tasks from `sync_wait(pool, ...)`, tasks moving in with `resume_on(pool)` from
/// elsewhere). A submission given to one worker's own queue waits while that worker runs a long
/// task, even if others are idle; one in this queue goes to the first worker that looks.
///
/// Any thread pushes (the lock-free queue of submission_queue.hpp). Workers take one at a time
/// under a try-lock: the queue has a single consumer, so taking it is a role workers hand over,
/// each taker's release of the lock happening-before the next one's acquisition. A worker that
/// finds the lock held moves on: the holder is taking, and the queue is looked at again soon.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>

#include <tine/core/submission_queue.hpp>
#include <tine/core/submit_node.hpp>

namespace tine::detail {

class shared_submissions {
 public:
  /// Any thread: queues `node`.
  void push(submit_node* node) noexcept { (void)m_queue.push(node); }

  /// Any thread: whether nothing is queued (a snapshot, acquire: see intrusive_mpsc::empty).
  bool empty() const noexcept { return m_queue.empty(); }

  /// A worker: the oldest submission, or null when there is none or another worker is taking
  /// one right now.
  submit_node* try_take() noexcept {
    if (m_queue.empty()) {
      return nullptr;  // the common case: no write to the lock's line
    }
    // acquire: the previous taker's pops (its private batch list) happen-before ours.
    if (m_taking.exchange(true, std::memory_order_acquire)) {
      return nullptr;
    }
    submit_node* node = m_queue.pop();
    // release: hands the consumer role, with the batch list as we left it, to the next taker.
    m_taking.store(false, std::memory_order_release);
    return node;
  }

 private:
  intrusive_mpsc<submit_node> m_queue;
  alignas(64) std::atomic<bool> m_taking{false};
};

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_SHARED_SUBMISSIONS_HPP
