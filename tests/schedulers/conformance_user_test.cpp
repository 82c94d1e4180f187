// The conformance kit over schedulers that are not tine's pools: the inline scheduler, the
// user-written simple_pool of //testing, round_robin_pool written in these tests, and the correct
// toy_pool the broken schedulers of broken_schedulers.hpp are made from.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/schedulers/broken_schedulers.hpp"
#include "tests/schedulers/conformance_configs.hpp"
#include "tests/schedulers/round_robin_pool.hpp"

namespace {
using tine_tests::config;
using configs =
    boost::mpl::list<config<tine::testing::simple_pool, 1>, config<tine::testing::simple_pool, 2>,
                     config<tine::testing::simple_pool, 5>, config<round_robin_pool, 1>,
                     config<round_robin_pool, 2>, config<round_robin_pool, 5>>;
}  // namespace

BOOST_AUTO_TEST_SUITE(user_scheduler_conformance)

BOOST_AUTO_TEST_CASE_TEMPLATE(conforms, Config, configs) { tine_tests::conforms<Config>(); }

// The inline scheduler has no worker count: one thread.
BOOST_AUTO_TEST_CASE(inline_scheduler_conforms) {
  tine::inline_scheduler s;
  tine::testing::boost_test::expect_conformance(s, {});
}

BOOST_AUTO_TEST_SUITE_END()
