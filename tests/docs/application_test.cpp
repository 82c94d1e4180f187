// The examples of docs/application.md ("tine in an application"), compiled and run: every
// [docs:NAME] region below appears verbatim on the page (doc_snippets_test checks it).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <tine/tine.hpp>

namespace app {

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

void do_other_things() { std::this_thread::sleep_for(1ms); }

// [docs:both]
tine::task<long> both(tine::lazy_pool<>& other) {
  tine::future<long> g = tine::spawn(other, fib, 30);
  long a = 0;
  co_await tine::call(&a, fib, 25);
  co_return a + co_await std::move(g);  // the worker goes on meanwhile; no thread blocks
}
// [docs:both end]

// [docs:branch]
struct node {
  int depth;
  long id;
};

tine::task<long> branch(node n) {
  if (tine::stop_requested()) {  // a few loads, no atomic read-modify-write
    co_return 0;
  }
  if (n.depth == 0) {
    co_return 1;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, branch, node{n.depth - 1, 2 * n.id});
  co_await tine::fork(&b, branch, node{n.depth - 1, 2 * n.id + 1});
  co_await tine::join();
  co_return a + b;
}
// [docs:branch end]

// [docs:search]
// Finds a leaf whose id is a multiple of `k`; the branch that finds one stops its scope.
tine::task<void> find(node n, long k, std::atomic<long>* found) {
  if (tine::stop_requested()) {
    co_return;
  }
  if (n.depth == 0) {
    if (n.id % k == 0) {
      found->store(n.id);
      tine::request_stop();  // stops the innermost stop scope: the siblings still to come
    }
    co_return;
  }
  co_await tine::fork(find, node{n.depth - 1, 2 * n.id + 1}, k, found);
  co_await tine::fork(find, node{n.depth - 1, 2 * n.id + 2}, k, found);
  co_await tine::join();
}

tine::task<long> first_match(int depth, long k) {
  std::atomic<long> found{-1};
  bool completed = false;  // false: a task inside stopped the scope
  co_await tine::call(&completed, tine::stop_scope, find, node{depth, 0}, k, &found);
  co_return completed ? -1 : found.load();
}
// [docs:search end]

// [docs:forward]
// Work of another runtime, with its own way to be cancelled.
struct outside_request {
  std::atomic<bool> cancelled{false};
  void cancel() { cancelled.store(true); }
};

tine::task<long> guarded(outside_request* req, node n) {
  // Runs on the thread that stops this task's root or scope: short, and never blocking.
  std::stop_callback forward(tine::get_stop_token(), [req] { req->cancel(); });
  // Stopped with this task's root or scope, whether or not it is awaited.
  tine::future<long> helper =
      tine::spawn(tine::get_stop_token(), tine::current_scheduler(), branch, n);
  long here = 0;
  co_await tine::call(&here, branch, node{n.depth - 1, 2 * n.id});
  co_return here + co_await std::move(helper);
}
// [docs:forward end]

// [docs:siblings]
tine::task<int> parse(std::string text) {
  if (text.empty()) {
    throw std::invalid_argument("empty field");
  }
  co_return std::stoi(text);
}

tine::task<int> sum_fields(std::vector<std::string> fields) {
  std::vector<int> values(fields.size(), 0);
  try {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      co_await tine::fork(&values[i], parse, fields[i]);  // not started once one has thrown
    }
    co_await tine::join();  // every exception of the scope comes out here
  } catch (const std::invalid_argument&) {
    co_return -1;
  }
  int sum = 0;
  for (int v : values) {
    sum += v;
  }
  co_return sum;
}
// [docs:siblings end]

}  // namespace app

BOOST_AUTO_TEST_SUITE(application_page)

BOOST_AUTO_TEST_CASE(start_and_carry_on) {
  using namespace app;
  // [docs:spawn]
  tine::lazy_pool<> pool;

  tine::future<long> f = tine::spawn(pool, fib, 30);  // returns at once; the root runs on the pool
  do_other_things();
  bool done = f.ready();  // never blocks
  f.wait_for(10ms);       // like std::future
  long r = f.get();       // blocks until done; rethrows
  // [docs:spawn end]
  (void)done;
  BOOST_TEST(r == 832040);
  tine::lazy_pool<> other(1);
  BOOST_TEST(tine::sync_wait(pool, both, other) == 832040 + 75025);
}

BOOST_AUTO_TEST_CASE(many_at_once) {
  using namespace app;
  tine::lazy_pool<> pool;
  // [docs:when-all]
  tine::future<std::tuple<long, long>> pair =
      tine::when_all(tine::spawn(pool, fib, 20), tine::spawn(pool, fib, 21));
  auto [x, y] = pair.get();

  std::vector<tine::future<long>> many;
  for (int i = 0; i < 10; ++i) {
    many.push_back(tine::spawn(pool, fib, i));
  }
  std::vector<long> all = tine::when_all(std::move(many)).get();
  // [docs:when-all end]
  BOOST_TEST(x + y == 17711);
  BOOST_TEST(all[9] == 34);
}

BOOST_AUTO_TEST_CASE(callbacks_and_detach) {
  using namespace app;
  std::atomic<int> seen{0};
  {
    tine::lazy_pool<> pool;
    // [docs:detach]
    tine::future<long> f = tine::spawn(pool, fib, 25);
    f.on_complete([&seen] { seen.fetch_add(1); });  // on the completing worker; must not throw

    tine::set_detached_exception_handler([](std::exception_ptr e) {
      // log it; the default prints its what() to stderr and goes on
      (void)e;
    });
    tine::spawn(pool, fib, 25).detach();  // fire and forget: the pool's destructor waits for it
    // [docs:detach end]
    BOOST_TEST(f.get() == 75025);
    tine::set_detached_exception_handler(nullptr);
  }
  BOOST_TEST(seen.load() == 1);
}

BOOST_AUTO_TEST_CASE(stop_a_root) {
  using namespace app;
  tine::lazy_pool<> pool;
  // [docs:stop]
  tine::future<long> s = tine::spawn(pool, branch, node{40, 1});  // far too big to finish
  tine::stop_handle stop = s.stop_handle();  // for another thread; a future is for one thread
  std::thread watchdog([stop] {
    std::this_thread::sleep_for(20ms);
    stop.request_stop();  // idempotent, thread-safe; nothing once the root is done
  });
  try {
    s.get();
  } catch (const tine::cancelled&) {
    // forks stopped starting children, tasks saw stop_requested(), the root ended with this
  }
  watchdog.join();
  // [docs:stop end]
  BOOST_TEST(!s.valid());
}

BOOST_AUTO_TEST_CASE(stop_a_subtree) {
  using namespace app;
  tine::busy_pool<> pool;
  const long found = tine::sync_wait(pool, first_match, 20, 4097);
  BOOST_TEST(found % 4097 == 0);
  BOOST_TEST(found > 0);
  // The only match is the last leaf in serial order (ids 7 to 14 at depth 3): its stop comes
  // after every fork of the scope, and is reported all the same.
  tine::inline_scheduler inl;
  BOOST_TEST(tine::sync_wait(inl, first_match, 3, 14) == 14);
  BOOST_TEST(tine::sync_wait(pool, first_match, 3, 14) == 14);
  tine::busy_pool<> one(1);
  BOOST_TEST(tine::sync_wait(one, first_match, 3, 14) == 14);
  BOOST_TEST(tine::sync_wait(inl, first_match, 3, 15) == -1);  // no match: completed
}

BOOST_AUTO_TEST_CASE(forward_a_stop) {
  using namespace app;
  tine::lazy_pool<> pool;
  outside_request request;
  // [docs:cancel-button]
  std::stop_source cancel_button;  // pressed from another thread, a GUI's, say
  std::thread gui([&cancel_button] {
    std::this_thread::sleep_for(20ms);
    cancel_button.request_stop();
  });
  try {
    (void)tine::sync_wait(cancel_button.get_token(), pool, guarded, &request, node{40, 1});
  } catch (const tine::cancelled&) {
    // the root, its helper and the outside request were all asked to stop
  }
  gui.join();
  // [docs:cancel-button end]
  BOOST_TEST(request.cancelled.load());
}

BOOST_AUTO_TEST_CASE(siblings_of_a_child_that_threw) {
  using namespace app;
  tine::inline_scheduler sched;
  BOOST_TEST(tine::sync_wait(sched, sum_fields, std::vector<std::string>{"1", "2", "3"}) == 6);
  BOOST_TEST(tine::sync_wait(sched, sum_fields, std::vector<std::string>{"1", "", "3"}) == -1);
}

BOOST_AUTO_TEST_SUITE_END()
