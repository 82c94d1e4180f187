// Task objects held instead of started at once: an unstarted task frees its frame from the stack
// it was created on, which is right only if that stack's most recent live allocation is the
// frame. Every build stops the program with a message when it is not: a task held across a fork
// whose continuation was stolen and destroyed on the thief, and two held tasks destroyed in the
// order they were created. A task held across a stolen fork and destroyed after the join is
// freed correctly (the join gives the task its stack back), and the program goes on.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <string>
#include <utility>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/spin_backoff.hpp>

#include "tests/core/death.hpp"

namespace {

tine::task<int> value(int v) { co_return v; }

// A parameter with a destructor: the frame is freed through the promise's operator delete.
tine::task<int> length(std::string s) { co_return static_cast<int>(s.size()); }

// Occupies its worker until `flag` is set: the parent's continuation can only go on elsewhere.
tine::task<void> wait_until_set(std::atomic<bool>* flag) {
  tine::detail::spin_backoff backoff;
  while (!flag->load(std::memory_order_acquire)) {
    backoff.idle();
  }
  co_return;
}

// Holds a task across a fork; the continuation, which can only run on a thief, destroys it.
tine::task<void> destroys_on_the_thief(std::atomic<bool>* stolen) {
  tine::task<int> held = value(1);
  co_await tine::fork(wait_until_set, stolen);
  {
    tine::task<int> dropped = std::move(held);  // destroyed here, on the thief's stack
  }
  stolen->store(true, std::memory_order_release);
  co_await tine::join();
}

// Holds a task across a fork whose continuation is stolen, and destroys it after the join.
tine::task<int> destroys_after_the_join(std::atomic<bool>* stolen) {
  tine::task<int> held = value(1);
  co_await tine::fork(wait_until_set, stolen);
  stolen->store(true, std::memory_order_release);  // on the thief
  co_await tine::join();
  co_return 7;  // `held` is destroyed here, on the task's own stack again, in order
}

// Two held tasks destroyed first-created first: frames without destructors (freed by a pointer
// reset) and with them (the promise's operator delete).
tine::task<int> destroys_out_of_order(bool with_destructor) {
  if (with_destructor) {
    auto first = length("one");
    auto second = length("two");
    {
      auto dropped = std::move(first);  // `second` was allocated after it and still lives
    }
  } else {
    auto first = value(1);
    auto second = value(2);
    { auto dropped = std::move(first); }
  }
  co_return 0;
}

// Two held tasks destroyed last-created first: in order, allowed.
tine::task<int> destroys_in_order() {
  auto first = length("one");
  auto second = length("two");
  { auto dropped = std::move(second); }
  co_return 1;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(held_tasks)

BOOST_AUTO_TEST_CASE(destroyed_on_the_thief_stops_the_program) {
  const auto r = tine_tests::run_in_child([] {
    tine::busy_pool<> pool(2);
    std::atomic<bool> stolen{false};
    tine::sync_wait(pool, destroys_on_the_thief, &stolen);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("was destroyed on another worker than the one that created it") !=
                 std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_CASE(destroyed_out_of_order_stops_the_program) {
  for (bool with_destructor : {false, true}) {
    const auto r = tine_tests::run_in_child([with_destructor] {
      tine::inline_scheduler sched;
      (void)tine::sync_wait(sched, destroys_out_of_order, with_destructor);
    });
    BOOST_TEST(r.aborted, "with_destructor=" << with_destructor);
    BOOST_TEST(r.stderr_text.find("destroyed while something allocated after it still lives") !=
                   std::string::npos,
               r.stderr_text);
  }
}

BOOST_AUTO_TEST_CASE(destroyed_after_the_join_or_in_order_is_allowed) {
  tine::busy_pool<> pool(2);
  for (int i = 0; i < 50; ++i) {
    std::atomic<bool> stolen{false};
    BOOST_TEST(tine::sync_wait(pool, destroys_after_the_join, &stolen) == 7);
  }
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, destroys_in_order) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
