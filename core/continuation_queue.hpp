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

#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <utility>

#include <tine/core/frame.hpp>
#include <tine/core/push_checks.hpp>

namespace tine {

/// A strand arriving at the join of a frame whose continuation a thief took (see
/// continuation_queue::arrive).
struct join_arrival {
  /// How many strands it counts for, in the core's split join counter: 1 for a child, or, for
  /// the frame itself reaching its join, the largest count less the number of steals.
  std::uint32_t strands = 1;
  /// A child's result as it wrote it into this process's copy of the frame (null: none, or the
  /// frame's own arrival), and its size.
  const void* result = nullptr;
  std::uint32_t result_bytes = 0;
  /// A child's exception, not yet stored in the frame.
  std::exception_ptr exception;
  /// True when the frame itself arrives at its join (its continuation's arrival), false for a
  /// child.
  bool frame_itself = false;
};

namespace detail {

/// The core's own join step: store a child's exception in `f`, then count the arrival down on
/// `f`'s counter. True if it was the last.
inline bool count_arrival(frame* f, join_arrival& a) noexcept {
  if (a.exception) {
    f->stash_exception(std::move(a.exception));
    // `f`'s continuation runs elsewhere: whichever worker forks for it next looks first, and
    // does not start children after this one threw (push_checks.hpp).
    push_hook_registry::instance().request_checks();
  }
  // acq_rel: release publishes this strand's writes (results, exception) to whoever resumes `f`;
  // acquire, when we are last, makes every other strand's writes visible to us.
  return f->joins.fetch_sub(a.strands, std::memory_order_acq_rel) == a.strands;
}

}  // namespace detail

/// The owner's side of a work-stealing deque kept outside the core. Only the worker that the
/// queue is installed on calls `push` and `pop`, from inside its tasks; thieves take the oldest
/// continuation by the queue's own means and run it with `worker_context::resume_stolen`.
class continuation_queue {
 public:
  /// Offers `parent`'s continuation to thieves: from here a thief may resume it. `child` is the
  /// coroutine frame of the child just forked, the allocation that follows the parent's own
  /// (null when a continuation is given back rather than forked). Throws when it cannot
  /// (std::bad_alloc, or the queue's own exception): the fork then fails as when the core's
  /// deque cannot grow. After a `pop` that returned a value, pushing that value back must not
  /// throw (the slot it left is free).
  virtual void push(detail::frame* parent, void* child) = 0;

  /// Takes back the most recently pushed continuation, or nothing when thieves took every one.
  virtual std::optional<detail::frame*> pop() noexcept = 0;

  /// A strand arrives at the join of `f`, whose continuation was taken from this worker's queue
  /// (or which this worker took as a thief) since its scope opened: a child that ended and did
  /// not find `f` in the queue, or `f` itself at its join. Returns true if the strand arrived
  /// last and this worker continues `f` now. The default is the core's own counter in the frame,
  /// for thieves that share the process; a queue whose thieves are other processes keeps the
  /// count where every process reaches it, and resumes `f` itself (worker_context::
  /// resume_joined) when the last arrival happens elsewhere.
  virtual bool arrive(detail::frame* f, join_arrival& arrival) noexcept {
    return detail::count_arrival(f, arrival);
  }

 protected:
  continuation_queue() = default;
  continuation_queue(const continuation_queue&) = default;
  continuation_queue& operator=(const continuation_queue&) = default;
  ~continuation_queue() = default;
};

}  // namespace tine

#endif  // TINE_CORE_CONTINUATION_QUEUE_HPP
