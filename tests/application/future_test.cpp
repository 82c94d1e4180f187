// tine::spawn and tine::future on every scheduler: results and exceptions through get(), the
// non-blocking queries, co_await from tasks (on one pool and across two, both ways) and from a
// plain coroutine, callbacks, futures dropped early, detached roots at shutdown, blocking calls
// refused on workers, and thousands of spawns from several threads at once.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <exception>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

namespace {

using namespace std::chrono_literals;

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

tine::task<long> fails(std::string message) {
  throw std::invalid_argument(message);
  co_return 0;
}

// Busy for `ms` milliseconds, checking for a stop every so often.
tine::task<int> busy_for(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    if (tine::stop_requested()) {
      co_return -1;
    }
  }
  co_return ms;
}

// A task that spawns fib on `other` and awaits it, with work of its own meanwhile.
template <typename Other>
tine::task<long> both(Other* other, int n) {
  tine::future<long> g = tine::spawn(*other, fib, n);
  long a = 0;
  co_await tine::call(&a, fib, n - 1);
  co_return a + co_await std::move(g);
}

template <typename Scheduler>
void basics(Scheduler& sched) {
  tine::future<long> f = tine::spawn(sched, fib, 20);
  BOOST_TEST(f.valid());
  BOOST_TEST(f.get() == 6765);
  BOOST_TEST(!f.valid());

  tine::future<long> g = tine::spawn(sched, fails, std::string("no"));
  g.wait();
  BOOST_TEST(g.ready());
  BOOST_CHECK_THROW(g.get(), std::invalid_argument);

  tine::future<int> slow = tine::spawn(sched, busy_for, 200);
  BOOST_TEST(!slow.ready());
  BOOST_TEST((slow.wait_for(1ms) == std::future_status::timeout));
  BOOST_TEST((slow.wait_for(60s) == std::future_status::ready));
  BOOST_TEST(slow.get() == 200);

  // Awaited inside a task of the same scheduler, and of a plain C++ coroutine.
  BOOST_TEST(tine::sync_wait(sched, both<Scheduler>, &sched, 18) ==
             serial_fib(17) + serial_fib(18));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(future_basics)

BOOST_AUTO_TEST_CASE(on_every_scheduler) {
  {
    tine::busy_pool<> pool(2);
    basics(pool);
  }
  {
    tine::lazy_pool<> pool(2);
    basics(pool);
  }
  {
    tine::inline_scheduler sched;
    basics(sched);
  }
  {
    tine::testing::simple_pool pool(2);
    basics(pool);
  }
}

BOOST_AUTO_TEST_CASE(awaited_across_two_pools_both_ways) {
  tine::lazy_pool<> a(1);
  tine::busy_pool<> b(1);
  BOOST_TEST(tine::sync_wait(a, both<tine::busy_pool<>>, &b, 20) ==
             serial_fib(19) + serial_fib(20));
  BOOST_TEST(tine::sync_wait(b, both<tine::lazy_pool<>>, &a, 20) ==
             serial_fib(19) + serial_fib(20));
  // Spawned roots that await each other's pool.
  std::vector<tine::future<long>> fs;
  for (int i = 0; i < 50; ++i) {
    if (i % 2 == 0) {
      fs.push_back(tine::spawn(a, both<tine::busy_pool<>>, &b, 10 + i % 7));
    } else {
      fs.push_back(tine::spawn(b, both<tine::lazy_pool<>>, &a, 10 + i % 7));
    }
  }
  for (int i = 0; i < 50; ++i) {
    BOOST_TEST(fs[static_cast<std::size_t>(i)].get() ==
               serial_fib(9 + i % 7) + serial_fib(10 + i % 7));
  }
}

BOOST_AUTO_TEST_CASE(callbacks) {
  tine::lazy_pool<> pool(2);
  std::atomic<int> called{0};
  tine::future<long> f = tine::spawn(pool, fib, 15);
  f.on_complete([&] { called.fetch_add(1); });
  BOOST_TEST(f.get() == 610);
  BOOST_TEST(called.load() == 1);
  // Already complete: runs at once, here.
  tine::future<long> g = tine::spawn(pool, fib, 5);
  g.wait();
  g.on_complete([&] { called.fetch_add(1); });
  BOOST_TEST(called.load() == 2);
  BOOST_TEST(g.get() == 5);
  // One continuation per future while it waits.
  tine::future<int> slow = tine::spawn(pool, busy_for, 100);
  slow.on_complete([&] { called.fetch_add(1); });
  BOOST_CHECK_THROW(slow.on_complete([] {}), std::logic_error);
  BOOST_TEST(slow.get() == 100);
  BOOST_TEST(called.load() == 3);
}

// ready() turns true, and get and wait return, only after the callback has returned: a callback
// may capture the getter's locals. The callback sleeps, so a getter that did not wait for it
// would see the flag unset nearly every time.
BOOST_AUTO_TEST_CASE(get_and_wait_return_after_the_callback) {
  tine::busy_pool<> pool(2);
  for (int i = 0; i < 20; ++i) {
    bool done = false;  // plain: get() must order the callback's write before it returns
    tine::future<int> f = tine::spawn(pool, busy_for, 5);
    f.on_complete([&done] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      done = true;
    });
    if (i % 2 == 0) {
      while (!f.ready()) {  // polls, as an event loop would
      }
      BOOST_TEST(done);
    } else {
      f.wait();
      BOOST_TEST(done);
    }
    BOOST_TEST(f.get() == 5);
    BOOST_TEST(done);
  }
}

BOOST_AUTO_TEST_CASE(blocking_on_a_worker_is_refused) {
  tine::lazy_pool<> pool(2);
  const auto try_get = [&pool]() -> tine::task<std::string> {
    tine::future<int> f = tine::spawn(pool, busy_for, 50);
    std::string what;
    try {
      (void)f.get();
    } catch (const std::logic_error& e) {
      what = e.what();
    }
    f.request_stop();  // dropped pending on a worker: stopped on purpose
    co_return what;
  };
  const std::string what = tine::sync_wait(pool, try_get);
  BOOST_TEST(what.find("tine::future::get: called on a tine worker thread") == 0);
  BOOST_TEST(what.find("co_await std::move(future)") != std::string::npos);
}

// Roots a task spawns on its own pool run beside each other, on other workers: two roots that
// each wait (without forking) until both have started finish only if they run at once.
std::atomic<int> rendezvous{0};

tine::task<int> meet(int expected) {
  rendezvous.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (rendezvous.load() < expected && std::chrono::steady_clock::now() < until) {
  }
  co_return rendezvous.load() >= expected ? 1 : 0;
}

tine::task<int> spawns_beside_itself(int n) {
  std::vector<tine::future<int>> fs;
  for (int i = 0; i < n; ++i) {
    fs.push_back(tine::spawn(tine::current_scheduler(), meet, n));
  }
  int met = 0;
  for (int v : co_await tine::when_all(std::move(fs))) {
    met += v;
  }
  co_return met;
}

BOOST_AUTO_TEST_CASE(roots_spawned_by_a_task_run_beside_each_other) {
  {
    tine::busy_pool<> pool(3);
    rendezvous.store(0);
    BOOST_TEST(tine::sync_wait(pool, spawns_beside_itself, 3) == 3);
  }
  {
    tine::lazy_pool<> pool(3);
    rendezvous.store(0);
    BOOST_TEST(tine::sync_wait(pool, spawns_beside_itself, 3) == 3);
  }
}

BOOST_AUTO_TEST_CASE(dropped_early_stops_and_waits) {
  tine::busy_pool<> pool(2);
  const auto start = std::chrono::steady_clock::now();
  {
    tine::future<int> f = tine::spawn(pool, busy_for, 60000);  // checks for a stop
    std::this_thread::sleep_for(5ms);
  }  // requests a stop, and waits
  BOOST_TEST((std::chrono::steady_clock::now() - start < 30s));
}

BOOST_AUTO_TEST_CASE(detached_roots_finish_before_the_pool_goes) {
  std::atomic<int> done{0};
  std::atomic<int> reported{0};
  auto previous = tine::set_detached_exception_handler([&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::invalid_argument&) {
      reported.fetch_add(1);
    }
  });
  const auto count = [&done](int ms) -> tine::task<void> {
    co_await tine::call(busy_for, ms);
    done.fetch_add(1);
  };
  {
    tine::lazy_pool<> pool(2);
    for (int i = 0; i < 20; ++i) {
      tine::spawn(pool, count, 5).detach();
    }
    tine::spawn(pool, fails, std::string("detached")).detach();
  }  // the destructor waits for the detached roots
  BOOST_TEST(done.load() == 20);
  BOOST_TEST(reported.load() == 1);
  tine::set_detached_exception_handler(std::move(previous));
}

BOOST_AUTO_TEST_CASE(thousands_of_spawns_from_several_threads) {
  tine::lazy_pool<> pool(2);
  constexpr int threads = 4;
  constexpr int each = 1500;
  std::atomic<int> wrong{0};
  std::vector<std::thread> spawners;
  for (int t = 0; t < threads; ++t) {
    spawners.emplace_back([&, t] {
      std::vector<tine::future<long>> fs;
      fs.reserve(each);
      for (int i = 0; i < each; ++i) {
        fs.push_back(tine::spawn(pool, fib, (t + i) % 15));
      }
      for (int i = 0; i < each; ++i) {
        if (fs[static_cast<std::size_t>(i)].get() != serial_fib((t + i) % 15)) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& s : spawners) {
    s.join();
  }
  BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_CASE(when_all_of_several) {
  tine::lazy_pool<> a(1);
  tine::busy_pool<> b(1);
  auto both = tine::when_all(
      tine::spawn(a, fib, 20), tine::spawn(b, busy_for, 20),
      tine::spawn(
          a, [](int n) -> tine::task<void> { co_await tine::call(busy_for, n); }, 5));
  auto [x, y, z] = both.get();
  BOOST_TEST(x == 6765);
  BOOST_TEST(y == 20);
  (void)z;  // std::monostate for the void one

  std::vector<tine::future<long>> many;
  for (int i = 0; i < 30; ++i) {
    many.push_back(tine::spawn(
        i % 2 == 0 ? static_cast<tine::scheduler_ref>(a) : static_cast<tine::scheduler_ref>(b), fib,
        i % 20));
  }
  const std::vector<long> values = tine::when_all(std::move(many)).get();
  BOOST_TEST(values.size() == 30u);
  for (int i = 0; i < 30; ++i) {
    BOOST_TEST(values[static_cast<std::size_t>(i)] == serial_fib(i % 20));
  }

  // The first failure in argument order, after all are done.
  auto failing =
      tine::when_all(tine::spawn(a, busy_for, 30), tine::spawn(b, fails, std::string("x")));
  BOOST_CHECK_THROW(failing.get(), std::invalid_argument);

  // Empty, and awaited inside a task.
  tine::when_all(std::vector<tine::future<void>>{}).get();
  const auto awaits = [&a, &b]() -> tine::task<long> {
    auto [p, q] = co_await tine::when_all(tine::spawn(a, fib, 12), tine::spawn(b, fib, 13));
    co_return p + q;
  };
  BOOST_TEST(tine::sync_wait(a, awaits) == serial_fib(14));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// The smallest C++20 coroutine that is not a tine task: it runs eagerly and records its result.
struct plain_coroutine {
  struct promise_type {
    plain_coroutine get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

plain_coroutine await_from_plain(tine::future<long> f, std::atomic<long>* out,
                                 std::atomic<bool>* on_a_worker) {
  const long v = co_await std::move(f);
  on_a_worker->store(tine::current_worker() != nullptr);  // resumed by the completing worker
  out->store(v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(future_from_other_coroutines)

BOOST_AUTO_TEST_CASE(resumes_on_the_completing_thread) {
  tine::busy_pool<> pool(2);
  std::atomic<long> out{-1};
  std::atomic<bool> on_a_worker{false};
  await_from_plain(tine::spawn(pool, fib, 25), &out, &on_a_worker);
  for (int i = 0; i < 20000 && out.load() < 0; ++i) {
    std::this_thread::sleep_for(1ms);
  }
  BOOST_TEST(out.load() == 75025);
  BOOST_TEST(on_a_worker.load());
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// tine::reducer's views follow a task that awaits a future: the strand's record waits with the
// task and comes back with it, so the string is the serial one whatever ran meanwhile.
struct concat {
  using value_type = std::string;
  static value_type identity() { return {}; }
  static void reduce(value_type& left, value_type& right) { left += right; }
};

template <typename Other>
tine::task<void> tagged_tree(int depth, int id, tine::reducer<concat>* out, Other* other) {
  out->view() += "<" + std::to_string(id);
  if (depth > 0) {
    co_await tine::fork(tagged_tree<Other>, depth - 1, 2 * id, out, other);
    co_await tine::fork(tagged_tree<Other>, depth - 1, 2 * id + 1, out, other);
    co_await tine::join();
  }
  if (id % 3 == 0) {
    const long f = co_await tine::spawn(*other, fib, 12);
    out->view() += ":" + std::to_string(f);
  }
  out->view() += ">";
}

void serial_tagged_tree(int depth, int id, std::string& out) {
  out += "<" + std::to_string(id);
  if (depth > 0) {
    serial_tagged_tree(depth - 1, 2 * id, out);
    serial_tagged_tree(depth - 1, 2 * id + 1, out);
  }
  if (id % 3 == 0) {
    out += ":" + std::to_string(serial_fib(12));
  }
  out += ">";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(future_and_reducers)

BOOST_AUTO_TEST_CASE(reducer_views_wait_with_the_task) {
  std::string expected;
  serial_tagged_tree(7, 1, expected);
  tine::busy_pool<> pool(2);
  tine::lazy_pool<> other(1);
  for (int round = 0; round < 20; ++round) {
    tine::reducer<concat> same;
    tine::sync_wait(pool, tagged_tree<tine::busy_pool<>>, 7, 1, &same, &pool);
    BOOST_TEST(same.get() == expected);
    tine::reducer<concat> elsewhere;
    tine::future<void> f =
        tine::spawn(pool, tagged_tree<tine::lazy_pool<>>, 7, 1, &elsewhere, &other);
    f.get();
    BOOST_TEST(elsewhere.get() == expected);
  }
}

BOOST_AUTO_TEST_SUITE_END()
