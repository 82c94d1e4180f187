// Tests of tine::intrusive_mpsc<Node>: FIFO order, the meaning of push's return value, and many
// producers feeding one consumer (each node exactly once, each producer's order kept), including
// a consumer that sleeps and is woken only by producers whose push returned true.
//
// Every concurrent test is bounded by a deadline and fails, rather than hangs, when it misses it.

#include <tine/core/submission_queue.hpp>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
constexpr auto time_budget = std::chrono::seconds(10);

struct node {
  node* next = nullptr;
  std::uint32_t producer = 0;
  std::uint32_t seq = 0;
  std::uint64_t check = 0;  // written before push with a plain store: TSan checks the hand-over
};

constexpr std::uint64_t check_of(std::uint32_t producer, std::uint32_t seq) {
  return (std::uint64_t{producer} << 32 | seq) * 0x9E3779B97F4A7C15ULL + 1;
}

static_assert(tine::intrusive_mpsc_node<node>);
struct no_link {
  int next = 0;
};
static_assert(!tine::intrusive_mpsc_node<no_link>);
struct wrong_link {
  const wrong_link* next = nullptr;
};
static_assert(!tine::intrusive_mpsc_node<wrong_link>);

// Consumer-side bookkeeping for the multi-producer tests: with per-producer sequence numbers
// 0, 1, 2, ..., "each next node is exactly the expected one" proves no loss, no duplicate and
// per-producer FIFO at once.
struct order_checker {
  std::vector<std::uint32_t> expected;
  std::size_t received = 0;
  std::size_t out_of_order = 0;
  std::size_t bad_payloads = 0;

  explicit order_checker(std::size_t producers) : expected(producers, 0) {}

  void receive(const node* n) {
    ++received;
    if (n->check != check_of(n->producer, n->seq)) {
      ++bad_payloads;
    }
    if (n->producer >= expected.size() || n->seq != expected[n->producer]) {
      ++out_of_order;
    } else {
      ++expected[n->producer];
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(submission_queue_suite)

BOOST_AUTO_TEST_CASE(single_thread_fifo) {
  tine::intrusive_mpsc<node> q;
  BOOST_TEST(q.empty());
  BOOST_TEST(q.pop() == nullptr);

  std::vector<node> nodes(100);
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    nodes[i].seq = i;
  }
  // Pushes and pops interleaved so that order must hold across batches: pushes that happen
  // while the consumer still holds part of an earlier batch come after that batch.
  std::uint32_t next_push = 0;
  std::uint32_t next_pop = 0;
  std::size_t wrong = 0;
  for (const std::uint32_t burst : {1u, 3u, 10u, 7u, 30u, 49u}) {
    for (std::uint32_t i = 0; i < burst; ++i) {
      q.push(&nodes[next_push++]);
    }
    BOOST_TEST(!q.empty());
    // Take about half of what is queued.
    const std::uint32_t take = (next_push - next_pop + 1) / 2;
    for (std::uint32_t i = 0; i < take; ++i) {
      node* n = q.pop();
      wrong += (n == nullptr || n->seq != next_pop++);
    }
  }
  while (node* n = q.pop()) {
    wrong += (n->seq != next_pop++);
  }
  BOOST_TEST(wrong == 0u);
  BOOST_TEST(next_pop == 100u);
  BOOST_TEST(q.empty());
  BOOST_TEST(q.pop() == nullptr);
}

BOOST_AUTO_TEST_CASE(push_reports_the_first_node_since_the_consumer_detached) {
  tine::intrusive_mpsc<node> q;
  node a, b, c, d;
  BOOST_TEST(q.push(&a));     // first push into a new queue
  BOOST_TEST(!q.push(&b));    // someone (a's producer) was already told to wake the consumer
  BOOST_TEST(q.pop() == &a);  // detaches a and b; b stays in the consumer's batch
  BOOST_TEST(!q.empty());
  // The producer side is empty again, so this push reports true although b is still queued in
  // the consumer's batch: the documented spurious (harmless) wake-up.
  BOOST_TEST(q.push(&c));
  BOOST_TEST(!q.push(&d));
  BOOST_TEST(q.pop() == &b);
  BOOST_TEST(q.pop() == &c);
  BOOST_TEST(q.pop() == &d);
  BOOST_TEST(q.pop() == nullptr);
  BOOST_TEST(q.empty());
  BOOST_TEST(q.push(&a));  // after the consumer saw empty, the next push reports true
  BOOST_TEST(q.pop() == &a);
}

// N producers x M nodes, one consumer polling: every node arrives exactly once and each
// producer's nodes arrive in the order it pushed them.
BOOST_AUTO_TEST_CASE(many_producers_one_consumer) {
  constexpr std::uint32_t producers = 4;
  constexpr std::uint32_t per_producer = 25000;
  const auto deadline = clock_type::now() + time_budget;
  std::vector<std::vector<node>> nodes(producers, std::vector<node>(per_producer));
  tine::intrusive_mpsc<node> q;
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> first_pushes{0};

  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::size_t firsts = 0;
      for (std::uint32_t i = 0; i < per_producer; ++i) {
        if ((i & 255) == 0 && stop.load(std::memory_order_relaxed)) {
          break;
        }
        node& n = nodes[p][i];
        n.producer = p;
        n.seq = i;
        n.check = check_of(p, i);
        firsts += q.push(&n);
        if ((i & 63) == 0) {
          std::this_thread::yield();  // 2 cores: let the others interleave
        }
      }
      first_pushes += firsts;
    });
  }

  order_checker checker(producers);
  const std::size_t total = std::size_t{producers} * per_producer;
  bool timed_out = false;
  while (checker.received < total) {
    if (node* n = q.pop()) {
      checker.receive(n);
    } else if (clock_type::now() > deadline) {
      timed_out = true;
      stop = true;
      break;
    } else {
      std::this_thread::yield();
    }
  }
  for (std::thread& t : threads) {
    t.join();
  }
  BOOST_TEST(!timed_out);
  BOOST_TEST(checker.received == total);
  BOOST_TEST(checker.out_of_order == 0u);
  BOOST_TEST(checker.bad_payloads == 0u);
  BOOST_TEST(q.pop() == nullptr);
  BOOST_TEST(q.empty());
  BOOST_TEST(first_pushes.load() >= 1u);
  BOOST_TEST_MESSAGE(first_pushes.load() << " of " << total << " pushes reported an empty queue");
}

// The consumer sleeps whenever it drains the queue and only producers whose push returned true
// wake it. If push ever returned false where a wake-up was owed, the consumer would sleep with
// nodes queued until the watchdog's deadline, and the test would fail.
BOOST_AUTO_TEST_CASE(wake_ups_driven_by_push_result_are_never_lost) {
  constexpr std::uint32_t producers = 3;
  constexpr std::uint32_t per_producer = 5000;
  const auto deadline = clock_type::now() + time_budget;
  std::vector<std::vector<node>> nodes(producers, std::vector<node>(per_producer));
  tine::intrusive_mpsc<node> q;
  // A wake-up counter: producers bump it (release) after a push that returned true; the consumer
  // reads it (acquire) before draining and sleeps until it changes.
  std::atomic<std::uint64_t> wakeups{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> watchdog_fired{false};

  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (std::uint32_t i = 0; i < per_producer && !stop.load(std::memory_order_relaxed); ++i) {
        node& n = nodes[p][i];
        n.producer = p;
        n.seq = i;
        n.check = check_of(p, i);
        if (q.push(&n)) {
          wakeups.fetch_add(1, std::memory_order_release);
          wakeups.notify_one();
        }
        if ((i & 15) == 0) {
          std::this_thread::yield();
        }
      }
    });
  }

  // Watchdog: at the deadline, stop everyone and release a sleeping consumer.
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(m);
    if (!cv.wait_until(lock, deadline, [&] { return finished; })) {
      watchdog_fired = true;
      stop = true;
      wakeups.fetch_add(1, std::memory_order_release);
      wakeups.notify_all();
    }
  });

  order_checker checker(producers);
  const std::size_t total = std::size_t{producers} * per_producer;
  std::size_t sleeps = 0;
  while (checker.received < total && !watchdog_fired.load()) {
    const std::uint64_t seen = wakeups.load(std::memory_order_acquire);
    while (node* n = q.pop()) {
      checker.receive(n);
    }
    if (checker.received < total) {
      ++sleeps;
      wakeups.wait(seen, std::memory_order_acquire);
    }
  }
  {
    std::lock_guard<std::mutex> lock(m);
    finished = true;
  }
  cv.notify_all();
  watchdog.join();
  for (std::thread& t : threads) {
    t.join();
  }
  BOOST_TEST(!watchdog_fired.load());
  BOOST_TEST(checker.received == total);
  BOOST_TEST(checker.out_of_order == 0u);
  BOOST_TEST(checker.bad_payloads == 0u);
  BOOST_TEST_MESSAGE("consumer slept " << sleeps << " times");
}

BOOST_AUTO_TEST_SUITE_END()
