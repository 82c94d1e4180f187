// The examples of docs/tour.md. Each region between [docs:NAME] markers appears verbatim in the
// page (checked by //tests/docs:doc_snippets_test); here they are compiled and run.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstddef>
#include <exception>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace tour {

// clang-format off
// [docs:fib]
tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);  // a child that runs now; the rest of fib may be stolen
  co_await tine::call(&b, fib, n - 2);  // a child that runs now; nothing can be stolen
  co_await tine::join();                // wait for the forked child: a and b are ready
  co_return a + b;
}
// [docs:fib end]
// clang-format on

// clang-format off
// [docs:void_tasks]
tine::task<void> visit(std::vector<int>* out, int depth) {
  out->at(static_cast<std::size_t>(depth)) += 1;  // children write to different places...
  if (depth + 1 < static_cast<int>(out->size())) {
    co_await tine::fork(visit, out, depth + 1);  // ...or the same place through an atomic
  }
  co_await tine::join();
}
// [docs:void_tasks end]
// clang-format on

// clang-format off
// [docs:exceptions]
tine::task<int> parse(std::string text) {
  if (text.empty()) {
    throw std::invalid_argument("empty field");
  }
  co_return std::stoi(text);
}

tine::task<int> parse_pair(std::string x, std::string y) {
  int a = 0;
  int b = 0;
  co_await tine::fork(&a, parse, x);
  co_await tine::fork(&b, parse, y);
  try {
    co_await tine::join();  // both children have finished when the exception surfaces here
  } catch (const std::invalid_argument&) {
    co_return -1;
  }
  co_return a + b;
}
// [docs:exceptions end]
// clang-format on

// clang-format off
// [docs:catch_join_rethrow]
tine::task<long> checked_sum(const std::vector<std::string>* fields) {
  std::vector<int> values(fields->size());  // a local the children write into
  std::exception_ptr error;
  try {
    for (std::size_t i = 0; i < fields->size(); ++i) {
      co_await tine::fork(&values[i], parse, (*fields)[i]);
    }
    if (fields->size() > 100) {
      throw std::length_error("too many fields");  // a throw between fork and join
    }
  } catch (...) {
    error = std::current_exception();  // a handler cannot co_await: keep it for after the join
  }
  co_await tine::join();  // children done (rethrows theirs, if one threw)
  if (error) {
    std::rethrow_exception(error);
  }
  co_return std::accumulate(values.begin(), values.end(), 0L);
}
// [docs:catch_join_rethrow end]
// clang-format on

// clang-format off
// [docs:stack_alloc]
tine::task<long> square(long i) { co_return i * i; }

tine::task<long> sum_of_squares(std::size_t n) {
  // Outside a fork-join scope a task may allocate on its own stack: no heap, cannot overflow.
  tine::stack_array<long> parts = co_await tine::stack_alloc<long>(n);
  for (std::size_t i = 0; i < n; ++i) {
    co_await tine::fork(&parts[i], square, static_cast<long>(i));
  }
  co_await tine::join();
  long total = 0;
  for (long p : parts) {
    total += p;
  }
  co_return total;  // parts is freed here, in FILO order with the frame
}
// [docs:stack_alloc end]
// clang-format on

// clang-format off
// [docs:resume_on]
tine::task<int> on_two_threads(tine::inline_scheduler* io_thread) {
  long before = 0;
  co_await tine::call(&before, fib, 20);  // runs wherever this task started
  co_await tine::resume_on(*io_thread);   // now on io_thread's worker, with its stack
  // ... talk to an API that must be used from this one thread ...
  long after = 0;
  co_await tine::call(&after, fib, 20);
  co_await tine::join();
  co_return before == after ? 0 : 1;
}
// [docs:resume_on end]
// clang-format on

}  // namespace tour

BOOST_AUTO_TEST_SUITE(tour_examples)

BOOST_AUTO_TEST_CASE(fib_example) {
  // clang-format off
  // [docs:sync_wait]
  tine::inline_scheduler sched;         // one worker thread: deterministic, for tests
  long r = tine::sync_wait(sched, tour::fib, 30);  // blocks this (non-worker) thread
  // [docs:sync_wait end]
  // clang-format on
  BOOST_TEST(r == 832040);
}

BOOST_AUTO_TEST_CASE(void_tasks_example) {
  tine::inline_scheduler sched;
  std::vector<int> hits(50);
  tine::sync_wait(sched, tour::visit, &hits, 0);
  for (int h : hits) {
    BOOST_TEST(h == 1);
  }
}

BOOST_AUTO_TEST_CASE(exceptions_example) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, tour::parse_pair, std::string("20"), std::string("22")) == 42);
  BOOST_TEST(tine::sync_wait(sched, tour::parse_pair, std::string("20"), std::string("")) == -1);
  // clang-format off
  // [docs:exceptions_caller]
  try {
    tine::sync_wait(sched, tour::parse, std::string(""));
  } catch (const std::invalid_argument& e) {
    // sync_wait rethrows what escaped the root task
  }
  // [docs:exceptions_caller end]
  // clang-format on
  BOOST_CHECK_THROW(tine::sync_wait(sched, tour::parse, std::string("")), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(catch_join_rethrow_example) {
  tine::inline_scheduler sched;
  std::vector<std::string> fields = {"1", "2", "39"};
  BOOST_TEST(tine::sync_wait(sched, tour::checked_sum, &fields) == 42);
  fields.push_back("");
  BOOST_CHECK_THROW(tine::sync_wait(sched, tour::checked_sum, &fields), std::invalid_argument);
  fields.assign(101, "1");
  BOOST_CHECK_THROW(tine::sync_wait(sched, tour::checked_sum, &fields), std::length_error);
}

BOOST_AUTO_TEST_CASE(stack_alloc_example) {
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, tour::sum_of_squares, std::size_t{100}) == 328350L);
}

BOOST_AUTO_TEST_CASE(resume_on_example) {
  tine::inline_scheduler main_sched;
  tine::inline_scheduler io_thread;
  BOOST_TEST(tine::sync_wait(main_sched, tour::on_two_threads, &io_thread) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
