// fork / call / join: results, task<void>, discarding forms, lambdas, and real stealing.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/simple_pool.hpp>

namespace {

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

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

// Sum of [lo, hi) by recursive halving with several forks per scope.
tine::task<long> range_sum(long lo, long hi) {
  if (hi - lo <= 4) {
    long s = 0;
    for (long i = lo; i < hi; ++i) {
      s += i;
    }
    co_return s;
  }
  const long q = (hi - lo) / 4;
  long part[4] = {};
  co_await tine::fork(&part[0], range_sum, lo, lo + q);
  co_await tine::fork(&part[1], range_sum, lo + q, lo + 2 * q);
  co_await tine::fork(&part[2], range_sum, lo + 2 * q, lo + 3 * q);
  co_await tine::call(&part[3], range_sum, lo + 3 * q, hi);
  co_await tine::join();
  co_return part[0] + part[1] + part[2] + part[3];
}

tine::task<void> count_nodes(int depth, std::atomic<long>* counter) {
  counter->fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) {
    co_return;
  }
  co_await tine::fork(count_nodes, depth - 1, counter);
  co_await tine::fork(count_nodes, depth - 1, counter);
  co_await tine::join();
}

// Several fork-join scopes in one task: the counters must be reset by each join.
tine::task<long> scopes(int rounds) {
  long total = 0;
  for (int r = 0; r < rounds; ++r) {
    long a = 0;
    long b = 0;
    co_await tine::fork(&a, fib, 12);
    co_await tine::fork(&b, fib, 11);
    co_await tine::join();
    total += a + b;
  }
  co_return total;
}

tine::task<std::string> greet(std::string name) { co_return "hello " + name; }

tine::task<std::string> greet_twice() {
  std::string a;
  std::string b;
  co_await tine::fork(&a, greet, std::string("a"));
  co_await tine::call(&b, greet, std::string("b"));
  co_await tine::join();
  co_return a + "," + b;
}

tine::task<int> add_ref(const int& x, int* out) {
  *out = x + 1;
  co_return x;
}

tine::task<int> uses_refs() {
  int x = 41;
  int y = 0;
  int r = 0;
  co_await tine::fork(&r, add_ref, x, &y);  // x is the parent's local: it outlives the join
  co_await tine::join();
  co_return r + y;
}

struct counter_object {
  int base = 100;
  tine::task<int> plus(int k) { co_return base + k; }
};

tine::task<int> member_task() {
  counter_object obj;
  int r = 0;
  co_await tine::call(&r, &counter_object::plus, obj, 5);
  co_await tine::join();
  co_return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fork_join)

BOOST_AUTO_TEST_CASE(fib_on_inline_scheduler) {
  tine::inline_scheduler sched;
  for (int n : {0, 1, 2, 10, 20, 25}) {
    BOOST_TEST(tine::sync_wait(sched, fib, n) == serial_fib(n));
  }
}

BOOST_AUTO_TEST_CASE(range_sum_on_inline_scheduler) {
  tine::inline_scheduler sched;
  for (long n : {0L, 1L, 7L, 1000L, 123457L}) {
    BOOST_TEST(tine::sync_wait(sched, range_sum, 0L, n) == n * (n - 1) / 2);
  }
}

BOOST_AUTO_TEST_CASE(void_tasks_and_discarded_results) {
  tine::inline_scheduler sched;
  std::atomic<long> counter{0};
  tine::sync_wait(sched, count_nodes, 10, &counter);
  BOOST_TEST(counter.load() == (1L << 11) - 1);
}

BOOST_AUTO_TEST_CASE(several_scopes_per_task) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, scopes, 20) == 20 * (serial_fib(12) + serial_fib(11)));
}

BOOST_AUTO_TEST_CASE(non_trivial_results_and_parameters) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, greet_twice) == "hello a,hello b");
}

BOOST_AUTO_TEST_CASE(reference_parameters_to_parent_locals) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, uses_refs) == 41 + 42);
}

BOOST_AUTO_TEST_CASE(member_function_tasks) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, member_task) == 105);
}

// A root result with an empty [[no_unique_address]] member: Clang 16 at -O1 once wrote past
// sync_wait's result variable when value-initialising it (see core/sync_wait.hpp).
BOOST_AUTO_TEST_CASE(root_result_with_an_empty_member) {
  using result = std::ranges::in_in_result<std::ranges::dangling, std::vector<int>::iterator>;
  tine::inline_scheduler sched;
  std::vector<int> v(10);
  for (int i = 0; i < 100; ++i) {
    auto at = [](std::vector<int>* w, int k) -> tine::task<result> {
      co_return result{{}, w->begin() + k};
    };
    const result r = tine::sync_wait(sched, at, &v, i % 10);
    BOOST_TEST((r.in2 == v.begin() + i % 10));
  }
}

BOOST_AUTO_TEST_CASE(lambdas_and_recursive_lambdas) {
  tine::inline_scheduler sched;
  // A recursive lambda receives itself as its first argument.
  auto lfib = [](auto self, int n) -> tine::task<long> {
    if (n < 2) {
      co_return n;
    }
    long a = 0;
    long b = 0;
    co_await tine::fork(&a, self, self, n - 1);
    co_await tine::call(&b, self, self, n - 2);
    co_await tine::join();
    co_return a + b;
  };
  BOOST_TEST(tine::sync_wait(sched, lfib, lfib, 20) == serial_fib(20));

  int base = 7;
  auto with_capture = [&base](int k) -> tine::task<int> { co_return base + k; };
  BOOST_TEST(tine::sync_wait(sched, with_capture, 3) == 10);
}

BOOST_AUTO_TEST_CASE(fib_with_stealing, *boost::unit_test::timeout(120)) {
  for (std::size_t workers : {1U, 2U, 3U}) {
    tine::testing::simple_pool pool(workers);
    for (int round = 0; round < 5; ++round) {
      BOOST_TEST(tine::sync_wait(pool, fib, 20) == serial_fib(20));
      BOOST_TEST(tine::sync_wait(pool, range_sum, 0L, 100000L) == 100000L * 99999L / 2);
      BOOST_TEST(tine::sync_wait(pool, scopes, 5) == 5 * (serial_fib(12) + serial_fib(11)));
    }
    std::atomic<long> counter{0};
    tine::sync_wait(pool, count_nodes, 12, &counter);
    BOOST_TEST(counter.load() == (1L << 13) - 1);
  }
}

BOOST_AUTO_TEST_CASE(many_external_submitters, *boost::unit_test::timeout(120)) {
  tine::testing::simple_pool pool(3);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        if (tine::sync_wait(pool, fib, 12 + (t + i) % 5) != serial_fib(12 + (t + i) % 5)) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
