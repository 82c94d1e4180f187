// The mistakes an application writer makes with futures, each refused the same way in every run:
// a second continuation (when_all of a future that has a callback: an error, not a hang, and
// nothing leaked), blocking calls on a worker (ready or not), a callback that throws (its what()
// in the message), waits with durations beyond the clock's range, and a pending future dropped
// on a worker without being awaited, stopped or detached (checked builds).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/death.hpp"
#include "tests/core/watchdog.hpp"

namespace {

using namespace std::chrono_literals;

tine::task<int> busy_for(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    if (tine::stop_requested()) {
      co_return -1;
    }
  }
  co_return ms;
}

tine::task<int> seven() { co_return 7; }

// when_all of a future that has an on_complete callback: std::logic_error, every time, whether
// the callback has run yet or not.
template <typename Scheduler>
void when_all_refuses_a_continued_future(Scheduler& sched, bool vector_form, bool ran_already) {
  tine_tests::within(20s, "when_all of a future with a callback", [&] {
    std::atomic<int> calls{0};
    tine::future<int> a = tine::spawn(sched, busy_for, ran_already ? 0 : 30);
    tine::future<int> b = tine::spawn(sched, seven);
    a.on_complete([&calls] { calls.fetch_add(1); });
    if (ran_already) {
      a.wait();
    }
    std::string what;
    try {
      if (vector_form) {
        std::vector<tine::future<int>> v;
        v.push_back(std::move(a));
        v.push_back(std::move(b));
        (void)tine::when_all(std::move(v));
      } else {
        (void)tine::when_all(std::move(a), std::move(b));
      }
    } catch (const std::logic_error& e) {
      what = e.what();
    }
    BOOST_TEST(what.find("tine::when_all: a future already has a continuation") == 0);
    // The futures given were dropped (stopped and waited for): the callback ran once.
    BOOST_TEST(calls.load() == 1);
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(future_misuse)

BOOST_AUTO_TEST_CASE(when_all_of_a_future_with_a_callback_throws_and_does_not_hang) {
  tine::busy_pool<> pool(2);
  tine::inline_scheduler inl;
  for (bool vector_form : {false, true}) {
    for (bool ran : {false, true}) {
      when_all_refuses_a_continued_future(pool, vector_form, ran);
      when_all_refuses_a_continued_future(inl, vector_form, ran);
    }
  }
}

// Inside a task the refusal comes out of the co_await'ed expression, and nothing leaks (the
// ASan configuration's LeakSanitizer checks at exit).
BOOST_AUTO_TEST_CASE(when_all_refusal_inside_a_task_leaks_nothing) {
  tine::lazy_pool<> pool(2);
  const auto body = [](tine::lazy_pool<>* p) -> tine::task<std::string> {
    tine::future<int> a = tine::spawn(*p, seven);
    a.on_complete([] {});
    std::string what;
    try {
      std::vector<tine::future<int>> v;
      v.push_back(std::move(a));
      v.push_back(tine::spawn(*p, seven));
      (void)co_await tine::when_all(std::move(v));
    } catch (const std::logic_error& e) {
      what = e.what();
    }
    co_return what;
  };
  tine_tests::within(20s, "when_all refused in a task", [&] {
    const std::string what = tine::sync_wait(pool, body, &pool);
    BOOST_TEST(what.find("a future already has a continuation") != std::string::npos);
  });
}

// A second continuation is refused whether or not the first one has run.
BOOST_AUTO_TEST_CASE(a_second_continuation_is_refused_even_after_the_first_ran) {
  tine::busy_pool<> pool(2);
  tine::future<int> f = tine::spawn(pool, seven);
  std::atomic<int> calls{0};
  f.on_complete([&calls] { calls.fetch_add(1); });
  f.wait();
  BOOST_TEST(calls.load() == 1);
  BOOST_CHECK_THROW(f.on_complete([] {}), std::logic_error);
  BOOST_TEST(f.get() == 7);  // get works besides
  BOOST_TEST(calls.load() == 1);
}

// get, wait, wait_for and wait_until on a worker throw whether the outcome is there yet or not.
// The future's root runs on another scheduler, so that the task can spin until it is there
// without holding up the work it waits for.
BOOST_AUTO_TEST_CASE(blocking_calls_on_a_worker_always_throw) {
  tine::busy_pool<> pool(1);
  tine::inline_scheduler other;
  const auto probe = [](tine::inline_scheduler* o, int kind) -> tine::task<int> {
    tine::future<int> f = tine::spawn(*o, seven);
    while (!f.ready()) {  // the outcome is there before the call, every run
    }
    int refused = 0;
    try {
      switch (kind) {
        case 0:
          (void)f.get();
          break;
        case 1:
          f.wait();
          break;
        case 2:
          (void)f.wait_for(1s);
          break;
        default:
          (void)f.wait_until(std::chrono::steady_clock::now() + 1s);
          break;
      }
    } catch (const std::logic_error& e) {
      refused = std::string(e.what()).find("called on a tine worker thread") != std::string::npos;
    }
    co_return refused;
  };
  tine_tests::within(60s, "blocking calls on a worker", [&] {
    int refused = 0;
    for (int i = 0; i < 200; ++i) {
      refused += tine::sync_wait(pool, probe, &other, i % 4);
    }
    BOOST_TEST(refused == 200);
  });
}

// Durations and deadlines beyond the steady clock's range wait without a limit (they used to
// overflow into a deadline in the past and time out at once).
BOOST_AUTO_TEST_CASE(waits_beyond_the_clock_range_do_not_time_out) {
  tine::busy_pool<> pool(1);
  {
    tine::future<int> f = tine::spawn(pool, busy_for, 30);
    BOOST_TEST((f.wait_for(std::chrono::hours::max()) == std::future_status::ready));
    BOOST_TEST(f.ready());
  }
  {
    tine::future<int> f = tine::spawn(pool, busy_for, 30);
    BOOST_TEST(
        (f.wait_for(std::chrono::steady_clock::duration::max()) == std::future_status::ready));
    BOOST_TEST(f.ready());
  }
  {
    tine::future<int> f = tine::spawn(pool, busy_for, 30);
    BOOST_TEST(
        (f.wait_until(std::chrono::steady_clock::time_point::max()) == std::future_status::ready));
    BOOST_TEST(f.ready());
  }
  {
    tine::future<int> f = tine::spawn(pool, busy_for, 30);
    BOOST_TEST(
        (f.wait_until(std::chrono::system_clock::time_point::max()) == std::future_status::ready));
    BOOST_TEST(f.ready());
  }
  {
    tine::future<int> f = tine::spawn(pool, busy_for, 300);
    BOOST_TEST((f.wait_for(1ms) == std::future_status::timeout));  // a short one still times out
    BOOST_TEST((f.wait_for(-5s) == std::future_status::timeout));
    f.request_stop();
  }
}

BOOST_AUTO_TEST_CASE(a_throwing_callback_is_reported_with_its_what) {
  const tine_tests::death_result r = tine_tests::run_in_child([] {
    tine::busy_pool<> pool(1);
    tine::future<int> f = tine::spawn(pool, busy_for, 20);
    f.on_complete([] { throw std::runtime_error("the callback's own words"); });
    f.wait();
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("on_complete: the callback threw") != std::string::npos);
  BOOST_TEST(r.stderr_text.find("the callback's own words") != std::string::npos);
}

#if TINE_CHECKED
// A task that forgets to await its future: checked builds stop with the rule, instead of the work
// being stopped and let go without a word.
BOOST_AUTO_TEST_CASE(a_pending_future_dropped_on_a_worker_is_reported) {
  const tine_tests::death_result r = tine_tests::run_in_child([] {
    tine::busy_pool<> pool(2);
    const auto forgets = [](tine::busy_pool<>* p) -> tine::task<int> {
      tine::future<int> f = tine::spawn(*p, busy_for, 2000);
      co_return 1;  // f is dropped here, pending, nobody asked it to stop
    };
    (void)tine::sync_wait(pool, forgets, &pool);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("was dropped on a tine worker without being awaited") !=
             std::string::npos);
}
#endif

// The drops that explain themselves go through in every build: stopped first, detached, dropped
// while an exception unwinds, or dropped by a task whose own root was stopped.
BOOST_AUTO_TEST_CASE(explained_drops_on_a_worker_are_allowed) {
  tine::busy_pool<> pool(2);
  const auto stops_first = [](tine::busy_pool<>* p) -> tine::task<int> {
    tine::future<int> f = tine::spawn(*p, busy_for, 2000);
    f.request_stop();
    co_return 1;
  };
  const auto detaches = [](tine::busy_pool<>* p) -> tine::task<int> {
    tine::future<int> f = tine::spawn(*p, busy_for, 5);
    f.detach();
    co_return 2;
  };
  const auto throws = [](tine::busy_pool<>* p) -> tine::task<int> {
    tine::future<int> f = tine::spawn(*p, busy_for, 2000);
    throw std::invalid_argument("unwinding");
    co_return 3;
  };
  tine_tests::within(30s, "explained drops", [&] {
    BOOST_TEST(tine::sync_wait(pool, stops_first, &pool) == 1);
    BOOST_TEST(tine::sync_wait(pool, detaches, &pool) == 2);
    BOOST_CHECK_THROW(tine::sync_wait(pool, throws, &pool), std::invalid_argument);
  });
  // A root that is stopped drops its pending futures as it unwinds or returns.
  const auto stopped_root = [](tine::busy_pool<>* p) -> tine::task<int> {
    tine::future<int> f = tine::spawn(*p, busy_for, 2000);
    tine::request_stop();
    co_return 4;
  };
  tine_tests::within(30s, "a stopped root's drop", [&] {
    tine::future<int> g = tine::spawn(pool, stopped_root, &pool);
    BOOST_TEST(g.get() == 4);
  });
}

BOOST_AUTO_TEST_SUITE_END()
