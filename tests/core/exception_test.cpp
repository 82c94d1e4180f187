// Exceptions: stored in the parent, rethrown at its join after every child has finished.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/testing/simple_pool.hpp>

namespace {

struct test_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

tine::task<int> maybe_throw(int v, int bad) {
  if (v == bad) {
    throw test_error("child " + std::to_string(v));
  }
  co_return v;
}

// Forks n children; the child with value `bad` throws. Returns n when none does. Each child
// gets its own result slot: children running at once must not write the same object.
tine::task<int> fan_out(int n, int bad, std::atomic<int>* finished) {
  auto results = co_await tine::stack_alloc<int>(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    co_await tine::fork(&results[static_cast<std::size_t>(i)], maybe_throw, i, bad);
    finished->fetch_add(1);
  }
  co_await tine::join();
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += results[static_cast<std::size_t>(i)];
  }
  co_return sum == n*(n - 1) / 2 ? n : -1;  // every child's value reached its slot
}

tine::task<void> slow_child(std::atomic<int>* done) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  done->fetch_add(1);
  co_return;
}

// The idiom for code that may throw between a fork and its join (docs/tour.md): catch inside the
// scope, join (children may use this task's locals until then), then rethrow.
tine::task<void> parent_throws(std::atomic<int>* done) {
  std::exception_ptr error;
  try {
    co_await tine::fork(slow_child, done);
    co_await tine::fork(slow_child, done);
    throw test_error("parent");  // or anything that may throw
  } catch (...) {
    error = std::current_exception();  // a handler cannot co_await: remember, join below
  }
  co_await tine::join();  // the children are done; rethrows their exception if one threw
  if (error) {
    std::rethrow_exception(error);
  }
}

// A call whose child throws rethrows at once when nothing was stolen: the code after it, which
// would read the unwritten result, does not run.
tine::task<int> eager_call(bool* ran_after) {
  int r = 0;
  co_await tine::call(&r, maybe_throw, 1, 1);
  *ran_after = true;
  co_return r;
}

// Catches the child's exception at the join and carries on.
tine::task<int> recovers() {
  int r = 0;
  try {
    co_await tine::fork(&r, maybe_throw, 3, 3);
    co_await tine::join();
  } catch (const test_error&) {
    r = -1;
  }
  int again = 0;
  co_await tine::call(&again, maybe_throw, 5, 3);
  co_await tine::join();
  co_return r + again;
}

tine::task<void> many_throw(int depth) {
  if (depth == 0) {
    throw test_error("leaf");
  }
  co_await tine::fork(many_throw, depth - 1);
  co_await tine::fork(many_throw, depth - 1);
  co_await tine::join();
}

tine::task<int> root_throws() {
  throw test_error("root");
  co_return 0;
}

template <typename Sched>
void check_all(Sched& sched) {
  std::atomic<int> finished{0};
  BOOST_CHECK_EXCEPTION(tine::sync_wait(sched, fan_out, 1, 0, &finished), test_error,
                        [](const test_error& e) { return std::string(e.what()) == "child 0"; });
  BOOST_CHECK_EXCEPTION(tine::sync_wait(sched, fan_out, 50, 49, &finished), test_error,
                        [](const test_error& e) { return std::string(e.what()) == "child 49"; });
  BOOST_CHECK_THROW(tine::sync_wait(sched, fan_out, 50, 0, &finished), test_error);
  BOOST_TEST(tine::sync_wait(sched, fan_out, 20, -1, &finished) == 20);

  std::atomic<int> done{0};
  BOOST_CHECK_EXCEPTION(tine::sync_wait(sched, parent_throws, &done), test_error,
                        [](const test_error& e) { return std::string(e.what()) == "parent"; });
  BOOST_TEST(done.load() == 2);  // both children finished before the exception surfaced

  BOOST_TEST(tine::sync_wait(sched, recovers) == 4);
  BOOST_CHECK_THROW(tine::sync_wait(sched, many_throw, 8), test_error);

  bool ran_after = false;
  BOOST_CHECK_THROW(tine::sync_wait(sched, eager_call, &ran_after), test_error);
  BOOST_TEST(!ran_after);

  BOOST_CHECK_THROW(tine::sync_wait(sched, root_throws), test_error);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(exceptions)

BOOST_AUTO_TEST_CASE(inline_scheduler) {
  tine::inline_scheduler sched;
  check_all(sched);
}

BOOST_AUTO_TEST_CASE(with_stealing, *boost::unit_test::timeout(120)) {
  for (std::size_t workers : {2U, 3U}) {
    tine::testing::simple_pool pool(workers);
    for (int i = 0; i < 5; ++i) {
      check_all(pool);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
