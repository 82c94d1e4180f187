#ifndef TINE_TESTING_CONFORMANCE_OBSERVER_HPP
#define TINE_TESTING_CONFORMANCE_OBSERVER_HPP

/// \file conformance_observer.hpp
/// How the conformance kit watches a scheduler without a test framework: `observed_scheduler`
/// stands between tine and the scheduler under test and hands it a node of its own for every
/// node tine schedules, so the kit sees each `schedule` call (how long it took, whether it threw)
/// and each run (where, how often), and `run_guarded` runs a check's body on a thread of its own
/// with a deadline, so a scheduler that hangs makes the check fail instead of hanging the test.
/// Internal to the kit (namespace `conformance_detail`); scheduler_conformance.hpp is the API.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/conformance_report.hpp>

namespace tine::testing::conformance_detail {

using clock_type = std::chrono::steady_clock;

inline long long millis(clock_type::duration d) {
  return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

/// Depth of observed `schedule` calls on this thread: a node that runs while it is not zero ran
/// inside `schedule`, on the calling thread.
inline thread_local int tls_in_schedule = 0;

/// tls_in_schedule for code in a task, which may resume on another thread (see
/// TINE_TLS_ACCESSOR in core/config.hpp).
TINE_TLS_ACCESSOR int in_schedule_depth() noexcept { return tls_in_schedule; }

class node_tracker;

/// What the scheduler under test receives instead of tine's node.
struct tracked_node : submit_node {
  submit_node* inner = nullptr;
  node_tracker* owner = nullptr;
  // Guarded by the owner's mutex, except `in_call`, which a run waits on.
  std::atomic<bool> in_call{false};  // schedule() has not returned yet
  bool refused = false;              // schedule() threw
  bool retired = false;              // back in the owner's pool
  int runs = 0;
  bool caller_is_worker = false;
  clock_type::time_point since;
};

/// Owns the tracked nodes, records every broken rule it sees, and keeps tine's node safe from a
/// broken scheduler: a node run twice, or after `schedule` threw, is not run again; a node run
/// inline or on a thread that is not a worker is handed to the kit's own inline scheduler, so
/// the check still finishes and reports instead of crashing.
class node_tracker {
 public:
  explicit node_tracker(std::chrono::milliseconds schedule_limit)
      : m_schedule_limit(schedule_limit) {}

  node_tracker(const node_tracker&) = delete;
  node_tracker& operator=(const node_tracker&) = delete;

  // A scheduler that broke a rule may still hold one of our nodes (a duplicate, a refused one,
  // one it is handing to the rescuer): give it a moment to let go before the nodes are freed.
  ~node_tracker() {
    if (m_broken.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    // What a late run recorded under the mutex happens before the members are destroyed.
    const std::lock_guard lock(m_mutex);
  }

  tracked_node* begin_schedule(submit_node* inner) {
    std::lock_guard lock(m_mutex);
    tracked_node* t = nullptr;
    if (!m_free.empty()) {
      t = m_free.back();
      m_free.pop_back();
    } else {
      t = &m_storage.emplace_back();
    }
    t->next = nullptr;
    t->run = &node_tracker::run_tracked;
    t->inner = inner;
    t->owner = this;
    t->refused = false;
    t->retired = false;
    t->runs = 0;
    t->caller_is_worker = current_worker() != nullptr;
    t->since = clock_type::now();
    t->in_call.store(true, std::memory_order_release);
    ++m_scheduled;
    m_calls_started.fetch_add(1, std::memory_order_relaxed);
    return t;
  }

  void end_schedule(tracked_node* t, bool refused) {
    std::lock_guard lock(m_mutex);
    const auto took = clock_type::now() - t->since;
    if (took > m_schedule_limit) {
      violation(rules::no_blocking, "schedule() to return promptly",
                std::string("a schedule() call made on ") +
                    (t->caller_is_worker ? "a worker" : "a thread that is not a worker") +
                    " took " + std::to_string(millis(took)) + " ms");
    }
    t->refused = refused;
    if (refused) {
      m_broken.store(true, std::memory_order_relaxed);  // allowed, but the node must stay valid
    }
    t->in_call.store(false, std::memory_order_release);
    m_calls_done.fetch_add(1, std::memory_order_relaxed);
    if (t->runs > 0) {
      if (refused) {
        violation(rules::throw_only_if_refused, "a node whose schedule() threw never to run",
                  "schedule() threw after a worker had already started the node");
      }
      retire(t);
    }
  }

  /// schedule() calls begun and returned (or thrown) so far.
  std::size_t calls_started() const noexcept {
    return m_calls_started.load(std::memory_order_relaxed);
  }
  std::size_t calls_done() const noexcept { return m_calls_done.load(std::memory_order_relaxed); }

  /// Failures seen so far (taken: each is reported once).
  std::vector<conformance_failure> take_violations() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_violations, {});
  }

  /// Why a check that did not finish is stuck, as far as the nodes show it: schedule() calls that
  /// never returned, or else nodes that never ran. Empty when every node was run.
  std::vector<conformance_failure> diagnose_hang() {
    std::lock_guard lock(m_mutex);
    std::vector<conformance_failure> out = std::exchange(m_violations, {});
    const auto now = clock_type::now();
    std::size_t stuck_calls = 0;
    std::size_t stuck_on_worker = 0;
    std::size_t never_ran = 0;
    for (const tracked_node& t : m_storage) {
      if (t.retired || now - t.since < m_schedule_limit) {
        continue;
      }
      if (t.in_call.load(std::memory_order_acquire)) {
        ++stuck_calls;
        stuck_on_worker += t.caller_is_worker ? 1 : 0;
      } else if (t.runs == 0 && !t.refused) {
        ++never_ran;
      }
    }
    if (stuck_on_worker > 0) {
      out.push_back({"", rules::any_thread, "schedule() called on a worker to return",
                     std::to_string(stuck_on_worker) +
                         " schedule() call(s) made on the scheduler's own workers never returned"});
    } else if (stuck_calls > 0) {
      out.push_back({"", rules::no_blocking, "schedule() to return promptly",
                     std::to_string(stuck_calls) + " schedule() call(s) never returned"});
    }
    if (never_ran > 0 && stuck_calls == 0) {  // else a stuck call may be why they never ran
      out.push_back({"", rules::exactly_once, "every scheduled node to run",
                     std::to_string(never_ran) + " of " + std::to_string(m_scheduled) +
                         " node(s) given to schedule() never ran"});
    }
    return out;
  }

 private:
  static void run_tracked(submit_node* node) {
    auto* t = static_cast<tracked_node*>(node);
    t->owner->run(t);
  }

  void run(tracked_node* t) {
    if (tls_in_schedule > 0) {
      rescue(t, rules::not_inline, "the node to run later, on a worker",
             "schedule() ran the node on the calling thread before returning");
      return;
    }
    if (current_worker() == nullptr) {
      rescue(t, rules::on_a_worker, "the node to run on a thread bound to a worker_context",
             "a node ran on a thread that is not bound to any worker_context");
      return;
    }
    // A worker may start the node before schedule() has returned on the thread that gave it:
    // wait for that call, to learn whether it threw (then the node must not run at all).
    while (t->in_call.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
    submit_node* inner = nullptr;
    {
      std::lock_guard lock(m_mutex);
      ++t->runs;
      if (t->runs > 1) {
        violation(rules::exactly_once, "each node to run once",
                  "a node ran " + std::to_string(t->runs) + " times");
        return;
      }
      if (t->refused) {
        violation(rules::throw_only_if_refused, "a node whose schedule() threw never to run",
                  "the scheduler ran a node after its schedule() call threw");
        return;
      }
      inner = t->inner;
      retire(t);
    }
    inner->run(inner);
  }

  // The node is lost to a broken scheduler: run tine's node on the kit's own worker instead.
  void rescue(tracked_node* t, const char* rule, std::string expected, std::string actual) {
    submit_node* inner = nullptr;
    {
      std::lock_guard lock(m_mutex);
      ++t->runs;
      violation(rule, std::move(expected), std::move(actual));
      if (t->runs > 1 || t->refused) {
        return;
      }
      inner = t->inner;
    }
    m_rescuer.schedule(inner);
  }

  // Caller holds m_mutex. A retired node waits in quarantine before reuse, so that a second run
  // of it soon after the first is still seen as one.
  void retire(tracked_node* t) {
    if (t->in_call.load(std::memory_order_acquire) || t->retired) {
      return;
    }
    t->retired = true;
    m_quarantine.push_back(t);
    if (m_quarantine.size() > 4096) {
      tracked_node* old = m_quarantine.front();
      m_quarantine.pop_front();
      if (old->runs == 1) {
        m_free.push_back(old);
      }
    }
  }

  void violation(const char* rule, std::string expected, std::string actual) {
    m_broken.store(true, std::memory_order_relaxed);
    for (const conformance_failure& f : m_violations) {
      if (f.rule == rule) {
        return;  // the first of each kind says enough
      }
    }
    m_violations.push_back({"", rule, std::move(expected), std::move(actual)});
  }

  std::chrono::milliseconds m_schedule_limit;
  std::mutex m_mutex;
  std::deque<tracked_node> m_storage;  // stable addresses; freed with the tracker
  std::vector<tracked_node*> m_free;
  std::deque<tracked_node*> m_quarantine;
  std::vector<conformance_failure> m_violations;
  std::size_t m_scheduled = 0;
  std::atomic<std::size_t> m_calls_started{0};
  std::atomic<std::size_t> m_calls_done{0};
  std::atomic<bool> m_broken{false};
  inline_scheduler m_rescuer;  // last: destroyed first, after running what it was given
};

/// The scheduler the kit's tasks use: forwards to the scheduler under test through the tracker.
template <scheduler S>
class observed_scheduler {
 public:
  observed_scheduler(S& s, std::chrono::milliseconds schedule_limit)
      : m_s(&s), m_tracker(schedule_limit) {}

  // Not inlined: it is called from tasks (resume_on), which may resume on another thread, and
  // it must reach the calling thread's tls_in_schedule (see TINE_TLS_ACCESSOR).
  [[gnu::noinline]] void schedule(submit_node* node) {
    tracked_node* t = m_tracker.begin_schedule(node);
    ++tls_in_schedule;
    try {
      m_s->schedule(t);
    } catch (...) {
      --tls_in_schedule;
      m_tracker.end_schedule(t, /*refused=*/true);
      throw;
    }
    --tls_in_schedule;
    m_tracker.end_schedule(t, /*refused=*/false);
  }

  node_tracker& tracker() noexcept { return m_tracker; }

 private:
  S* m_s;
  node_tracker m_tracker;
};

/// Reports, from the calling thread, what one check saw.
struct check_scope {
  conformance_reporter& reporter;
  const char* check;
  std::size_t failures = 0;

  void fail(const char* rule, std::string expected, std::string actual) {
    ++failures;
    reporter.fail({check, rule, std::move(expected), std::move(actual)});
  }

  void expect(bool ok, const char* rule, std::string expected, std::string actual) {
    if (!ok) {
      fail(rule, std::move(expected), std::move(actual));
    }
  }

  void report(std::vector<conformance_failure> seen) {
    for (conformance_failure& f : seen) {
      f.check = check;
      ++failures;
      reporter.fail(f);
    }
  }
};

/// Runs `body` on a thread of its own and waits for it at most `limit`. Past that the scheduler
/// is stuck: it can be neither used nor destroyed (its destructor would wait for the stuck work,
/// and the body's thread still uses it). The check then reports why, as far as the tracker can
/// tell, or else that it broke `rule`; writes each failure to stderr too (a collecting reporter
/// is never read); flushes stdout and stderr; and ends the process with
/// std::_Exit(EXIT_FAILURE). An exception escaping `body` is reported as a failure of `rule`.
/// Returns whether `body` returned normally.
template <typename Body>
bool run_guarded(check_scope& scope, node_tracker& tracker, const char* rule,
                 std::chrono::milliseconds limit, Body body) {
  struct shared {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    std::exception_ptr error;
  } st;
  std::thread runner([&st, &body] {
    std::exception_ptr error;
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(st.mutex);
    st.error = error;
    st.done = true;
    st.cv.notify_one();
  });
  bool finished = false;
  {
    std::unique_lock lock(st.mutex);
    finished = st.cv.wait_for(lock, limit, [&st] { return st.done; });
  }
  if (!finished) {
    std::vector<conformance_failure> why = tracker.diagnose_hang();
    const std::string what = "did not finish within " + std::to_string(limit.count()) + " ms";
    if (why.empty()) {
      why.push_back({"", rule, "the check to finish", what});
    } else {
      for (conformance_failure& f : why) {
        f.actual += " (the check " + what + ")";
      }
    }
    for (conformance_failure& f : why) {
      f.check = scope.check;
      scope.reporter.fail(f);
    }
    std::fflush(stdout);
    for (const conformance_failure& f : why) {
      std::fprintf(stderr, "tine conformance kit: FAILED: %s\n", f.message().c_str());
    }
    std::fprintf(stderr,
                 "tine conformance kit: %s %s; a stuck scheduler can be neither used nor "
                 "destroyed, so the kit ends the process (exit status %d)\n",
                 scope.check, what.c_str(), EXIT_FAILURE);
    std::fflush(stderr);
    std::_Exit(EXIT_FAILURE);
  }
  runner.join();
  scope.report(tracker.take_violations());
  if (!st.error) {
    return true;
  }
  {
    try {
      std::rethrow_exception(st.error);
    } catch (const std::exception& e) {
      scope.fail(rule, "no exception out of the check", std::string("exception: ") + e.what());
    } catch (...) {
      scope.fail(rule, "no exception out of the check", "an exception of unknown type");
    }
  }
  return false;
}

}  // namespace tine::testing::conformance_detail

#endif  // TINE_TESTING_CONFORMANCE_OBSERVER_HPP
