#ifndef TINE_APPLICATION_RESUME_ON_HPP
#define TINE_APPLICATION_RESUME_ON_HPP

/// \file resume_on.hpp
/// Explicit scheduling (libfork paper, section III-D1): `co_await tine::resume_on(s)` suspends the
/// task and resumes it on scheduler `s` (another pool, an inline scheduler, or one chosen worker
/// such as `pool.worker(2)`), through that worker's submission queue. The task's stack moves with
/// it; the worker it leaves starts a fresh stack and goes back to stealing.
///
/// Only allowed outside a fork-join scope (join first): otherwise `std::logic_error`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <stdexcept>

#include <tine/core/concepts.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/held_views.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {
namespace detail {

/// The submission a moving task leaves in the target's queue; it lives in the task's frame.
struct moving_task : submit_node {
  frame* task = nullptr;
  strand_views* views = nullptr;  ///< the record of the strand, which moves with the task

  static void arrive(submit_node* node) {
    auto* self = static_cast<moving_task*>(node);
    frame* f = self->task;
    worker_runtime& rt = runtime();
    rt.stacks().adopt(f->stack);
    rt.resume_moved(f);  // a stop requested while it moved: its forks look first
    rt.strands().enter(self->views);
    rt.resume(handle_of(f));
  }
};

template <scheduler S>
struct resume_on_request {
  using tine_request = void;
  S* target;
  moving_task node{};

  resume_on_request bind(frame& f) && noexcept {
    check_no_held_view();
    node.task = &f;
    node.run = &moving_task::arrive;
    return *this;
  }

  bool await_ready() const {
    if (node.task->in_scope) {
      throw std::logic_error(
          "tine::resume_on: a task cannot move between a fork and its join; co_await tine::join() "
          "first");
    }
    return false;
  }

  void await_suspend(std::coroutine_handle<>) {
    worker_runtime& rt = runtime();
    frame* f = node.task;
    rt.hand_over(f);  // a check set here goes with the task and those waiting on it
    f->stack = rt.top();
    worker_stacks::prepare_to_park(f->stack);
    rt.stacks().park();
    node.views = rt.strands().leave();
    try {
      target->schedule(&node);  // the task may now run elsewhere: this object is in its frame
    } catch (...) {
      // The scheduler refused the node (it must not have queued it): the task stays here, on
      // its own stack again, and the exception comes out of the co_await.
      rt.stacks().adopt(f->stack);
      rt.strands().enter(node.views);
      throw;
    }
  }

  void await_resume() const noexcept {}
};

}  // namespace detail

/// Moves the calling task to scheduler (or worker) `target`; see the file comment.
template <scheduler S>
[[nodiscard(
    "tine::resume_on does nothing unless co_awaited: the task stays on the worker it runs "
    "on")]] detail::resume_on_request<S>
resume_on(S& target) noexcept {
  return {&target};
}

}  // namespace tine

#endif  // TINE_APPLICATION_RESUME_ON_HPP
