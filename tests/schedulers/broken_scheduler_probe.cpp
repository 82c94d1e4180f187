// The conformance kit (through its Boost.Test adapter) over schedulers that each break one rule
// of docs/extending.md (broken_schedulers.hpp). Not a test on its own: every case must fail.
// The kit_rejects_* tests run one case each (--run_test=NAME) through expect_kit_failure.sh,
// which checks that the kit failed it in seconds, naming the rule.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstddef>

#include <tine/testing/conformance_boost_test.hpp>

#include "tests/schedulers/broken_schedulers.hpp"

namespace {

// Short limits: every scheduler here is broken, and a correct one passes each check in far
// less, even under ThreadSanitizer.
template <typename Scheduler>
void expect_rejected(std::size_t workers) {
  Scheduler s(workers);
  tine::testing::conformance_options opts;
  opts.workers = workers;
  opts.patience = std::chrono::milliseconds(1000);
  opts.schedule_limit = std::chrono::milliseconds(1000);
  opts.hang_limit = std::chrono::milliseconds(10000);
  const bool passed = tine::testing::boost_test::expect_conformance(s, opts);
  BOOST_TEST_MESSAGE("kit verdict: " << (passed ? "passed" : "rejected"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(rejected)

BOOST_AUTO_TEST_CASE(waits_for_own_worker) { expect_rejected<broken::waits_for_own_worker>(1); }
BOOST_AUTO_TEST_CASE(handoff) { expect_rejected<broken::handoff>(1); }
BOOST_AUTO_TEST_CASE(eager) { expect_rejected<broken::eager>(1); }
BOOST_AUTO_TEST_CASE(duplicating) { expect_rejected<broken::duplicating>(1); }
BOOST_AUTO_TEST_CASE(lossy) { expect_rejected<broken::lossy>(1); }
BOOST_AUTO_TEST_CASE(thread_per_node) { expect_rejected<broken::thread_per_node>(1); }
BOOST_AUTO_TEST_CASE(never_steals_from_others) {
  expect_rejected<broken::never_steals_from_others>(2);
}
BOOST_AUTO_TEST_CASE(never_steals_from_itself_1) {
  expect_rejected<broken::never_steals_from_itself>(1);
}
BOOST_AUTO_TEST_CASE(never_steals_from_itself_2) {
  expect_rejected<broken::never_steals_from_itself>(2);
}
BOOST_AUTO_TEST_CASE(submissions_first) { expect_rejected<broken::submissions_first>(1); }
BOOST_AUTO_TEST_CASE(throws_after_queuing) { expect_rejected<broken::throws_after_queuing>(1); }

BOOST_AUTO_TEST_SUITE_END()
