#ifndef TINE_TESTING_SCHEDULER_CONFORMANCE_HPP
#define TINE_TESTING_SCHEDULER_CONFORMANCE_HPP

/// \file scheduler_conformance.hpp
/// The conformance kit: the rules of docs/extending.md and the behaviours tine relies on, checked
/// on any type satisfying `tine::scheduler`, with no test framework. Each failure names the rule
/// it shows broken (`tine::testing::rules`), what was expected and what happened:
///
/// ```
/// my_scheduler s(4);
/// tine::testing::conformance_options opts;
/// opts.workers = 4;
/// tine::testing::conformance_result r = tine::testing::run_conformance(s, opts);
/// if (!r.ok()) std::fputs(r.summary().c_str(), stderr);
/// ```
///
/// With a framework, use an adapter instead: conformance_gtest.hpp (GoogleTest) or
/// conformance_boost_test.hpp (Boost.Test) turn each failure into a test failure. Each `check_*`
/// function is usable on its own, with any `conformance_reporter`.
///
/// The kit stands between tine and the scheduler (conformance_observer.hpp): it sees every
/// `schedule` call and every run, and keeps a broken scheduler from running one of tine's nodes
/// twice, inline, or off a worker. Every check runs on a thread of its own with a deadline
/// (`hang_limit`): a scheduler that hangs a check fails it, naming why, and since such a scheduler
/// can be neither used nor destroyed, the kit then ends the process with
/// `std::_Exit(EXIT_FAILURE)` after reporting and writing the failure to stderr. Each check takes
/// well under a second on 2 cores on a conforming scheduler, a few seconds under ThreadSanitizer.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/core/concepts.hpp>
#include <tine/testing/conformance_checks.hpp>
#include <tine/testing/conformance_report.hpp>

namespace tine::testing {

/// fork/join results: fib, a wide fan-out (many forks per scope), several scopes per task.
/// Every check returns whether it passed, and reports each failure to `r`.
template <scheduler S>
bool check_fork_join(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).fork_join();
}

/// Exceptions: from one child, several children, and the parent between fork and join, rethrown
/// at the join and out of sync_wait; children always complete first.
template <scheduler S>
bool check_exceptions(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).exceptions();
}

/// Deep recursion: a chain of `o.depth` calls, then of `o.depth` forks.
template <scheduler S>
bool check_deep_recursion(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).deep_recursion();
}

/// The stack allocation API: partial results of a scope in a stack_array.
template <scheduler S>
bool check_stack_alloc(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).stack_alloc();
}

/// Many external threads call sync_wait at once (more roots than workers): `rules::any_thread`.
template <scheduler S>
bool check_external_threads(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).external_threads();
}

/// sync_wait on a worker thread throws std::logic_error instead of deadlocking.
template <scheduler S>
bool check_sync_wait_on_worker(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).sync_wait_on_worker();
}

/// With every worker busy, 16 threads call sync_wait: each `schedule` call must return within
/// `o.schedule_limit` (`rules::no_blocking`); a call may throw, and then its node must never run
/// (`rules::throw_only_if_refused`).
template <scheduler S>
bool check_schedule_under_load(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).schedule_under_load();
}

/// Tasks move back onto the scheduler with resume_on, so its own workers call `schedule`
/// (`rules::any_thread`); each must resume later, on a worker (`rules::not_inline`).
template <scheduler S>
bool check_schedule_from_workers(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).schedule_from_workers();
}

/// Explicit scheduling: a task moves to another scheduler (an inline_scheduler) and back.
template <scheduler S>
bool check_explicit_scheduling(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).explicit_scheduling();
}

/// Up to workers - 1 tasks spin (never suspending) until many small tasks forked after them
/// have finished; the other worker(s) must steal and run those (`rules::steal_from_others`).
template <scheduler S>
bool check_starvation(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).starvation();
}

/// workers - 1 tasks spin until their parent's continuation runs; the parent then forks a child
/// that moves to another scheduler with resume_on, which leaves that continuation in the deque of
/// the one free worker: only that worker, stealing from itself, can resume it
/// (`rules::steal_from_self`). With one worker nothing can rescue it, so a scheduler that never
/// steals from its own deque hangs this check, which the hang guard reports.
template <scheduler S>
bool check_own_deque(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).own_deque();
}

/// `workers` tasks move back onto the scheduler with `resume_on` in a loop until their parent's
/// continuation, which their forks left in a deque, releases them (`rules::resubmission`).
template <scheduler S>
bool check_resubmission(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).resubmission();
}

/// Every check above, in the order listed in docs/extending.md, reporting to `r`; stops after
/// the first failing check unless `o.stop_at_first_failure` is false. Returns whether all passed.
template <scheduler S>
bool run_conformance(S& s, conformance_reporter& r, const conformance_options& o = {}) {
  return conformance_detail::kit<S>(s, r, o).all();
}

/// The same, collecting the failures.
template <scheduler S>
conformance_result run_conformance(S& s, const conformance_options& o = {}) {
  conformance_result result;
  (void)run_conformance(s, static_cast<conformance_reporter&>(result), o);
  return result;
}

}  // namespace tine::testing

#endif  // TINE_TESTING_SCHEDULER_CONFORMANCE_HPP
