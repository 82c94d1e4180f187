#ifndef TINE_CORE_CONCEPTS_HPP
#define TINE_CORE_CONCEPTS_HPP

/// \file concepts.hpp
/// What tine asks of a scheduler.

#include <concepts>

#include <tine/core/submit_node.hpp>

namespace tine {

/// A scheduler accepts work from any thread and runs it on its workers.
///
/// Contract of `s.schedule(node)`:
/// - may be called from any thread, concurrently, including from the scheduler's own workers
///   (a task moving itself with `resume_on`);
/// - must not block for long and must not run the node inline on the calling thread;
/// - must eventually run the node exactly once on a thread bound to one of the scheduler's
///   `worker_context`s, by calling `ctx.run_submitted(node)` / `tine::execute(node)` when that
///   worker is idle (its stack empty: between two pieces of work);
/// - the scheduler's workers must also keep stealing from each other (and from themselves:
///   `resume_on` may leave continuations in a worker's deque) so forked work completes.
template <typename S>
concept scheduler = requires(S& s, submit_node* node) {
  s.schedule(node);
};

}  // namespace tine

#endif  // TINE_CORE_CONCEPTS_HPP
