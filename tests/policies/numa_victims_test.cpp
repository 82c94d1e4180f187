#include <tine/policies/numa_victims.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>

static_assert(tine::victim_policy<tine::numa_victims>);

namespace {

/// Draws `draws` victims for `thief` and returns the frequency of each worker; a trailing slot
/// counts victims out of range.
std::vector<double> frequencies(const tine::numa_victims& policy, std::size_t thief, int draws,
                                tine::xoshiro256ss& rng) {
  std::vector<int> count(policy.size() + 1, 0);
  for (int i = 0; i < draws; ++i) {
    ++count[std::min(policy.next_victim(thief, rng), policy.size())];
  }
  std::vector<double> freq;
  for (int c : count) {
    freq.push_back(static_cast<double>(c) / draws);
  }
  return freq;
}

/// Eq. 6 written out directly, as a reference independent of the policy's tables.
double eq6_probability(const tine::topology& topo, std::size_t i, std::size_t j) {
  if (i == j) {
    return 0;
  }
  auto weight = [&](std::size_t k) {
    const double r = std::max(topo.distance(i, k), 1U);
    double n = 0;
    for (std::size_t m = 0; m < topo.size(); ++m) {
      n += m != i && std::max(topo.distance(i, m), 1U) == r ? 1 : 0;
    }
    return 1.0 / (n * r * r);
  };
  double total = 0;
  for (std::size_t k = 0; k < topo.size(); ++k) {
    total += k != i ? weight(k) : 0;
  }
  return weight(j) / total;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(numa_victims)

BOOST_AUTO_TEST_CASE(two_nodes_of_four_follow_eq6) {
  // Thief 0 sees 3 places at r = 1 (w = 1/(3·1) = 1/3 each) and 4 at r = 2 (w = 1/(4·4) = 1/16
  // each); the weights sum to 1 + 1/4 = 5/4, so a near victim has probability 4/15 and a far one
  // 1/20: the thief stays on its node 80% of the time.
  const tine::topology topo = tine::topology::synthetic(2, 4);
  const tine::numa_victims policy{topo};
  for (std::size_t i = 0; i < 8; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < 8; ++j) {
      const double expected = i == j ? 0.0 : i / 4 == j / 4 ? 4.0 / 15.0 : 1.0 / 20.0;
      BOOST_TEST(policy.probability(i, j) == expected, boost::test_tools::tolerance(1e-12));
      sum += policy.probability(i, j);
    }
    BOOST_TEST(sum == 1.0, boost::test_tools::tolerance(1e-12));
  }
}

BOOST_AUTO_TEST_CASE(empirical_frequencies_match_eq6) {
  // 100,000 draws per thief: the standard error of a frequency near 0.27 is 0.0014, so a
  // tolerance of 0.01 is more than 7 of them.
  const tine::topology topo = tine::topology::synthetic(2, 4);
  const tine::numa_victims policy{topo};
  tine::xoshiro256ss rng{0xc0ffee};
  for (std::size_t thief = 0; thief < topo.size(); ++thief) {
    const std::vector<double> freq = frequencies(policy, thief, 100'000, rng);
    BOOST_TEST(freq[topo.size()] == 0.0, "victims out of range for thief " << thief);
    BOOST_TEST(freq[thief] == 0.0, "thief " << thief << " was chosen as its own victim");
    double same_node = 0;
    for (std::size_t j = 0; j < topo.size(); ++j) {
      BOOST_TEST(std::abs(freq[j] - eq6_probability(topo, thief, j)) < 0.01,
                 "thief " << thief << ", victim " << j << ": " << freq[j] << " vs "
                          << eq6_probability(topo, thief, j));
      same_node += topo.numa_node(j) == topo.numa_node(thief) ? freq[j] : 0;
    }
    // Near victims preferred: 80% of steals stay on the node, against 3/7 for uniform choice.
    BOOST_TEST(std::abs(same_node - 0.8) < 0.01);
  }
}

BOOST_AUTO_TEST_CASE(three_levels_of_distance) {
  // One neighbour at r = 1, two at r = 2, four at r = 3: the classes weigh 1, 1/4 and 1/9.
  const std::vector<unsigned> d = {
      0, 1, 2, 2, 3, 3, 3, 3,  //
      1, 0, 2, 2, 3, 3, 3, 3,  //
      2, 2, 0, 1, 3, 3, 3, 3,  //
      2, 2, 1, 0, 3, 3, 3, 3,  //
      3, 3, 3, 3, 0, 1, 2, 2,  //
      3, 3, 3, 3, 1, 0, 2, 2,  //
      3, 3, 3, 3, 2, 2, 0, 1,  //
      3, 3, 3, 3, 2, 2, 1, 0,  //
  };
  const tine::topology topo = tine::topology::from_distances({0, 0, 0, 0, 1, 1, 1, 1}, d);
  const tine::numa_victims policy{topo};
  const double total = 1.0 + 1.0 / 4 + 1.0 / 9;
  BOOST_TEST(policy.probability(0, 1) == 1.0 / total, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(policy.probability(0, 2) == (1.0 / 4) / 2 / total,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(policy.probability(0, 7) == (1.0 / 9) / 4 / total,
             boost::test_tools::tolerance(1e-12));
  tine::xoshiro256ss rng{3};
  for (std::size_t thief : {std::size_t{0}, std::size_t{5}}) {
    const std::vector<double> freq = frequencies(policy, thief, 100'000, rng);
    for (std::size_t j = 0; j < topo.size(); ++j) {
      BOOST_TEST(std::abs(freq[j] - eq6_probability(topo, thief, j)) < 0.01);
      BOOST_TEST(policy.probability(thief, j) == eq6_probability(topo, thief, j),
                 boost::test_tools::tolerance(1e-12));
    }
  }
}

BOOST_AUTO_TEST_CASE(same_core_places_count_as_distance_one) {
  // Places 0 and 1 share a core (distance 0), 2 is at distance 1, 3 at distance 2. For thief 0,
  // places 1 and 2 form one class of weight 1, place 3 one of weight 1/4.
  const tine::topology topo = tine::topology::from_distances({0, 0, 0, 0}, {0, 0, 1, 2,  //
                                                                            0, 0, 1, 2,  //
                                                                            1, 1, 0, 2,  //
                                                                            2, 2, 2, 0});
  const tine::numa_victims policy{topo};
  BOOST_TEST(policy.probability(0, 1) == 0.4, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(policy.probability(0, 2) == 0.4, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(policy.probability(0, 3) == 0.2, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(everyone_on_one_core_is_uniform) {
  // What discover(4) gives under `taskset -c 0`: all distances 0.
  const tine::topology topo =
      tine::topology::from_distances({0, 0, 0, 0}, std::vector<unsigned>(16, 0));
  const tine::numa_victims policy{topo};
  for (std::size_t j = 1; j < 4; ++j) {
    BOOST_TEST(policy.probability(0, j) == 1.0 / 3, boost::test_tools::tolerance(1e-12));
  }
}

BOOST_AUTO_TEST_CASE(small_pools) {
  tine::xoshiro256ss rng{4};
  const tine::numa_victims alone{tine::topology::synthetic(1, 1)};
  const tine::numa_victims pair{tine::topology::synthetic(2, 1)};
  for (int i = 0; i < 100; ++i) {
    BOOST_TEST(alone.next_victim(0, rng) == 0U);
    BOOST_TEST(pair.next_victim(0, rng) == 1U);
    BOOST_TEST(pair.next_victim(1, rng) == 0U);
  }
  BOOST_TEST(alone.probability(0, 0) == 1.0);
  BOOST_CHECK_THROW(pair.probability(0, 2), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(works_on_the_discovered_machine) {
  const tine::topology topo = tine::topology::discover(4);
  const tine::numa_victims policy{topo};
  tine::xoshiro256ss rng{5};
  for (std::size_t thief = 0; thief < topo.size(); ++thief) {
    const std::vector<double> freq = frequencies(policy, thief, 1'000, rng);
    BOOST_TEST(freq[thief] == 0.0);
    BOOST_TEST(freq[topo.size()] == 0.0);
  }
}

BOOST_AUTO_TEST_CASE(discovered_machine_follows_eq6_and_flat_is_uniform) {
  // 6 workers: more than this machine's cpus in most places, so some places share a cpu.
  const tine::topology topo = tine::topology::discover(6);
  const tine::numa_victims policy{topo};
  tine::xoshiro256ss rng{6};
  for (std::size_t thief = 0; thief < topo.size(); ++thief) {
    const std::vector<double> freq = frequencies(policy, thief, 60'000, rng);
    for (std::size_t j = 0; j < topo.size(); ++j) {
      BOOST_TEST_CONTEXT("thief " << thief << ", victim " << j << ", topology " << topo.source()) {
        BOOST_TEST(policy.probability(thief, j) == eq6_probability(topo, thief, j),
                   boost::test_tools::tolerance(1e-12));
        BOOST_TEST(std::abs(freq[j] - eq6_probability(topo, thief, j)) < 0.01);
        if (!tine::topology::discovers_with_hwloc()) {
          // Built without hwloc: one NUMA node, every distance 0 or 1, so numa_victims degrades
          // to uniform choice: every other worker can be a victim, each with 1 / (n - 1).
          const double uniform = thief == j ? 0.0 : 1.0 / 5;
          BOOST_TEST(policy.probability(thief, j) == uniform, boost::test_tools::tolerance(1e-12));
          if (thief != j) {
            BOOST_TEST(freq[j] > 0.0);
          }
        }
      }
    }
  }
  if (!tine::topology::discovers_with_hwloc()) {
    BOOST_TEST(topo.source() == "flat: built without hwloc");
    BOOST_TEST(topo.numa_nodes() == 1U);
  }
}

BOOST_AUTO_TEST_CASE(concurrent_thieves_share_one_policy) {
  // next_victim is const and reads immutable tables; run it from several threads at once (a
  // data race here would show under ThreadSanitizer).
  const tine::numa_victims policy{tine::topology::synthetic(2, 4)};
  std::vector<int> bad(4, 0);
  std::vector<std::thread> thieves;
  for (std::size_t t = 0; t < 4; ++t) {
    thieves.emplace_back([&policy, &bad, t] {
      tine::xoshiro256ss rng{t};
      for (int i = 0; i < 50'000; ++i) {
        const std::size_t victim = policy.next_victim(t, rng);
        bad[t] += victim == t || victim >= policy.size() ? 1 : 0;
      }
    });
  }
  for (std::thread& t : thieves) {
    t.join();
  }
  for (int b : bad) {
    BOOST_TEST(b == 0);
  }
}

BOOST_AUTO_TEST_SUITE_END()
