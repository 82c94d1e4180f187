// Extending tine without touching it: a user-written victim policy plugged into both pools, and
// the conformance kit run on pools that use it. The examples of docs/extending.md live here
// between [docs:...] markers.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <vector>

#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/schedulers/round_robin_pool.hpp"

// clang-format off
// [docs:neighbours_first]
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>

// Thieves sit on a ring and look next door first: half the time the right-hand neighbour, a
// quarter the left-hand one, and otherwise any other worker, so work still crosses the ring.
class neighbours_first {
 public:
  explicit neighbours_first(const tine::topology& topo) noexcept : n_(topo.size()) {}

  std::size_t next_victim(std::size_t thief, tine::xoshiro256ss& rng) const noexcept {
    if (n_ == 1) {
      return 0;  // a lone worker steals from itself
    }
    switch (rng.bounded(4)) {
      case 0:
      case 1:
        return (thief + 1) % n_;
      case 2:
        return (thief + n_ - 1) % n_;
      default: {
        const auto k = static_cast<std::size_t>(rng.bounded(n_ - 1));  // any of the n - 1 others
        return k < thief ? k : k + 1;
      }
    }
  }

 private:
  std::size_t n_;
};

static_assert(tine::victim_policy<neighbours_first>);

// Plugged into either pool as a template argument:
using ring_busy_pool = tine::busy_pool<neighbours_first>;
using ring_lazy_pool = tine::lazy_pool<neighbours_first>;
// [docs:neighbours_first end]
// clang-format on

#include <tine/testing/conformance_boost_test.hpp>

namespace {
using ring_pools = boost::mpl::list<ring_busy_pool, ring_lazy_pool>;
}  // namespace

BOOST_AUTO_TEST_SUITE(extension)

BOOST_AUTO_TEST_CASE(neighbours_first_keeps_the_contract) {
  for (std::size_t n : {1U, 2U, 3U, 7U}) {
    const neighbours_first policy(tine::topology::synthetic(1, n));
    tine::xoshiro256ss rng(42);
    for (std::size_t thief = 0; thief < n; ++thief) {
      std::vector<int> hits(n, 0);
      for (int i = 0; i < 4000; ++i) {
        const std::size_t v = policy.next_victim(thief, rng);
        BOOST_REQUIRE(v < n);
        ++hits[v];
      }
      if (n == 1) {
        BOOST_TEST(hits[0] == 4000);
      } else {
        BOOST_TEST(hits[thief] == 0);
        BOOST_TEST(hits[(thief + 1) % n] > 1500);  // at least half of 4000, less noise
      }
    }
  }
}

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(120))
BOOST_AUTO_TEST_CASE_TEMPLATE(pools_with_a_user_policy_conform, Pool, ring_pools) {
  for (std::size_t n : {1U, 3U}) {
    Pool pool(n);
    tine::testing::boost_test::expect_conformance(pool, {.workers = n});
  }
}

// clang-format off
// [docs:conformance_use]
BOOST_AUTO_TEST_CASE(round_robin_pool_conforms, *boost::unit_test::timeout(120)) {
  round_robin_pool pool(3);
  tine::testing::conformance_options opts;
  opts.workers = 3;  // some checks keep all of them busy at once
  tine::testing::boost_test::expect_conformance(pool, opts);  // a BOOST_ERROR per failure
}
// [docs:conformance_use end]
// clang-format on

BOOST_AUTO_TEST_SUITE_END()
