#ifndef TINE_TESTING_CONFORMANCE_BOOST_TEST_HPP
#define TINE_TESTING_CONFORMANCE_BOOST_TEST_HPP

/// \file conformance_boost_test.hpp
/// The conformance kit in Boost.Test: each failure becomes a BOOST_ERROR naming the rule, and
/// each check a checkpoint. Bazel: depend on `@tine//testing:conformance_boost_test`, which
/// brings Boost.Test (the shared library, with BOOST_TEST_DYN_LINK); main() is yours, or
/// Boost's with BOOST_TEST_MODULE defined in one source.
///
/// ```
/// BOOST_AUTO_TEST_CASE(my_scheduler_conforms) {
///   my_scheduler s(4);
///   tine::testing::conformance_options opts;
///   opts.workers = 4;
///   tine::testing::boost_test::expect_conformance(s, opts);
/// }
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>

#include <tine/core/concepts.hpp>
#include <tine/testing/conformance_report.hpp>
#include <tine/testing/scheduler_conformance.hpp>

namespace tine::testing::boost_test {

/// Reports to the running Boost.Test case.
class reporter : public conformance_reporter {
 public:
  void begin_check(std::string_view check) override {
    BOOST_TEST_CHECKPOINT("tine conformance: " << check);
  }
  void fail(const conformance_failure& failure) override { BOOST_ERROR(failure.message()); }
};

/// Runs every check of the kit on `s` (see run_conformance), failing the current test case once
/// per broken expectation. Returns whether all passed.
template <scheduler S>
bool expect_conformance(S& s, const conformance_options& opts = {}) {
  reporter r;
  return run_conformance(s, r, opts);
}

}  // namespace tine::testing::boost_test

#endif  // TINE_TESTING_CONFORMANCE_BOOST_TEST_HPP
