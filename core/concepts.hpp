#ifndef TINE_CORE_CONCEPTS_HPP
#define TINE_CORE_CONCEPTS_HPP

/// \file concepts.hpp
/// What tine asks of a scheduler.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

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
///   `worker_context`s, by calling `ctx.run_one_submission()` / `ctx.run_submitted(node)` when that
///   worker is idle (its stack empty: between two pieces of work);
/// - the scheduler's workers must also keep stealing from each other (and from themselves:
///   `resume_on` may leave continuations in a worker's deque) so forked work completes, and
///   neither kind of work may starve the other (between two submissions, look at the deques);
/// - may throw (for example std::bad_alloc) only if it did not take the node: `sync_wait` and
///   `resume_on` then report the exception to their caller, and the task stays where it was.
template <typename S>
concept scheduler = requires(S& s, submit_node* node) { s.schedule(node); };

}  // namespace tine

#endif  // TINE_CORE_CONCEPTS_HPP
