#ifndef TINE_TESTING_CONFORMANCE_CHECKS_HPP
#define TINE_TESTING_CONFORMANCE_CHECKS_HPP

/// \file conformance_checks.hpp
/// The conformance kit's options and the bodies of its checks: one run of the kit over a
/// scheduler (the observer and the other scheduler the checks share), each check on a thread of
/// its own with a deadline. What users call is in scheduler_conformance.hpp.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/conformance_observer.hpp>
#include <tine/testing/conformance_report.hpp>
#include <tine/testing/conformance_tasks.hpp>

namespace tine::testing {

/// What the kit may assume about the scheduler under test, and its time limits.
struct conformance_options {
  /// Workers the scheduler runs: the kit keeps up to all of them busy at once.
  std::size_t workers = 1;
  /// Depth of the deep-recursion check (a chain of `call`s, then one of `fork`s).
  long depth = 100000;
  /// External threads calling sync_wait at once.
  int external_threads = 6;
  /// How long a task that waits for other work gives up after, failing its check.
  std::chrono::milliseconds patience{10000};
  /// How long one check may take before the kit reports a hang and ends the process.
  std::chrono::milliseconds hang_limit{60000};
  /// How long one `schedule` call may take.
  std::chrono::milliseconds schedule_limit{2000};
  /// run_conformance stops after the first check that fails: later checks on a broken scheduler
  /// mostly repeat the failure, or hang.
  bool stop_at_first_failure = true;
};

namespace conformance_detail {

// What the checks that are not one of the scheduler rules verify.
inline constexpr const char* fork_join_rule = "fork and join compute what a serial run computes";
inline constexpr const char* exceptions_rule =
    "an exception in a task comes out of its join and of sync_wait, after every child completed";
inline constexpr const char* deep_recursion_rule = "long chains of call and fork complete";
inline constexpr const char* stack_alloc_rule = "a scope's children fill a stack_array";
inline constexpr const char* explicit_scheduling_rule =
    "resume_on moves a task to another scheduler and back";
inline constexpr const char* sync_wait_on_worker_rule =
    "sync_wait on a worker throws std::logic_error instead of deadlocking";

inline std::string str(long long v) { return std::to_string(v); }

// One run of the kit over a scheduler: the observer and the other scheduler the checks share.
template <scheduler S>
class kit {
 public:
  using observed = observed_scheduler<S>;

  kit(S& s, conformance_reporter& r, const conformance_options& o)
      : m_obs(s, o.schedule_limit), m_reporter(r), m_opts(o) {}

  check_scope begin(const char* check) {
    m_reporter.begin_check(check);
    return check_scope{m_reporter, check};
  }

  template <typename Body>
  bool guard(check_scope& sc, const char* rule, Body body) {
    return run_guarded(sc, m_obs.tracker(), rule, m_opts.hang_limit, body);
  }

  std::size_t workers() const { return std::max<std::size_t>(m_opts.workers, 1); }

  bool fork_join() {
    check_scope sc = begin("check_fork_join");
    long f20 = -1;
    long f0 = -1;
    long w = -1;
    if (guard(sc, fork_join_rule, [&] {
          f20 = sync_wait(m_obs, fib, 20);
          f0 = sync_wait(m_obs, fib, 0);
          w = sync_wait(m_obs, wide, 1000L, 3);
        })) {
      sc.expect(f20 == fib_serial(20), fork_join_rule, "fib(20) = 6765", "fib(20) = " + str(f20));
      sc.expect(f0 == 0, fork_join_rule, "fib(0) = 0", "fib(0) = " + str(f0));
      // width 1000, 3 scopes: sum over s of (0+...+999 + 1000 s)
      const long want = 3 * 499500L + 1000L * (0 + 1 + 2);
      sc.expect(w == want, fork_join_rule, "1000 forks in each of 3 scopes to sum to " + str(want),
                "sum " + str(w));
    }
    return sc.failures == 0;
  }

  bool exceptions() {
    check_scope sc = begin("check_exceptions");
    bool one = false;
    bool several = false;
    bool parent = false;
    long after = -1;
    std::atomic<int> done{0};
    if (guard(sc, exceptions_rule, [&] {
          try {
            (void)sync_wait(m_obs, throw_if, 1, 1);
          } catch (const kit_error&) {
            one = true;
          }
          try {
            (void)sync_wait(m_obs, several_children_throw, 30);
          } catch (const kit_error&) {
            several = true;
          }
          try {
            sync_wait(m_obs, parent_throws_in_scope, &done);
          } catch (const kit_error&) {
            parent = true;
          }
          after = sync_wait(m_obs, fib, 15);  // still usable afterwards
        })) {
      sc.expect(one, exceptions_rule, "a child's exception out of sync_wait", "none");
      sc.expect(several, exceptions_rule, "an exception when 10 of 30 children throw", "none");
      sc.expect(parent, exceptions_rule, "the parent's exception, rethrown after its join", "none");
      sc.expect(done.load() == 2, exceptions_rule, "both children of the throwing parent to run",
                str(done.load()) + " ran");
      sc.expect(after == fib_serial(15), exceptions_rule, "fib(15) = 610 afterwards",
                "fib(15) = " + str(after));
    }
    return sc.failures == 0;
  }

  bool deep_recursion() {
    check_scope sc = begin("check_deep_recursion");
    long calls = -1;
    long forks = -1;
    const long depth = m_opts.depth;
    if (guard(sc, deep_recursion_rule, [&] {
          calls = sync_wait(m_obs, call_chain, depth);
          forks = sync_wait(m_obs, fork_chain, depth);
        })) {
      sc.expect(calls == depth, deep_recursion_rule, "a chain of " + str(depth) + " calls",
                "depth " + str(calls));
      sc.expect(forks == depth, deep_recursion_rule, "a chain of " + str(depth) + " forks",
                "depth " + str(forks));
    }
    return sc.failures == 0;
  }

  bool stack_alloc() {
    check_scope sc = begin("check_stack_alloc");
    long expected = 0;
    for (int i = 0; i < 500; ++i) {
      expected += fib_serial(i % 12);
    }
    long got = -1;
    if (guard(sc, stack_alloc_rule, [&] { got = sync_wait(m_obs, partial_sums, 500); })) {
      sc.expect(got == expected, stack_alloc_rule, "sum " + str(expected), "sum " + str(got));
    }
    return sc.failures == 0;
  }

  bool explicit_scheduling() {
    check_scope sc = begin("check_explicit_scheduling");
    long got = -1;
    if (guard(sc, explicit_scheduling_rule,
              [&] { got = sync_wait(m_obs, hop<observed>, &m_obs, &m_other, 20); })) {
      sc.expect(got == 20 * (55 + 89), explicit_scheduling_rule, "sum " + str(20 * (55 + 89)),
                "sum " + str(got));
    }
    return sc.failures == 0;
  }

  bool external_threads() {
    check_scope sc = begin("check_external_threads");
    std::atomic<int> wrong{0};
    const int threads = m_opts.external_threads;
    if (guard(sc, rules::any_thread, [&] {
          std::vector<std::thread> callers;
          for (int t = 0; t < threads; ++t) {
            callers.emplace_back([this, &wrong, t] {
              for (int i = 0; i < 10; ++i) {
                const int n = 8 + (t + i) % 8;
                try {
                  if (sync_wait(m_obs, fib, n) != fib_serial(n)) {
                    wrong.fetch_add(1);
                  }
                } catch (...) {
                  // The scheduler refused the root (schedule threw): allowed, not counted.
                }
              }
            });
          }
          for (auto& c : callers) {
            c.join();
          }
        })) {
      sc.expect(wrong.load() == 0, rules::any_thread,
                "right results with " + str(threads) + " threads calling sync_wait at once",
                str(wrong.load()) + " wrong");
    }
    return sc.failures == 0;
  }

  bool sync_wait_on_worker() {
    check_scope sc = begin("check_sync_wait_on_worker");
    bool threw = false;
    if (guard(sc, sync_wait_on_worker_rule,
              [&] { threw = sync_wait(m_obs, sync_wait_inside<observed>, &m_obs); })) {
      sc.expect(threw, sync_wait_on_worker_rule, "std::logic_error", "no exception");
    }
    return sc.failures == 0;
  }

  bool schedule_under_load() {
    check_scope sc = begin("check_schedule_under_load");
    constexpr int submitters = 16;
    const std::size_t n = workers();
    waiting_state hold;
    // The workers must all be busy within patience, and stay so while the calls are timed.
    const auto busy_deadline = clock_type::now() + m_opts.patience;
    hold.deadline = busy_deadline + m_opts.schedule_limit + 2 * m_opts.patience;
    bool all_busy = false;
    std::size_t stuck_calls = 0;
    std::atomic<int> refused{0};
    node_tracker& tracker = m_obs.tracker();
    if (!guard(sc, rules::no_blocking, [&] {
          std::thread holder([&] {
            try {
              sync_wait(m_obs, hold_workers, n, &hold);
            } catch (...) {
              hold.running.store(-1000);  // refused: the check then reports the workers idle
            }
          });
          while (hold.running.load() < static_cast<int>(n) && clock_type::now() < busy_deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          // Not in time: they ran one after another, after the first gave up.
          all_busy =
              hold.running.load() >= static_cast<int>(n) && clock_type::now() < busy_deadline;
          std::vector<std::thread> subs;
          if (all_busy) {
            const std::size_t base = tracker.calls_started();
            for (int i = 0; i < submitters; ++i) {
              subs.emplace_back([this, &refused] {
                try {
                  (void)sync_wait(m_obs, nothing);
                } catch (...) {
                  refused.fetch_add(1);  // the scheduler refused the root: allowed
                }
              });
            }
            const auto started_deadline = clock_type::now() + m_opts.patience;
            while (tracker.calls_started() < base + submitters &&
                   clock_type::now() < started_deadline) {
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            // Every worker is busy: each call must return without waiting for one.
            const auto limit = clock_type::now() + m_opts.schedule_limit;
            while (clock_type::now() < limit && tracker.calls_done() < tracker.calls_started()) {
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            stuck_calls = tracker.calls_started() - tracker.calls_done();
          }
          hold.release();
          for (auto& t : subs) {
            t.join();
          }
          holder.join();
          if (refused.load() > 0) {
            // A refused node must never run: give a scheduler that queued it anyway the time
            // to show it.
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
          }
        })) {
      return false;
    }
    sc.expect(all_busy, rules::steal_from_others,
              str(static_cast<long long>(n)) +
                  " tasks (forked one after another, each fork's continuation stolen by another "
                  "worker) running at once",
              "they were not all running before the first gave up after " +
                  str(m_opts.patience.count()) + " ms");
    sc.expect(stuck_calls == 0, rules::no_blocking,
              "schedule() to return while every worker is busy",
              str(static_cast<long long>(stuck_calls)) + " of " + str(submitters) +
                  " schedule() calls made while every worker was busy had not returned after " +
                  str(m_opts.schedule_limit.count()) + " ms");
    return sc.failures == 0;
  }

  bool schedule_from_workers() {
    check_scope sc = begin("check_schedule_from_workers");
    std::atomic<int> wrong{0};
    const std::size_t roots = workers() + 1;
    if (guard(sc, rules::any_thread, [&] {
          std::vector<std::thread> callers;
          for (std::size_t t = 0; t < roots; ++t) {
            callers.emplace_back([this, &wrong] {
              try {
                sync_wait(m_obs, move_onto<observed>, &m_obs, 50, &wrong);
              } catch (...) {
                // A refused move (schedule threw) ends the task early: allowed.
              }
            });
          }
          for (auto& c : callers) {
            c.join();
          }
        })) {
      sc.expect(wrong.load() == 0, rules::not_inline,
                "each task moved with resume_on to resume later, on a worker",
                str(wrong.load()) + " resumed inside schedule() or off a worker");
    }
    return sc.failures == 0;
  }

  bool starvation() {
    check_scope sc = begin("check_starvation");
    starvation_state st;
    st.finishers = 64;
    st.deadline = clock_type::now() + m_opts.patience;
    const std::size_t spinners = workers() - 1;
    if (guard(sc, rules::steal_from_others, [&] { sync_wait(m_obs, starve, spinners, &st); })) {
      sc.expect(!st.timed_out.load() && st.finished.load() == st.finishers,
                rules::steal_from_others,
                "64 tasks forked after " + str(static_cast<long long>(spinners)) +
                    " spinning ones to finish on the other worker(s)",
                str(st.finished.load()) + " finished before the spinners gave up after " +
                    str(m_opts.patience.count()) + " ms");
    }
    return sc.failures == 0;
  }

  bool own_deque() {
    check_scope sc = begin("check_own_deque");
    waiting_state st;
    st.deadline = clock_type::now() + m_opts.patience;
    std::atomic<bool> arrived{false};
    const std::size_t n = workers();
    if (guard(sc, rules::steal_from_self,
              [&] { sync_wait(m_obs, leave_parent_in_own_deque, n, &m_other, &arrived, &st); })) {
      sc.expect(!st.timed_out.load(), rules::steal_from_self,
                "a continuation left in a worker's own deque (its child moved away with "
                "resume_on) to be resumed by that worker while the others are busy",
                "the other workers' tasks waited " + str(m_opts.patience.count()) +
                    " ms for it and gave up");
      sc.expect(arrived.load(), rules::steal_from_self, "the moved child to run", "it did not");
    }
    return sc.failures == 0;
  }

  bool resubmission() {
    check_scope sc = begin("check_resubmission");
    waiting_state st;
    st.deadline = clock_type::now() + m_opts.patience;
    const std::size_t n = workers();
    if (guard(sc, rules::resubmission,
              [&] { sync_wait(m_obs, resubmit_until_released<observed>, &m_obs, n, &st); })) {
      sc.expect(!st.timed_out.load(), rules::resubmission,
                "the parent's continuation, left in a deque by its forks, to run while its "
                "children move back onto the scheduler in a loop",
                "the looping children waited " + str(m_opts.patience.count()) +
                    " ms for it, and it never ran");
    }
    return sc.failures == 0;
  }

  bool all() {
    using check = bool (kit::*)();
    static constexpr check checks[] = {
        &kit::fork_join,           &kit::exceptions,
        &kit::deep_recursion,      &kit::stack_alloc,
        &kit::external_threads,    &kit::sync_wait_on_worker,
        &kit::schedule_under_load, &kit::schedule_from_workers,
        &kit::explicit_scheduling, &kit::starvation,
        &kit::own_deque,           &kit::resubmission,
    };
    bool ok = true;
    for (check c : checks) {
      ok = (this->*c)() && ok;
      if (!ok && m_opts.stop_at_first_failure) {
        break;
      }
    }
    return ok;
  }

 private:
  observed m_obs;
  inline_scheduler m_other;  // where tasks move to and back
  conformance_reporter& m_reporter;
  const conformance_options& m_opts;
};

}  // namespace conformance_detail

}  // namespace tine::testing

#endif  // TINE_TESTING_CONFORMANCE_CHECKS_HPP
