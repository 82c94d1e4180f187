#ifndef TINE_CORE_FINAL_HPP
#define TINE_CORE_FINAL_HPP

/// \file final.hpp
/// What happens when a task returns (libfork paper, algorithm 5): hand its exception to its
/// parent, free its frame, then resume the parent if its continuation is still ours, or take part
/// in the parent's join (the implicit join) if it was stolen.

#include <coroutine>
#include <optional>

#include <tine/core/config.hpp>
#include <tine/core/context.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/root_sink.hpp>

namespace tine::detail {

/// The completion paths refer to each other (an implicit join may finish a parent that was
/// waiting at its end), so they live in one class rather than as forward-declared functions.
struct completion {
  /// The parent's continuation was stolen: count this child as joined (Nowa's split counter) and
  /// continue the parent if this was the last strand to arrive at its join.
  TINE_NOINLINE static std::coroutine_handle<> implicit_join(frame* parent) noexcept {
    worker_context& ctx = context();
    // Read before our decrement: once it is done the parent may run again elsewhere and record a
    // new stack.
    stacklet* parent_stack = parent->stack;
    if (ctx.top() == parent_stack) {
      // We hold the parent's stack and will probably leave it parked with the parent: drop its
      // cached stacklet now, while it is still ours, so idle stacks do not pin memory.
      trim_cache(parent_stack);
    }
    // acq_rel: release publishes this strand's writes (results, exception) to whoever resumes the
    // parent; acquire, when we are last, makes every other strand's writes visible to us.
    if (parent->joins.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ctx.adopt_stack(parent_stack);
      if (TINE_UNLIKELY(parent->at_final)) {
        return finish(parent);  // the parent had already returned and was waiting for us
      }
      return ctx.transfer(handle_of(parent));
    }
    if (ctx.top() == parent_stack) {
      ctx.release_stack();  // the parent's stack goes with the parent; whoever resumes it adopts it
    }
    return std::noop_coroutine();
  }

  /// A forked child has finished and its frame is freed: what runs next.
  [[gnu::always_inline]] static std::coroutine_handle<> after_fork(frame* parent) noexcept {
    worker_context& ctx = context();
    // If the parent's continuation is still at the bottom of our deque, nobody stole it.
    if (std::optional<frame*> bottom = ctx.pop_task()) {
      if (TINE_LIKELY(*bottom == parent)) {
        return ctx.transfer(handle_of(parent));
      }
      // A continuation left behind by a task that moved away with resume_on: not ours to resume
      // directly; give it back to the thieves.
      ctx.tasks().push(*bottom);
    }
    return implicit_join(parent);
  }

  /// Ends task `f` (suspended at its final point, all children joined) and returns what to run
  /// next. The general path: roots, exceptions, frames with destructors to run.
  TINE_NOINLINE static std::coroutine_handle<> finish(frame* f) noexcept {
    const frame_kind kind = f->kind;
    if (kind == frame_kind::root) {
      root_sink* sink = f->root;
      if (f->has_exception.load(std::memory_order_relaxed)) {
        sink->exception = f->take_exception();
      }
      handle_of(f).destroy();
      sink->complete();
      return std::noop_coroutine();
    }
    frame* parent = f->parent;
    // relaxed: children of `f` that stored an exception have all joined (synchronised by the join).
    if (f->has_exception.load(std::memory_order_relaxed)) {
      parent->stash_exception(f->take_exception());
    }
    handle_of(f).destroy();  // frees the frame: it is the top allocation of this worker's stack
    if (kind == frame_kind::call) {
      return context().transfer(handle_of(parent));
    }
    return after_fork(parent);
  }
};

/// A task returned (or threw) inside a fork-join scope: join its children first, as Cilk's
/// implicit sync at function exit does. Returns true when they are all done.
TINE_NOINLINE inline bool join_at_end(frame* f) noexcept {
  f->in_scope = false;
  if (f->steals == 0) {
    return true;  // nothing was stolen, so every child ran to completion on this worker
  }
  f->at_final = true;  // read by the last child after it synchronises with the decrement below
  const std::uint32_t k = frame::max_joins - f->steals;
  stacklet* stack = f->stack;
  // acq_rel: see implicit_join(); when this is not the last decrement the last child finishes `f`.
  worker_context& ctx = context();
  if (f->joins.fetch_sub(k, std::memory_order_acq_rel) == k) {
    ctx.adopt_stack(stack);
    return true;
  }
  if (ctx.top() == stack) {
    ctx.release_stack();  // as in the explicit join: the stack stays with the suspended task
  }
  return false;
}

/// The awaitable returned by every task's final_suspend. `Trivial` tasks (every parameter
/// trivially destructible) are freed with a pointer reset instead of a call to the coroutine's
/// destroy function: nothing in the frame has a destructor to run at this point.
template <bool Trivial>
struct final_awaitable {
  bool await_ready() const noexcept { return false; }

  template <typename Promise>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) const noexcept {
    frame* f = &self.promise().frame_header;
    if (TINE_UNLIKELY(f->in_scope) && !join_at_end(f)) {
      return std::noop_coroutine();
    }
    if (TINE_UNLIKELY(f->kind == frame_kind::root ||
                      f->has_exception.load(std::memory_order_relaxed))) {
      return completion::finish(f);
    }
    frame* parent = f->parent;
    const frame_kind kind = f->kind;
    if constexpr (Trivial) {
      stack_pop(context().top(), self.address());
    } else {
      self.destroy();
    }
    if (kind == frame_kind::call) {
      return context().transfer(handle_of(parent));
    }
    return completion::after_fork(parent);
  }

  void await_resume() const noexcept {}
};

}  // namespace tine::detail

#endif  // TINE_CORE_FINAL_HPP
