#ifndef TINE_CORE_PROCESS_BOUNDARY_HPP
#define TINE_CORE_PROCESS_BOUNDARY_HPP

/// \file process_boundary.hpp
/// `tine::process_boundary`: what a worker backend (worker_backend.hpp) declares when the frames
/// of its worker may cross the process boundary: be copied to another process and continue
/// there, and come from other processes to continue here (a distributed pool's, whose thieves
/// are other MPI ranks). One object says, for every worker that installs it:
/// - how an exception stored in a frame is kept (`exceptions()`, required: a frame's bytes must
///   mean the same in the other process, and an `std::exception_ptr` does not);
/// - where the worker's stacklets come from (`stacklets()`; the heap by default), so that frames
///   sit at addresses of the backend's choosing;
/// - which frames stop requests reach (`stops_reach`; none by default): a frame copied from
///   another process names that process's memory as its stacklet;
/// - how arrivals at the join of a frame whose continuation was taken are counted (`arrive`; the
///   core's counter in the frame by default, join_counter.hpp).
///
/// A backend returns it from `worker_backend::boundary()`; a backend whose frames stay in this
/// process returns null, and has none of the four. Having a boundary is the one declaration that
/// frames leave the process: the core then keeps each value a child returns for an arrival at a
/// parent elsewhere, and tine::reducer and tine::dprng refuse to run on the worker, with a
/// message (a view lives in one process's heap; a moved frame's ancestors stay behind). A boundary
/// cannot be made without an exception codec: `exceptions()` is pure and returns a reference.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/core/frame.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/stacklet.hpp>

namespace tine {

/// How the frames of the workers that install it cross the process boundary (see the file's
/// comment). `exceptions()` and `stacklets()` are read once, when a worker installs its backend
/// (worker_context::set_backend); `stops_reach` and `arrive` are called on that worker while the
/// backend is installed, concurrently when the boundary serves several workers (the distributed
/// pool has one per process). It must outlive every installation, and its stacklet source the
/// workers' contexts.
class process_boundary {
 public:
  /// How exceptions stored in the worker's frames are encoded, so that a token in a frame means
  /// the same in every process. Required: every frame that may leave the process needs one.
  virtual const detail::exception_codec& exceptions() const noexcept = 0;

  /// Where the worker's stacklets come from while its backend is installed (null, the default:
  /// the heap): the worker's idle stacks are made anew from it at installation. Each stacklet
  /// goes back to where it came from, whenever and wherever it is freed.
  virtual const detail::stacklet_source* stacklets() const noexcept { return nullptr; }

  /// Whether stops reach `f`, a frame running on this worker (a fork's parent) or a continuation
  /// the worker is about to run with `worker_context::resume_stolen`: true only if `f->stack`
  /// (the stacklet `f`'s fork-join scope opened on) is a live stacklet of this process, whose
  /// header names a root or stop scope (`root_context`) that may be read here. Then, as on a
  /// worker whose frames stay in the process, a fork of `f` after a check request starts no child
  /// when `f`'s root or scope was asked to stop or a sibling threw (push_checks.hpp), and a
  /// continuation of `f` resumed by `resume_stolen` runs in its root's context
  /// (`tine::stop_requested()`, `tine::request_stop()`). False by default: the core then never
  /// reads `f->stack`'s header, and every fork starts its child.
  virtual bool stops_reach(const detail::frame* f) const noexcept {
    (void)f;
    return false;
  }

  /// A strand arrives at the join of `f`, whose continuation was taken from this worker (or
  /// which this worker took as a thief) since its scope opened, by any thief: a child that ended
  /// and did not find `f` to pop, or `f` itself at its join. Returns true if the strand arrived
  /// last and this worker continues `f` now. The default is the core's own counter in the frame,
  /// right while every thief shares the process; a boundary whose thieves are other processes
  /// keeps the count where every process reaches it, and resumes `f` itself
  /// (worker_context::resume_joined) when the last arrival happens elsewhere.
  virtual bool arrive(detail::frame* f, join_arrival& arrival) noexcept {
    return detail::count_arrival(f, arrival);
  }

 protected:
  process_boundary() = default;
  process_boundary(const process_boundary&) = default;
  process_boundary& operator=(const process_boundary&) = default;
  ~process_boundary() = default;
};

}  // namespace tine

#endif  // TINE_CORE_PROCESS_BOUNDARY_HPP
