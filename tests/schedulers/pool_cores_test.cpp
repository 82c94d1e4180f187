// Which cores a pool's workers are pinned to: pools built from a worker count avoid the cores
// other pools of the process use (cpu_claims.hpp), pools built from a topology pin exactly where
// told, and a pool's cores are free again once it is gone. Expectations come from
// topology::discover, so the tests hold on one cpu (taskset -c 0) as on many.
#include <boost/test/unit_test.hpp>

#include <pthread.h>
#include <sched.h>

#include <cstddef>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/policies/cpu_claims.hpp>
#include <tine/policies/topology.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/schedulers/stats_observer.hpp>

namespace {

/// The cpus the process may run on (the test's main thread is never pinned).
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

/// Where discover(n) puts worker k: where a pool's worker goes when the pools before it hold the
/// first k places of a discover layout.
unsigned discovered_cpu(std::size_t n, std::size_t k) {
  return *tine::topology::discover(n).cpu(k);
}

tine::task<int> cpu_here() { co_return sched_getcpu(); }

/// No claim is left once every pool of a test is gone.
void check_no_claims() {
  for (unsigned cpu : allowed_cpus()) {
    BOOST_TEST(tine::cpu_claim::workers_on(cpu) == 0U, "cpu " << cpu << " is still claimed");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pool_cores)

// clang-format off
// [docs:choosing_cores]
BOOST_AUTO_TEST_CASE(two_pools_share_the_machine) {
  tine::busy_pool fast(1);  // the first pool: topology::discover(1), the first core
  tine::lazy_pool rest(1);  // built from a count too: the core the busy pool left free
  if (allowed_cpus().size() >= 2) {
    BOOST_TEST((fast.topology().cpu(0) != rest.topology().cpu(0)));
  }

  // A pool on cpus of your choosing: pinned exactly there (and counted, so later pools avoid it).
  const std::vector<unsigned> last_cpu{allowed_cpus().back()};
  tine::lazy_pool chosen(tine::topology::discover(2, last_cpu));
  BOOST_TEST((chosen.topology().cpu(1) == last_cpu[0]));
  BOOST_TEST(tine::sync_wait(chosen.worker(1), cpu_here) == static_cast<int>(last_cpu[0]));
}
// [docs:choosing_cores end]
// clang-format on

BOOST_AUTO_TEST_CASE(two_default_pools_of_one_worker) {
  const unsigned first = discovered_cpu(1, 0);
  const unsigned second = discovered_cpu(2, 1);  // == first on a one-cpu machine
  {
    tine::busy_pool a(1);
    tine::lazy_pool b(1);
    BOOST_TEST(*a.topology().cpu(0) == first);
    BOOST_TEST(*b.topology().cpu(0) == second);
    if (allowed_cpus().size() >= 2) {
      BOOST_TEST(first != second);
      BOOST_TEST(tine::cpu_claim::workers_on(first) == 1U);
      BOOST_TEST(tine::cpu_claim::workers_on(second) == 1U);
    } else {
      BOOST_TEST(first == second);
      BOOST_TEST(tine::cpu_claim::workers_on(first) == 2U);
    }
    // The workers run where the topology says.
    BOOST_TEST(tine::sync_wait(a, cpu_here) == static_cast<int>(first));
    BOOST_TEST(tine::sync_wait(b, cpu_here) == static_cast<int>(second));
  }
  check_no_claims();
}

BOOST_AUTO_TEST_CASE(a_released_core_is_taken_again) {
  const unsigned first = discovered_cpu(1, 0);
  std::optional<tine::lazy_pool<>> a(std::in_place, 1);
  tine::busy_pool b(1);
  BOOST_TEST(*a->topology().cpu(0) == first);
  a.reset();
  BOOST_TEST(tine::cpu_claim::workers_on(first) == (first == *b.topology().cpu(0) ? 1U : 0U));
  tine::lazy_pool c(1);
  BOOST_TEST(*c.topology().cpu(0) == first);
}

BOOST_AUTO_TEST_CASE(a_larger_pool_continues_where_the_first_stopped) {
  // One worker held, then three more: places 1, 2, 3 of discover(4), distances included.
  tine::lazy_pool a(1);
  tine::busy_pool b(3);
  const tine::topology whole = tine::topology::discover(4);
  for (std::size_t i = 0; i < 3; ++i) {
    BOOST_TEST((b.topology().cpu(i) == whole.cpu(i + 1)));
    for (std::size_t j = 0; j < 3; ++j) {
      BOOST_TEST(b.topology().distance(i, j) == whole.distance(i + 1, j + 1));
    }
  }
}

BOOST_AUTO_TEST_CASE(an_explicit_topology_pins_as_told_and_counts) {
  const unsigned first = discovered_cpu(1, 0);
  tine::busy_pool a(1);                               // default: the first core
  tine::lazy_pool told(tine::topology::discover(1));  // told: the first core as well
  BOOST_TEST(*told.topology().cpu(0) == first);
  BOOST_TEST(tine::cpu_claim::workers_on(first) == 2U);
  // Both pools on the first core: a default pool goes elsewhere if there is an elsewhere.
  tine::busy_pool c(1);
  BOOST_TEST(*c.topology().cpu(0) == discovered_cpu(2, 1));
}

BOOST_AUTO_TEST_CASE(observed_pools_and_synthetic_topologies) {
  {
    tine::stats_observer stats_a;
    tine::stats_observer stats_b;
    tine::lazy_pool a(1, stats_a);
    tine::busy_pool b(1, stats_b);
    BOOST_TEST(*a.topology().cpu(0) == discovered_cpu(1, 0));
    BOOST_TEST(*b.topology().cpu(0) == discovered_cpu(2, 1));
    // No cpus, nothing counted.
    tine::lazy_pool made_up(tine::topology::synthetic(2, 2));
    for (unsigned cpu : allowed_cpus()) {
      const std::size_t expected = static_cast<std::size_t>(cpu == *a.topology().cpu(0)) +
                                   static_cast<std::size_t>(cpu == *b.topology().cpu(0));
      BOOST_TEST(tine::cpu_claim::workers_on(cpu) == expected);
    }
  }
  check_no_claims();
}

BOOST_AUTO_TEST_CASE(pools_built_at_once_from_two_threads_do_not_collide) {
  for (int round = 0; round < 20; ++round) {
    std::optional<tine::busy_pool<>> a;
    std::optional<tine::lazy_pool<>> b;
    std::thread other([&] { b.emplace(1); });
    a.emplace(1);
    other.join();
    // Whichever came first got discover's first place, the other its second.
    const std::set<unsigned> got{*a->topology().cpu(0), *b->topology().cpu(0)};
    const std::set<unsigned> expected{discovered_cpu(2, 0), discovered_cpu(2, 1)};
    BOOST_TEST((got == expected));
  }
  check_no_claims();
}

BOOST_AUTO_TEST_SUITE_END()
