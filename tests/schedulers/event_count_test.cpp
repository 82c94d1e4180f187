// tine::event_count: no lost wake-ups, whatever the interleaving of notify and wait.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <tine/schedulers/event_count.hpp>

namespace {

// Waits with the canonical prepare / re-check / commit loop until `pred` holds.
template <typename Pred>
void await(tine::event_count& ec, Pred pred) {
  while (!pred()) {
    const auto key = ec.prepare_wait();
    if (pred()) {
      ec.cancel_wait();
      return;
    }
    ec.commit_wait(key);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(event_count)

BOOST_AUTO_TEST_CASE(notify_without_waiters_is_a_no_op) {
  tine::event_count ec;
  BOOST_TEST(!ec.notify_one());
  BOOST_TEST(!ec.notify_all());
  BOOST_TEST(ec.waiters() == 0U);
}

BOOST_AUTO_TEST_CASE(notify_between_prepare_and_commit_is_not_lost,
                     *boost::unit_test::timeout(20)) {
  tine::event_count ec;
  for (int i = 0; i < 1000; ++i) {
    const auto key = ec.prepare_wait();
    // The notification comes from another thread after we announced ourselves and before we
    // commit: commit_wait must return at once (else this loop hangs and the timeout fires).
    std::thread notifier([&ec] { BOOST_CHECK(ec.notify_one()); });
    notifier.join();
    ec.commit_wait(key);
  }
  BOOST_TEST(ec.waiters() == 0U);
}

BOOST_AUTO_TEST_CASE(cancel_withdraws_the_waiter) {
  tine::event_count ec;
  (void)ec.prepare_wait();
  BOOST_TEST(ec.waiters() == 1U);
  ec.cancel_wait();
  BOOST_TEST(ec.waiters() == 0U);
  BOOST_TEST(!ec.notify_one());
}

BOOST_AUTO_TEST_CASE(notify_all_wakes_many_waiters, *boost::unit_test::timeout(30)) {
  for (int round = 0; round < 50; ++round) {
    tine::event_count ec;
    std::atomic<bool> go{false};
    std::atomic<int> woke{0};
    std::vector<std::thread> waiters;
    for (int t = 0; t < 8; ++t) {
      waiters.emplace_back([&] {
        await(ec, [&] { return go.load(); });
        woke.fetch_add(1);
      });
    }
    if (round % 2 == 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // let some of them sleep
    }
    go.store(true);
    ec.notify_all();
    for (auto& w : waiters) {
      w.join();
    }
    BOOST_TEST(woke.load() == 8);
  }
}

BOOST_AUTO_TEST_CASE(notify_one_per_item_wakes_enough_waiters, *boost::unit_test::timeout(30)) {
  // Several consumers each take items; the producer notifies one per item. Every item must be
  // taken: a lost wake-up would leave a consumer asleep with an item available forever.
  tine::event_count ec;
  std::atomic<int> items{0};
  std::atomic<int> taken{0};
  constexpr int total = 20000;
  std::vector<std::thread> consumers;
  for (int t = 0; t < 4; ++t) {
    consumers.emplace_back([&] {
      for (;;) {
        int have = items.load();
        await(ec, [&] {
          have = items.load();
          return have > 0 || taken.load() >= total;
        });
        if (taken.load() >= total) {
          ec.notify_all();  // let the others see the end
          return;
        }
        if (items.compare_exchange_strong(have, have - 1)) {
          taken.fetch_add(1);
        }
      }
    });
  }
  for (int i = 0; i < total; ++i) {
    items.fetch_add(1);
    ec.notify_one();
  }
  for (auto& c : consumers) {
    c.join();
  }
  BOOST_TEST(taken.load() == total);
}

BOOST_AUTO_TEST_CASE(long_idle_and_burst_cycles, *boost::unit_test::timeout(30)) {
  // A consumer follows a counter the producer raises in bursts separated by idle gaps long
  // enough for the consumer to fall asleep each time.
  tine::event_count ec;
  std::atomic<std::uint64_t> produced{0};
  std::atomic<std::uint64_t> seen{0};
  constexpr std::uint64_t bursts = 60;
  constexpr std::uint64_t per_burst = 50;
  std::thread consumer([&] {
    std::uint64_t last = 0;
    while (last < bursts * per_burst) {
      await(ec, [&] { return produced.load() > last; });
      last = produced.load();
      seen.store(last);
    }
  });
  for (std::uint64_t b = 0; b < bursts; ++b) {
    std::this_thread::sleep_for(std::chrono::microseconds(b % 3 == 0 ? 2000 : 100));
    for (std::uint64_t i = 0; i < per_burst; ++i) {
      produced.fetch_add(1);
      ec.notify_one();
    }
  }
  consumer.join();
  BOOST_TEST(seen.load() == bursts * per_burst);
}

BOOST_AUTO_TEST_SUITE_END()
