// Stress of the pools' submission, sleep/wake and destruction protocols: several threads submit
// root tasks (from outside, so through the shared queue) in bursts separated by pauses long
// enough for lazy workers to fall asleep, while the tasks fork and steal; pools are destroyed
// right after their last sync_wait returns. A lost wake-up hangs a sync_wait (the Boost timeout
// then fails the test), lost or duplicated work shows in the results and the counters, and a
// race on the handed-over state shows under ThreadSanitizer.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/policies/topology.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

namespace {

using pool_types = boost::mpl::list<tine::busy_pool<>, tine::lazy_pool<>>;

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

constexpr long fib_of(int n) {
  long a = 0;
  long b = 1;
  for (int i = 0; i < n; ++i) {
    const long t = a + b;
    a = b;
    b = t;
  }
  return a;
}

// `submitters` threads, each doing `rounds` sync_waits on `pool` with pauses between bursts;
// returns the number of wrong results.
template <typename Pool>
int submit_in_bursts(Pool& pool, int submitters, int rounds) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < submitters; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<std::uint32_t>(t) + 1);
      for (int r = 0; r < rounds; ++r) {
        const int n = static_cast<int>(rng() % 16);
        if (tine::sync_wait(pool, fib, n) != fib_of(n)) {
          wrong.fetch_add(1);
        }
        if (rng() % 8 == 0) {
          // Long enough for a lazy worker to give up spinning and sleep.
          std::this_thread::sleep_for(std::chrono::microseconds(200 + rng() % 800));
        }
      }
    });
  }
  for (std::thread& th : threads) {
    th.join();
  }
  return wrong.load();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(submission_stress)

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(120))
BOOST_AUTO_TEST_CASE_TEMPLATE(bursts_from_three_threads, Pool, pool_types) {
  Pool pool(2);
  constexpr int submitters = 3;
  constexpr int rounds = 1000;
  BOOST_TEST(submit_in_bursts(pool, submitters, rounds) == 0);
  BOOST_TEST(pool.stats().submissions_run >= std::uint64_t{submitters * rounds});
}

// Many short-lived pools: destruction right after the last sync_wait, with workers still
// winding down (spinning, stealing, falling asleep).
BOOST_TEST_DECORATOR(*boost::unit_test::timeout(120))
BOOST_AUTO_TEST_CASE_TEMPLATE(pools_destroyed_right_after_their_work, Pool, pool_types) {
  int wrong = 0;
  for (int i = 0; i < 100; ++i) {
    Pool pool(2);
    wrong += submit_in_bursts(pool, 2, 10);
  }
  BOOST_TEST(wrong == 0);
}

// Two NUMA nodes of two workers each (a synthetic topology, unpinned): the per-node thief and
// sleeper counts and the cross-node wake-ups, under the same bursts.
BOOST_TEST_DECORATOR(*boost::unit_test::timeout(120))
BOOST_AUTO_TEST_CASE(lazy_pool_on_two_nodes) {
  tine::lazy_pool<> pool(tine::topology::synthetic(2, 2));
  BOOST_TEST(submit_in_bursts(pool, 3, 500) == 0);
}

tine::task<tine::owner_fence> fence_here() { co_return tine::current_worker()->fence(); }

// The pools' workers use the fence the build chose (TINE_POOL_OWNER_FENCE, docs/build.md; this
// file is also built with it set to full) or, by default, the asymmetric one up to
// asymmetric_fence_max_workers and the full one beyond; a single worker none at all.
BOOST_TEST_DECORATOR(*boost::unit_test::timeout(60))
BOOST_AUTO_TEST_CASE_TEMPLATE(workers_use_the_chosen_fence, Pool, pool_types) {
  constexpr std::size_t big = tine::detail::asymmetric_fence_max_workers + 1;
#if defined(TINE_TEST_EXPECT_FULL)
  const tine::owner_fence small_pool = tine::owner_fence::full;
#else
  // Where the system cannot split the fence (or under TSan), asymmetric falls back to full.
  const tine::owner_fence small_pool = tine::detail::asymmetric_fences_supported()
                                           ? tine::owner_fence::asymmetric
                                           : tine::owner_fence::full;
#endif
  const tine::owner_fence big_pool = tine::owner_fence::full;
  const auto check = [](Pool& pool, tine::owner_fence expected) {
    for (std::size_t i = 0; i < pool.size(); ++i) {
      BOOST_TEST((tine::sync_wait(pool.worker(i), fence_here) == expected));
    }
  };
  {
    Pool two(2);
    check(two, small_pool);
  }
  {
    Pool many(big);
    check(many, big_pool);
  }
  Pool one(1);
  BOOST_TEST((tine::sync_wait(one, fence_here) == tine::owner_fence::none));
}

BOOST_AUTO_TEST_SUITE_END()
