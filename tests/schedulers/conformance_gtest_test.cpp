// The conformance kit through its GoogleTest adapter: tine's busy pool and the user-written
// simple_pool pass; the neutral API's result on a broken scheduler names the rule. Two regions
// are examples of docs/extending.md.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include <tine/schedulers/busy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/schedulers/broken_schedulers.hpp"

// clang-format off
// [docs:conformance_gtest]
#include <tine/testing/conformance_gtest.hpp>

TEST(MyScheduler, Conforms) {
  tine::testing::simple_pool s(4);  // your scheduler here
  tine::testing::gtest::expect_conformance(s, {.workers = 4});  // an ADD_FAILURE per failure
}
// [docs:conformance_gtest end]
// clang-format on

namespace {

TEST(ConformanceGtest, BusyPoolConforms) {
  for (std::size_t n : {1U, 3U}) {
    tine::busy_pool<> pool(n);
    EXPECT_TRUE(tine::testing::gtest::expect_conformance(pool, {.workers = n}));
  }
}

// The neutral API on a broken scheduler: the result names the rule, the check and what happened.
TEST(ConformanceGtest, ResultNamesTheBrokenRule) {
  broken::never_steals_from_others s(2);
  // clang-format off
  // [docs:conformance_neutral]
  tine::testing::conformance_options opts;
  opts.workers = 2;
  opts.patience = std::chrono::milliseconds(500);  // how long a waiting task waits: 10 s by default
  const tine::testing::conformance_result r = tine::testing::run_conformance(s, opts);
  if (!r.ok()) {
    std::fputs(r.summary().c_str(), stderr);  // one line per failure, naming the rule
  }
  // [docs:conformance_neutral end]
  // clang-format on
  ASSERT_FALSE(r.ok());
  const tine::testing::conformance_failure& f = r.failures().front();
  EXPECT_EQ(f.rule, tine::testing::rules::steal_from_others);
  EXPECT_EQ(f.check, "check_schedule_under_load");
  EXPECT_NE(r.summary().find("the workers must keep stealing from each other"), std::string::npos)
      << r.summary();
}

}  // namespace
