// The conformance kit over busy_pool, with both of tine's victim policies.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <tine/policies/uniform_victims.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include "tests/schedulers/conformance_configs.hpp"

namespace {
using configs = boost::mpl::list<tine_tests::config<tine::busy_pool<>, 1>,
                                 tine_tests::config<tine::busy_pool<>, 2>,
                                 tine_tests::config<tine::busy_pool<>, 5>,
                                 tine_tests::config<tine::busy_pool<tine::uniform_victims>, 1>,
                                 tine_tests::config<tine::busy_pool<tine::uniform_victims>, 2>,
                                 tine_tests::config<tine::busy_pool<tine::uniform_victims>, 5>>;
}  // namespace

BOOST_AUTO_TEST_SUITE(busy_pool_conformance)

BOOST_AUTO_TEST_CASE_TEMPLATE(conforms, Config, configs) { tine_tests::conforms<Config>(); }

BOOST_AUTO_TEST_SUITE_END()
