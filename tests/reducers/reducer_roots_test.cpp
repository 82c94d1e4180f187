// tine::reducer updated by roots that run at the same time: futures of tine::spawn, sync_waits
// from several threads, roots spawned by tasks. Each root's views are folded into the reducer's
// own value when the root ends, in the order the roots end: a sum is exact, and with a monoid
// that does not commute each root's contribution appears whole, in its own serial order, the
// roots in some order. get() and view() outside tasks refuse to run while roots hold views, and
// destroying the reducer then stops the program.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/death.hpp"
#include "tests/sanitizers.hpp"

namespace {

// Each root adds `per_root` items; an item names its root and its place in the root's serial
// order.
constexpr long per_root = 48;
long item(long root, long k) { return root * per_root + k; }

struct counters {
  tine::reducer<tine::sum<long>> total;
  tine::reducer<tine::append<std::vector<long>>> order;  // does not commute
};

// Splits [lo, hi) in halves, forking the left one, so that steals inside a root make views of
// its own that its joins merge; the leaves add their items in serial order.
tine::task<void> add_items(counters* c, long root, long lo, long hi) {
  if (hi - lo == 1) {
    c->total.view() += item(root, lo);
    c->order.view().push_back(item(root, lo));
    co_return;
  }
  const long mid = lo + (hi - lo) / 2;
  co_await tine::fork(add_items, c, root, lo, mid);
  co_await tine::call(add_items, c, root, mid, hi);
  co_await tine::join();
}

tine::task<void> one_root(counters* c, long root) {
  co_await tine::call(add_items, c, root, 0L, per_root);
}

long expected_total(long roots) {
  const long n = roots * per_root;
  return n * (n - 1) / 2;
}

// Every root's items appear as one contiguous run, in the root's serial order; every root once.
void check_order(const std::vector<long>& order, long roots) {
  BOOST_TEST(order.size() == static_cast<std::size_t>(roots * per_root));
  std::vector<char> seen(static_cast<std::size_t>(roots), 0);
  for (std::size_t at = 0; at + per_root <= order.size(); at += per_root) {
    const long root = order[at] / per_root;
    BOOST_TEST_REQUIRE((root >= 0 && root < roots));
    BOOST_TEST(seen[static_cast<std::size_t>(root)] == 0, "root " << root << " appears twice");
    seen[static_cast<std::size_t>(root)] = 1;
    for (long k = 0; k < per_root; ++k) {
      BOOST_TEST_REQUIRE(order[at + static_cast<std::size_t>(k)] == item(root, k),
                         "root " << root << " is not contiguous and in order at " << at + k);
    }
  }
}

constexpr int rounds = tine_tests::sanitized ? 4 : 20;
constexpr long spawned_roots = tine_tests::sanitized ? 64 : 256;

template <typename Sched>
void spawned_futures(Sched& sched) {
  for (int round = 0; round < rounds; ++round) {
    counters c;
    std::vector<tine::future<void>> futures;
    futures.reserve(static_cast<std::size_t>(spawned_roots));
    for (long r = 0; r < spawned_roots; ++r) {
      futures.push_back(tine::spawn(sched, one_root, &c, r));
    }
    for (tine::future<void>& f : futures) {
      f.get();  // each root's fold is done before its future is ready
    }
    BOOST_TEST(c.total.get() == expected_total(spawned_roots));
    check_order(c.order.get(), spawned_roots);
  }
}

// Several threads call sync_wait on one scheduler, each for its own roots.
template <typename Sched>
void sync_waits_from_threads(Sched& sched) {
  constexpr long threads = 4;
  constexpr long each = spawned_roots / threads;
  for (int round = 0; round < rounds; ++round) {
    counters c;
    std::atomic<int> ready{0};
    std::vector<std::thread> callers;
    for (long t = 0; t < threads; ++t) {
      callers.emplace_back([&sched, &c, &ready, t] {
        ready.fetch_add(1);
        while (ready.load() < threads) {
          std::this_thread::yield();
        }
        for (long k = 0; k < each; ++k) {
          tine::sync_wait(sched, one_root, &c, t * each + k);
        }
      });
    }
    for (std::thread& th : callers) {
      th.join();
    }
    BOOST_TEST(c.total.get() == expected_total(threads * each));
    check_order(c.order.get(), threads * each);
  }
}

// A task spawns roots beside itself and awaits them; its own updates are a root's too.
tine::task<void> spawner(counters* c, long roots) {
  std::vector<tine::future<void>> futures;
  for (long r = 1; r < roots; ++r) {
    futures.push_back(tine::spawn(tine::current_scheduler(), one_root, c, r));
  }
  co_await tine::call(add_items, c, 0L, 0L, per_root);
  for (tine::future<void>& f : futures) {
    co_await std::move(f);
  }
}

template <typename Sched>
void roots_spawned_by_a_task(Sched& sched) {
  for (int round = 0; round < rounds; ++round) {
    counters c;
    tine::sync_wait(sched, spawner, &c, spawned_roots);
    BOOST_TEST(c.total.get() == expected_total(spawned_roots));
    check_order(c.order.get(), spawned_roots);
  }
}

template <typename Sched>
void every_kind_of_concurrent_root(Sched& sched) {
  spawned_futures(sched);
  sync_waits_from_threads(sched);
  roots_spawned_by_a_task(sched);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reducer_roots)

BOOST_AUTO_TEST_CASE(concurrent_roots_on_busy_pools) {
  for (std::size_t workers : {2U, 3U}) {
    tine::busy_pool<> pool(workers);
    every_kind_of_concurrent_root(pool);
  }
}

BOOST_AUTO_TEST_CASE(concurrent_roots_on_lazy_pools) {
  for (std::size_t workers : {2U, 3U}) {
    tine::lazy_pool<> pool(workers);
    every_kind_of_concurrent_root(pool);
  }
}

BOOST_AUTO_TEST_CASE(concurrent_roots_on_the_inline_scheduler) {
  tine::inline_scheduler one;
  every_kind_of_concurrent_root(one);
}

namespace {

// A root that makes its view, says so, and holds it until told to finish.
tine::task<void> hold_a_view(tine::reducer<tine::sum<long>>* r, std::atomic<bool>* made,
                             std::atomic<bool>* finish) {
  r->view() += 5;
  made->store(true);
  while (!finish->load()) {
    std::this_thread::yield();
  }
  co_return;
}

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load()) {
    std::this_thread::yield();
  }
}

tine::task<void> get_in_a_task(tine::reducer<tine::sum<long>>* r, bool* refused) {
  try {
    (void)r->get();
  } catch (const std::logic_error&) {
    *refused = true;
  }
  co_return;
}

}  // namespace

BOOST_AUTO_TEST_CASE(get_and_view_outside_tasks_refuse_while_a_root_holds_a_view) {
  tine::busy_pool<> pool(2);
  tine::reducer<tine::sum<long>> r(1);
  std::atomic<bool> made{false};
  std::atomic<bool> finish{false};
  tine::future<void> f = tine::spawn(pool, hold_a_view, &r, &made, &finish);
  wait_for(made);
  BOOST_CHECK_THROW((void)r.get(), std::logic_error);
  BOOST_CHECK_THROW((void)r.view(), std::logic_error);
  // get() in a task of another root: the running root's view is not ordered before it either.
  bool refused = false;
  tine::sync_wait(pool, get_in_a_task, &r, &refused);
  BOOST_TEST(refused);
  finish.store(true);
  f.get();
  BOOST_TEST(r.get() == 6);  // the root's view was folded before its future became ready
  r.view() += 1;             // no root runs: the reducer's own value
  BOOST_TEST(r.get() == 7);
}

namespace {

void destroy_while_a_root_holds_a_view() {
  tine::busy_pool<> pool(2);
  auto* r = new tine::reducer<tine::sum<long>>;
  std::atomic<bool> made{false};
  std::atomic<bool> finish{false};
  tine::future<void> f = tine::spawn(pool, hold_a_view, r, &made, &finish);
  wait_for(made);
  delete r;  // the root still holds its view: the program stops
  finish.store(true);
  f.get();
}

}  // namespace

BOOST_AUTO_TEST_CASE(destroying_a_reducer_that_a_running_root_holds_stops_the_program) {
  const tine_tests::death_result d = tine_tests::run_in_child(destroy_while_a_root_holds_a_view);
  BOOST_TEST(d.aborted);
  BOOST_TEST(d.stderr_text.find("tine::reducer destroyed while other strands still hold views") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
