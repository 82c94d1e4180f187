#ifndef TINE_TESTING_CONFORMANCE_GTEST_HPP
#define TINE_TESTING_CONFORMANCE_GTEST_HPP

/// \file conformance_gtest.hpp
/// The conformance kit in GoogleTest: each failure becomes an ADD_FAILURE naming the rule (a
/// non-fatal failure: the test goes on). Bazel: depend on `@tine//testing:conformance_gtest`,
/// which brings GoogleTest, and on `@tine_gtest//:gtest_main` unless main() is yours.
///
/// ```
/// TEST(MyScheduler, Conforms) {
///   my_scheduler s(4);
///   tine::testing::conformance_options opts;
///   opts.workers = 4;
///   tine::testing::gtest::expect_conformance(s, opts);
/// }
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <gtest/gtest.h>

#include <tine/core/concepts.hpp>
#include <tine/testing/conformance_report.hpp>
#include <tine/testing/scheduler_conformance.hpp>

namespace tine::testing::gtest {

/// Reports to the running GoogleTest test.
class reporter : public conformance_reporter {
 public:
  void fail(const conformance_failure& failure) override { ADD_FAILURE() << failure.message(); }
};

/// Runs every check of the kit on `s` (see run_conformance), adding one failure to the current
/// test per broken expectation. Returns whether all passed.
template <scheduler S>
bool expect_conformance(S& s, const conformance_options& opts = {}) {
  reporter r;
  return run_conformance(s, r, opts);
}

}  // namespace tine::testing::gtest

#endif  // TINE_TESTING_CONFORMANCE_GTEST_HPP
