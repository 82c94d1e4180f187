// Once a child threw, the task's later forks in that fork-join scope start no child
// (docs/application.md, "Exceptions in a fork-join scope"). Seeded random fork-join programs
// (forks, calls into subtrees that fork, joins, throws at random nodes, handlers at random nodes)
// run on the schedulers and are checked in program order:
// - with one worker (the inline scheduler, busy_pool(1), lazy_pool(1)) against a serial model of
//   the documented rule, exactly: which nodes started, in which order, which exceptions escaped
//   which nodes, which handlers caught what, every result;
// - with more workers against what the run itself shows: a fork that started nothing follows a
//   sibling that threw; no fork after a sibling whose exception reached the task on the worker
//   that continued it (a local throw) starts its child; every call starts its child; what each
//   join rethrows and each handler catches is an exception of that scope; results add up.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <thread>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/fork_programs.hpp"

namespace {

using namespace tine_tests::fork_programs;

// The runs must have tested the rule: forks skipped after local throws (every program set has
// many). Steals and remote throws depend on the machine's load, and are only reported.
void report(const findings& f, const char* pool, std::size_t workers) {
  BOOST_TEST_MESSAGE(pool << '(' << workers << "): " << f.skipped_after_local
                          << " forks skipped after a local throw, " << f.remote_throws
                          << " exceptions from another worker, " << f.stolen_forks
                          << " forks whose task went on elsewhere");
  BOOST_TEST(f.skipped_after_local > 0U);
}

// A task's own frame, for the test below to watch its join counter.
struct own_frame {
  using tine_request = void;
  struct awaitable {
    tine::detail::frame* f;
    bool await_ready() const noexcept { return true; }
    void await_suspend(std::coroutine_handle<>) const noexcept {}
    tine::detail::frame* await_resume() const noexcept { return f; }
  };
  awaitable bind(tine::detail::frame& f) && noexcept { return {&f}; }
};

struct remote_state {
  std::atomic<bool> parent_went_on{false};
  std::atomic<int> started{0};
};

tine::task<> throw_once_stolen(remote_state* s) {
  // acquire: pairs with the parent's release (a flag; nothing else to see).
  while (!s->parent_went_on.load(std::memory_order_acquire)) {
    std::this_thread::yield();
  }
  if (s != nullptr) {  // (a co_return below makes this a coroutine, started by the fork)
    throw node_error(1);
  }
  co_return;
}

tine::task<> count_start(remote_state* s) {
  s->started.fetch_add(1, std::memory_order_relaxed);
  co_return;
}

tine::task<> fork_two(remote_state* s) {
  co_await tine::fork(count_start, s);
  co_await tine::fork(count_start, s);
  co_await tine::join();
}

// The parent forks a child that throws only once the parent has gone on elsewhere (a thief took
// it), waits until the child's arrival is counted at its join, calls a subtree that forks (its
// own children start: it holds nothing), then forks twice more: neither starts.
tine::task<> remote_parent(remote_state* s) {
  tine::detail::frame* self = co_await own_frame{};
  co_await tine::fork(throw_once_stolen, s);
  s->parent_went_on.store(true, std::memory_order_release);
  // acquire: the arrival counts after storing the exception and asking every worker to look.
  while (self->joins.load(std::memory_order_acquire) == tine::detail::frame::max_joins) {
    std::this_thread::yield();
  }
  co_await tine::call(fork_two, s);
  co_await tine::fork(count_start, s);
  co_await tine::fork(count_start, s);
  co_await tine::join();
}

constexpr int one_worker_programs = 400;
constexpr int pool_programs = 500;
constexpr std::size_t program_size = 120;

}  // namespace

BOOST_AUTO_TEST_CASE(the_model_itself_skips_forks_after_a_throw) {
  // A hand-made program: 0 forks 1 (throws), calls 2 (which forks 3), forks 4, joins.
  program p;
  p.nodes.resize(5);
  p.nodes[0].ops = {{op::fork, 1}, {op::call, 2}, {op::fork, 4}, {op::join, -1}};
  p.nodes[1].ops = {{op::raise, -1}};
  p.nodes[2].ops = {{op::fork, 3}, {op::join, -1}};
  model m(p.nodes.size());
  BOOST_TEST(m.run(p, 0).value_or(-1) == 1);
  BOOST_TEST(m.nodes[3].started);   // 2's own fork: 2 holds nothing
  BOOST_TEST(!m.nodes[4].started);  // 0's fork after 1 threw
}

// The case the random programs found first, alone: a call into a subtree that forks, between
// the throw and the task's next fork.
BOOST_AUTO_TEST_CASE(a_call_between_the_throw_and_the_next_fork_keeps_the_rule) {
  program p;
  p.nodes.resize(5);
  p.nodes[0].ops = {{op::fork, 1}, {op::call, 2}, {op::fork, 4}, {op::join, -1}};
  p.nodes[1].ops = {{op::raise, -1}};
  p.nodes[2].ops = {{op::fork, 3}, {op::join, -1}};
  tine::inline_scheduler sched;
  run_log log(p.nodes.size());
  BOOST_CHECK_THROW(tine::sync_wait(sched, run_node, &p, 0, &log), node_error);
  BOOST_TEST(log.nodes[3].started);
  BOOST_TEST(!log.nodes[4].started);
}

BOOST_AUTO_TEST_CASE(a_child_that_threw_on_another_worker_is_seen_after_its_arrival) {
  tine::busy_pool<> pool(2);
  for (int i = 0; i < 20; ++i) {
    remote_state s;
    BOOST_CHECK_THROW(tine::sync_wait(pool, remote_parent, &s), node_error);
    BOOST_TEST(s.started.load() == 2);  // fork_two's own children only
  }
}

BOOST_AUTO_TEST_CASE(one_worker_follows_the_serial_model_inline) {
  tine::inline_scheduler sched;
  const findings f = run_programs(sched, true, 1, one_worker_programs, program_size);
  BOOST_TEST(f.count == 0U, f.text());
}

BOOST_AUTO_TEST_CASE(one_worker_follows_the_serial_model_on_one_worker_pools) {
  {
    tine::busy_pool<> pool(1);
    const findings f = run_programs(pool, true, 10001, one_worker_programs, program_size);
    BOOST_TEST(f.count == 0U, "busy_pool(1): " << f.text());
  }
  {
    tine::lazy_pool<> pool(1);
    const findings f = run_programs(pool, true, 20001, one_worker_programs, program_size);
    BOOST_TEST(f.count == 0U, "lazy_pool(1): " << f.text());
  }
}

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(600))
BOOST_AUTO_TEST_CASE(more_workers_start_nothing_after_a_local_throw) {
  for (std::size_t workers : {2U, 3U, 4U}) {
    {
      tine::busy_pool<> pool(workers);
      const findings f =
          run_programs(pool, false, 30001 + 1000 * workers, pool_programs, program_size);
      BOOST_TEST(f.count == 0U, "busy_pool(" << workers << "): " << f.text());
      report(f, "busy_pool", workers);
    }
    {
      tine::lazy_pool<> pool(workers);
      const findings f =
          run_programs(pool, false, 40001 + 1000 * workers, pool_programs, program_size);
      BOOST_TEST(f.count == 0U, "lazy_pool(" << workers << "): " << f.text());
      report(f, "lazy_pool", workers);
    }
  }
}
