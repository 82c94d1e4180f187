#ifndef TINE_CORE_JOIN_HPP
#define TINE_CORE_JOIN_HPP

/// \file join.hpp
/// `co_await tine::join()`: wait for every child forked since the last join (libfork paper,
/// algorithm 4, with Nowa's wait-free split counter). The join is greedy: the last strand to
/// arrive continues the task, so no worker ever blocks. If a child (or this task, between fork and
/// join) threw, the first exception is rethrown here, after all children have finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <cstdint>
#include <exception>
#include <utility>

#include <tine/core/final.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/held_views.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/request.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {
namespace detail {

struct join_awaitable {
  frame* self;

  bool await_ready() const noexcept {
    if (TINE_LIKELY(self->steals == 0)) {
      return true;  // nothing stolen: every child already ran to completion on this worker
    }
    if (all_strands_arrived(self)) {
      worker_runtime& rt = runtime();
      rt.stacks().adopt(self->stack);
      rt.strands().merge(self);  // what every strand of the scope left, in serial order
      return true;
    }
    return false;
  }

  bool await_suspend(std::coroutine_handle<>) const noexcept {
    // Nowa: restore N_tau = N'_tau - (I_max - alpha). Reaching zero means we arrived last and
    // continue at once; otherwise the last child resumes us: touch nothing more of the task (it
    // may already run elsewhere), only this worker's runtime, a local.
    worker_runtime& rt = runtime();
    join_arrival own = own_arrival(self);
    if (arrive_at_join(rt, self, own)) {
      return false;
    }
    rt.note_join_suspended();
    return true;
  }

  void await_resume() const {
    self->in_scope = false;
    if (self->steals != 0) {
      self->steals = 0;
      reset_join_counter(self);
      release_deferred(runtime(), self);
    }
    if (TINE_UNLIKELY(self->attention.load(std::memory_order_relaxed) != 0)) {
      attend(self);
    }
  }

  /// The join of a frame that needs attention: a worker backend watching it learns of the join,
  /// then a stored exception is rethrown (a relay waits for the task's end: push_checks.hpp).
  TINE_NOINLINE static void attend(frame* f) {
    if ((f->attention.load(std::memory_order_relaxed) & frame::observed) != 0) {
      runtime().backend()->observed(f, false);
    }
    if (f->holds_exception(std::memory_order_relaxed)) {
      std::rethrow_exception(f->take_exception());
    }
  }
};

struct join_request {
  using tine_request = void;
  [[no_unique_address]] await_check check{};

  join_awaitable bind(frame& f) && noexcept {
    check.awaited();
    check_no_held_view();
    return {&f};
  }
};

}  // namespace detail

/// Waits for all children forked since the last join; rethrows the first exception among them.
[[nodiscard(
    "tine::join does nothing unless co_awaited: the forked children are not waited for and their "
    "results are not ready")]] inline detail::join_request
join() noexcept {
  return {};
}

}  // namespace tine

#endif  // TINE_CORE_JOIN_HPP
