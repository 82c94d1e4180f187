#ifndef TINE_CORE_SUBMIT_NODE_HPP
#define TINE_CORE_SUBMIT_NODE_HPP

/// \file submit_node.hpp
/// The unit of work a scheduler receives from outside its workers: a root task from sync_wait, or
/// a task moving itself with resume_on.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

namespace tine {

/// An intrusive node handed to `scheduler::schedule`. The scheduler must eventually call
/// `tine::worker_context::run_submitted` with it (or queue it with `worker_context::submit`) on one
/// of its bound worker threads.
/// The node's memory is owned by whoever submitted it and stays valid until it has been run.
struct submit_node {
  submit_node* next = nullptr;          ///< Link used by submission queues.
  void (*run)(submit_node*) = nullptr;  ///< What running the node means (set by tine).
};

}  // namespace tine

#endif  // TINE_CORE_SUBMIT_NODE_HPP
