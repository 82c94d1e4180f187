// tine::execution: the P2300 scheduler of every tine scheduler, bulk as tine's loop, tasks as
// senders, stop tokens both ways, errors on every channel, and every started operation
// completing exactly once (also when stopped at random moments and when the pool shuts down).
// One translation unit: stdexec's headers are slow to compile.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <exec/static_thread_pool.hpp>
#include <stdexec/execution.hpp>

#include <tine/core/core.hpp>
#include <tine/execution/execution.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/core/watchdog.hpp"
#include "tests/failing_new.hpp"

namespace ex = stdexec;
using namespace std::chrono_literals;

namespace {

using tine_tests::watchdog;

// Every kind of tine scheduler: both pools, the inline scheduler, the conformance kit's
// simple_pool (a user scheduler, written against the concepts only).
struct lazy2 {
  tine::lazy_pool<> s{2};
};
struct busy2 {
  tine::busy_pool<> s{2};
};
struct inline1 {
  tine::inline_scheduler s;
};
struct simple2 {
  tine::testing::simple_pool s{2};
};
using all_schedulers = std::tuple<lazy2, busy2, inline1, simple2>;

// A user scheduler that refuses every submission (its schedule throws).
struct refusing_scheduler {
  void schedule(tine::submit_node*) { throw std::runtime_error("no room"); }
};

template <typename S>
constexpr bool models_p2300() {
  using P = tine::execution::scheduler<S>;
  static_assert(ex::scheduler<P>);
  static_assert(std::copyable<P>);
  static_assert(std::equality_comparable<P>);
  return true;
}
static_assert(models_p2300<tine::lazy_pool<>>() && models_p2300<tine::busy_pool<>>() &&
              models_p2300<tine::inline_scheduler>() &&
              models_p2300<tine::testing::simple_pool>() && models_p2300<tine::scheduler_ref>() &&
              models_p2300<refusing_scheduler>());

// What schedule(sch) declares: an error only where the tine scheduler's schedule may throw, a
// stop only for a receiver whose token can be stopped.
template <typename S, typename Env>
using schedule_completions =
    ex::completion_signatures_of_t<ex::schedule_result_t<tine::execution::scheduler<S>>, Env>;
using stoppable_env = ex::prop<ex::get_stop_token_t, ex::inplace_stop_token>;
static_assert(std::same_as<schedule_completions<tine::lazy_pool<>, ex::env<>>,
                           ex::completion_signatures<ex::set_value_t()>>);
static_assert(std::same_as<schedule_completions<tine::lazy_pool<>, stoppable_env>,
                           ex::completion_signatures<ex::set_value_t(), ex::set_stopped_t()>>);
static_assert(std::same_as<
              schedule_completions<refusing_scheduler, ex::env<>>,
              ex::completion_signatures<ex::set_value_t(), ex::set_error_t(std::exception_ptr)>>);

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

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

tine::task<void> throws_after_forks(int n) {
  long a = 0;
  co_await tine::fork(&a, fib, n);
  co_await tine::join();
  throw std::runtime_error("task failed");
}

// Spins until its root is stopped (or 20 s pass); counts the tasks that saw the stop.
std::atomic<int> spinning{0};
tine::task<int> spin_until_stopped() {
  spinning.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (!tine::stop_requested() && std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
  long a = 0;
  co_await tine::fork(&a, fib, 10);  // a stopped root's fork does not start: tine::cancelled
  co_await tine::join();
  co_return 1;
}

tine::task<int> stops_its_own_root() {
  tine::request_stop();
  long a = 0;
  co_await tine::fork(&a, fib, 10);
  co_await tine::join();
  co_return 2;
}

// A receiver that records how it was completed, with a stop source of its own.
struct record {
  std::atomic<int> values{0};
  std::atomic<int> errors{0};
  std::atomic<int> stops{0};
  std::atomic<long> value{0};
  std::exception_ptr error;
  ex::inplace_stop_source stop;
  int completions() const { return values.load() + errors.load() + stops.load(); }
  void wait_done() const {
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (completions() == 0 && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(50us);
    }
  }
};

struct recording_receiver {
  using receiver_concept = ex::receiver_t;
  record* r;
  struct env {
    record* r;
    ex::inplace_stop_token query(ex::get_stop_token_t) const noexcept {
      return r->stop.get_token();
    }
  };
  env get_env() const noexcept { return {r}; }
  void set_value() && noexcept { r->values.fetch_add(1); }
  template <typename V>
  void set_value(V v) && noexcept {
    r->value.store(static_cast<long>(v));
    r->values.fetch_add(1);
  }
  void set_error(std::exception_ptr e) && noexcept {
    r->error = e;
    r->errors.fetch_add(1);
  }
  void set_stopped() && noexcept { r->stops.fetch_add(1); }
};

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(scheduler_concept_queries_and_equality, S, all_schedulers) {
  S a;
  S b;
  const auto sa = tine::execution::scheduler(a.s);
  const auto sa2 = tine::execution::scheduler(a.s);
  const auto sb = tine::execution::scheduler(b.s);
  BOOST_TEST((sa == sa2));
  BOOST_TEST(!(sa == sb));
  BOOST_TEST((ex::get_forward_progress_guarantee(sa) == ex::forward_progress_guarantee::parallel));
  auto sender = ex::schedule(sa);
  BOOST_TEST((ex::get_completion_scheduler<ex::set_value_t>(ex::get_env(sender)) == sa));
  BOOST_TEST(&sa.tine_scheduler() == &a.s);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(plain_sender_code_runs_on_a_worker_never_inline, S, all_schedulers) {
  watchdog dog(60s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  const auto caller = std::this_thread::get_id();
  auto s =
      ex::starts_on(sch, ex::just(20) | ex::then([caller](int n) {
                           return std::pair(fib_serial(n), std::this_thread::get_id() != caller);
                         }));
  auto [r] = ex::sync_wait(std::move(s)).value();
  BOOST_TEST(r.first == 6765);
  BOOST_TEST(r.second);
  // continues_on: from another pool's thread back to tine's.
  exec::static_thread_pool other(1);
  auto t = ex::starts_on(other.get_scheduler(), ex::just(3)) | ex::continues_on(sch) |
           ex::then([caller](int x) { return x * (std::this_thread::get_id() != caller ? 2 : 0); });
  auto [y] = ex::sync_wait(std::move(t)).value();
  BOOST_TEST(y == 6);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(thousands_of_schedules_from_several_threads, S, all_schedulers) {
  watchdog dog(120s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  constexpr int threads = 4;
  constexpr int each = 1000;
  std::atomic<long> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < each; ++i) {
        const int x = t * each + i;
        auto [v] = ex::sync_wait(
                       ex::starts_on(sch, ex::just(x) | ex::then([](int y) { return 3L * y + 1; })))
                       .value();
        if (v != 3L * x + 1) {
          wrong.fetch_add(1);
        }
        if (i % 100 == 0) {
          std::vector<int> out(1000, 0);
          ex::sync_wait(ex::schedule(sch) | ex::bulk(ex::par, out.size(), [&](std::size_t k) {
                          out[k] = static_cast<int>(k) + x;
                        }));
          for (std::size_t k = 0; k < out.size(); ++k) {
            if (out[k] != static_cast<int>(k) + x) {
              wrong.fetch_add(1);
            }
          }
        }
      }
    });
  }
  for (auto& t : ts) {
    t.join();
  }
  BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bulk_runs_as_tine_loop, S, all_schedulers) {
  watchdog dog(60s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  const std::size_t n = 100'000;
  std::vector<int> hits(n, 0);
  std::atomic<int> outside_tasks{0};
  auto b = ex::schedule(sch) | ex::then([] { return 7; }) |
           ex::bulk(ex::par, n, [&](std::size_t i, int& seven) {
             hits[i] += seven;
             // Inside a tine task (tine's loop), a root's stop token can be stopped.
             if (!tine::get_stop_token().stop_possible()) {
               outside_tasks.fetch_add(1);
             }
           });
  auto [seven] = ex::sync_wait(std::move(b)).value();
  BOOST_TEST(seven == 7);
  BOOST_TEST(outside_tasks.load() == 0);
  BOOST_TEST(std::count(hits.begin(), hits.end(), 7) == static_cast<long>(n));

  // bulk_chunked: the pieces cover [0, n) exactly once.
  std::vector<int> covered(n, 0);
  std::atomic<int> chunks{0};
  ex::sync_wait(ex::schedule(sch) |
                ex::bulk_chunked(ex::par, n, [&](std::size_t lo, std::size_t hi) {
                  chunks.fetch_add(1);
                  for (std::size_t i = lo; i < hi; ++i) {
                    ++covered[i];
                  }
                }));
  BOOST_TEST(std::count(covered.begin(), covered.end(), 1) == static_cast<long>(n));
  BOOST_TEST(chunks.load() >= 1);

  // bulk_unchunked: once per index.
  std::vector<int> once(1000, 0);
  ex::sync_wait(ex::schedule(sch) |
                ex::bulk_unchunked(ex::par, once.size(), [&](std::size_t i) { ++once[i]; }));
  BOOST_TEST(std::count(once.begin(), once.end(), 1) == 1000);

  // seq: in order, on one thread.
  std::vector<std::size_t> order;
  ex::sync_wait(ex::schedule(sch) |
                ex::bulk(ex::seq, 5000, [&](std::size_t i) { order.push_back(i); }));
  std::vector<std::size_t> want(5000);
  std::iota(want.begin(), want.end(), std::size_t{0});
  BOOST_TEST((order == want));

  // An empty shape calls nothing and sends the values on.
  auto [v] = ex::sync_wait(ex::schedule(sch) | ex::then([] { return 5; }) |
                           ex::bulk(ex::par, 0, [&](int, int&) { outside_tasks.fetch_add(100); }))
                 .value();
  BOOST_TEST(v == 5);
  BOOST_TEST(outside_tasks.load() == 0);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bulk_errors_and_nested_forks, S, all_schedulers) {
  watchdog dog(60s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  // A body that throws: set_error, which sync_wait rethrows.
  auto b = ex::schedule(sch) | ex::bulk(ex::par, 10'000, [](std::size_t i) {
             if (i == 4321) {
               throw std::runtime_error("body 4321");
             }
           });
  BOOST_CHECK_EXCEPTION(
      ex::sync_wait(std::move(b)), std::runtime_error,
      [](const std::runtime_error& e) { return std::string(e.what()) == "body 4321"; });
  // A predecessor's error passes through, the body is not called.
  std::atomic<int> calls{0};
  auto c = ex::schedule(sch) | ex::then([]() -> int { throw std::logic_error("before"); }) |
           ex::bulk(ex::par, 10, [&](std::size_t, int) { calls.fetch_add(1); });
  BOOST_CHECK_THROW(ex::sync_wait(std::move(c)), std::logic_error);
  BOOST_TEST(calls.load() == 0);
  // Nested: a body that returns a tine task runs it as a child, which forks and joins.
  std::vector<long> fibs(64, 0);
  ex::sync_wait(ex::schedule(sch) | ex::then([] { return 16; }) |
                ex::bulk(ex::par, fibs.size(),
                         [out = &fibs](std::size_t i, int& modulus) -> tine::task<void> {
                           long r = 0;
                           co_await tine::fork(&r, fib, static_cast<int>(i) % modulus);
                           co_await tine::join();
                           (*out)[i] = r;
                         }));
  for (std::size_t i = 0; i < fibs.size(); ++i) {
    BOOST_TEST(fibs[i] == fib_serial(static_cast<int>(i % 16)));
  }
  // ... and a chunked one, each piece a task over its range.
  std::vector<long> sums(4096, 0);
  ex::sync_wait(ex::schedule(sch) |
                ex::bulk_chunked(ex::par, sums.size(),
                                 [out = &sums](std::size_t lo, std::size_t hi) -> tine::task<void> {
                                   for (std::size_t i = lo; i < hi; ++i) {
                                     long r = 0;
                                     co_await tine::call(&r, fib, static_cast<int>(i % 8));
                                     (*out)[i] = r;
                                   }
                                 }));
  for (std::size_t i = 0; i < sums.size(); ++i) {
    BOOST_TEST_REQUIRE(sums[i] == fib_serial(static_cast<int>(i % 8)));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(tasks_as_senders, S, all_schedulers) {
  watchdog dog(60s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  auto [f] = ex::sync_wait(tine::execution::as_sender(pool.s, fib, 22)).value();
  BOOST_TEST(f == 17711);
  auto both =
      ex::when_all(tine::execution::as_sender(sch, fib, 20), ex::starts_on(sch, ex::just(1)));
  auto [x, y] = ex::sync_wait(std::move(both)).value();
  BOOST_TEST(x == 6765);
  BOOST_TEST(y == 1);
  // A sender can be connected twice when its arguments copy.
  auto s = tine::execution::as_sender(pool.s, fib, 15);
  auto [a] = ex::sync_wait(s).value();
  auto [b] = ex::sync_wait(s).value();
  BOOST_TEST(a == 610);
  BOOST_TEST(b == 610);
  // The task's exception: set_error, rethrown by sync_wait.
  BOOST_CHECK_EXCEPTION(
      ex::sync_wait(tine::execution::as_sender(pool.s, throws_after_forks, 12)), std::runtime_error,
      [](const std::runtime_error& e) { return std::string(e.what()) == "task failed"; });
  // A root stopped by tine itself: set_stopped (sync_wait gives an empty optional).
  BOOST_TEST(!ex::sync_wait(tine::execution::as_sender(pool.s, stops_its_own_root)).has_value());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(receiver_stop_reaches_the_root, S, all_schedulers) {
  watchdog dog(60s);
  S pool;
  // Stopped before start: set_stopped, nothing spawned.
  {
    record r;
    r.stop.request_stop();
    spinning.store(0);
    auto op =
        ex::connect(tine::execution::as_sender(pool.s, spin_until_stopped), recording_receiver{&r});
    ex::start(op);
    r.wait_done();
    BOOST_TEST(r.stops.load() == 1);
    BOOST_TEST(r.completions() == 1);
    BOOST_TEST(spinning.load() == 0);
  }
  // Stopped while running: tine::stop_requested() turns true, the root's fork does not start,
  // set_stopped.
  {
    record r;
    spinning.store(0);
    auto op =
        ex::connect(tine::execution::as_sender(pool.s, spin_until_stopped), recording_receiver{&r});
    ex::start(op);
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (spinning.load() == 0 && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(100us);
    }
    r.stop.request_stop();
    r.wait_done();
    BOOST_TEST(r.stops.load() == 1);
    BOOST_TEST(r.completions() == 1);
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(stops_at_random_moments_complete_exactly_once, S, all_schedulers) {
  watchdog dog(120s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  std::mt19937 rng(12345);
  constexpr int rounds = 300;
  std::vector<std::unique_ptr<record>> records;
  for (int i = 0; i < rounds; ++i) {
    records.push_back(std::make_unique<record>());
  }
  // Three kinds of operation, each stopped before start, while it runs, or after it completed.
  for (int i = 0; i < rounds; ++i) {
    record& r = *records[i];
    const int when = static_cast<int>(rng() % 3);
    const int kind = static_cast<int>(rng() % 3);
    if (when == 0) {
      r.stop.request_stop();
    }
    auto go = [&](auto&& sender) {
      auto op = ex::connect(std::move(sender), recording_receiver{&r});
      ex::start(op);
      if (when == 1) {
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
        r.stop.request_stop();
      }
      r.wait_done();
      if (when == 2) {
        r.stop.request_stop();
      }
    };
    if (kind == 0) {
      go(ex::schedule(sch));
    } else if (kind == 1) {
      go(tine::execution::as_sender(pool.s, fib, 18));
    } else {
      go(ex::schedule(sch) | ex::bulk(ex::par, 20'000, [](std::size_t) {}));
    }
    BOOST_TEST(r.completions() == 1);
    if (r.values.load() == 1 && kind == 1) {
      BOOST_TEST(r.value.load() == 2584);
    }
    if (when == 0) {
      BOOST_TEST(r.stops.load() == 1);
    }
    BOOST_TEST(r.errors.load() == 0);
  }
}

// ---- senders awaited in tasks ----

template <typename Sch>
tine::task<long> awaits_another_pool(Sch other, tine::scheduler_ref home, int n, int* wrong) {
  const long v =
      co_await ex::starts_on(other, ex::just(n) | ex::then([](int k) { return fib_serial(k); }));
  if (!(tine::current_scheduler() == home)) {
    ++*wrong;  // resumed elsewhere than on its own scheduler
  }
  long a = 0;
  co_await tine::fork(&a, fib, n);
  co_await tine::join();
  co_return v + a;
}

template <typename Sch>
tine::task<long> many_awaits(Sch other, int depth) {
  if (depth == 0) {
    co_return co_await (ex::schedule(other) | ex::then([] { return 1L; }));
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, many_awaits<Sch>, other, depth - 1);
  co_await tine::call(&b, many_awaits<Sch>, other, depth - 1);
  co_await tine::join();
  co_return a + b;
}

tine::task<int> every_channel() {
  int seen = 0;
  co_await ex::just();                      // void
  auto [i, d] = co_await ex::just(1, 2.5);  // a tuple
  const std::string s = co_await ex::just(std::string("a string, long enough to allocate"));
  if (i == 1 && d == 2.5 && s.size() == 33) {
    seen += 1;
  }
  try {
    co_await ex::just_error(std::make_exception_ptr(std::runtime_error("sent error")));
  } catch (const std::runtime_error& e) {
    seen += std::string(e.what()) == "sent error" ? 10 : 0;
  }
  try {
    co_await ex::just_error(std::make_error_code(std::errc::timed_out));
  } catch (const std::system_error& e) {
    seen += e.code() == std::errc::timed_out ? 100 : 0;
  }
  try {
    co_await ex::just_stopped();
  } catch (const tine::cancelled&) {
    seen += 1000;
  }
  co_return seen;
}

// The awaited sender's environment carries the task's stop token: a stop of the root reaches it.
tine::task<int> reads_its_stop_token(std::atomic<int>* started) {
  std::stop_token token = co_await ex::read_env(ex::get_stop_token);
  started->store(1);
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (!token.stop_requested() && std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
  co_return token.stop_requested() ? 1 : 0;
}

BOOST_AUTO_TEST_CASE_TEMPLATE(senders_awaited_in_tasks, S, all_schedulers) {
  watchdog dog(120s);
  S pool;
  exec::static_thread_pool other(2);
  int wrong = 0;
  BOOST_TEST(tine::sync_wait(pool.s, awaits_another_pool<decltype(other.get_scheduler())>,
                             other.get_scheduler(), tine::scheduler_ref(pool.s), 15,
                             &wrong) == 2 * fib_serial(15));
  BOOST_TEST(wrong == 0);
  // Across two tine pools, in both directions.
  tine::lazy_pool<> second(2);
  auto sch_pool = tine::execution::scheduler(pool.s);
  auto sch_second = tine::execution::scheduler(second);
  BOOST_TEST(tine::sync_wait(pool.s, awaits_another_pool<decltype(sch_second)>, sch_second,
                             tine::scheduler_ref(pool.s), 12, &wrong) == 2 * fib_serial(12));
  BOOST_TEST(tine::sync_wait(second, awaits_another_pool<decltype(sch_pool)>, sch_pool,
                             tine::scheduler_ref(second), 12, &wrong) == 2 * fib_serial(12));
  BOOST_TEST(wrong == 0);
  // Many awaits at once, in forked tasks, completed by the other pool's threads.
  BOOST_TEST(tine::sync_wait(pool.s, many_awaits<decltype(other.get_scheduler())>,
                             other.get_scheduler(), 9) == 512);
  BOOST_TEST(tine::sync_wait(pool.s, every_channel) == 1111);
  // A stop of the root reaches the awaited sender's stop token.
  std::atomic<int> started{0};
  tine::future<int> f = tine::spawn(pool.s, reads_its_stop_token, &started);
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (started.load() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(100us);
  }
  f.request_stop();
  BOOST_TEST(f.get() == 1);
}

// A stop requested while the loop runs skips the pieces not yet started, even when it comes
// before the loop's root is linked to the receiver's token, and the bulk completes stopped.
BOOST_AUTO_TEST_CASE_TEMPLATE(bulk_stopped_while_running, S, all_schedulers) {
  watchdog dog(60s);
  S pool;
  auto sch = tine::execution::scheduler(pool.s);
  for (int round = 0; round < 50; ++round) {
    record r;
    std::atomic<bool> first{true};
    std::atomic<long> visited{0};
    constexpr std::size_t n = 100'000;
    auto op =
        ex::connect(ex::schedule(sch) | ex::bulk(ex::par, n,
                                                 [&](std::size_t) {
                                                   if (first.exchange(false)) {
                                                     r.stop.request_stop();
                                                   }
                                                   visited.fetch_add(1, std::memory_order_relaxed);
                                                 }),
                    recording_receiver{&r});
    ex::start(op);
    r.wait_done();
    BOOST_TEST_REQUIRE(r.completions() == 1);
    BOOST_TEST(r.stops.load() == 1);
    BOOST_TEST(visited.load() < static_cast<long>(n));
  }
}

BOOST_AUTO_TEST_CASE(a_refused_submission_completes_with_set_error) {
  refusing_scheduler refusing;
  auto sch = tine::execution::scheduler(refusing);
  BOOST_CHECK_EXCEPTION(
      ex::sync_wait(ex::schedule(sch)), std::runtime_error,
      [](const std::runtime_error& e) { return std::string(e.what()) == "no room"; });
  // A scheduler_ref is held by value: the P2300 scheduler outlives the temporary reference.
  tine::lazy_pool<> pool(1);
  auto by_ref = tine::execution::scheduler(tine::scheduler_ref(pool));
  auto [v] = ex::sync_wait(ex::schedule(by_ref) | ex::then([] { return 9; })).value();
  BOOST_TEST(v == 9);
}

// Out of memory: each allocation an operation makes (on a fresh pool, whose stacks are cold)
// fails in turn. Every operation completes exactly once, with its value or with
// set_error(std::bad_alloc); the pool still works afterwards.
template <typename S, typename MakeSender>
void fail_each_allocation(const char* what, MakeSender make, long expected) {
  long failures = 0;
  long n = 1;
  for (;; ++n) {
    BOOST_TEST_REQUIRE(n < 5000, what << ": the sweep did not end");
    S pool;
    auto sch = tine::execution::scheduler(pool.s);
    record r;
    auto op = ex::connect(make(pool.s, sch), recording_receiver{&r});
    tine_tests::failing_new::arm(n);
    ex::start(op);
    r.wait_done();
    const long made = tine_tests::failing_new::disarm();
    BOOST_TEST_REQUIRE(r.completions() == 1, what << ", allocation " << n);
    if (r.errors.load() == 1) {
      ++failures;
      BOOST_CHECK_THROW(std::rethrow_exception(r.error), std::bad_alloc);
    } else {
      BOOST_TEST(r.values.load() == 1, what << ", allocation " << n);
      BOOST_TEST(r.value.load() == expected, what << ", allocation " << n);
    }
    auto [again] = ex::sync_wait(tine::execution::as_sender(pool.s, fib, 12)).value();
    BOOST_TEST(again == 144);
    if (made < n) {
      break;  // every allocation of the operation has failed once
    }
  }
  BOOST_TEST_MESSAGE(what << ": " << n - 1 << " allocations, " << failures << " reached set_error");
  BOOST_TEST(failures > 0, what << ": no failed allocation reached the receiver");
}

tine::task<long> forks_a_little(std::size_t i) {
  long a = 0;
  co_await tine::fork(&a, fib, 6);
  co_await tine::join();
  co_return a + static_cast<long>(i) - 8;
}

tine::task<void> store_forked(long* slot, std::size_t i, long k) {
  long f = 0;
  co_await tine::call(&f, forks_a_little, i);
  *slot = f + k;
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bad_alloc_reaches_the_receiver, S, all_schedulers) {
  watchdog dog(120s);
  fail_each_allocation<S>(
      "as_sender", [](auto& s, auto) { return tine::execution::as_sender(s, fib, 16); }, 987);
  std::vector<long> out(2000, 0);
  fail_each_allocation<S>(
      "bulk of tasks",
      [&out](auto&, auto sch) {
        return ex::schedule(sch) | ex::then([] { return 3L; }) |
               ex::bulk(ex::par, out.size(), [&out](std::size_t i, long& three) {
                 return store_forked(&out[i], i, three);
               });
      },
      3);
}

BOOST_AUTO_TEST_CASE(shutdown_completes_every_started_schedule) {
  watchdog dog(60s);
  constexpr int n = 2000;
  std::vector<std::unique_ptr<record>> records;
  using op_type =
      ex::connect_result_t<ex::schedule_result_t<tine::execution::scheduler<tine::lazy_pool<>>>,
                           recording_receiver>;
  std::vector<std::unique_ptr<op_type>> ops(n);
  {
    tine::lazy_pool<> pool(2);
    auto sch = tine::execution::scheduler(pool);
    for (int i = 0; i < n; ++i) {
      records.push_back(std::make_unique<record>());
      ops[i].reset(
          new op_type(ex::connect(ex::schedule(sch), recording_receiver{records.back().get()})));
      ex::start(*ops[i]);
    }
  }  // the pool's destructor waits for the submissions queued on it
  for (auto& r : records) {
    BOOST_TEST_REQUIRE(r->completions() == 1);
    BOOST_TEST(r->values.load() == 1);
  }
}
