// A process whose first computation runs during static initialisation, before the reducers'
// headers install their strand layer: the core fixes its choice then (no layer), the install that
// comes later is refused, and a reducer used in a task says why with an exception, while tasks
// without reducers run as usual.
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

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

// Runs before any initialiser without a priority, so before the reducers' layer is installed
// (GCC orders an inline variable by where it appears in the translation unit, clang runs it
// first: the priority makes this computation the process's first under both).
struct first_computation {
  long result;
  first_computation() {
    tine::inline_scheduler sched;
    result = tine::sync_wait(sched, fib, 12);
  }
};
__attribute__((init_priority(200))) first_computation early;

}  // namespace

// Included after the computation above, to say what this test is about: the layer's install,
// during static initialisation, comes after it.
#include <tine/reducers/monoids.hpp>
#include <tine/reducers/reducer.hpp>

namespace {

tine::task<void> add(tine::reducer<tine::sum<long>>* r) {
  r->view() += 1;
  co_return;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_layer_installed_after_the_first_computation_is_refused) {
  BOOST_TEST(early.result == 144);
  BOOST_TEST(!tine::detail::views_layer_installed);
  BOOST_TEST(tine::detail::strand_layer_slot::get() == nullptr);
}

BOOST_AUTO_TEST_CASE(a_reducer_then_says_why_and_other_tasks_run) {
  tine::inline_scheduler sched;
  tine::reducer<tine::sum<long>> r;
  try {
    tine::sync_wait(sched, add, &r);
    BOOST_FAIL("view() made a view where no strand has a record");
  } catch (const std::logic_error& e) {
    BOOST_TEST(std::string(e.what()).find("static initialisation") != std::string::npos);
  }
  BOOST_TEST(r.get() == 0);
  BOOST_TEST(tine::sync_wait(sched, fib, 20) == 6765);
}
