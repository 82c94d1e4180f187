#ifndef TINE_CORE_FINAL_HPP
#define TINE_CORE_FINAL_HPP

/// \file final.hpp
/// What happens when a task returns (libfork paper, algorithm 5), and the step every join shares.
///
/// A returning task hands its exception to its parent, takes the parent's continuation back if it
/// is still ours, frees its frame and resumes the parent; if the continuation was stolen, it frees
/// its frame and takes part in the parent's join (the implicit join). That arrival may complete
/// a parent that had itself returned and was waiting for its children, whose completion may
/// complete the grandparent, and so on: `completion::finish` runs such a cascade as a loop, in
/// constant C++ stack, however deep it is.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include <tine/core/frame.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine::detail {

/// A strand arrives at the join of `f`, counting for `a.strands` strands (Nowa's split counter: a
/// child whose parent was stolen counts 1, with its result and exception; the task itself, at its
/// join, counts I_max - steals). Returns true if it arrived last: it then owns `f`, runs on `f`'s
/// stack and holds what the strands of f's scope kept, merged (worker_strands.hpp). Otherwise
/// whoever arrives last resumes `f`, and if this strand ran on `f`'s stack it leaves it parked with
/// `f`. The count is the core's counter in the frame (join_counter.hpp), or the installed worker
/// backend's.
inline bool arrive_at_join(worker_runtime& rt, frame* f, join_arrival& a) noexcept {
  // Read before the decrement: once it is done `f` may run again elsewhere and record a new stack.
  stacklet* stack = f->stack;
  const bool on_its_stack = rt.top() == stack;
  if (on_its_stack) {
    worker_stacks::prepare_to_park(stack);  // while it is still ours
  }
  rt.strands().deposit(f);  // what this strand keeps waits with f; the count below publishes it
  rt.hand_over(f);          // a check marker set here goes with f (before the count publishes it)
  if (rt.count_arrival(f, a)) {
    rt.stacks().adopt(stack);
    rt.strands().merge(f);  // every strand of f's scope arrived: what they kept, in serial order
    return true;
  }
  if (on_its_stack) {
    rt.stacks().park();
  }
  return false;
}

/// Every strand of `f`'s scope has joined and this worker runs on `f`'s stack: free the
/// stack_arrays that were destroyed while children could still use them.
inline void release_deferred(worker_runtime& rt, frame* f) noexcept {
  if (TINE_UNLIKELY(f->release_at_join != nullptr)) {
    stack_pop(rt.top(), f->release_at_join);
    f->release_at_join = nullptr;
  }
}

/// A task reached its end (returned or threw) inside a fork-join scope: join its children first,
/// as Cilk's implicit sync at function exit does. Returns true when they are all done.
TINE_NOINLINE inline bool join_at_end(frame* f) noexcept {
  f->in_scope = false;
  if (f->steals == 0) {
    return true;  // nothing was stolen, so every child ran to completion on this worker
  }
  f->at_final = true;  // read by the last child after it synchronises with the decrement
  worker_runtime& rt = runtime();
  join_arrival own = own_arrival(f);
  if (!arrive_at_join(rt, f, own)) {
    rt.note_join_suspended();  // `f` may already run elsewhere: only the worker is touched
    return false;              // the last child finishes `f` (completion::finish)
  }
  release_deferred(rt, f);
  return true;
}

/// Where `f` wrote its result for its parent; null when the parent discarded it (promise's
/// discard_result points `result` at the child's own bytes, which an arrival must not send).
inline const void* returned_result(const frame* f) noexcept {
  return f->result == static_cast<const void*>(f->returned) ? nullptr : f->result;
}

struct completion {
  /// Ends task `f` (suspended at its final point, all its children joined, this worker on its
  /// stack) and returns what to run next. The general path: roots, exceptions, observed frames,
  /// and cascades of implicit joins, all in one loop.
  TINE_NOINLINE static std::coroutine_handle<> finish(frame* f) noexcept {
    worker_runtime& rt = runtime();
    for (;;) {
      if (TINE_UNLIKELY((f->attention.load(std::memory_order_relaxed) & frame::observed) != 0)) {
        rt.backend()->observed(f, true);  // the backend that marked f watches its end
      }
      const frame_kind kind = f->kind;
      if (kind == frame_kind::root) {
        root_sink* sink = f->root;
        if (f->holds_exception(std::memory_order_relaxed)) {
          sink->exception = f->take_exception();
        }
        handle_of(f).destroy();
        rt.strands().end_root(sink->exception);  // reducers' views folded before the caller wakes
        sink->complete();
        return std::noop_coroutine();
      }
      frame* parent = f->parent;
      // relaxed: children of `f` that stored an exception have all joined (synchronised by the
      // join), and the parent's slot is published by our own arrival below.
      join_arrival arrival;
      if (f->holds_exception(std::memory_order_relaxed)) {
        arrival.exception = f->take_exception();
      } else {
        arrival.result = returned_result(f);
        arrival.result_bytes = f->result_bytes;
      }
      // A check used up in f's subtree, perhaps meant for a task that waits on f
      // (push_checks.hpp): passed to the parent, one frame per end.
      const bool relay = f->holds_relay();
      handle_of(f).destroy();  // frees the frame: it is the top allocation of this worker's stack
      if (kind == frame_kind::call || resumes_parent_directly(rt, parent)) {
        if (arrival.exception) {
          parent->stash_exception(std::move(arrival.exception));
          if (parent->in_scope || relay) {
            rt.request_check();  // its later forks here do not start children
          }
        } else if (relay) {
          rt.relay_to(parent);
        }
        return rt.transfer(handle_of(parent));
      }
      if (relay) {
        parent->set_relay();  // it goes on elsewhere: before the arrival publishes it
      }
      if (std::coroutine_handle<> next = join_stolen_parent(rt, parent, arrival)) {
        return next;
      }
      f = parent;  // the parent had reached its end and was waiting for us: finish it too
    }
  }

  /// True if the parent's continuation was still at the bottom of our deque (nobody stole it).
  TINE_ALWAYS_INLINE static bool resumes_parent_directly(worker_runtime& rt,
                                                         frame* parent) noexcept {
    frame* bottom = rt.pop();
    if (TINE_LIKELY(bottom == parent)) {
      return true;  // (parent is never null: a forked child has one)
    }
    if (bottom != nullptr) {
      // A continuation left behind by a task that moved away with resume_on: not ours to resume
      // directly; give it back to the thieves. (Cannot throw: the slot was just freed.)
      (void)rt.push(bottom, nullptr);
    }
    return false;
  }

  /// A forked child of `parent` has finished and the parent's continuation was stolen: the child
  /// takes part in the parent's join (the implicit join). Returns what to run next, or null when
  /// the parent had reached its end, was waiting for its children, and must now be finished.
  static std::coroutine_handle<> join_stolen_parent(worker_runtime& rt, frame* parent,
                                                    join_arrival& arrival) noexcept {
    if (!arrive_at_join(rt, parent, arrival)) {
      return std::noop_coroutine();
    }
    rt.note_join_resumed();  // the parent had suspended at its join (it arrived before us)
    if (!parent->at_final) {
      return rt.transfer(handle_of(parent));  // the parent waits at an explicit join
    }
    release_deferred(rt, parent);
    return nullptr;
  }

  /// A forked child `f` has finished and its parent's continuation was stolen: frees the child's
  /// frame (`Trivial`: without running destructors) and takes part in the parent's join (the
  /// implicit join). Returns what runs next.
  template <bool Trivial>
  TINE_NOINLINE static std::coroutine_handle<> implicit_join(frame* f) noexcept {
    worker_runtime& rt = runtime();
    frame* parent = f->parent;
    join_arrival arrival;
    arrival.result = returned_result(f);
    arrival.result_bytes = f->result_bytes;
    // The child's own copy of its result lives in its frame (or, when larger, with this thread):
    // read it before the frame is freed, for an arrival at a parent in another process.
    alignas(std::max_align_t) std::byte returned[frame::returned_capacity];
    if (arrival.result != nullptr && TINE_UNLIKELY(frames_may_leave_process())) {
      if (arrival.result_bytes <= frame::returned_capacity) {
        std::memcpy(returned, f->returned, arrival.result_bytes);
        arrival.returned = returned;
      } else {
        arrival.returned = kept_returned_bytes();
      }
    }
    if constexpr (Trivial) {
      stack_pop(rt.top(), handle_of(f).address());
    } else {
      handle_of(f).destroy();
    }
    if (std::coroutine_handle<> next = join_stolen_parent(rt, parent, arrival)) {
      return next;
    }
    return finish(parent);  // a cascade of completions runs in finish's loop
  }
};

/// The awaitable returned by every task's final_suspend. `Trivial` tasks (every parameter
/// trivially destructible) are freed with a pointer reset instead of a call to the coroutine's
/// destroy function: nothing in the frame has a destructor to run at this point.
template <bool Trivial>
struct final_awaitable {
  bool await_ready() const noexcept { return false; }

  template <typename Promise>
  TINE_ALWAYS_INLINE std::coroutine_handle<> await_suspend(
      std::coroutine_handle<Promise> self) const noexcept {
    frame* f = &self.promise().frame_header;
    if (TINE_UNLIKELY(f->in_scope) && !join_at_end(f)) {
      return std::noop_coroutine();
    }
    // One compare per path: no exception stored and a kind that returns to a parent.
    const std::uint16_t state = f->exception_and_kind();
    if (state == frame::clean(frame_kind::call)) {
      frame* parent = f->parent;
      worker_runtime& rt = runtime();
      free(rt, self);
      return rt.transfer(handle_of(parent));
    }
    if (TINE_LIKELY(state == frame::clean(frame_kind::fork))) {
      // A forked child: the hot path takes the parent back before freeing the frame, so that the
      // path where the parent was stolen still finds the frame's copy of the result.
      frame* parent = f->parent;
      worker_runtime& rt = runtime();
      if (TINE_LIKELY(completion::resumes_parent_directly(rt, parent))) {
        free(rt, self);
        return rt.transfer(handle_of(parent));
      }
      return completion::implicit_join<Trivial>(f);
    }
    return completion::finish(f);  // a root, an exception to hand on, or an observed frame
  }

  void await_resume() const noexcept {}

 private:
  template <typename Promise>
  TINE_ALWAYS_INLINE static void free(worker_runtime& rt,
                                      std::coroutine_handle<Promise> self) noexcept {
    if constexpr (Trivial) {
      stack_pop(rt.top(), self.address());
    } else {
      self.destroy();
    }
  }
};

}  // namespace tine::detail

#endif  // TINE_CORE_FINAL_HPP
