#ifndef TINE_CORE_SUBMIT_NODE_HPP
#define TINE_CORE_SUBMIT_NODE_HPP

/// \file submit_node.hpp
/// The unit of work a scheduler receives: a root task from sync_wait or spawn, or a task coming
/// back (moving itself with resume_on, or resuming after the future it awaited completed).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

namespace tine {

/// An intrusive node handed to `scheduler::schedule`. The scheduler must eventually call
/// `tine::worker_context::run_submitted` with it (or queue it with `worker_context::submit`) on one
/// of its bound worker threads.
/// The node's memory is owned by whoever submitted it and stays valid until it has been run.
struct submit_node {
  submit_node* next = nullptr;          ///< Link used by submission queues.
  void (*run)(submit_node*) = nullptr;  ///< What running the node means (set by tine).
  /// A hint for where to queue it: true for a new root (spawn, sync_wait), which any worker may
  /// as well start; false for a task coming back, which a worker submitting it to its own
  /// scheduler may keep (its stack is warm there). tine's pools send a new root that one of their
  /// workers spawns to the queue all workers take from, so that work spawned beside a task runs
  /// beside it rather than after it.
  bool starts_root = false;
};

}  // namespace tine

#endif  // TINE_CORE_SUBMIT_NODE_HPP
