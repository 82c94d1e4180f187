#include <tine/policies/uniform_victims.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>

static_assert(tine::victim_policy<tine::uniform_victims>);

BOOST_AUTO_TEST_SUITE(uniform_victims)

BOOST_AUTO_TEST_CASE(a_lone_worker_steals_from_itself) {
  const tine::uniform_victims policy{tine::topology::synthetic(1, 1)};
  tine::xoshiro256ss rng{1};
  for (int i = 0; i < 100; ++i) {
    BOOST_TEST(policy.next_victim(0, rng) == 0U);
  }
}

BOOST_AUTO_TEST_CASE(two_workers_steal_from_each_other) {
  const tine::uniform_victims policy{tine::topology::synthetic(1, 2)};
  tine::xoshiro256ss rng{2};
  for (int i = 0; i < 100; ++i) {
    BOOST_TEST(policy.next_victim(0, rng) == 1U);
    BOOST_TEST(policy.next_victim(1, rng) == 0U);
  }
}

BOOST_AUTO_TEST_CASE(victims_are_uniform_among_the_others) {
  // Every thief of an 8-worker pool, 70,000 draws each: chi-square over the 7 others has 6
  // degrees of freedom, whose 0.9999 quantile is 27.9; the bound of 40 is generous.
  const tine::topology topo = tine::topology::synthetic(2, 4);
  const tine::uniform_victims policy{topo};
  tine::xoshiro256ss rng{0x5eed};
  constexpr int draws = 70'000;
  for (std::size_t thief = 0; thief < topo.size(); ++thief) {
    // One slot past the end counts victims out of range, so the loop stays free of assertions.
    std::vector<int> count(topo.size() + 1, 0);
    for (int i = 0; i < draws; ++i) {
      ++count[std::min(policy.next_victim(thief, rng), topo.size())];
    }
    BOOST_TEST(count[topo.size()] == 0, "victims out of range for thief " << thief);
    BOOST_TEST(count[thief] == 0, "thief " << thief << " was chosen as its own victim");
    const double expected = static_cast<double>(draws) / static_cast<double>(topo.size() - 1);
    double chi2 = 0;
    for (std::size_t j = 0; j < topo.size(); ++j) {
      if (j != thief) {
        chi2 += (count[j] - expected) * (count[j] - expected) / expected;
      }
    }
    BOOST_TEST(chi2 < 40.0, "thief " << thief << ": chi-square " << chi2);
  }
}

BOOST_AUTO_TEST_CASE(same_seed_same_victims) {
  const tine::uniform_victims policy{tine::topology::synthetic(3, 3)};
  tine::xoshiro256ss a{99};
  tine::xoshiro256ss b{99};
  for (int i = 0; i < 1000; ++i) {
    const auto thief = static_cast<std::size_t>(i % 9);
    BOOST_TEST(policy.next_victim(thief, a) == policy.next_victim(thief, b));
  }
}

BOOST_AUTO_TEST_SUITE_END()
