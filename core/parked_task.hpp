#ifndef TINE_CORE_PARKED_TASK_HPP
#define TINE_CORE_PARKED_TASK_HPP

/// \file parked_task.hpp
/// A task that waits for something outside tine (internal): what `co_await std::move(future)` and
/// an awaited foreign operation (external_await.hpp) share. The task leaves its worker as it would
/// at a join that waits: the worker parks the task's stack and goes on with other work, and the
/// task's scheduler (the one it ran on) counts it as pending work, so that its destructor waits.
/// Whoever completes the wait, on any thread, submits the task back to that scheduler, where it
/// takes its stack back and resumes.
///
/// The parked task counts twice in the scheduler's pending work: once for the task, released
/// when it resumes, and once for the submitter's call to schedule(), released when that call
/// returns. A scheduler's schedule() may still touch the scheduler after the node is queued (to
/// wake a worker), by which time the task may have run to its end and its root returned: with
/// one count the destructor could free the scheduler under that call. The parked_task lives in the
/// task's frame (in the awaitable) and is the submission.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include <tine/core/frame.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine::detail {

struct parked_task : submit_node {
  frame* task = nullptr;
  std::optional<scheduler_ref> home;
  std::atomic<std::size_t>* pending = nullptr;
  strand_views* views = nullptr;  ///< the record of the strand, which waits with the task

  /// Throws std::logic_error when the task `f` running on `rt` cannot wait outside its worker
  /// (`who`, "tine::future", names the caller in the text; `what`, "a future", what it awaits):
  /// between a fork and its join (its children may still run on its stack), on a worker with a
  /// backend (its frames may belong to another process), or when nobody knows where to resume it.
  static void check_can_park(const frame& f, worker_runtime& rt, const char* who,
                             const char* what) {
    if (f.in_scope) {
      throw std::logic_error(std::string(who) + ": a task cannot await " + what +
                             " between a fork and its join; co_await tine::join() first");
    }
    if (rt.backend() != nullptr) {
      throw std::logic_error(std::string(who) +
                             ": a task on a worker with a worker backend (tine::mpi_pool) cannot "
                             "await " +
                             what);
    }
    if (home_scheduler(rt) == nullptr) {
      throw std::logic_error(
          std::string(who) +
          ": the awaiting task's scheduler is unknown (its worker declares none and its root was "
          "not started by sync_wait or spawn), so it could not be resumed");
    }
  }

  /// On the task's worker, once check_can_park passed: the task leaves the worker, which may go
  /// on with other work once the await_suspend returns. `arrive` is what running the submission
  /// means (it ends with resume_here).
  void park(frame* f, worker_runtime& rt, void (*arrive)(submit_node*)) noexcept {
    task = f;
    run = arrive;
    home.emplace(*home_scheduler(rt));
    pending = home->pending_work();
    rt.hand_over(task);  // a check set here goes with the task and those waiting on it
    task->stack = rt.top();
    worker_stacks::prepare_to_park(task->stack);
    rt.stacks().park();
    views = rt.strands().leave();
    if (pending != nullptr) {
      // relaxed: the scheduler's destructor cannot run while its worker is in a task; the
      // counts go back in resume_here() and submit_back() (or both in unpark()).
      pending->fetch_add(2, std::memory_order_relaxed);
    }
  }

  /// On the same worker, before anyone could submit the task: it goes on here after all.
  void unpark(worker_runtime& rt) noexcept {
    if (pending != nullptr) {
      // relaxed: the work never left this thread, and the scheduler's destructor cannot run
      // while its worker is in a task.
      pending->fetch_sub(2, std::memory_order_relaxed);
    }
    rt.stacks().adopt(task->stack);
    rt.strands().enter(views);
  }

  /// From any thread, once the wait is over: hands the task back to its scheduler. After this
  /// the task may run (and this object die) at any moment. `refusal` is the fatal message should
  /// the scheduler refuse (nothing could resume the task then).
  void submit_back(const char* refusal) noexcept {
    // Read first: once the node is queued, this object may be gone.
    std::atomic<std::size_t>* p = pending;
    // park() set home before the task could be submitted back.
    const scheduler_ref target = *home;  // NOLINT(bugprone-unchecked-optional-access)
    try {
      target.schedule(this);
    } catch (...) {
      fatal(refusal);
    }
    if (p != nullptr) {
      // release: the schedule() call is over before the scheduler's destructor (its acquire
      // load) goes on; the count keeps the scheduler, hence *p, alive until here.
      p->fetch_sub(1, std::memory_order_release);
    }
  }

  /// On a worker of the home scheduler, running the submission: the task takes its stack back
  /// and resumes there.
  void resume_here() {
    worker_runtime& rt = runtime();
    rt.stacks().adopt(task->stack);
    rt.resume_moved(task);  // a stop requested while it waited: its forks look first
    rt.strands().enter(views);
    if (pending != nullptr) {
      // release: pairs with the scheduler's destructor's acquire load.
      pending->fetch_sub(1, std::memory_order_release);
    }
    rt.resume(handle_of(task));
  }
};

}  // namespace tine::detail

#endif  // TINE_CORE_PARKED_TASK_HPP
