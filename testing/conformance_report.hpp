#ifndef TINE_TESTING_CONFORMANCE_REPORT_HPP
#define TINE_TESTING_CONFORMANCE_REPORT_HPP

/// \file conformance_report.hpp
/// What the scheduler conformance kit reports, with no test framework: the rules it checks
/// (worded as in docs/extending.md), one `conformance_failure` per broken expectation, the
/// `conformance_reporter` interface the kit reports through, and `conformance_result`, a reporter
/// that collects. The Boost.Test and GoogleTest adapters implement `conformance_reporter`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tine::testing {

/// The rules a scheduler must keep (docs/extending.md, "A scheduler"), one string each. A failure
/// names the rule it shows broken with one of these, word for word.
namespace rules {
inline constexpr const char* any_thread =
    "schedule may be called from any thread at once, including from the scheduler's own workers";
inline constexpr const char* no_blocking = "schedule must not block for long";
inline constexpr const char* not_inline = "schedule must not run the node on the calling thread";
inline constexpr const char* exactly_once = "every node must eventually run exactly once";
inline constexpr const char* on_a_worker =
    "every node must run on a thread bound to one of the scheduler's worker_contexts";
inline constexpr const char* steal_from_others = "the workers must keep stealing from each other";
inline constexpr const char* steal_from_self =
    "the workers must keep stealing from themselves (resume_on can leave a continuation in a "
    "worker's own deque)";
inline constexpr const char* resubmission =
    "submissions must not starve continuations: a worker that keeps finding submissions must "
    "still, after a bounded number of them, try to steal a continuation (from its own deque "
    "first)";
inline constexpr const char* throw_only_if_refused =
    "schedule may throw only if it did not take the node";
}  // namespace rules

/// One broken expectation.
struct conformance_failure {
  std::string check;     ///< The kit's check that saw it, e.g. "check_own_deque".
  std::string rule;      ///< The rule it breaks: one of `rules`, or what the check verifies.
  std::string expected;  ///< What a conforming scheduler does.
  std::string actual;    ///< What happened.

  /// One line: `check: breaks the rule "rule": expected ...; actual ...`.
  std::string message() const {
    return check + ": breaks the rule \"" + rule + "\" (docs/extending.md): expected " + expected +
           "; actual: " + actual;
  }
};

/// Where the kit reports. Every call comes from the thread that called the check.
class conformance_reporter {
 public:
  virtual ~conformance_reporter() = default;
  /// A check starts (for a framework's checkpoint or a progress line); optional.
  virtual void begin_check(std::string_view /*check*/) {}
  /// A broken expectation; the kit goes on with the check when it can.
  virtual void fail(const conformance_failure& failure) = 0;
};

/// A reporter that keeps the failures: what `run_conformance(s, options)` returns.
class [[nodiscard]] conformance_result : public conformance_reporter {
 public:
  void fail(const conformance_failure& failure) override { m_failures.push_back(failure); }

  bool ok() const noexcept { return m_failures.empty(); }
  const std::vector<conformance_failure>& failures() const noexcept { return m_failures; }

  /// Every failure's message, one a line; empty when ok().
  std::string summary() const {
    std::string out;
    for (const conformance_failure& f : m_failures) {
      out += f.message();
      out += '\n';
    }
    return out;
  }

 private:
  std::vector<conformance_failure> m_failures;
};

}  // namespace tine::testing

#endif  // TINE_TESTING_CONFORMANCE_REPORT_HPP
