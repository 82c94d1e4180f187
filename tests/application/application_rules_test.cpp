// Randomized checks of the application layer's rules (docs/application.md) on every scheduler:
// each rule that says "never", "always" or "the same" is exercised by seeded random programs
// that would show its violation. A failing check names its seed and scheduler.
//
// - One continuation per future, ever: a second registration of any kind throws, whether or not
//   the first has run, and the first runs once.
// - when_all: the values in order, or the first exception in argument order, once all are done.
// - A future dropped off a worker while its root runs has waited for the root when its
//   destructor returns; a scheduler's destructor waits for every spawned root and every task of
//   it suspended on a future, detached ones included.
// - A stop: every task that starts after the request sees stop_requested(); on one worker, no
//   fork after the request starts its child while calls do (against a serial model); a root
//   stopped before it started never starts.
// - A stop scope: its own stop gives the empty result, an enclosing one tine::cancelled, whether
//   or not a fork saw either.
// - A stop reaches every future awaited below the stopped root and every root spawned with its
//   token; not roots spawned plainly.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/core/random_tree.hpp"
#include "tests/core/watchdog.hpp"

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

// Every scheduler tine ships (and the test kit's user-written one), at one and more workers.
template <typename F>
void on_every_scheduler(F f) {
  {
    tine::inline_scheduler s;
    f(s, "inline_scheduler");
  }
  {
    tine::busy_pool<> p(1);
    f(p, "busy_pool(1)");
  }
  {
    tine::busy_pool<> p(2);
    f(p, "busy_pool(2)");
  }
  {
    tine::lazy_pool<> p(1);
    f(p, "lazy_pool(1)");
  }
  {
    tine::lazy_pool<> p(3);
    f(p, "lazy_pool(3)");
  }
  {
    tine::testing::simple_pool p(2);
    f(p, "simple_pool(2)");
  }
}

// The one-worker schedulers, where a run is the serial program.
template <typename F>
void on_one_worker(F f) {
  {
    tine::inline_scheduler s;
    f(s, "inline_scheduler");
  }
  {
    tine::busy_pool<> p(1);
    f(p, "busy_pool(1)");
  }
  {
    tine::lazy_pool<> p(1);
    f(p, "lazy_pool(1)");
  }
  {
    tine::testing::simple_pool p(1);
    f(p, "simple_pool(1)");
  }
}

std::string where(const char* sched, std::uint64_t seed) {
  return std::string(sched) + ", seed " + std::to_string(seed);
}

// Busy for `us` microseconds, or until a stop; -1 when it saw one.
tine::task<int> work(int us, int value) {
  const auto until = clock_type::now() + std::chrono::microseconds(us);
  while (clock_type::now() < until) {
    if (tine::stop_requested()) {
      co_return -1;
    }
  }
  co_return value;
}

struct test_error : std::runtime_error {
  int id;
  explicit test_error(int i) : std::runtime_error("input " + std::to_string(i)), id(i) {}
};

// ---------------------------------------------------------------------------------------------
// One continuation per future.

// A plain C++20 coroutine that awaits a future (future_coroutine_awaiter).
struct detached_coroutine {
  struct promise_type {
    detached_coroutine get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
  };
};

detached_coroutine await_plainly(tine::future<int> f, std::atomic<int>* refused) {
  try {
    (void)co_await std::move(f);
  } catch (const std::logic_error&) {
    refused->fetch_add(1);
  }
}

tine::task<int> await_in_task(tine::future<int> f) {
  try {
    (void)co_await std::move(f);
  } catch (const std::logic_error&) {
    co_return 1;
  }
  co_return 0;
}

template <typename Scheduler>
void continuation_rule(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(seed);
    std::atomic<int> calls{0};
    tine::future<int> f = tine::spawn(sched, work, static_cast<int>(rng() % 300), 5);
    if (rng() % 2 == 0) {
      f.wait();  // the first continuation then runs at once, here
    }
    f.on_complete([&calls] { calls.fetch_add(1); });
    if (rng() % 2 == 0) {
      f.wait();
    }
    std::atomic<int> refused{0};
    switch (rng() % 5) {
      case 0:
        try {
          f.on_complete([] {});
        } catch (const std::logic_error&) {
          refused.fetch_add(1);
        }
        f.wait();
        break;
      case 1:
        try {
          (void)tine::when_all(std::move(f));
        } catch (const std::logic_error&) {
          refused.fetch_add(1);
        }
        break;
      case 2:
        try {
          std::vector<tine::future<int>> v;
          v.push_back(std::move(f));
          (void)tine::when_all(std::move(v));
        } catch (const std::logic_error&) {
          refused.fetch_add(1);
        }
        break;
      case 3:
        refused.fetch_add(tine::sync_wait(sched, await_in_task, std::move(f)));
        break;
      default:
        await_plainly(std::move(f), &refused);
        break;
    }
    BOOST_TEST(refused.load() == 1, where(name, seed));
    // The first continuation runs once, whatever happened to the future since.
    const auto until = clock_type::now() + 10s;
    while (calls.load() == 0 && clock_type::now() < until) {
      std::this_thread::sleep_for(50us);
    }
    std::this_thread::sleep_for(50us);
    BOOST_TEST(calls.load() == 1, where(name, seed));
  }
}

// ---------------------------------------------------------------------------------------------
// when_all: values in order, or the first exception in argument order, once all are done.

struct input_plan {
  int kind = 0;  // 0: a value, 1: throws, 2: stopped before it starts (never starts)
  int us = 0;
};

std::atomic<int> inputs_done{0};

tine::task<int> planned_input(int id, input_plan p) {
  co_await tine::call(work, p.us, 0);
  inputs_done.fetch_add(1);
  if (p.kind == 1) {
    throw test_error(id);
  }
  co_return 10 * id;
}

// A source stopped already. (Made once: GCC 12 at -Og warns that a std::stop_source built in a
// function inlined here "may be used uninitialized", in libstdc++'s own constructor.)
const std::stop_source& stopped_source() {
  static const std::stop_source stopped = [] {
    std::stop_source s;
    s.request_stop();
    return s;
  }();
  return stopped;
}

template <typename Scheduler>
tine::future<int> start_input(Scheduler& sched, int id, input_plan p) {
  if (p.kind == 2) {
    return tine::spawn(stopped_source().get_token(), sched, planned_input, id, p);
  }
  return tine::spawn(sched, planned_input, id, p);
}

// What when_all must give: -2 for tine::cancelled, -1 for none thrown, or the first failing id.
int expected_failure(const std::vector<input_plan>& plans) {
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (plans[i].kind == 1) {
      return static_cast<int>(i);
    }
    if (plans[i].kind == 2) {
      return -2;
    }
  }
  return -1;
}

template <typename Scheduler>
void when_all_rule(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 80; ++seed) {
    std::mt19937_64 rng(seed);
    const std::size_t n = rng() % 6;
    std::vector<input_plan> plans(n);
    for (auto& p : plans) {
      const auto r = rng() % 10;
      p.kind = r < 6 ? 0 : r < 9 ? 1 : 2;
      p.us = static_cast<int>(rng() % 400);
    }
    const int expected = expected_failure(plans);
    const int started = [&] {
      int k = 0;
      for (const auto& p : plans) {
        k += p.kind != 2 ? 1 : 0;
      }
      return k;
    }();
    inputs_done.store(0);
    std::vector<tine::future<int>> futures;
    for (std::size_t i = 0; i < n; ++i) {
      futures.push_back(start_input(sched, static_cast<int>(i), plans[i]));
    }
    int failure = -1;
    std::vector<int> values;
    try {
      if (rng() % 3 == 0) {
        // Nested: a when_all of one when_all.
        values = std::get<0>(tine::when_all(tine::when_all(std::move(futures))).get());
      } else {
        values = tine::when_all(std::move(futures)).get();
      }
    } catch (const test_error& e) {
      failure = e.id;
    } catch (const tine::cancelled&) {
      failure = -2;
    }
    BOOST_TEST(failure == expected, where(name, seed));
    BOOST_TEST(inputs_done.load() == started, where(name, seed));  // all done by then
    if (expected == -1) {
      BOOST_TEST(values.size() == n, where(name, seed));
      for (std::size_t i = 0; i < values.size(); ++i) {
        BOOST_TEST(values[i] == static_cast<int>(10 * i), where(name, seed));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Dropped futures wait; schedulers wait for their roots and for tasks suspended on futures.

std::atomic<int> roots_started{0};
std::atomic<int> roots_ended{0};

tine::task<int> ends_counted(int us) {
  roots_started.fetch_add(1);
  int r = 0;
  co_await tine::call(&r, work, us, 1);
  roots_ended.fetch_add(1);
  co_return r;
}

template <typename Other>
tine::task<int> awaits_other(Other* other, int us) {
  int r = co_await tine::spawn(*other, work, us, 1);
  roots_ended.fetch_add(1);
  co_return r;
}

template <typename Scheduler>
void drop_rule(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 rng(seed);
    roots_started.store(0);
    roots_ended.store(0);
    {
      tine::future<int> f = tine::spawn(sched, ends_counted, 200 + static_cast<int>(rng() % 2000));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 500));
    }  // stops, and waits: the root has ended, or was stopped before it started and never will
    BOOST_TEST(roots_ended.load() == roots_started.load(), where(name, seed));
    std::this_thread::sleep_for(200us);
    BOOST_TEST(roots_started.load() == roots_ended.load(), where(name, seed));
  }
}

template <typename Make>
void destructor_rule(Make make, const char* name) {
  tine::busy_pool<> other(1);
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    std::mt19937_64 rng(seed);
    roots_ended.store(0);
    int spawned = 0;
    {
      auto sched = make();
      const int n = static_cast<int>(rng() % 12);
      for (int i = 0; i < n; ++i) {
        const int us = static_cast<int>(rng() % 3000);
        if (rng() % 3 == 0) {
          // Suspended on a future of another scheduler for a while, then ends here.
          tine::spawn(*sched, awaits_other<tine::busy_pool<>>, &other, us).detach();
        } else {
          tine::spawn(*sched, ends_counted, us).detach();
        }
        ++spawned;
      }
    }  // the destructor waits for all of them
    BOOST_TEST(roots_ended.load() == spawned, where(name, seed));
  }
}

// ---------------------------------------------------------------------------------------------
// Stops: seen by every task that starts after the request; on one worker, forks after it start
// nothing and calls start their children (a serial model); roots stopped before they start
// never start.

std::atomic<std::uint64_t> clock_ticks{0};
// For each node: the tick at its start (0: did not start) and whether it saw the stop then.
struct node_record {
  std::atomic<std::uint64_t> tick{0};
  std::atomic<bool> saw_stop{false};
};

struct stop_run {
  const tine_tests::tree* t = nullptr;
  std::unique_ptr<node_record[]> records;
  int stopper = -1;  // the node that requests the stop at its start (-1: none, or from outside)
};

tine::task<int> stop_node(stop_run* run, int id) {
  node_record& rec = run->records[static_cast<std::size_t>(id)];
  if (id == run->stopper) {
    tine::request_stop();
  }
  rec.tick.store(clock_ticks.fetch_add(1) + 1);
  rec.saw_stop.store(tine::stop_requested());
  const tine_tests::tree::node& n = run->t->nodes[static_cast<std::size_t>(id)];
  tine_tests::spin_for(n.spin);
  std::vector<int> results(n.children.size(), 0);
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    if (k + 1 == n.children.size() && n.last_by_call) {
      co_await tine::call(&results[k], stop_node, run, n.children[k]);
    } else {
      co_await tine::fork(&results[k], stop_node, run, n.children[k]);
    }
  }
  co_await tine::join();
  int sum = 1;
  for (int r : results) {
    sum += r;
  }
  co_return sum;
}

// The serial program's starts: a fork after the stop starts nothing, a call starts its child.
void model_starts(const tine_tests::tree& t, int id, int stopper, bool& stopped,
                  std::vector<char>& started) {
  started[static_cast<std::size_t>(id)] = 1;
  if (id == stopper) {
    stopped = true;
  }
  const auto& n = t.nodes[static_cast<std::size_t>(id)];
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    const bool by_call = k + 1 == n.children.size() && n.last_by_call;
    if (stopped && !by_call) {
      continue;
    }
    model_starts(t, n.children[k], stopper, stopped, started);
  }
}

template <typename Scheduler>
void stop_seen_by_later_tasks(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 25; ++seed) {
    std::mt19937_64 rng(seed);
    const tine_tests::tree t = tine_tests::make_tree(seed, 200 + rng() % 400, 0.0, 0.0);
    stop_run run{&t, std::make_unique<node_record[]>(t.nodes.size()), -1};
    tine::future<int> f = tine::spawn(sched, stop_node, &run, 0);
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 1500));
    f.request_stop();
    const std::uint64_t after = clock_ticks.fetch_add(1) + 1;
    try {
      (void)f.get();
    } catch (const tine::cancelled&) {
    }
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const std::uint64_t tick = run.records[i].tick.load();
      if (tick > after) {
        BOOST_TEST(run.records[i].saw_stop.load(),
                   where(name, seed) + ", node " + std::to_string(i));
      }
    }
  }
}

template <typename Scheduler>
void stop_from_inside_matches_the_serial_program(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(seed);
    const tine_tests::tree t = tine_tests::make_tree(seed + 1000, 30 + rng() % 200, 0.0, 0.0);
    stop_run run{&t, std::make_unique<node_record[]>(t.nodes.size()),
                 static_cast<int>(rng() % t.nodes.size())};
    std::vector<char> expected(t.nodes.size(), 0);
    bool stopped = false;
    model_starts(t, 0, run.stopper, stopped, expected);
    bool cancelled = false;
    try {
      (void)tine::sync_wait(sched, stop_node, &run, 0);
    } catch (const tine::cancelled&) {
      cancelled = true;
    }
    int mismatches = 0;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      mismatches += (run.records[i].tick.load() != 0) != (expected[i] != 0) ? 1 : 0;
    }
    BOOST_TEST(mismatches == 0, where(name, seed));
    // A fork after the stop stores tine::cancelled for its join, which no node catches.
    bool fork_after_stop = false;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const auto& n = t.nodes[i];
      if (expected[i] == 0) {
        fork_after_stop = true;  // only a fork leaves a node unstarted here
      }
      (void)n;
    }
    BOOST_TEST(cancelled == fork_after_stop, where(name, seed));
  }
}

// One worker, kept busy while roots are queued behind it; those stopped before the worker is
// free never start.
std::atomic<bool> blocker_started{false};
std::atomic<bool> release_blocker{false};
std::atomic<int> queued_started{0};

tine::task<int> blocker() {
  blocker_started.store(true);
  while (!release_blocker.load()) {
  }
  co_return 0;
}

tine::task<int> queued() {
  queued_started.fetch_add(1);
  co_return 1;
}

template <typename Scheduler>
void stopped_roots_never_start(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    blocker_started.store(false);
    release_blocker.store(false);
    queued_started.store(0);
    tine::future<int> b = tine::spawn(sched, blocker);
    while (!blocker_started.load()) {  // the one worker is busy from here
      std::this_thread::sleep_for(50us);
    }
    const int n = 1 + static_cast<int>(rng() % 8);
    std::vector<tine::future<int>> fs;
    std::vector<bool> stop(static_cast<std::size_t>(n));
    int runs = 0;
    for (int i = 0; i < n; ++i) {
      fs.push_back(tine::spawn(sched, queued));
      stop[static_cast<std::size_t>(i)] = rng() % 2 == 0;
      runs += stop[static_cast<std::size_t>(i)] ? 0 : 1;
    }
    for (int i = 0; i < n; ++i) {
      if (stop[static_cast<std::size_t>(i)]) {
        fs[static_cast<std::size_t>(i)].request_stop();
      }
    }
    release_blocker.store(true);
    (void)b.get();
    for (int i = 0; i < n; ++i) {
      auto& f = fs[static_cast<std::size_t>(i)];
      if (stop[static_cast<std::size_t>(i)]) {
        BOOST_CHECK_THROW((void)f.get(), tine::cancelled);
      } else {
        BOOST_TEST(f.get() == 1, where(name, seed));
      }
    }
    BOOST_TEST(queued_started.load() == runs, where(name, seed));
  }
}

// ---------------------------------------------------------------------------------------------
// Stop scopes: the empty result for their own stop, tine::cancelled for an enclosing one,
// whatever the forks saw.

struct scope_run {
  const tine_tests::tree* t = nullptr;
  int scope_stopper = -1;  // requests the scope's stop at its start
  int root_stopper = -1;   // requests the root's stop (through the root's token) at its start
  std::stop_source* root_source = nullptr;
};

tine::task<int> scope_node(scope_run* run, int id) {
  if (id == run->scope_stopper) {
    tine::request_stop();  // the innermost scope
  }
  if (id == run->root_stopper) {
    run->root_source->request_stop();  // the root, through the token it was spawned with
  }
  const tine_tests::tree::node& n = run->t->nodes[static_cast<std::size_t>(id)];
  tine_tests::spin_for(n.spin);
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    if (k + 1 == n.children.size() && n.last_by_call) {
      co_await tine::call(scope_node, run, n.children[k]);
    } else {
      co_await tine::fork(scope_node, run, n.children[k]);
    }
  }
  co_await tine::join();
  co_return 1;
}

// 1: the value, 0: empty, 2: tine::cancelled came out of the scope.
tine::task<int> scope_outcome(scope_run* run) {
  std::optional<int> r;
  try {
    co_await tine::call(&r, tine::stop_scope, scope_node, run, 0);
  } catch (const tine::cancelled&) {
    co_return 2;
  }
  co_return r ? 1 : 0;
}

template <typename Scheduler>
void stop_scope_rule(Scheduler& sched, const char* name) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(seed);
    const tine_tests::tree t = tine_tests::make_tree(seed + 2000, 20 + rng() % 150, 0.0, 0.0);
    std::stop_source root_source;
    scope_run run{&t, -1, -1, &root_source};
    const auto pick = [&] { return static_cast<int>(rng() % t.nodes.size()); };
    if (rng() % 3 != 0) {
      run.scope_stopper = pick();
    }
    if (rng() % 3 == 0) {
      run.root_stopper = pick();
    }
    tine::future<int> f = tine::spawn(root_source.get_token(), sched, scope_outcome, &run);
    int outcome = -1;
    try {
      outcome = f.get();
    } catch (const tine::cancelled&) {
      outcome = 3;  // (scope_outcome forks nothing: the root itself never ends cancelled)
    }
    // The root's stopper ran if the root's source was stopped; without a root stop nothing
    // keeps the scope's stopper from starting (every node starts until a stop).
    const bool root_stopped = root_source.stop_requested();
    if (root_stopped) {
      BOOST_TEST(outcome == 2, where(name, seed));
    } else if (run.scope_stopper >= 0) {
      BOOST_TEST(outcome == 0, where(name, seed));
    } else {
      BOOST_TEST(outcome == 1, where(name, seed));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A stop reaches the futures awaited below the stopped root and the roots spawned with its
// token; not the roots spawned plainly.

struct reach_counts {
  std::atomic<int> started{0};
  std::atomic<int> saw_stop{0};
  std::atomic<int> plain_started{0};
  std::atomic<int> plain_saw_stop{0};
};

tine::task<int> reach_leaf(reach_counts* c, bool plain) {
  (plain ? c->plain_started : c->started).fetch_add(1);
  const auto until = clock_type::now() + (plain ? 30ms : 20s);
  while (clock_type::now() < until) {
    if (tine::stop_requested()) {
      (plain ? c->plain_saw_stop : c->saw_stop).fetch_add(1);
      co_return -1;
    }
  }
  co_return 1;
}

// Awaits a random structure of roots: leaves, when_alls of them, and roots that await in turn.
tine::task<int> reach_node(reach_counts* c, std::uint64_t seed, int depth) {
  std::mt19937_64 rng(seed);
  // Detached, not awaited: one linked to this task's token, one plain.
  if (rng() % 2 == 0) {
    tine::spawn(tine::get_stop_token(), tine::current_scheduler(), reach_leaf, c, false).detach();
  }
  if (rng() % 3 == 0) {
    tine::spawn(tine::current_scheduler(), reach_leaf, c, true).detach();
  }
  const auto kind = depth == 0 ? 0 : rng() % 3;
  if (kind == 0) {
    (void)co_await tine::spawn(tine::current_scheduler(), reach_leaf, c, false);
  } else if (kind == 1) {
    std::vector<tine::future<int>> v;
    for (std::uint64_t i = 0, n = 1 + rng() % 3; i < n; ++i) {
      v.push_back(tine::spawn(tine::current_scheduler(), reach_leaf, c, false));
    }
    (void)co_await tine::when_all(std::move(v));
  } else {
    (void)co_await tine::spawn(tine::current_scheduler(), reach_node, c, rng(), depth - 1);
  }
  co_return 0;
}

template <typename Scheduler>
void stop_reaches_what_it_should(Scheduler& sched, const char* name) {
  // The detached roots of an iteration may run on after it, until the scheduler's destructor:
  // their counters live as long as the test.
  static std::deque<reach_counts> all_counts;
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    reach_counts& c = all_counts.emplace_back();
    tine::future<int> f = tine::spawn(sched, reach_node, &c, seed, 3);
    std::this_thread::sleep_for(2ms);
    f.request_stop();
    const auto start = clock_type::now();
    try {
      (void)f.get();
    } catch (const tine::cancelled&) {
    }
    // Leaves of the stopped tree run 20 s unless stopped: every one that started saw the stop
    // (those stopped before they started never started). The root's future returns once what it
    // awaits has; the linked detached ones end soon after.
    const auto until = clock_type::now() + 15s;
    while (c.saw_stop.load() != c.started.load() && clock_type::now() < until) {
      std::this_thread::sleep_for(100us);
    }
    BOOST_TEST(c.saw_stop.load() == c.started.load(), where(name, seed));
    BOOST_TEST((clock_type::now() - start < 15s), where(name, seed));
    // Plain roots are not reached: those that ran saw no stop.
    BOOST_TEST(c.plain_saw_stop.load() == 0, where(name, seed));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(application_rules)

BOOST_AUTO_TEST_CASE(one_continuation_per_future_ever) {
  tine_tests::within(240s, "one continuation per future", [] {
    on_every_scheduler([](auto& s, const char* n) { continuation_rule(s, n); });
  });
}

BOOST_AUTO_TEST_CASE(when_all_values_in_order_or_the_first_exception_once_all_are_done) {
  tine_tests::within(240s, "when_all", [] {
    on_every_scheduler([](auto& s, const char* n) { when_all_rule(s, n); });
  });
}

BOOST_AUTO_TEST_CASE(a_dropped_future_waits_and_schedulers_wait_for_their_work) {
  tine_tests::within(240s, "drops and destructors", [] {
    on_every_scheduler([](auto& s, const char* n) { drop_rule(s, n); });
    destructor_rule([] { return std::make_unique<tine::inline_scheduler>(); }, "inline_scheduler");
    destructor_rule([] { return std::make_unique<tine::busy_pool<>>(2); }, "busy_pool(2)");
    destructor_rule([] { return std::make_unique<tine::lazy_pool<>>(3); }, "lazy_pool(3)");
  });
}

BOOST_AUTO_TEST_CASE(a_stop_is_seen_by_every_task_that_starts_after_it) {
  tine_tests::within(240s, "stops seen", [] {
    on_every_scheduler([](auto& s, const char* n) { stop_seen_by_later_tasks(s, n); });
  });
}

BOOST_AUTO_TEST_CASE(on_one_worker_forks_after_a_stop_start_nothing_and_calls_do) {
  tine_tests::within(240s, "stops from inside", [] {
    on_one_worker(
        [](auto& s, const char* n) { stop_from_inside_matches_the_serial_program(s, n); });
  });
}

BOOST_AUTO_TEST_CASE(roots_stopped_before_they_start_never_start) {
  tine_tests::within(240s, "stopped roots", [] {
    on_one_worker([](auto& s, const char* n) { stopped_roots_never_start(s, n); });
  });
}

BOOST_AUTO_TEST_CASE(stop_scopes_report_their_own_and_pass_enclosing_stops_on) {
  tine_tests::within(240s, "stop scopes", [] {
    on_every_scheduler([](auto& s, const char* n) { stop_scope_rule(s, n); });
  });
}

BOOST_AUTO_TEST_CASE(a_stop_reaches_awaited_and_linked_roots_but_not_plain_ones) {
  tine_tests::within(240s, "what a stop reaches", [] {
    on_every_scheduler([](auto& s, const char* n) { stop_reaches_what_it_should(s, n); });
  });
}

BOOST_AUTO_TEST_SUITE_END()
