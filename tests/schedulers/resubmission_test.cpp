// Submissions must not starve continuations (docs/extending.md, "A scheduler"): a task that moves
// back onto its own worker with resume_on in a loop, until its parent's continuation (left in a
// deque by the fork) runs, must finish on every tine scheduler, however few workers it has.
//
// A scheduler that broke the rule would loop forever. Instead every looping task gives up at a
// deadline and the case fails with a message; a watchdog ends the binary with a failure should a
// scenario hang in some other way, so a regression fails in seconds rather than hanging CI.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/schedulers/pool_worker.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

// How long a looping task waits for its release before giving up. A passing scenario takes
// milliseconds, even under ThreadSanitizer.
constexpr std::chrono::seconds patience{5};

// Ends the process with a failure, naming `what`, unless destroyed within `limit`: the backstop
// for a hang the deadlines cannot catch (a task that never runs again cannot see its deadline).
class watchdog {
 public:
  watchdog(const char* what, std::chrono::seconds limit)
      : m_thread([this, what, limit] {
          std::unique_lock lock(m_mutex);
          if (!m_done_cv.wait_for(lock, limit, [this] { return m_done; })) {
            std::fprintf(stderr, "watchdog: %s did not finish within %lld s; failing the test\n",
                         what, static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::_Exit(1);
          }
        }) {}

  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

  ~watchdog() {
    {
      std::lock_guard lock(m_mutex);
      m_done = true;
    }
    m_done_cv.notify_one();
    m_thread.join();
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_done_cv;
  bool m_done = false;
  std::thread m_thread;  // last: it uses the members above
};

struct release_state {
  std::atomic<bool> released{false};
  std::atomic<bool> gave_up{false};
  std::atomic<long> moves{0};
  clock_type::time_point deadline = clock_type::now() + patience;

  bool waiting() {
    // acquire: pairs with the release store in release_all.
    if (released.load(std::memory_order_acquire)) {
      return false;
    }
    if (clock_type::now() > deadline) {
      gave_up.store(true, std::memory_order_relaxed);  // read after sync_wait returns
      return false;
    }
    return true;
  }
};

void release_all(release_state* st) {
  // release: whoever sees the flag also sees what the releaser did before.
  st->released.store(true, std::memory_order_release);
}

// Moves back onto `home` (one worker of a pool, or the inline scheduler) until released.
template <typename Home>
tine::task<void> resubmit_until_released(Home* home, release_state* st) {
  while (st->waiting()) {
    co_await tine::resume_on(*home);
    st->moves.fetch_add(1, std::memory_order_relaxed);
  }
}

// Spins without suspending until released: holds its worker, and the continuation it was
// forked from stays in that worker's deque for another worker to steal.
tine::task<void> spin_until_released(release_state* st) {
  while (st->waiting()) {
    std::this_thread::yield();
  }
  co_return;
}

tine::task<void> release(release_state* st) {
  release_all(st);
  co_return;
}

// One looping task per worker, each on its own worker; then the parent itself releases them.
template <typename Fixture>
tine::task<void> parent_releases(Fixture* fx, release_state* st) {
  for (std::size_t i = 0; i < fx->workers(); ++i) {
    co_await tine::fork(resubmit_until_released<typename Fixture::home_type>, &fx->home(i), st);
  }
  release_all(st);  // reached only once this continuation runs
  co_await tine::join();
}

// The same, but a sibling forked after the loopers releases them.
template <typename Fixture>
tine::task<void> sibling_releases(Fixture* fx, release_state* st) {
  for (std::size_t i = 0; i < fx->workers(); ++i) {
    co_await tine::fork(resubmit_until_released<typename Fixture::home_type>, &fx->home(i), st);
  }
  co_await tine::fork(release, st);
  co_await tine::join();
}

// Forks a spinner (which holds this worker), then releases it: the release runs only once
// another worker steals this continuation.
tine::task<void> spin_then_release(release_state* st) {
  co_await tine::fork(spin_until_released, st);
  release_all(st);
  co_await tine::join();
}

template <typename Pool, std::size_t Workers>
struct pool_fixture {
  using home_type = tine::pool_worker;
  std::unique_ptr<Pool> pool = std::make_unique<Pool>(Workers);

  std::size_t workers() const { return Workers; }
  Pool& scheduler() { return *pool; }
  tine::pool_worker& home(std::size_t i) { return pool->worker(i % Workers); }
};

struct inline_fixture {
  using home_type = tine::inline_scheduler;
  tine::inline_scheduler sched;

  std::size_t workers() const { return 1; }
  tine::inline_scheduler& scheduler() { return sched; }
  tine::inline_scheduler& home(std::size_t) { return sched; }
};

// Runs `root` on the fixture's scheduler; false (after reporting) if a looping task gave up.
template <typename Fixture, typename Root>
bool run_scenario(Fixture& fx, Root root, const char* what) {
  BOOST_TEST_CHECKPOINT(what);
  release_state st;
  {
    const watchdog guard(what, std::chrono::seconds(30));
    tine::sync_wait(fx.scheduler(), root, &fx, &st);
  }
  BOOST_TEST(!st.gave_up.load(), what << ": a looping task waited " << patience.count()
                                      << " s for a continuation that never ran");
  BOOST_TEST(st.released.load(), what);
  if (fx.workers() == 1) {
    // With one worker the first looper always checks before its parent can run again: it moved.
    BOOST_TEST(st.moves.load() >= 1, what);
  }
  return !st.gave_up.load();
}

using fixtures =
    boost::mpl::list<pool_fixture<tine::busy_pool<>, 1>, pool_fixture<tine::lazy_pool<>, 1>,
                     pool_fixture<tine::busy_pool<>, 2>, pool_fixture<tine::lazy_pool<>, 2>,
                     inline_fixture>;

using two_worker_pools =
    boost::mpl::list<pool_fixture<tine::busy_pool<>, 2>, pool_fixture<tine::lazy_pool<>, 2>>;

}  // namespace

BOOST_AUTO_TEST_SUITE(resubmission)

BOOST_AUTO_TEST_CASE_TEMPLATE(parent_continuation_runs_between_resubmissions, Fixture, fixtures) {
  Fixture fx;
  // A few rounds: the roots land on different workers. One failure is enough.
  for (int round = 0; round < 3; ++round) {
    if (!run_scenario(fx, parent_releases<Fixture>, "the parent releases its looping children")) {
      break;
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(sibling_runs_between_resubmissions, Fixture, fixtures) {
  Fixture fx;
  for (int round = 0; round < 3; ++round) {
    if (!run_scenario(fx, sibling_releases<Fixture>, "a sibling releases its looping siblings")) {
      break;
    }
  }
}

// Worker 0 loops on a root task that resubmits itself there; worker 1 spins in a child whose
// parent's continuation, in worker 1's deque, releases both. Only worker 0 can steal it: it must
// look at the other deques between its submissions, not only at its own.
BOOST_AUTO_TEST_CASE_TEMPLATE(continuation_is_stolen_between_resubmissions, Fixture,
                              two_worker_pools) {
  const watchdog guard("stealing between resubmissions", std::chrono::seconds(30));
  Fixture fx;
  release_state st;
  std::thread looper([&] {
    tine::sync_wait(fx.home(0), resubmit_until_released<tine::pool_worker>, &fx.home(0), &st);
  });
  // Let worker 0 settle into its loop first.
  while (st.moves.load() == 0 && clock_type::now() < st.deadline) {
    std::this_thread::yield();
  }
  const bool looping = st.moves.load() > 0;
  if (looping) {
    tine::sync_wait(fx.home(1), spin_then_release, &st);
  } else {
    release_all(&st);
  }
  looper.join();
  BOOST_TEST(looping, "the looping root task never moved");
  BOOST_TEST(!st.gave_up.load(),
             "worker 0 never stole the continuation from worker 1 between its submissions");
  BOOST_TEST(st.released.load());
}

BOOST_AUTO_TEST_SUITE_END()
