// Foreign operations awaited in tasks through tine::await_adapter (and the example of
// docs/extending.md): completed later by another thread, inside start(), by many threads at once
// under thousands of forked awaits; results and exceptions; the awaiting task's stop token; the
// inline scheduler; a pool destroyed while a task waits; and the misuse that throws
// std::logic_error.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/core/external_await.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/watchdog.hpp"
#include "tests/queued_scheduler.hpp"

using namespace std::chrono_literals;

namespace ext {

// A value a std::thread of its own delivers after `delay` (0: inside start()); `fail` makes
// result() throw. Its operation cannot move, as a P2300 operation state.
struct delayed_value {
  int value = 0;
  std::chrono::milliseconds delay{0};
  bool fail = false;
};

std::atomic<int> adapted_count{0};
std::atomic<int> started_count{0};
std::atomic<bool> last_stop_requested{false};

struct delayed_operation {
  delayed_value what;
  std::stop_token stop;
  std::thread completer;

  delayed_operation(delayed_value v, std::stop_token s) : what(v), stop(std::move(s)) {}
  delayed_operation(const delayed_operation&) = delete;
  delayed_operation& operator=(const delayed_operation&) = delete;
  ~delayed_operation() {
    if (completer.joinable()) {
      completer.join();  // it returns right after resume()
    }
  }

  void start(tine::resume_token token) {
    last_stop_requested.store(stop.stop_requested());
    started_count.fetch_add(1);
    if (what.delay.count() == 0) {
      token.resume();
      return;
    }
    completer = std::thread([this, token] {
      std::this_thread::sleep_for(what.delay);
      token.resume();  // the last act: the task may destroy this operation from here on
    });
  }

  int result() const {
    if (what.fail) {
      throw std::runtime_error("delayed_value " + std::to_string(what.value) + " failed");
    }
    return what.value;
  }
};

// A value computed by the shared completer threads below (many threads resuming at once);
// `inline_now` completes it inside start() instead.
struct queued_value {
  int value = 0;
  bool inline_now = false;
};

struct queued_operation;

// Threads that complete queued operations in the order they were started.
class completers {
 public:
  explicit completers(int n) {
    for (int i = 0; i < n; ++i) {
      m_threads.emplace_back([this] { loop(); });
    }
  }
  ~completers() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_cv.notify_all();
    for (std::thread& t : m_threads) {
      t.join();
    }
  }
  void push(queued_operation* op) {
    {
      std::lock_guard lock(m_mutex);
      m_ops.push_back(op);
    }
    m_cv.notify_one();
  }

 private:
  void loop();

  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<queued_operation*> m_ops;
  bool m_stop = false;
  std::vector<std::thread> m_threads;
};

completers* the_completers = nullptr;

struct queued_operation {
  queued_value what;
  tine::resume_token token;
  int computed = -1;

  explicit queued_operation(queued_value v) noexcept : what(v) {}
  queued_operation(const queued_operation&) = delete;
  queued_operation& operator=(const queued_operation&) = delete;

  void start(tine::resume_token t) {
    token = t;
    if (what.inline_now) {
      complete();
    } else {
      the_completers->push(this);
    }
  }
  void complete() {
    computed = what.value * 2 + 1;
    token.resume();
  }
  int result() const { return computed; }
};

void completers::loop() {
  for (;;) {
    queued_operation* op = nullptr;
    {
      std::unique_lock lock(m_mutex);
      m_cv.wait(lock, [this] { return m_stop || !m_ops.empty(); });
      if (m_ops.empty()) {
        return;
      }
      op = m_ops.front();
      m_ops.pop_front();
    }
    op->complete();
  }
}

// Completes only when the awaiting task's stop token is stopped: shows a stop reaching an
// operation while its task waits. result() says whether it was stopped.
struct until_stopped {};

struct until_stopped_operation {
  std::stop_token stop;
  struct on_stop {
    until_stopped_operation* self;
    void operator()() const noexcept { self->token.resume(); }
  };
  tine::resume_token token;
  std::unique_ptr<std::stop_callback<on_stop>> callback;

  explicit until_stopped_operation(std::stop_token s) : stop(std::move(s)) {}
  until_stopped_operation(const until_stopped_operation&) = delete;
  until_stopped_operation& operator=(const until_stopped_operation&) = delete;

  void start(tine::resume_token t) {
    token = t;
    // Runs the callback at once if the token is already stopped.
    callback = std::make_unique<std::stop_callback<on_stop>>(stop, on_stop{this});
  }
  bool result() const { return stop.stop_requested(); }
};

// Its start() throws before any work begins.
struct refused_start {};
struct refused_start_operation {
  void start(tine::resume_token) { throw std::invalid_argument("refused to start"); }
  void result() const {}
};

}  // namespace ext

template <>
struct tine::await_adapter<ext::delayed_value> {
  static ext::delayed_operation adapt(ext::delayed_value&& v, std::stop_token stop) {
    ext::adapted_count.fetch_add(1);
    return ext::delayed_operation(v, std::move(stop));
  }
};

template <>
struct tine::await_adapter<ext::queued_value> {
  static ext::queued_operation adapt(ext::queued_value&& v, std::stop_token) {
    return ext::queued_operation(v);
  }
};

template <>
struct tine::await_adapter<ext::until_stopped> {
  static ext::until_stopped_operation adapt(ext::until_stopped&&, std::stop_token stop) {
    return ext::until_stopped_operation(std::move(stop));
  }
};

template <>
struct tine::await_adapter<ext::refused_start> {
  static ext::refused_start_operation adapt(ext::refused_start&&, std::stop_token) { return {}; }
};

// The docs' example (docs/extending.md, "Awaiting another runtime's operation"): an asynchronous
// call of another library that calls back on a thread of its own.
namespace lib {

// A constructor, not an aggregate: GCC 12 miscompiles a braced aggregate temporary with a
// std::string member as a co_await operand (in any coroutine; clang does not).
struct lookup {
  explicit lookup(std::string k) : key(std::move(k)) {}
  std::string key;
};

// Joins the threads start_lookup started (the test joins them at its end).
std::mutex threads_mutex;
std::vector<std::thread> threads;

// Calls `done(value)` later, on a thread of its own: the key's length times ten.
void start_lookup(const lookup& q, std::function<void(int)> done) {
  std::lock_guard lock(threads_mutex);
  threads.emplace_back([n = static_cast<int>(q.key.size()), done = std::move(done)] {
    std::this_thread::sleep_for(2ms);
    done(10 * n);
  });
}

void join_lookups() {
  std::lock_guard lock(threads_mutex);
  for (std::thread& t : threads) {
    t.join();
  }
  threads.clear();
}

}  // namespace lib

// [docs:await_adapter]
template <>
struct tine::await_adapter<lib::lookup> {
  // Lives in the awaiting task's frame until the co_await's full expression ends.
  struct operation {
    lib::lookup query;
    int value = 0;

    void start(tine::resume_token token) {
      lib::start_lookup(query, [this, token](int v) {
        value = v;
        token.resume();  // the last thing it does: the task may run (and end) at once
      });
    }
    int result() const { return value; }  // back on a worker of the task's scheduler
  };

  static operation adapt(lib::lookup&& q, std::stop_token /*stop*/) { return {std::move(q)}; }
};

tine::task<int> twice(std::string key) {
  const int v = co_await lib::lookup(key);  // the worker goes on with other work meanwhile
  co_return 2 * v;
}
// [docs:await_adapter end]

namespace ext {

// Awaits a delayed value; checks that the task comes back on a worker of the scheduler it ran on,
// and (for a delay) not on the completing thread.
tine::task<int> await_delayed(delayed_value v) {
  const tine::scheduler_ref home = tine::current_scheduler();
  const int r = co_await v;  // an lvalue: copied for adapt
  if (tine::current_worker() == nullptr || !(tine::current_scheduler() == home)) {
    throw std::logic_error("resumed off its scheduler");
  }
  co_return r;
}

tine::task<long> leaf_fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, leaf_fib, n - 1);
  co_await tine::call(&b, leaf_fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

std::atomic<int> wrong{0};

// Forks a tree over [lo, hi) whose leaves await queued values (one in seven inline), check their
// results and the thread they resume on, and do a little fork-join work after the await.
tine::task<long> await_many(int lo, int hi) {
  if (hi - lo == 1) {
    const auto home = tine::current_scheduler();
    const int r = co_await queued_value{lo, lo % 7 == 0};
    if (r != lo * 2 + 1 || tine::current_worker() == nullptr ||
        !(tine::current_scheduler() == home)) {
      wrong.fetch_add(1);
    }
    long f = 0;
    co_await tine::call(&f, leaf_fib, 5);
    co_return r + f - 5;  // fib(5) == 5
  }
  const int mid = lo + (hi - lo) / 2;
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, await_many, lo, mid);
  co_await tine::call(&b, await_many, mid, hi);
  co_await tine::join();
  co_return a + b;
}

long expected_many(int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) {
    s += 2L * i + 1;
  }
  return s;
}

tine::task<bool> await_until_stopped() { co_return co_await until_stopped{}; }

// Stops its own root first: the operation's token is stopped from the start.
tine::task<bool> stop_then_await() {
  tine::request_stop();
  co_return co_await until_stopped{};
}

tine::task<int> await_between_fork_and_join() {
  long a = 0;
  co_await tine::fork(&a, leaf_fib, 10);
  std::exception_ptr failure;
  try {
    (void)co_await delayed_value{1, 1ms};
  } catch (...) {
    failure = std::current_exception();
  }
  co_await tine::join();
  if (failure) {
    std::rethrow_exception(failure);
  }
  co_return 0;
}

std::atomic<bool> went_on{false};

tine::task<int> await_refused_start() {
  try {
    co_await refused_start{};
  } catch (const std::invalid_argument&) {
    went_on.store(tine::current_worker() != nullptr);
    co_return 1;
  }
  co_return 0;
}

std::atomic<bool> parked_task_finished{false};

tine::task<int> slow_then_mark(int ms) {
  const int r = co_await delayed_value{ms, std::chrono::milliseconds(ms)};
  parked_task_finished.store(true);
  co_return r;
}

// A worker backend that takes nothing: only its presence matters here.
class idle_backend final : public tine::worker_backend {
 public:
  bool offer(tine::detail::frame*, void*, tine::deque<tine::detail::frame*>&) override {
    return false;
  }
  tine::detail::frame* take_back() noexcept override { return nullptr; }
};

// One worker that polls its queue (so it runs a node the moment it is queued), and whose
// schedule() goes on for a while after queuing a task that comes back, as a pool's does when it
// wakes a worker.
// Whether a schedule() call was still running when the destructor returned is recorded in
// globals (the object is gone by then).
std::atomic<bool> slow_scheduler_destroyed{false};
std::atomic<int> scheduled_into_a_destroyed_scheduler{0};

class slow_return_scheduler {
 public:
  slow_return_scheduler() : m_thread([this] { loop(); }) {
    while (!m_ready.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
  }
  slow_return_scheduler(const slow_return_scheduler&) = delete;
  slow_return_scheduler& operator=(const slow_return_scheduler&) = delete;
  ~slow_return_scheduler() {
    while (m_pending.load(std::memory_order_acquire) != 0) {
      std::this_thread::sleep_for(100us);
    }
    m_stop.store(true, std::memory_order_release);
    m_thread.join();
    slow_scheduler_destroyed.store(true);
  }

  std::atomic<std::size_t>& pending_work() noexcept { return m_pending; }

  void schedule(tine::submit_node* node) noexcept {
    const bool task_coming_back = !node->starts_root;  // read first: the node may run at once
    m_context.submit(node);
    if (!task_coming_back) {
      return;
    }
    std::this_thread::sleep_for(30ms);
    if (slow_scheduler_destroyed.load()) {
      scheduled_into_a_destroyed_scheduler.fetch_add(1);
    }
  }

 private:
  void loop() {
    m_context.set_worker_count(1);
    m_context.set_scheduler(*this);
    m_context.bind();
    m_ready.store(true, std::memory_order_release);
    while (!m_stop.load(std::memory_order_acquire)) {
      if (!m_context.run_one_submission()) {
        std::this_thread::yield();
      }
    }
    m_context.unbind();
  }

  tine::worker_context m_context{1024, /*unshared=*/true};
  std::atomic<std::size_t> m_pending{0};
  std::atomic<bool> m_ready{false};
  std::atomic<bool> m_stop{false};
  std::thread m_thread;  // last: it starts in the constructor, with every member above made
};

tine::task<int> await_queued(int v) { co_return co_await queued_value{v, false}; }

// The same for a future, which parks its task the same way.
tine::task<long> await_future_from(tine::lazy_pool<>* other, int n) {
  co_return co_await tine::spawn(*other, leaf_fib, n);
}

template <typename Body>
std::string logic_error_text(Body body) {
  try {
    body();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "(no std::logic_error)";
}

}  // namespace ext

BOOST_AUTO_TEST_SUITE(external_await)

BOOST_AUTO_TEST_CASE(the_docs_example) {
  tine_tests::within(60s, "the_docs_example", [] {
    {
      tine::lazy_pool<> pool(2);
      BOOST_TEST(tine::sync_wait(pool, twice, std::string("abc")) == 60);
      std::vector<tine::future<int>> fs;
      for (int i = 0; i < 20; ++i) {
        fs.push_back(tine::spawn(pool, twice, std::string(static_cast<std::size_t>(i), 'x')));
      }
      for (int i = 0; i < 20; ++i) {
        BOOST_TEST(fs[static_cast<std::size_t>(i)].get() == 20 * i);
      }
    }
    lib::join_lookups();
  });
}

BOOST_AUTO_TEST_CASE(completed_later_by_another_thread) {
  tine_tests::within(60s, "completed_later_by_another_thread", [] {
    tine::lazy_pool<> pool(2);
    BOOST_TEST(tine::sync_wait(pool, ext::await_delayed, ext::delayed_value{42, 20ms}) == 42);
    tine::busy_pool<> busy(2);
    BOOST_TEST(tine::sync_wait(busy, ext::await_delayed, ext::delayed_value{7, 5ms}) == 7);
  });
}

BOOST_AUTO_TEST_CASE(completed_inside_start) {
  tine_tests::within(60s, "completed_inside_start", [] {
    tine::lazy_pool<> pool(2);
    BOOST_TEST(tine::sync_wait(pool, ext::await_delayed, ext::delayed_value{5, 0ms}) == 5);
  });
}

BOOST_AUTO_TEST_CASE(on_the_inline_scheduler) {
  // Its one worker is a thread of its own: the task parks there and comes back there, as for a
  // future.
  tine_tests::within(60s, "on_the_inline_scheduler", [] {
    tine::inline_scheduler sched;
    BOOST_TEST(tine::sync_wait(sched, ext::await_delayed, ext::delayed_value{9, 10ms}) == 9);
    BOOST_TEST(tine::sync_wait(sched, ext::await_delayed, ext::delayed_value{3, 0ms}) == 3);
  });
}

BOOST_AUTO_TEST_CASE(thousands_completed_by_many_threads_at_once) {
  tine_tests::within(120s, "thousands_completed_by_many_threads_at_once", [] {
    constexpr int n = 3000;
    ext::completers threads(4);
    ext::the_completers = &threads;
    ext::wrong.store(0);
    {
      tine::lazy_pool<> pool(2);
      for (int round = 0; round < 3; ++round) {
        BOOST_TEST(tine::sync_wait(pool, ext::await_many, 0, n) == ext::expected_many(n));
      }
    }
    {
      tine::busy_pool<> pool(2);
      for (int round = 0; round < 3; ++round) {
        BOOST_TEST(tine::sync_wait(pool, ext::await_many, 0, n) == ext::expected_many(n));
      }
    }
    {
      // Several roots at once, from several threads.
      tine::lazy_pool<> pool(2);
      std::vector<tine::future<long>> fs;
      for (int i = 0; i < 8; ++i) {
        fs.push_back(tine::spawn(pool, ext::await_many, i * 500, (i + 1) * 500));
      }
      long total = 0;
      for (auto& f : fs) {
        total += f.get();
      }
      BOOST_TEST(total == ext::expected_many(4000));
    }
    BOOST_TEST(ext::wrong.load() == 0);
    ext::the_completers = nullptr;
  });
}

BOOST_AUTO_TEST_CASE(an_exception_from_result_comes_out_of_the_co_await) {
  tine_tests::within(60s, "an_exception_from_result", [] {
    tine::lazy_pool<> pool(2);
    try {
      (void)tine::sync_wait(pool, ext::await_delayed, ext::delayed_value{4, 5ms, true});
      BOOST_FAIL("no exception");
    } catch (const std::runtime_error& e) {
      BOOST_TEST(std::string(e.what()) == "delayed_value 4 failed");
    }
    BOOST_CHECK_THROW(
        (void)tine::sync_wait(pool, ext::await_delayed, ext::delayed_value{4, 0ms, true}),
        std::runtime_error);
  });
}

BOOST_AUTO_TEST_CASE(the_operation_sees_the_awaiting_tasks_stop_token) {
  tine_tests::within(60s, "stop token", [] {
    tine::lazy_pool<> pool(2);
    // Not stopped: a plain root.
    ext::last_stop_requested.store(true);
    BOOST_TEST(tine::sync_wait(pool, ext::await_delayed, ext::delayed_value{1, 1ms}) == 1);
    BOOST_TEST(!ext::last_stop_requested.load());
    // Stopped before the await: the token the operation holds is stopped at start.
    BOOST_TEST(tine::sync_wait(pool, ext::stop_then_await));
    // A root started with a stopped token.
    std::stop_source source;
    source.request_stop();
    ext::started_count.store(0);
    ext::last_stop_requested.store(false);
    try {
      (void)tine::sync_wait(source.get_token(), pool, ext::await_delayed,
                            ext::delayed_value{1, 1ms});
    } catch (const tine::cancelled&) {
      // a root stopped before it started does not start
    }
    BOOST_TEST((ext::started_count.load() == 0 || ext::last_stop_requested.load()));
    // Stopped while it waits: the stop reaches the operation, which completes.
    tine::future<bool> f = tine::spawn(pool, ext::await_until_stopped);
    std::this_thread::sleep_for(20ms);
    BOOST_TEST(!f.ready());
    f.request_stop();
    BOOST_TEST(f.get());
  });
}

BOOST_AUTO_TEST_CASE(the_scheduler_waits_for_a_parked_task) {
  tine_tests::within(60s, "the_scheduler_waits_for_a_parked_task", [] {
    for (int i = 0; i < 2; ++i) {
      ext::parked_task_finished.store(false);
      {
        tine::lazy_pool<> pool(2);
        ext::started_count.store(0);
        tine::spawn(pool, ext::slow_then_mark, 100).detach();
        while (ext::started_count.load() == 0) {
          std::this_thread::sleep_for(1ms);
        }
      }  // the destructor waits for the task, parked on the operation meanwhile
      BOOST_TEST(ext::parked_task_finished.load());
    }
    ext::parked_task_finished.store(false);
    {
      tine::inline_scheduler sched;
      tine::spawn(sched, ext::slow_then_mark, 50).detach();
    }
    BOOST_TEST(ext::parked_task_finished.load());
  });
}

BOOST_AUTO_TEST_CASE(the_scheduler_outlives_the_call_that_gives_the_task_back) {
  // The task resumes, ends and its sync_wait returns while the completing thread is still in
  // schedule(): the destructor must wait for that call too.
  tine_tests::within(60s, "the_scheduler_outlives_the_call", [] {
    ext::scheduled_into_a_destroyed_scheduler.store(0);
    for (int i = 0; i < 3; ++i) {
      ext::slow_scheduler_destroyed.store(false);
      {
        ext::completers threads(1);
        ext::the_completers = &threads;
        {
          ext::slow_return_scheduler sched;
          BOOST_TEST(tine::sync_wait(sched, ext::await_queued, i) == 2 * i + 1);
        }
        ext::the_completers = nullptr;
      }  // joins the completing thread: its schedule() call has returned
    }
    for (int i = 0; i < 3; ++i) {
      ext::slow_scheduler_destroyed.store(false);
      tine::lazy_pool<> other(1);
      ext::slow_return_scheduler sched;
      BOOST_TEST(tine::sync_wait(sched, ext::await_future_from, &other, 10 + i) ==
                 ext::serial_fib(10 + i));
      // `sched` goes first, then `other`, whose destructor joins the completing worker.
    }
    BOOST_TEST(ext::scheduled_into_a_destroyed_scheduler.load() == 0);
  });
}

BOOST_AUTO_TEST_CASE(a_start_that_throws_leaves_the_task_where_it_was) {
  tine_tests::within(60s, "a_start_that_throws", [] {
    tine::lazy_pool<> pool(2);
    ext::went_on.store(false);
    BOOST_TEST(tine::sync_wait(pool, ext::await_refused_start) == 1);
    BOOST_TEST(ext::went_on.load());
  });  // the pool's destructor returned: nothing left counted as pending
}

BOOST_AUTO_TEST_CASE(awaiting_between_fork_and_join_throws_before_adapting) {
  tine_tests::within(60s, "between fork and join", [] {
    tine::lazy_pool<> pool(2);
    ext::adapted_count.store(0);
    const std::string text = ext::logic_error_text(
        [&] { (void)tine::sync_wait(pool, ext::await_between_fork_and_join); });
    BOOST_TEST(text ==
               "tine::await_adapter: a task cannot await a foreign operation between a fork and "
               "its join; co_await tine::join() first");
    BOOST_TEST(ext::adapted_count.load() == 0);
  });
}

BOOST_AUTO_TEST_CASE(awaiting_on_a_worker_with_a_backend_throws) {
  tine_tests::within(60s, "with a backend", [] {
    ext::idle_backend backend;
    tine_test::queued_scheduler sched(backend);
    ext::adapted_count.store(0);
    const std::string text = ext::logic_error_text([&] {
      (void)tine::sync_wait(sched, ext::await_delayed, ext::delayed_value{1, 1ms});
    });
    BOOST_TEST(text ==
               "tine::await_adapter: a task on a worker with a worker backend (tine::mpi_pool) "
               "cannot await a foreign operation");
    BOOST_TEST(ext::adapted_count.load() == 0);
  });
}

BOOST_AUTO_TEST_SUITE_END()
