// The conformance kit through its GoogleTest adapter: tine's busy pool and the user-written
// simple_pool pass; a collecting run shows what a failure carries.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <string>

#include <tine/schedulers/busy_pool.hpp>
#include <tine/testing/conformance_gtest.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/schedulers/broken_schedulers.hpp"

namespace {

TEST(ConformanceGtest, BusyPoolConforms) {
  for (std::size_t n : {1U, 3U}) {
    tine::busy_pool<> pool(n);
    EXPECT_TRUE(tine::testing::gtest::expect_conformance(pool, {.workers = n}));
  }
}

TEST(ConformanceGtest, SimplePoolConforms) {
  tine::testing::simple_pool pool(2);
  EXPECT_TRUE(tine::testing::gtest::expect_conformance(pool, {.workers = 2}));
}

// The neutral API on a broken scheduler: the result names the rule, the check and what happened.
TEST(ConformanceGtest, ResultNamesTheBrokenRule) {
  broken::never_steals_from_others pool(2);
  tine::testing::conformance_options opts;
  opts.workers = 2;
  opts.patience = std::chrono::milliseconds(500);
  const tine::testing::conformance_result r = tine::testing::run_conformance(pool, opts);
  ASSERT_FALSE(r.ok());
  const tine::testing::conformance_failure& f = r.failures().front();
  EXPECT_EQ(f.rule, tine::testing::rules::steal_from_others);
  EXPECT_EQ(f.check, "check_schedule_under_load");
  EXPECT_NE(r.summary().find("the workers must keep stealing from each other"), std::string::npos)
      << r.summary();
}

}  // namespace
