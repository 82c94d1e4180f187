#ifndef TINE_CORE_CONTINUATION_QUEUE_HPP
#define TINE_CORE_CONTINUATION_QUEUE_HPP

/// \file continuation_queue.hpp
/// `tine::continuation_queue`: where a worker offers its continuations when its thieves cannot
/// reach the core's deque, as in a distributed pool whose thieves are other processes and steal
/// through one-sided MPI operations. A scheduler installs one on a worker's context
/// (`worker_context::set_continuation_queue`); that worker's forks then push their parents onto it
/// and its returning children pop them back from it, and the core's own deque stays empty.
/// Without one, the core's push tests one pointer, and a single worker's pop tests it only when
/// its own deque was empty.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <optional>

#include <tine/core/frame.hpp>

namespace tine {

/// The owner's side of a work-stealing deque kept outside the core. Only the worker that the
/// queue is installed on calls `push` and `pop`, from inside its tasks; thieves take the oldest
/// continuation by the queue's own means and run it with `worker_context::resume_stolen`.
class continuation_queue {
 public:
  /// Offers `parent`'s continuation to thieves: from here a thief may resume it. Throws when it
  /// cannot (std::bad_alloc, or the queue's own exception): the fork then fails as when the
  /// core's deque cannot grow. After a `pop` that returned a value, pushing that value back must
  /// not throw (the slot it left is free).
  virtual void push(detail::frame* parent) = 0;

  /// Takes back the most recently pushed continuation, or nothing when thieves took every one.
  virtual std::optional<detail::frame*> pop() noexcept = 0;

 protected:
  continuation_queue() = default;
  continuation_queue(const continuation_queue&) = default;
  continuation_queue& operator=(const continuation_queue&) = default;
  ~continuation_queue() = default;
};

}  // namespace tine

#endif  // TINE_CORE_CONTINUATION_QUEUE_HPP
