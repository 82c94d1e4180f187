#ifndef TINE_CORE_WORKER_BACKEND_HPP
#define TINE_CORE_WORKER_BACKEND_HPP

/// \file worker_backend.hpp
/// `tine::worker_backend`: what a scheduler installs on a worker whose tasks may leave the
/// process, such as a distributed pool's, whose thieves are other processes stealing through
/// one-sided MPI operations. One object answers the four questions the core otherwise answers
/// itself:
/// - which continuations leave the worker's deque for the backend's own thieves (`offer`, when
///   the backend asked for it with `worker_context::request_offer`; `take_back` returns them to
///   the worker when its deque runs dry). Thieves that share the process keep stealing from the
///   deque as from any worker's; the backend's thieves run what they take with
///   `worker_context::resume_stolen`;
/// - how arrivals at the join of a frame whose continuation was taken are counted (`arrive`; the
///   core's counter in the frame by default, join_counter.hpp);
/// - where the worker's stacklets come from (`stacklets()`; the heap by default), so that frames
///   sit at addresses of the backend's choosing;
/// - how an exception stored in a frame is kept (`exceptions()`; the `std::exception_ptr` itself
///   by default), so that a frame's bytes mean the same in another process.
///
/// Installed with `worker_context::set_backend`. The core's fast path stays exactly its own: a
/// fork tests the one pointer it already tests for stop requests (set only when the backend
/// asked for an offer), and a pop looks at the backend only when the worker's deque was empty.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/core/deque.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/stacklet.hpp>

namespace tine {

class worker_backend {
 public:
  /// Called at the worker's first fork after `worker_context::request_offer()` (or after a stop
  /// or exception check request, push_checks.hpp: an offer may come unasked), on the worker,
  /// before the fork pushes `parent`'s continuation; `child` is the coroutine frame of the child
  /// being forked, the allocation that follows the parent's own. The backend may take
  /// continuations out of `continuations`, the worker's deque, oldest first with its `steal()`,
  /// and keep them for its thieves; or take `parent`'s continuation itself and return true (the
  /// fork then does not push it). Every continuation taken must be either run by a thief
  /// (`worker_context::resume_stolen`) or given back by `take_back`, exactly once. The deque's
  /// items are the worker's current task's ancestors, oldest at the top, and every continuation
  /// the backend holds is older than all of them. To be asked again at a later fork, call
  /// `request_offer()` again. Throws only before taking anything: the fork then fails with it.
  virtual bool offer(detail::frame* parent, void* child, deque<detail::frame*>& continuations) = 0;

  /// True: `offer` is called at every fork while the backend is installed, without asking
  /// (request_offer); read once, at installation.
  virtual bool offers_at_every_fork() const noexcept { return false; }

  /// True: the frames this worker runs stay in this process, with their roots and stop scopes,
  /// so its forks obey stops and a sibling's exception as without a backend (push_checks.hpp:
  /// a fork that should not start its child is not offered). False, the default: every fork
  /// starts its child unless `stops_reach` says otherwise of its frame, as a backend whose frames
  /// may come from another process needs (their roots' contexts are there). Read once, at
  /// installation.
  virtual bool checks_forks() const noexcept { return false; }

  /// The worker's deque is empty at a pop: the newest continuation the backend took by `offer`
  /// and still holds, or null when its thieves took every one.
  virtual detail::frame* take_back() noexcept = 0;

  /// Asked only when `checks_forks()` is false: whether stops reach `f`, a frame running on this
  /// worker (a fork's parent) or a continuation the worker is about to run with
  /// `worker_context::resume_stolen`: true only if `f->stack` (the stacklet `f`'s fork-join scope
  /// opened on) is a live stacklet of this process, whose header names a root or stop scope
  /// (`root_context`) that may be read here. Then, as on a worker without a backend, a fork of
  /// `f` after a check request starts no child when `f`'s root or scope was asked to stop or a
  /// sibling threw (push_checks.hpp), and a continuation of `f` resumed by `resume_stolen` runs in
  /// its root's context (`tine::stop_requested()`, `tine::request_stop()`). False by default: the
  /// core then never reads `f->stack`'s header, which for a frame copied from another process
  /// names that process's memory.
  virtual bool stops_reach(const detail::frame* f) const noexcept {
    (void)f;
    return false;
  }

  /// A strand arrives at the join of `f`, whose continuation was taken from this worker (or
  /// which this worker took as a thief) since its scope opened, by any thief: a child that ended
  /// and did not find `f` to pop, or `f` itself at its join. Returns true if the strand arrived
  /// last and this worker continues `f` now. The default is the core's own counter in the frame,
  /// for thieves that share the process; a backend whose thieves are other processes keeps the
  /// count where every process reaches it, and resumes `f` itself (worker_context::resume_joined)
  /// when the last arrival happens elsewhere.
  virtual bool arrive(detail::frame* f, join_arrival& arrival) noexcept {
    return detail::count_arrival(f, arrival);
  }

  /// A frame this backend marked (by setting `frame::observed` in its `attention`, at an offer)
  /// passed a join (`at_end` false) or reached its end (true: returned or threw, its children
  /// joined, before it is freed), on this worker. For a backend that watches the shape of a
  /// computation (tine::analyze); frames nobody marked never come here.
  virtual void observed(detail::frame* f, bool at_end) noexcept {
    (void)f;
    (void)at_end;
  }

  /// Where the worker's stacklets come from while the backend is installed (null: the heap).
  /// Each stacklet goes back to where it came from, whenever and wherever it is freed; the
  /// source must outlive the worker's context.
  virtual const detail::stacklet_source* stacklets() const noexcept { return nullptr; }

  /// How exceptions stored in the worker's frames are encoded (null: frames hold the
  /// `std::exception_ptr`).
  virtual const detail::exception_codec* exceptions() const noexcept { return nullptr; }

  /// True: the frames this worker runs may be copied to another process and continue there (a
  /// distributed pool's thieves). The core then keeps each returned value for an arrival at a
  /// parent elsewhere, and tine::reducer and tine::dprng refuse to run, with a message (a view
  /// lives in one process's heap; a moved frame's ancestors stay behind). Such a backend must
  /// give an exception codec (`exceptions()`): set_backend ends the program otherwise. False by
  /// default; read once, at installation.
  virtual bool frames_leave_process() const noexcept { return false; }

 protected:
  worker_backend() = default;
  worker_backend(const worker_backend&) = default;
  worker_backend& operator=(const worker_backend&) = default;
  ~worker_backend() = default;
};

}  // namespace tine

#endif  // TINE_CORE_WORKER_BACKEND_HPP
