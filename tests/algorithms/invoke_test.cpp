// tine::invoke (parallel_invoke): every callable runs exactly once, on every scheduler, for one to
// several callables of mixed kinds (void, with a result, returning a task); two callables that
// wait for each other both finish on a pool of two, so they run at the same time; an exception
// from any of them reaches the caller after all have finished; the task form inside tasks.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/mpl/list.hpp>

#include <tine/algorithms/invoke.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::schedulers;

std::atomic<int> g_plain_calls{0};
void plain_function() { g_plain_calls.fetch_add(1); }

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

// Each waits, up to a deadline, for the other to have started: both see the other only if they
// run at the same time. The deadline keeps a failure a failure rather than a hang.
struct rendezvous {
  std::atomic<bool> arrived[2] = {false, false};
  std::atomic<bool> saw_other[2] = {false, false};

  void meet(int me) {
    arrived[me].store(true);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!arrived[1 - me].load()) {
      if (std::chrono::steady_clock::now() > deadline) {
        return;
      }
      std::this_thread::yield();
    }
    saw_other[me].store(true);
  }
};

// clang-format off
// [docs:invoke_nested]
// Builds the two halves of a result side by side, inside a task: one half with a plain
// function, the other with a task that forks work of its own.
tine::task<long> both_halves(std::vector<long>* halves) {
  auto left = [halves] { (*halves)[0] = 6765; };
  auto right = [halves]() -> tine::task<void> {
    long f = 0;
    co_await tine::call(&f, fib, 20);
    co_await tine::join();
    (*halves)[1] = f;
  };
  co_await tine::call(tine::async::invoke, left, right);
  co_await tine::join();
  co_return (*halves)[0] + (*halves)[1];
}
// [docs:invoke_nested end]
// clang-format on

}  // namespace

BOOST_AUTO_TEST_SUITE(invoke)

TINE_SCHEDULER_TEST_CASE(every_callable_runs_exactly_once, schedulers) {
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> calls[6] = {0, 0, 0, 0, 0, 0};
    auto one = [&calls](int i) { return [&calls, i] { calls[i].fetch_add(1); }; };
    tine::invoke(sched, one(0));
    BOOST_TEST(calls[0].load() == 1);
    tine::invoke(sched, one(1), one(2));
    tine::invoke(sched, one(3), one(4), one(5));
    for (int i = 1; i < 6; ++i) {
      BOOST_TEST(calls[i].load() == 1, "callable " << i);
    }
    std::vector<std::atomic<int>> many(9);
    auto at = [&many](int i) { return [&many, i] { many[static_cast<std::size_t>(i)]++; }; };
    tine::invoke(sched, at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8));
    for (const auto& c : many) {
      BOOST_TEST(c.load() == 1);
    }
  }
}

// clang-format off
// [docs:invoke_basic]
TINE_SCHEDULER_TEST_CASE(runs_callables_of_every_kind, schedulers) {
  std::string greeting;
  long fib_25 = 0;
  int answer = 0;
  tine::invoke(
      sched,
      [&greeting] { greeting = "hello"; },           // plain
      [&answer] { return answer = 42; },             // a result, discarded
      [&fib_25]() -> tine::task<void> {              // a task: its forks run in parallel too
        co_await tine::call(&fib_25, fib, 25);
        co_await tine::join();
      });
  BOOST_TEST(greeting == "hello");
  BOOST_TEST(answer == 42);
  BOOST_TEST(fib_25 == 75025);
}
// [docs:invoke_basic end]
// clang-format on

TINE_SCHEDULER_TEST_CASE(functions_tasks_with_results_and_move_only_callables, schedulers) {
  g_plain_calls = 0;
  std::atomic<long> sum{0};
  auto task_with_result = [&sum]() -> tine::task<long> {
    long f = 0;
    co_await tine::call(&f, fib, 15);
    co_await tine::join();
    sum.fetch_add(f);
    co_return f;  // discarded
  };
  auto owner = std::make_unique<int>(7);
  auto move_only = [p = std::move(owner), &sum] { sum.fetch_add(*p); };
  tine::invoke(sched, plain_function, &plain_function, task_with_result, std::move(move_only));
  BOOST_TEST(g_plain_calls.load() == 2);
  BOOST_TEST(sum.load() == 610 + 7);
}

// Two callables that each wait for the other: both see the other only if they run at the same
// time, on two workers (the inline scheduler and a pool of one run them one after the other).
using pools_of_two_or_more =
    boost::mpl::list<tine_test::pool<2>, tine_test::pool<3>, tine_test::busy2, tine_test::lazy2>;

TINE_SCHEDULER_TEST_CASE(runs_in_parallel, pools_of_two_or_more) {
  rendezvous r;
  tine::invoke(
      sched, [&r] { r.meet(0); }, [&r] { r.meet(1); });
  BOOST_TEST(r.saw_other[0].load());
  BOOST_TEST(r.saw_other[1].load());
}

TINE_SCHEDULER_TEST_CASE(exceptions_reach_the_caller_after_the_started_ones, schedulers) {
  for (int bad = 0; bad < 4; ++bad) {
    tine_test::gauge gauge;
    std::atomic<int> calls[4] = {0, 0, 0, 0};
    auto callable = [&](int i) {
      return [&gauge, &calls, i, bad] {
        tine_test::gauge::scope busy(&gauge);
        calls[i].fetch_add(1);
        std::this_thread::yield();  // others may be running
        if (i == bad) {
          throw tine_test::test_error("invoke");
        }
      };
    };
    BOOST_CHECK_THROW(tine::invoke(sched, callable(0), callable(1), callable(2), callable(3)),
                      tine_test::test_error);
    BOOST_TEST(gauge.live.load() == 0);  // the exception came after every started one finished
    for (int i = 0; i < 4; ++i) {
      // Those before the bad one started; those after it may not have (they are not started
      // once an exception is stored); none ran twice.
      if (i <= bad) {
        BOOST_TEST(calls[i].load() == 1, "bad=" << bad << " callable " << i);
      } else {
        BOOST_TEST(calls[i].load() <= 1, "bad=" << bad << " callable " << i);
      }
    }
  }
}

TINE_SCHEDULER_TEST_CASE(several_exceptions_one_reaches_the_caller, schedulers) {
  std::atomic<int> calls{0};
  auto throws = [&calls](const char* what) {
    return [&calls, what] {
      calls.fetch_add(1);
      throw std::runtime_error(what);
    };
  };
  auto from_task = [&calls]() -> tine::task<int> {
    calls.fetch_add(1);
    throw std::runtime_error("task");
    co_return 0;
  };
  try {
    tine::invoke(sched, throws("first"), from_task, throws("last"));
    BOOST_ERROR("no exception");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    BOOST_TEST((what == "first" || what == "task" || what == "last"), what);
  }
  // The first and the last (called) always run; the second is not started once the first threw,
  // unless a thief started it before.
  BOOST_TEST((calls.load() == 2 || calls.load() == 3), calls.load());
}

TINE_SCHEDULER_TEST_CASE(task_forms, schedulers) {
  std::vector<long> halves(2);
  BOOST_TEST(tine::sync_wait(sched, both_halves, &halves) == 2 * 6765);
}

BOOST_AUTO_TEST_SUITE_END()
