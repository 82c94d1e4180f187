// Where a stop reaches: a future a task awaits (its root is stopped with the awaiting task's root
// or stop scope), when_all's inputs through an awaited when_all, roots spawned or waited for with
// a std::stop_token, callbacks on tine::get_stop_token(); and stop scopes that report their own
// stop whether or not a fork saw it.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/core/watchdog.hpp"

namespace {

using namespace std::chrono_literals;

// Spins for up to `ms`, returning -1 as soon as it sees a stop; counts its starts and the stops
// it saw (a root stopped before it started never starts: it ends with tine::cancelled).
std::atomic<int> busy_started{0};
std::atomic<int> saw_stop{0};

tine::task<int> busy_for(int ms) {
  busy_started.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    if (tine::stop_requested()) {
      saw_stop.fetch_add(1);
      co_return -1;
    }
  }
  co_return ms;
}

// Waits (up to 20 s) until `n` busy_for roots have started, so that a stop requested next
// reaches running work on a loaded machine too.
void wait_for_starts(int n) {
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (busy_started.load() < n && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(100us);
  }
}

template <typename Scheduler>
tine::task<int> awaits_one(Scheduler* sched, int ms) {
  tine::future<int> b = tine::spawn(*sched, busy_for, ms);
  co_return co_await std::move(b);
}

template <typename Scheduler>
tine::task<int> awaits_both(Scheduler* sched, int ms) {
  auto [x, y] =
      co_await tine::when_all(tine::spawn(*sched, busy_for, ms), tine::spawn(*sched, busy_for, ms));
  co_return x + y;
}

// Root A awaits B (or two, through when_all); A's stop is requested while A waits: every input
// that started sees it, and A ends at once with what they end with (-1 each, the value a stopped
// busy_for returns, or tine::cancelled for an input stopped before it started), not with their
// values twenty seconds later.
template <typename Scheduler, typename Body>
void stop_crosses(Scheduler& sched, Body body, int inputs) {
  busy_started.store(0);
  saw_stop.store(0);
  const auto start = std::chrono::steady_clock::now();
  tine::future<int> a = tine::spawn(sched, body, &sched, 20000);
  std::this_thread::sleep_for(30ms);
  a.request_stop();
  int r = 0;
  try {
    r = a.get();
  } catch (const tine::cancelled&) {
    r = -inputs;
  }
  BOOST_TEST(r == -inputs);
  BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));
  BOOST_TEST(saw_stop.load() == busy_started.load());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stop_propagation)

BOOST_AUTO_TEST_CASE(a_stop_crosses_an_awaited_future_on_every_scheduler) {
  tine_tests::within(60s, "stops crossing futures", [] {
    {
      tine::busy_pool<> pool(2);
      stop_crosses(pool, awaits_one<tine::busy_pool<>>, 1);
      stop_crosses(pool, awaits_both<tine::busy_pool<>>, 2);
    }
    {
      tine::lazy_pool<> pool(2);
      stop_crosses(pool, awaits_one<tine::lazy_pool<>>, 1);
      stop_crosses(pool, awaits_both<tine::lazy_pool<>>, 2);
    }
    {
      tine::testing::simple_pool pool(3);
      stop_crosses(pool, awaits_one<tine::testing::simple_pool>, 1);
      stop_crosses(pool, awaits_both<tine::testing::simple_pool>, 2);
    }
  });
}

// Across schedulers: A on one pool awaits B on another.
BOOST_AUTO_TEST_CASE(a_stop_crosses_to_another_pool) {
  tine_tests::within(60s, "stops crossing pools", [] {
    tine::lazy_pool<> a(1);
    tine::busy_pool<> b(1);
    busy_started.store(0);
    saw_stop.store(0);
    tine::future<int> f = tine::spawn(a, awaits_one<tine::busy_pool<>>, &b, 20000);
    wait_for_starts(1);
    f.request_stop();
    BOOST_TEST(f.get() == -1);
    BOOST_TEST(saw_stop.load() == 1);
  });
}

// A stop scope's stop, requested before the task awaits a future: the await passes it on at once.
tine::task<int> stops_scope_then_awaits(tine::busy_pool<>* pool) {
  tine::future<int> b = tine::spawn(*pool, busy_for, 20000);
  tine::request_stop();  // this scope
  co_return co_await std::move(b);
}

// Awaits a future inside a stop scope; the root is stopped from outside meanwhile.
tine::task<int> awaits_in_scope(tine::busy_pool<>* pool) {
  co_return co_await tine::spawn(*pool, busy_for, 20000);
}

template <typename Body>
tine::task<int> in_a_scope(Body body, tine::busy_pool<>* pool) {
  std::optional<int> r;
  co_await tine::call(&r, tine::stop_scope, body, pool);
  co_return r ? 1 : 0;
}

BOOST_AUTO_TEST_CASE(a_scope_stop_reaches_a_future_awaited_inside_it) {
  tine_tests::within(60s, "a scope's stop", [] {
    tine::busy_pool<> pool(2);
    busy_started.store(0);
    saw_stop.store(0);
    // The scope was stopped: nullopt, quickly; its awaited future, if it had started, saw the
    // stop (otherwise it never started).
    BOOST_TEST(tine::sync_wait(pool, in_a_scope<decltype(&stops_scope_then_awaits)>,
                               &stops_scope_then_awaits, &pool) == 0);
    BOOST_TEST(saw_stop.load() == busy_started.load());
  });
}

BOOST_AUTO_TEST_CASE(a_root_stop_reaches_a_future_awaited_in_a_nested_scope) {
  tine_tests::within(60s, "a root's stop through a scope", [] {
    tine::busy_pool<> pool(2);
    busy_started.store(0);
    saw_stop.store(0);
    tine::future<int> f =
        tine::spawn(pool, in_a_scope<decltype(&awaits_in_scope)>, &awaits_in_scope, &pool);
    wait_for_starts(1);
    f.request_stop();
    // The enclosing stop comes out of the scope as tine::cancelled.
    BOOST_CHECK_THROW((void)f.get(), tine::cancelled);
    BOOST_TEST(busy_started.load() == 1);
    BOOST_TEST(saw_stop.load() == 1);
  });
}

std::atomic<int> started{0};

tine::task<int> counted_busy_for(int ms) {
  started.fetch_add(1);
  co_return co_await tine::spawn(tine::current_scheduler(), busy_for, ms);
}

BOOST_AUTO_TEST_CASE(a_root_spawned_with_a_token_is_stopped_with_it) {
  tine_tests::within(60s, "spawn with a token", [] {
    tine::lazy_pool<> pool(2);
    {
      busy_started.store(0);
      saw_stop.store(0);
      std::stop_source source;
      tine::future<int> f = tine::spawn(source.get_token(), pool, busy_for, 20000);
      wait_for_starts(1);
      source.request_stop();
      BOOST_TEST(f.get() == -1);  // it saw the stop, and returned a value anyway
      BOOST_TEST(saw_stop.load() == 1);
    }
    {
      // Already stopped: the root never starts, and ends with tine::cancelled.
      started.store(0);
      std::stop_source source;
      source.request_stop();
      tine::future<int> f = tine::spawn(source.get_token(), pool, counted_busy_for, 20000);
      BOOST_CHECK_THROW((void)f.get(), tine::cancelled);
      BOOST_TEST(started.load() == 0);
    }
    {
      // The token's stop after the root ended does nothing (and the state is gone).
      std::stop_source source;
      tine::future<int> f = tine::spawn(source.get_token(), pool, busy_for, 1);
      BOOST_TEST(f.get() == 1);
      source.request_stop();
    }
  });
}

BOOST_AUTO_TEST_CASE(sync_wait_with_a_token_is_stopped_from_another_thread) {
  tine_tests::within(60s, "sync_wait with a token", [] {
    tine::busy_pool<> pool(2);
    busy_started.store(0);
    saw_stop.store(0);
    std::stop_source source;
    std::thread stopper([&source] {
      wait_for_starts(1);
      source.request_stop();
    });
    BOOST_TEST(tine::sync_wait(source.get_token(), pool, busy_for, 20000) == -1);
    stopper.join();
    BOOST_TEST(saw_stop.load() == 1);
    // A token already stopped: the root never starts.
    started.store(0);
    BOOST_CHECK_THROW((void)tine::sync_wait(source.get_token(), pool, counted_busy_for, 10),
                      tine::cancelled);
    BOOST_TEST(started.load() == 0);
  });
}

// Work spawned with the spawning task's token is stopped with the spawner's root even though
// nobody awaits it.
std::atomic<int> detached_saw_stop{0};

tine::task<void> watches_for_a_stop() {
  busy_started.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < until) {
    if (tine::stop_requested()) {
      detached_saw_stop.store(1);
      co_return;
    }
  }
}

tine::task<int> spawns_linked_work() {
  tine::spawn(tine::get_stop_token(), tine::current_scheduler(), watches_for_a_stop).detach();
  co_return co_await tine::spawn(tine::current_scheduler(), busy_for, 20000);
}

BOOST_AUTO_TEST_CASE(work_spawned_with_the_task_token_stops_with_its_root) {
  tine_tests::within(60s, "linked spawn", [] {
    tine::busy_pool<> pool(3);
    detached_saw_stop.store(0);
    busy_started.store(0);
    tine::future<int> f = tine::spawn(pool, spawns_linked_work);
    wait_for_starts(2);  // the linked root and the awaited one
    f.request_stop();
    BOOST_TEST(f.get() == -1);  // the awaited root saw the stop
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (detached_saw_stop.load() == 0 && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(1ms);
    }
    BOOST_TEST(detached_saw_stop.load() == 1);
  });
}

// tine::get_stop_token(): a std::stop_callback on it runs when the task's root is stopped.
tine::task<int> forwards_to_a_source(std::stop_source* out) {
  busy_started.fetch_add(1);
  std::stop_callback forward(tine::get_stop_token(), [out] { out->request_stop(); });
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (!out->stop_requested() && std::chrono::steady_clock::now() < until) {
  }
  co_return out->stop_requested() ? 1 : 0;
}

tine::task<int> token_of_a_scope() {
  std::stop_token outer = tine::get_stop_token();
  co_return outer.stop_possible() && !outer.stop_requested() ? 1 : 0;
}

BOOST_AUTO_TEST_CASE(get_stop_token_forwards_a_stop) {
  BOOST_TEST(!tine::get_stop_token().stop_possible());  // outside a task
  tine_tests::within(60s, "get_stop_token", [] {
    tine::busy_pool<> pool(2);
    std::stop_source out;
    busy_started.store(0);
    tine::future<int> f = tine::spawn(pool, forwards_to_a_source, &out);
    wait_for_starts(1);
    f.request_stop();
    BOOST_TEST(f.get() == 1);
    BOOST_TEST(tine::sync_wait(pool, token_of_a_scope) == 1);
  });
}

// A stop requested inside a stop scope after the scope's last fork is reported all the same.
tine::task<int> leaf(int i) { co_return i; }

tine::task<int> forks_then_stops(bool stop) {
  int a = 0;
  int b = 0;
  co_await tine::fork(&a, leaf, 1);
  co_await tine::fork(&b, leaf, 2);
  co_await tine::join();
  if (stop) {
    tine::request_stop();  // after the last fork: no fork sees it
  }
  co_return a + b;
}

tine::task<void> forks_then_stops_void(bool stop) {
  int x = 0;
  co_await tine::call(&x, forks_then_stops, stop);
}

template <typename Scheduler>
void late_stops_are_reported(Scheduler& sched) {
  const auto value_scope = [](bool stop) -> tine::task<int> {
    std::optional<int> r;
    co_await tine::call(&r, tine::stop_scope, forks_then_stops, stop);
    co_return r ? *r : -1;
  };
  const auto void_scope = [](bool stop) -> tine::task<int> {
    bool completed = false;
    co_await tine::call(&completed, tine::stop_scope, forks_then_stops_void, stop);
    co_return completed ? 1 : 0;
  };
  BOOST_TEST(tine::sync_wait(sched, value_scope, true) == -1);
  BOOST_TEST(tine::sync_wait(sched, value_scope, false) == 3);
  BOOST_TEST(tine::sync_wait(sched, void_scope, true) == 0);
  BOOST_TEST(tine::sync_wait(sched, void_scope, false) == 1);
}

BOOST_AUTO_TEST_CASE(a_stop_after_the_scope_last_fork_is_reported) {
  {
    tine::inline_scheduler sched;
    late_stops_are_reported(sched);
  }
  {
    tine::busy_pool<> pool(1);
    late_stops_are_reported(pool);
  }
  {
    tine::lazy_pool<> pool(2);
    late_stops_are_reported(pool);
  }
}

// An enclosing stop that no fork inside the scope saw comes out of it as tine::cancelled.
tine::task<int> spins_until_stopped() {
  busy_started.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (!tine::stop_requested() && std::chrono::steady_clock::now() < until) {
  }
  co_return 5;  // a value anyway, and no fork saw the stop
}

tine::task<int> scope_in_a_stopped_root() {
  std::optional<int> r;
  try {
    co_await tine::call(&r, tine::stop_scope, spins_until_stopped);
  } catch (const tine::cancelled&) {
    co_return 1;
  }
  co_return r ? 2 : 3;
}

BOOST_AUTO_TEST_CASE(an_enclosing_stop_comes_out_of_the_scope) {
  tine_tests::within(60s, "an enclosing stop", [] {
    tine::busy_pool<> pool(2);
    busy_started.store(0);
    tine::future<int> f = tine::spawn(pool, scope_in_a_stopped_root);
    wait_for_starts(1);
    f.request_stop();
    BOOST_TEST(f.get() == 1);
  });
}

// Stops racing the awaited root's completion and the awaiting task's resumption, from another
// thread at random moments: every run ends, with a value or tine::cancelled, and (under the
// sanitizers) without a race on the forwarding callback.
BOOST_AUTO_TEST_CASE(stops_racing_an_await_end_cleanly) {
  tine_tests::within(120s, "racing stops", [] {
    tine::busy_pool<> pool(2);
    std::mt19937 rng(12345);
    int values = 0;
    int cancels = 0;
    for (int i = 0; i < 300; ++i) {
      const int work_ms = static_cast<int>(rng() % 3);
      const auto delay = std::chrono::microseconds(rng() % 3000);
      tine::future<int> a = tine::spawn(pool, awaits_one<tine::busy_pool<>>, &pool, work_ms);
      tine::stop_handle h = a.stop_handle();
      std::thread t([h, delay] {
        std::this_thread::sleep_for(delay);
        h.request_stop();
      });
      try {
        const int r = a.get();
        BOOST_TEST((r == work_ms || r == -1));
        ++values;
      } catch (const tine::cancelled&) {
        ++cancels;
      }
      t.join();
    }
    BOOST_TEST(values + cancels == 300);
  });
}

BOOST_AUTO_TEST_SUITE_END()
