// The argument forms that compile (core/argument_check.hpp) keep their arguments alive: each
// forked child waits until a thief has resumed its parent, so the parent's co_await statement has
// ended and its temporaries are gone, before it reads its argument.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include <tine/core/core.hpp>
#include <tine/testing/simple_pool.hpp>

namespace {

/// Poisoned when destroyed, so a child reading a dead argument sees -1 rather than the value.
struct big {
  int value;
  explicit big(int v) : value(v) {}
  big(const big&) = default;
  big& operator=(const big&) = default;
  ~big() { static_cast<volatile int&>(value) = -1; }
};

struct derived_big : big {
  using big::big;
};

/// Set by the parent just after a fork returns: the child sees it only once a thief has resumed
/// the parent. A null signal means there is nothing to wait for.
struct steal_signal {
  std::atomic<bool> parent_resumed{false};
};

std::atomic<int> stolen{0};

void wait_for_thief(const steal_signal* s) {
  if (s == nullptr) {
    return;  // a called child: nothing can be stolen
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!s->parent_resumed.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > deadline) {
      return;  // not stolen: the final count of `stolen` reports it
    }
    std::this_thread::yield();
  }
  stolen.fetch_add(1, std::memory_order_relaxed);
}

tine::task<int> by_reference(const steal_signal* s, const big& b) {
  wait_for_thief(s);
  co_return b.value;
}

tine::task<int> by_value(const steal_signal* s, big b) {
  wait_for_thief(s);
  co_return b.value;
}

struct holder {
  big b{0};
  tine::task<int> get(const steal_signal* s) {
    wait_for_thief(s);
    co_return b.value;
  }
};

constexpr int forks_per_round = 9;

/// Every legal form once, each fork stolen; returns the sum of what the children read.
tine::task<int> legal_forms(int round) {
  auto named = [](const steal_signal* s, const big& b) -> tine::task<int> {
    wait_for_thief(s);
    co_return b.value;
  };
  auto generic_reference = [](const steal_signal* s, const auto& b) -> tine::task<int> {
    wait_for_thief(s);
    co_return b.value;
  };
  auto generic_value = [](const steal_signal* s, auto b) -> tine::task<int> {
    wait_for_thief(s);
    co_return b.value;
  };
  // Not a coroutine: its by-value parameter is copied into by_value's frame.
  auto wrapper = [](const steal_signal* s, auto b) { return by_value(s, b); };

  steal_signal sig[forks_per_round];
  int r[forks_per_round] = {};
  const big local(round);
  holder h;
  h.b.value = round;

  // Lvalues to reference parameters.
  co_await tine::fork(&r[0], by_reference, &sig[0], local);
  sig[0].parent_resumed.store(true, std::memory_order_release);
  co_await tine::fork(&r[1], named, &sig[1], local);
  sig[1].parent_resumed.store(true, std::memory_order_release);
  co_await tine::fork(&r[2], generic_reference, &sig[2], local);
  sig[2].parent_resumed.store(true, std::memory_order_release);
  co_await tine::fork(&r[3], by_reference, &sig[3], std::cref(local));
  sig[3].parent_resumed.store(true, std::memory_order_release);
  // Temporaries to by-value parameters.
  co_await tine::fork(&r[4], by_value, &sig[4], big(round));
  sig[4].parent_resumed.store(true, std::memory_order_release);
  co_await tine::fork(&r[5], generic_value, &sig[5], big(round));
  sig[5].parent_resumed.store(true, std::memory_order_release);
  co_await tine::fork(&r[6], wrapper, &sig[6], big(round));
  sig[6].parent_resumed.store(true, std::memory_order_release);
  // A member function, through the object and through a pointer to it.
  co_await tine::fork(&r[7], &holder::get, h, &sig[7]);
  sig[7].parent_resumed.store(true, std::memory_order_release);
  co_await tine::fork(&r[8], &holder::get, &h, &sig[8]);
  sig[8].parent_resumed.store(true, std::memory_order_release);
  co_await tine::join();

  int sum = 0;
  for (int v : r) {
    sum += v;
  }
  co_return sum;
}

/// `call` accepts a temporary of the parameter's type, or of a derived type: it outlives the child.
tine::task<int> call_with_temporaries(int round) {
  int a = 0;
  int b = 0;
  int c = 0;
  co_await tine::call(&a, by_reference, nullptr, big(round));
  co_await tine::call(&b, by_reference, nullptr, derived_big(round));
  co_await tine::call(&c, &holder::get, holder{big(round)}, nullptr);
  co_await tine::join();
  co_return a + b + c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(argument_lifetime)

BOOST_AUTO_TEST_CASE(legal_forms_survive_stealing, *boost::unit_test::timeout(300)) {
  tine::testing::simple_pool pool(2);
  constexpr int rounds = 20;
  stolen.store(0);
  for (int round = 1; round <= rounds; ++round) {
    BOOST_TEST(tine::sync_wait(pool, legal_forms, round) == forks_per_round * round);
  }
  // Every fork was stolen, so the checks above ran after the parent's statement had ended.
  BOOST_TEST(stolen.load() == forks_per_round * rounds);
}

BOOST_AUTO_TEST_CASE(call_accepts_temporaries_of_the_parameter_type) {
  tine::testing::simple_pool pool(2);
  for (int round = 1; round <= 5; ++round) {
    BOOST_TEST(tine::sync_wait(pool, call_with_temporaries, round) == 3 * round);
  }
}

BOOST_AUTO_TEST_SUITE_END()
