#ifndef TINE_CORE_WORKER_BACKEND_HPP
#define TINE_CORE_WORKER_BACKEND_HPP

/// \file worker_backend.hpp
/// `tine::worker_backend`: what a scheduler installs on a worker whose continuations go
/// somewhere the core does not know: to thieves that cannot reach the worker's deque (a
/// distributed pool's, other processes stealing through one-sided MPI operations), or to a
/// recorder of the computation's shape (tine::analyze's). Its members are the offer protocol
/// both use:
/// - which continuations leave the worker's deque for the backend (`offer`, at the next fork
///   after `worker_context::request_offer`, or at every fork when `offers_at_every_fork`);
///   `take_back` returns them to the worker when its deque runs dry. Thieves that share the
///   process keep stealing from the deque as from any worker's; the backend's thieves run what
///   they take with `worker_context::resume_stolen`;
/// - which marked frames it hears of at their joins and ends (`observed`).
///
/// Whether the worker's frames may leave the process is one explicit capability, the backend's
/// `boundary()`: null, the default, says they stay here (forks obey stops and a sibling's
/// exception as without a backend, arrivals are counted in the frame, stacklets come from the
/// heap, exceptions are kept as `std::exception_ptr`); a `tine::process_boundary`
/// (process_boundary.hpp) says they may leave, and how: their exception codec (required),
/// stacklet source, which frames stops reach, and how arrivals are counted.
///
/// Installed with `worker_context::set_backend`, which reads `offers_at_every_fork()` and
/// `boundary()` once, into the worker's own fields. The core's fast path stays exactly its own:
/// a fork tests the one pointer it already tests for stop requests (set only when the backend
/// asked for an offer), and a pop looks at the backend only when the worker's deque was empty.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/core/deque.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/process_boundary.hpp>

namespace tine {

class worker_backend {
 public:
  /// Called at the worker's first fork after `worker_context::request_offer()` (or after a stop
  /// or exception check request, push_checks.hpp: an offer may come unasked), on the worker,
  /// before the fork pushes `parent`'s continuation; `child` is the coroutine frame of the child
  /// being forked, the allocation that follows the parent's own (null when the worker gives a
  /// continuation back to its deque, which is no fork). The backend may take continuations out of
  /// `continuations`, the worker's deque, oldest first with its `steal()`, and keep them for its
  /// thieves; or take `parent`'s continuation itself and return true (the fork then does not
  /// push it). Every continuation taken must be either run by a thief
  /// (`worker_context::resume_stolen`) or given back by `take_back`, exactly once. The deque's
  /// items are the worker's current task's ancestors, oldest at the top, and every continuation
  /// the backend holds is older than all of them. To be asked again at a later fork, call
  /// `request_offer()` again. A fork that starts no child (its task was stopped, or a sibling
  /// threw: looked at by every fork without a boundary, by the forks of the frames stops reach
  /// with one) is not offered. Throws only before taking anything: the fork then fails with it.
  virtual bool offer(detail::frame* parent, void* child, deque<detail::frame*>& continuations) = 0;

  /// True: `offer` is called at every fork while the backend is installed, without asking
  /// (request_offer); read once, at installation.
  virtual bool offers_at_every_fork() const noexcept { return false; }

  /// The worker's deque is empty at a pop: the newest continuation the backend took by `offer`
  /// and still holds, or null when its thieves took every one.
  virtual detail::frame* take_back() noexcept = 0;

  /// A frame this backend marked (by setting `frame::observed` in its `attention`, at an offer)
  /// passed a join (`at_end` false) or reached its end (true: returned or threw, its children
  /// joined, before it is freed), on this worker. For a backend that watches the shape of a
  /// computation (tine::analyze); frames nobody marked never come here.
  virtual void observed(detail::frame* f, bool at_end) noexcept {
    (void)f;
    (void)at_end;
  }

  /// How the worker's frames cross the process boundary (process_boundary.hpp), or null, the
  /// default: they stay in this process, with their roots and stop scopes, so its forks obey
  /// stops and a sibling's exception as without a backend (push_checks.hpp), a continuation
  /// resumed by `resume_stolen` runs in its root's context, arrivals at joins are counted in the
  /// frame, the worker's stacklets come from the heap and its frames keep the
  /// `std::exception_ptr`. Read once, at installation; the boundary must outlive the
  /// installation.
  virtual process_boundary* boundary() noexcept { return nullptr; }

 protected:
  worker_backend() = default;
  worker_backend(const worker_backend&) = default;
  worker_backend& operator=(const worker_backend&) = default;
  ~worker_backend() = default;
};

}  // namespace tine

#endif  // TINE_CORE_WORKER_BACKEND_HPP
