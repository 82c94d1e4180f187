// The examples of docs/execution.md ("tine and std::execution"), compiled and run: every
// [docs:NAME] region below appears verbatim on the page (execution_snippets_test checks it).
// Built only with stdexec (docs/build.md).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <exec/static_thread_pool.hpp>
#include <stdexec/execution.hpp>
#include <tine/execution/execution.hpp>
#include <tine/tine.hpp>

namespace exdocs {

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

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

// [docs:exec-scheduler]
namespace ex = stdexec;  // std::execution, once a standard library ships it

long first_example() {
  tine::lazy_pool<> pool;
  auto sch = tine::execution::scheduler(pool);  // a P2300 scheduler for any tine scheduler
  auto s = ex::starts_on(sch, ex::just(30) | ex::then([](int n) { return fib_serial(n); }));
  auto [r] = ex::sync_wait(std::move(s)).value();
  return r;  // 832040
}
// [docs:exec-scheduler end]

// [docs:exec-bulk]
std::vector<double> doubled(tine::lazy_pool<>& pool, const std::vector<double>& in) {
  std::vector<double> out(in.size());
  auto sch = tine::execution::scheduler(pool);
  ex::sync_wait(ex::schedule(sch) |
                ex::bulk(ex::par, in.size(), [&](std::size_t i) { out[i] = 2 * in[i]; }));
  return out;
}
// [docs:exec-bulk end]

// [docs:exec-as-sender]
long task_as_sender(tine::lazy_pool<>& pool) {
  auto sch = tine::execution::scheduler(pool);
  auto both = ex::when_all(tine::execution::as_sender(pool, fib, 30),  // fork-join inside
                           ex::starts_on(sch, ex::just(12)));
  auto [f, twelve] = ex::sync_wait(std::move(both)).value();
  return f + twelve;  // 832052
}
// [docs:exec-as-sender end]

tine::task<long> count_until_stopped(std::atomic<bool>* started) {
  started->store(true);
  long n = 0;
  while (!tine::stop_requested()) {
    ++n;
    std::this_thread::yield();
  }
  long a = 0;
  co_await tine::fork(&a, fib, 20);  // a stopped root's fork does not start its child
  co_await tine::join();             // ... so this throws tine::cancelled
  co_return n;
}

std::string read_page_from_disk(int page) { return "page " + std::to_string(page) + ": 42"; }

long count_digits(const std::string& text) {
  long n = 0;
  for (char c : text) {
    n += c >= '0' && c <= '9' ? 1 : 0;
  }
  return n;
}

// [docs:exec-await]
tine::task<long> digits_of(const std::string* text) { co_return count_digits(*text); }

// A task on a tine pool awaits a sender of another scheduler (here stdexec's own thread pool,
// standing in for an I/O scheduler): its worker steals meanwhile, and the task goes on on a tine
// worker once the page is read.
tine::task<long> digits_on_page(exec::static_thread_pool::scheduler io, int page) {
  std::string text = co_await ex::starts_on(io, ex::just(page) | ex::then(read_page_from_disk));
  long digits = 0;
  long more = 0;
  co_await tine::fork(&digits, digits_of, &text);
  co_await tine::call(&more, fib, 10);
  co_await tine::join();
  co_return digits + more;
}
// [docs:exec-await end]

// [docs:exec-stop]
bool stopped_by_the_receiver(tine::lazy_pool<>& pool) {
  ex::inplace_stop_source stop;
  std::atomic<bool> started{false};
  auto s = tine::execution::as_sender(pool, count_until_stopped, &started) |
           ex::write_env(ex::prop(ex::get_stop_token, stop.get_token()));
  std::thread canceller([&] {
    while (!started.load()) {
      std::this_thread::yield();
    }
    stop.request_stop();  // tine::stop_requested() turns true in the root's tasks
  });
  auto result = ex::sync_wait(std::move(s));  // set_stopped: an empty optional
  canceller.join();
  return !result.has_value();
}
// [docs:exec-stop end]

// [docs:exec-errors]
std::string error_of_a_task(tine::lazy_pool<>& pool) {
  auto failing = [](int n) -> tine::task<int> {
    if (n > 0) {
      throw std::runtime_error("no positive input");
    }
    co_return n;
  };
  try {
    ex::sync_wait(tine::execution::as_sender(pool, failing, 1));  // set_error, rethrown here
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}
// [docs:exec-errors end]

}  // namespace exdocs

BOOST_AUTO_TEST_CASE(execution_page_examples) {
  BOOST_TEST(exdocs::first_example() == 832040);
  tine::lazy_pool<> pool(2);
  const std::vector<double> in{1, 2, 3, 4.5};
  BOOST_TEST((exdocs::doubled(pool, in) == std::vector<double>{2, 4, 6, 9}));
  BOOST_TEST(exdocs::task_as_sender(pool) == 832052);
  BOOST_TEST(exdocs::stopped_by_the_receiver(pool));
  BOOST_TEST(exdocs::error_of_a_task(pool) == "no positive input");
  exec::static_thread_pool io(1);
  BOOST_TEST(tine::sync_wait(pool, exdocs::digits_on_page, io.get_scheduler(), 7) == 3 + 55);
}
