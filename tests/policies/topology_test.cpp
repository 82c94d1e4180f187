#include <tine/policies/topology.hpp>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace {

/// The calling thread's affinity, saved at construction and put back at destruction, so a test
/// that narrows it cannot leak into the tests after it.
class affinity_guard {
 public:
  affinity_guard() {
    CPU_ZERO(&m_saved);
    BOOST_REQUIRE_EQUAL(pthread_getaffinity_np(pthread_self(), sizeof m_saved, &m_saved), 0);
  }
  affinity_guard(const affinity_guard&) = delete;
  affinity_guard& operator=(const affinity_guard&) = delete;
  ~affinity_guard() { pthread_setaffinity_np(pthread_self(), sizeof m_saved, &m_saved); }

  const cpu_set_t& saved() const { return m_saved; }

 private:
  cpu_set_t m_saved;
};

std::vector<unsigned> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  BOOST_REQUIRE_EQUAL(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
  std::vector<unsigned> cpus;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) {
      cpus.push_back(c);
    }
  }
  return cpus;
}

/// Sets an environment variable for one scope (hwloc reads HWLOC_SYNTHETIC at load time).
class env_guard {
 public:
  env_guard(const char* name, const char* value) : m_name{name} {
    BOOST_REQUIRE_EQUAL(setenv(name, value, 1), 0);
  }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;
  ~env_guard() { unsetenv(m_name); }

 private:
  const char* m_name;
};

void check_well_formed(const tine::topology& topo) {
  BOOST_REQUIRE_GE(topo.size(), 1U);
  BOOST_REQUIRE_GE(topo.numa_nodes(), 1U);
  std::set<std::size_t> nodes;
  for (std::size_t i = 0; i < topo.size(); ++i) {
    BOOST_TEST(topo.numa_node(i) < topo.numa_nodes());
    nodes.insert(topo.numa_node(i));
    BOOST_TEST(topo.distance(i, i) == 0U);
    for (std::size_t j = 0; j < topo.size(); ++j) {
      BOOST_TEST(topo.distance(i, j) == topo.distance(j, i));
    }
  }
  BOOST_TEST(nodes.size() == topo.numa_nodes(), "NUMA node indices must be dense");
}

bool message_is(const std::exception& e, const std::string& expected) {
  BOOST_TEST(std::string{e.what()} == expected);
  return std::string{e.what()} == expected;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(topology_discover)

BOOST_AUTO_TEST_CASE(sizes_and_invariants) {
  const std::vector<unsigned> allowed = allowed_cpus();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
    const tine::topology topo = tine::topology::discover(n);
    BOOST_TEST_CONTEXT("n_workers = " << n) {
      BOOST_TEST(topo.size() == n);
      check_well_formed(topo);
      for (std::size_t i = 0; i < n; ++i) {
        const std::optional<unsigned> cpu = topo.cpu(i);
        BOOST_REQUIRE(cpu.has_value());
        BOOST_TEST((std::find(allowed.begin(), allowed.end(), *cpu) != allowed.end()),
                   "cpu " << *cpu << " is not one this process may run on");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(more_workers_than_cores_wrap_round) {
  // Places on one core are exactly those at distance 0; count the cores among as many places as
  // there are allowed cpus (at least one per core), then check that worker k sits on core k mod C.
  const std::size_t n_cpus = allowed_cpus().size();
  const tine::topology one_round = tine::topology::discover(n_cpus);
  std::size_t n_cores = 0;
  while (n_cores < n_cpus && (n_cores == 0 || one_round.distance(0, n_cores) != 0)) {
    ++n_cores;
  }
  const tine::topology topo = tine::topology::discover(3 * n_cores + 1);
  for (std::size_t k = 0; k < topo.size(); ++k) {
    BOOST_TEST(topo.distance(k, k % n_cores) == 0U);
    BOOST_TEST(topo.numa_node(k) == topo.numa_node(k % n_cores));
    for (std::size_t j = 0; j < topo.size(); ++j) {
      BOOST_TEST(topo.distance(k, j) == topo.distance(k % n_cores, j % n_cores));
    }
  }
}

BOOST_AUTO_TEST_CASE(zero_workers_throws_with_a_precise_message) {
  BOOST_CHECK_EXCEPTION(tine::topology::discover(0), std::invalid_argument, [](const auto& e) {
    return message_is(e, "tine::topology::discover: n_workers must be at least 1, got 0");
  });
}

BOOST_AUTO_TEST_CASE(pinning_binds_the_thread_to_the_place_cpu) {
  const affinity_guard restore;
  const tine::topology topo = tine::topology::discover(2);
  for (std::size_t place = 0; place < topo.size(); ++place) {
    BOOST_REQUIRE(tine::pin_current_thread(topo, place));
    cpu_set_t now;
    CPU_ZERO(&now);
    BOOST_REQUIRE_EQUAL(pthread_getaffinity_np(pthread_self(), sizeof now, &now), 0);
    BOOST_TEST(CPU_COUNT(&now) == 1);
    BOOST_TEST(CPU_ISSET(*topo.cpu(place), &now));
    BOOST_TEST(sched_getcpu() == static_cast<int>(*topo.cpu(place)));
  }
  BOOST_CHECK_THROW(tine::pin_current_thread(topo, topo.size()), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(restricted_cpuset_is_one_core_and_workers_wrap_onto_it) {
  const affinity_guard restore;
  const unsigned only = allowed_cpus().front();
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(only, &one);
  // The test binary is single-threaded here, so the thread's binding is the process's.
  BOOST_REQUIRE_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);

  const tine::topology topo = tine::topology::discover(4);
  BOOST_TEST(topo.size() == 4U);
  BOOST_TEST(topo.numa_nodes() == 1U);
  for (std::size_t i = 0; i < topo.size(); ++i) {
    BOOST_TEST((topo.cpu(i) == std::optional<unsigned>{only}));
    BOOST_TEST(topo.numa_node(i) == 0U);
    for (std::size_t j = 0; j < topo.size(); ++j) {
      BOOST_TEST(topo.distance(i, j) == 0U);
    }
  }
  BOOST_TEST(tine::pin_current_thread(topo, 3));
}

BOOST_AUTO_TEST_CASE(hwloc_synthetic_two_numa_nodes) {
  // hwloc can be told to describe a made-up machine: two packages, each with its NUMA node, a
  // shared L3, a private L2 per core and two hardware threads per core.
  const env_guard fake{"HWLOC_SYNTHETIC", "pack:2 [numa] l3:1 l2:4 core:1 pu:2"};
  const tine::topology topo = tine::topology::discover(16);
  check_well_formed(topo);
  if (!tine::topology::discovers_with_hwloc()) {
    // Without hwloc nobody reads HWLOC_SYNTHETIC: the real cpus, flat, one node.
    BOOST_TEST(topo.source() == "flat: built without hwloc");
    BOOST_TEST(topo.numa_nodes() == 1U);
    return;
  }
  BOOST_TEST(topo.source() == "hwloc");
  BOOST_TEST(topo.numa_nodes() == 2U);
  for (std::size_t k = 0; k < 16; ++k) {
    const std::size_t core = k % 8;
    BOOST_TEST(topo.numa_node(k) == core / 4);
    // First round on each core's first hardware thread, second round on its second.
    BOOST_TEST((topo.cpu(k) == std::optional<unsigned>{static_cast<unsigned>(2 * core + k / 8)}));
    for (std::size_t j = 0; j < 16; ++j) {
      const std::size_t other = j % 8;
      // Structureless cache levels (the L3 alone in its package, the private L2s) are dropped,
      // so cores are 1 apart within a package and 2 across, not 3 and 5.
      const unsigned expected = core == other ? 0U : core / 4 == other / 4 ? 1U : 2U;
      BOOST_TEST(topo.distance(k, j) == expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(hwloc_synthetic_shared_l2_is_a_level) {
  // Pairs of cores sharing an L2 (as in clusters of small cores): that level brings structure.
  const env_guard fake{"HWLOC_SYNTHETIC", "pack:1 [numa] l2:2 core:2 pu:1"};
  const tine::topology topo = tine::topology::discover(4);
  BOOST_TEST(topo.numa_nodes() == 1U);
  if (!tine::topology::discovers_with_hwloc()) {
    // Flat: no level between the machine and its cpus, so no distance above 1.
    for (std::size_t i = 0; i < topo.size(); ++i) {
      for (std::size_t j = 0; j < topo.size(); ++j) {
        BOOST_TEST(topo.distance(i, j) <= 1U);
      }
    }
    return;
  }
  BOOST_TEST(topo.distance(0, 1) == 1U);
  BOOST_TEST(topo.distance(0, 2) == 2U);
  BOOST_TEST(topo.distance(2, 3) == 1U);
  BOOST_TEST(topo.distance(1, 3) == 2U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(topology_on_chosen_cpus)

BOOST_AUTO_TEST_CASE(every_usable_cpu_is_the_whole_machine) {
  const std::vector<unsigned> allowed = allowed_cpus();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
    BOOST_TEST_CONTEXT("n_workers = " << n) {
      BOOST_TEST((tine::topology::discover(n, allowed) == tine::topology::discover(n)));
      // Order and duplicates do not matter.
      std::vector<unsigned> shuffled(allowed.rbegin(), allowed.rend());
      shuffled.push_back(allowed.front());
      BOOST_TEST((tine::topology::discover(n, shuffled) == tine::topology::discover(n)));
    }
  }
}

BOOST_AUTO_TEST_CASE(one_cpu_takes_every_worker) {
  for (unsigned only : allowed_cpus()) {
    const std::vector<unsigned> cpus{only};
    const tine::topology topo = tine::topology::discover(3, cpus);
    BOOST_TEST_CONTEXT("cpu " << only) {
      check_well_formed(topo);
      BOOST_TEST(topo.size() == 3U);
      BOOST_TEST(topo.numa_nodes() == 1U);
      for (std::size_t i = 0; i < topo.size(); ++i) {
        BOOST_TEST((topo.cpu(i) == std::optional<unsigned>{only}));
        BOOST_TEST(topo.numa_node(i) == 0U);
        BOOST_TEST(topo.distance(0, i) == 0U);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(two_cpus_keep_their_distance) {
  const std::vector<unsigned> allowed = allowed_cpus();
  if (allowed.size() < 2) {
    return;  // one cpu: covered by one_cpu_takes_every_worker
  }
  // The last and first cpus, given in that order: the places follow the machine's order.
  const std::vector<unsigned> cpus{allowed.back(), allowed.front()};
  const tine::topology whole = tine::topology::discover(allowed.size(), allowed);
  const tine::topology topo = tine::topology::discover(4, cpus);
  check_well_formed(topo);
  std::size_t first = whole.size();
  std::size_t last = whole.size();
  for (std::size_t i = 0; i < whole.size(); ++i) {
    first = whole.cpu(i) == allowed.front() && first == whole.size() ? i : first;
    last = whole.cpu(i) == allowed.back() && last == whole.size() ? i : last;
  }
  BOOST_REQUIRE(first < whole.size());
  BOOST_REQUIRE(last < whole.size());
  std::set<unsigned> used;
  for (std::size_t i = 0; i < topo.size(); ++i) {
    used.insert(*topo.cpu(i));
  }
  BOOST_TEST((used == std::set<unsigned>{allowed.front(), allowed.back()}));
  const bool same_core = whole.distance(first, last) == 0;
  if (!same_core) {
    // Two cores: workers alternate between them in the machine's order, and keep its distance.
    BOOST_TEST((topo.cpu(0) == topo.cpu(2)));
    BOOST_TEST((topo.cpu(1) == topo.cpu(3)));
    BOOST_TEST((topo.cpu(0) != topo.cpu(1)));
    BOOST_TEST(topo.distance(0, 1) == whole.distance(first, last));
    BOOST_TEST(topo.distance(0, 2) == 0U);
  }
}

BOOST_AUTO_TEST_CASE(cpus_outside_the_process_are_left_out) {
  const affinity_guard restore;
  const std::vector<unsigned> allowed = allowed_cpus();
  if (allowed.size() < 2) {
    return;  // nothing to narrow
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(allowed.front(), &one);
  // The test binary is single-threaded here, so the thread's binding is the process's.
  BOOST_REQUIRE_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);

  // Asked for both, the process may use one: that one.
  const tine::topology topo = tine::topology::discover(2, allowed);
  BOOST_TEST((topo.cpu(0) == std::optional<unsigned>{allowed.front()}));
  BOOST_TEST((topo.cpu(1) == std::optional<unsigned>{allowed.front()}));

  // Asked for the other one only: nothing left, and the message says what was asked and allowed.
  const std::vector<unsigned> other{allowed.back()};
  BOOST_CHECK_EXCEPTION(
      tine::topology::discover(1, other), std::invalid_argument, [&](const auto& e) {
        return message_is(e,
                          "tine::topology::discover: this process may not run on any of "
                          "the cpus " +
                              std::to_string(allowed.back()) + " (it may run on " +
                              std::to_string(allowed.front()) + ")");
      });
}

BOOST_AUTO_TEST_CASE(unknown_and_empty_sets_throw_with_a_precise_message) {
  const std::vector<unsigned> none;
  BOOST_CHECK_EXCEPTION(tine::topology::discover(1, none), std::invalid_argument,
                        [](const auto& e) {
                          return message_is(e,
                                            "tine::topology::discover: the set of cpus to lay "
                                            "workers on is empty");
                        });
  const std::vector<unsigned> absurd{allowed_cpus().front(), 1000000};
  BOOST_CHECK_EXCEPTION(
      tine::topology::discover(1, absurd), std::invalid_argument, [](const auto& e) {
        const std::string text = e.what();
        const std::string start =
            "tine::topology::discover: there is no cpu 1000000 on this machine (its cpus are ";
        BOOST_TEST(text.substr(0, start.size()) == start);
        return text.substr(0, start.size()) == start;
      });
  BOOST_CHECK_EXCEPTION(
      tine::topology::discover(0, absurd), std::invalid_argument, [](const auto& e) {
        return message_is(e, "tine::topology::discover: n_workers must be at least 1, got 0");
      });
}

BOOST_AUTO_TEST_CASE(hwloc_synthetic_one_node_of_two) {
  const env_guard fake{"HWLOC_SYNTHETIC", "pack:2 [numa] l3:1 l2:4 core:1 pu:2"};
  if (!tine::topology::discovers_with_hwloc()) {
    return;  // nobody reads HWLOC_SYNTHETIC
  }
  // cpus 8 and 10: the first threads of cores 4 and 5, both on the second node, renumbered 0.
  const std::vector<unsigned> second_node{10, 8};
  const tine::topology topo = tine::topology::discover(3, second_node);
  check_well_formed(topo);
  BOOST_TEST(topo.numa_nodes() == 1U);
  BOOST_TEST((topo.cpu(0) == std::optional<unsigned>{8}));
  BOOST_TEST((topo.cpu(1) == std::optional<unsigned>{10}));
  BOOST_TEST((topo.cpu(2) == std::optional<unsigned>{8}));  // no other thread of core 4 kept
  BOOST_TEST(topo.distance(0, 1) == 1U);
  // Across the nodes: two nodes, distance 2.
  const std::vector<unsigned> across{0, 9};
  const tine::topology both = tine::topology::discover(2, across);
  BOOST_TEST(both.numa_nodes() == 2U);
  BOOST_TEST(both.numa_node(1) == 1U);
  BOOST_TEST(both.distance(0, 1) == 2U);
  BOOST_CHECK_EXCEPTION(tine::topology::discover(1, std::vector<unsigned>{16}),
                        std::invalid_argument, [](const auto& e) {
                          return message_is(
                              e,
                              "tine::topology::discover: there is no cpu 16 on this machine (its "
                              "cpus are 0-15)");
                        });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(topology_avoiding)

/// Place i of `a` and place `offset + i` of `b` are alike (cpu, node), and so are the distances.
void check_same_places(const tine::topology& a, const tine::topology& b, std::size_t offset) {
  BOOST_REQUIRE_LE(a.size() + offset, b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    BOOST_TEST((a.cpu(i) == b.cpu(offset + i)));
    for (std::size_t j = 0; j < a.size(); ++j) {
      BOOST_TEST(a.distance(i, j) == b.distance(offset + i, offset + j));
    }
  }
}

BOOST_AUTO_TEST_CASE(nothing_counted_is_discover) {
  const std::vector<std::size_t> none;
  const std::vector<std::size_t> zeros(64, 0);
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
    BOOST_TEST((tine::topology::discover_avoiding(n, none) == tine::topology::discover(n)));
    BOOST_TEST((tine::topology::discover_avoiding(n, zeros) == tine::topology::discover(n)));
  }
}

BOOST_AUTO_TEST_CASE(one_worker_counted_is_the_next_worker_of_discover) {
  // A worker on discover's first place: a new layout of n workers is places 1..n of
  // discover(n + 1), whatever the machine (one cpu, one core of two threads, several cores).
  const unsigned first = *tine::topology::discover(1).cpu(0);
  std::vector<std::size_t> counted(first + 1, 0);
  counted[first] = 1;
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
    BOOST_TEST_CONTEXT("n_workers = " << n) {
      const tine::topology topo = tine::topology::discover_avoiding(n, counted);
      check_well_formed(topo);
      check_same_places(topo, tine::topology::discover(n + 1), 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(busy_cpus_are_avoided_in_the_synthetic_machine) {
  const env_guard fake{"HWLOC_SYNTHETIC", "pack:2 [numa] l3:1 l2:4 core:1 pu:2"};
  if (!tine::topology::discovers_with_hwloc()) {
    return;
  }
  // The first node full (one worker on each core's first thread): two new workers go to the
  // second node, which is then node 0 of the new topology, the only one.
  std::vector<std::size_t> counted(16, 0);
  for (unsigned core = 0; core < 4; ++core) {
    counted[2 * core] = 1;
  }
  const tine::topology topo = tine::topology::discover_avoiding(2, counted);
  check_well_formed(topo);
  BOOST_TEST(topo.numa_nodes() == 1U);
  BOOST_TEST((topo.cpu(0) == std::optional<unsigned>{8}));
  BOOST_TEST((topo.cpu(1) == std::optional<unsigned>{10}));
  // Ten workers: the four free cores first, then each core's least used thread.
  const tine::topology ten = tine::topology::discover_avoiding(10, counted);
  check_well_formed(ten);
  BOOST_TEST(ten.numa_nodes() == 2U);
  const std::vector<unsigned> expected{8, 10, 12, 14, 1, 3, 5, 7, 9, 11};
  for (std::size_t k = 0; k < ten.size(); ++k) {
    BOOST_TEST((ten.cpu(k) == std::optional<unsigned>{expected[k]}));
  }
  BOOST_TEST(ten.numa_node(0) == 1U);  // nodes keep hwloc's order
  BOOST_TEST(ten.numa_node(4) == 0U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(topology_source)

BOOST_AUTO_TEST_CASE(discovered_topology_says_how_it_was_found) {
  const tine::topology topo = tine::topology::discover(3);
  if (tine::topology::discovers_with_hwloc()) {
    BOOST_TEST(topo.source() == "hwloc");
  } else {
    BOOST_TEST(topo.source() == "flat: built without hwloc");
  }
  BOOST_TEST((topo.source() == "hwloc") == tine::topology::discovers_with_hwloc());
}

BOOST_AUTO_TEST_CASE(flat_build_is_one_node_of_equidistant_cpus) {
  // Both builds: as many places as allowed cpus land on distinct cpus; only the hwloc build may
  // find more than one NUMA node or more than one level between them.
  const std::vector<unsigned> allowed = allowed_cpus();
  const tine::topology topo = tine::topology::discover(allowed.size());
  check_well_formed(topo);
  std::set<unsigned> cpus;
  for (std::size_t i = 0; i < topo.size(); ++i) {
    cpus.insert(*topo.cpu(i));
  }
  if (!tine::topology::discovers_with_hwloc()) {
    // Without hwloc every allowed cpu is a core: one place on each, in increasing order.
    BOOST_TEST(topo.numa_nodes() == 1U);
    BOOST_TEST((std::vector<unsigned>(cpus.begin(), cpus.end()) == allowed));
    for (std::size_t i = 0; i < topo.size(); ++i) {
      BOOST_TEST(*topo.cpu(i) == allowed[i]);
      for (std::size_t j = 0; j < topo.size(); ++j) {
        BOOST_TEST(topo.distance(i, j) == (i == j ? 0U : 1U));
      }
    }
  } else {
    // hwloc may put two places on hardware threads of one core: distinct cpus can be at distance
    // 0, but places on one cpu always are, and no more cpus are used than allowed.
    BOOST_TEST(cpus.size() <= allowed.size());
    for (std::size_t i = 0; i < topo.size(); ++i) {
      for (std::size_t j = 0; j < topo.size(); ++j) {
        if (topo.cpu(i) == topo.cpu(j)) {
          BOOST_TEST(topo.distance(i, j) == 0U);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_pinned_thread_sees_the_whole_process) {
  // Discovering from a thread pinned to one cpu sees the union of the affinities of the process's
  // threads (hwloc's process binding on Linux; the flat build reads every thread's affinity), so a
  // pool made from inside another pool's pinned worker still gets every cpu.
  const std::vector<unsigned> allowed = allowed_cpus();
  const tine::topology from_main = tine::topology::discover(allowed.size());
  std::optional<tine::topology> from_pinned;
  bool pinned = false;
  std::thread thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(allowed.back(), &one);
    pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    from_pinned = tine::topology::discover(allowed.size());
  });
  thread.join();
  BOOST_REQUIRE(pinned);
  BOOST_REQUIRE(from_pinned.has_value());
  BOOST_TEST((*from_pinned == from_main));
  if (!tine::topology::discovers_with_hwloc()) {
    BOOST_TEST(*from_pinned->cpu(from_pinned->size() - 1) == allowed.back());
  }
}

BOOST_AUTO_TEST_CASE(usable_cpus_are_the_process_cpus) {
  // The test's threads all have the main thread's affinity: their union is that mask. Every cpu
  // is one the machine has.
  const std::vector<unsigned> allowed = allowed_cpus();
  const std::vector<unsigned> usable = tine::usable_cpus();
  BOOST_REQUIRE(!usable.empty());
  BOOST_TEST(usable == allowed, boost::test_tools::per_element());
  BOOST_TEST(std::is_sorted(usable.begin(), usable.end()));
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  const auto machine_cpus =
      std::max<long>(configured, static_cast<long>(std::thread::hardware_concurrency()));
  for (const unsigned cpu : usable) {
    BOOST_TEST(static_cast<long>(cpu) < machine_cpus);
  }
  // From a thread pinned to one cpu: still every cpu of the process (the union of its threads').
  std::vector<unsigned> from_pinned;
  bool pinned = false;
  std::thread thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(allowed.front(), &one);
    pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    from_pinned = tine::usable_cpus();
  });
  thread.join();
  BOOST_REQUIRE(pinned);
  BOOST_TEST(from_pinned == allowed, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(made_up_topologies_say_so) {
  BOOST_TEST(tine::topology::synthetic(1, 2).source() == "synthetic");
  BOOST_TEST(tine::topology::from_distances({0, 0}, {0, 1, 1, 0}).source() == "from_distances");
  // Same places and distances, made differently: the source is part of the value.
  BOOST_TEST(
      !(tine::topology::synthetic(1, 2) == tine::topology::from_distances({0, 0}, {0, 1, 1, 0})));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(topology_made_up)

BOOST_AUTO_TEST_CASE(synthetic_two_nodes_of_four_cores) {
  const tine::topology topo = tine::topology::synthetic(2, 4);
  check_well_formed(topo);
  BOOST_TEST(topo.size() == 8U);
  BOOST_TEST(topo.numa_nodes() == 2U);
  for (std::size_t i = 0; i < 8; ++i) {
    BOOST_TEST(topo.numa_node(i) == i / 4);
    BOOST_TEST(!topo.cpu(i).has_value());
    for (std::size_t j = 0; j < 8; ++j) {
      const unsigned expected = i == j ? 0U : i / 4 == j / 4 ? 1U : 2U;
      BOOST_TEST(topo.distance(i, j) == expected);
    }
  }
  // Within a node is nearer than across.
  BOOST_TEST(topo.distance(0, 3) < topo.distance(0, 4));
  // No cpu, nothing to pin to: not an error.
  BOOST_TEST(!tine::pin_current_thread(topo, 0));
}

BOOST_AUTO_TEST_CASE(synthetic_rejects_empty_machines) {
  BOOST_CHECK_EXCEPTION(tine::topology::synthetic(0, 4), std::invalid_argument, [](const auto& e) {
    return message_is(e,
                      "tine::topology::synthetic: nodes and cores_per_node must both be at "
                      "least 1, got 0 and 4");
  });
  BOOST_CHECK_THROW(tine::topology::synthetic(2, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(from_distances_accepts_a_valid_matrix) {
  const tine::topology topo = tine::topology::from_distances({0, 0, 1}, {0, 1, 3,  //
                                                                         1, 0, 3,  //
                                                                         3, 3, 0});
  check_well_formed(topo);
  BOOST_TEST(topo.numa_nodes() == 2U);
  BOOST_TEST(topo.distance(0, 2) == 3U);
  BOOST_TEST((topo == tine::topology::from_distances({0, 0, 1}, {0, 1, 3, 1, 0, 3, 3, 3, 0})));
  BOOST_TEST(!(topo == tine::topology::synthetic(1, 3)));
}

BOOST_AUTO_TEST_CASE(from_distances_rejects_malformed_input) {
  using tine::topology;
  BOOST_CHECK_EXCEPTION(topology::from_distances({}, {}), std::invalid_argument, [](const auto& e) {
    return message_is(e, "tine::topology::from_distances: a topology needs at least one place");
  });
  BOOST_CHECK_EXCEPTION(
      topology::from_distances({0, 0}, {0, 1, 1}), std::invalid_argument, [](const auto& e) {
        return message_is(e,
                          "tine::topology::from_distances: expected 4 distances (n x n for "
                          "n = 2 places), got 3");
      });
  BOOST_CHECK_EXCEPTION(
      topology::from_distances({0, 0}, {0, 1, 2, 0}), std::invalid_argument, [](const auto& e) {
        return message_is(e,
                          "tine::topology::from_distances: distances must be symmetric, but "
                          "distance(0, 1) != distance(1, 0)");
      });
  BOOST_CHECK_EXCEPTION(
      topology::from_distances({0, 0}, {0, 1, 1, 5}), std::invalid_argument, [](const auto& e) {
        return message_is(e, "tine::topology::from_distances: distance(1, 1) must be 0");
      });
  BOOST_CHECK_EXCEPTION(
      topology::from_distances({0, 2}, {0, 1, 1, 0}), std::invalid_argument, [](const auto& e) {
        return message_is(e,
                          "tine::topology::from_distances: NUMA node indices must be dense, "
                          "but no place is on node 1 of 0..2");
      });
}

BOOST_AUTO_TEST_CASE(accessors_check_indices) {
  const tine::topology topo = tine::topology::synthetic(1, 2);
  BOOST_CHECK_THROW(topo.numa_node(2), std::out_of_range);
  BOOST_CHECK_THROW(topo.cpu(2), std::out_of_range);
  BOOST_CHECK_THROW(topo.distance(0, 2), std::out_of_range);
  BOOST_CHECK_EXCEPTION(topo.distance(5, 0), std::out_of_range, [](const auto& e) {
    return message_is(e,
                      "tine::topology::distance: place index 5 is out of range for a topology "
                      "of 2 places");
  });
}

BOOST_AUTO_TEST_SUITE_END()
