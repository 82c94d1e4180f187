#ifndef TINE_CORE_WORKER_BACKEND_HPP
#define TINE_CORE_WORKER_BACKEND_HPP

/// \file worker_backend.hpp
/// `tine::worker_backend`: what a scheduler installs on a worker whose tasks may leave the
/// process, such as a distributed pool's, whose thieves are other processes stealing through
/// one-sided MPI operations. One object answers the four questions the core otherwise answers
/// itself:
/// - where the worker's continuations go (`push`, `pop`; the core's deque stays empty), from
///   where the backend's own thieves take them and run them with `worker_context::resume_stolen`;
/// - how arrivals at the join of a frame whose continuation was taken are counted (`arrive`; the
///   core's counter in the frame by default, join_counter.hpp);
/// - where the worker's stacklets come from (`stacklets()`; the heap by default), so that frames
///   sit at addresses of the backend's choosing;
/// - how an exception stored in a frame is kept (`exceptions()`; the `std::exception_ptr` itself
///   by default), so that a frame's bytes mean the same in another process.
///
/// Installed with `worker_context::set_backend`. Without one, the core's fast path is exactly
/// its own: a fork tests one pointer it already tests for stop requests, and a single worker's
/// pop tests it only when its own deque was empty.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <optional>

#include <tine/core/frame.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/stacklet.hpp>

namespace tine {

class worker_backend {
 public:
  /// Offers `parent`'s continuation to thieves: from here a thief may resume it. `child` is the
  /// coroutine frame of the child just forked, the allocation that follows the parent's own
  /// (null when a continuation is given back rather than forked). Throws when it cannot
  /// (std::bad_alloc, or the backend's own exception): the fork then fails as when the core's
  /// deque cannot grow. After a `pop` that returned a value, pushing that value back must not
  /// throw (the slot it left is free).
  virtual void push(detail::frame* parent, void* child) = 0;

  /// Takes back the most recently pushed continuation, or nothing when thieves took every one.
  virtual std::optional<detail::frame*> pop() noexcept = 0;

  /// A strand arrives at the join of `f`, whose continuation was taken from this worker (or
  /// which this worker took as a thief) since its scope opened: a child that ended and did not
  /// find `f` to pop, or `f` itself at its join. Returns true if the strand arrived last and
  /// this worker continues `f` now. The default is the core's own counter in the frame, for
  /// thieves that share the process; a backend whose thieves are other processes keeps the count
  /// where every process reaches it, and resumes `f` itself (worker_context::resume_joined) when
  /// the last arrival happens elsewhere.
  virtual bool arrive(detail::frame* f, join_arrival& arrival) noexcept {
    return detail::count_arrival(f, arrival);
  }

  /// Where the worker's stacklets come from while the backend is installed (null: the heap).
  /// Each stacklet goes back to where it came from, whenever and wherever it is freed; the
  /// source must outlive the worker's context.
  virtual const detail::stacklet_source* stacklets() const noexcept { return nullptr; }

  /// How exceptions stored in the worker's frames are encoded (null: frames hold the
  /// `std::exception_ptr`). Installing one also tells the core that frames may leave the process
  /// (tine::reducer and tine::dprng then refuse to run, with a message).
  virtual const detail::exception_codec* exceptions() const noexcept { return nullptr; }

 protected:
  worker_backend() = default;
  worker_backend(const worker_backend&) = default;
  worker_backend& operator=(const worker_backend&) = default;
  ~worker_backend() = default;
};

}  // namespace tine

#endif  // TINE_CORE_WORKER_BACKEND_HPP
