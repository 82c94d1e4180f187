// Explicit scheduling with tine's pools: a task moves to a chosen worker, to another scheduler
// and back, and foreign threads submit to chosen workers. The example of docs/schedulers.md.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

BOOST_AUTO_TEST_SUITE(explicit_scheduling)

// clang-format off
// [docs:explicit_scheduling]
// Some library must only be called from one thread: give it an inline_scheduler, and let tasks
// visit it in the middle of their work.
tine::task<int> talk_to_the_library(tine::lazy_pool<>* pool, tine::inline_scheduler* library) {
  co_await tine::resume_on(*library);  // now on the library's thread
  const std::thread::id library_thread = std::this_thread::get_id();
  co_await tine::resume_on(pool->worker(1));  // back, on worker 1 of the pool precisely
  co_return library_thread != std::this_thread::get_id() ? 1 : 0;
}

BOOST_AUTO_TEST_CASE(visit_another_scheduler) {
  tine::lazy_pool pool(2);
  tine::inline_scheduler library;
  BOOST_TEST(tine::sync_wait(pool, talk_to_the_library, &pool, &library) == 1);
}
// [docs:explicit_scheduling end]
// clang-format on

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

// Moves between workers of `pool` (by index, round and round) and another scheduler, forking
// on each; a forked child moves too, while its parent's continuation may be stolen.
template <typename Pool>
tine::task<long> wander(Pool* pool, tine::inline_scheduler* other, int hops) {
  long sum = 0;
  for (int h = 0; h < hops; ++h) {
    co_await tine::resume_on(pool->worker(static_cast<std::size_t>(h) % pool->size()));
    long a = 0;
    co_await tine::fork(&a, fib, 12);
    co_await tine::join();
    if (h % 3 == 0) {
      co_await tine::resume_on(*other);
    }
    sum += a;
  }
  co_await tine::resume_on(*pool);
  co_return sum;
}

template <typename Pool>
tine::task<long> wanderers(Pool* pool, tine::inline_scheduler* other) {
  long a = 0;
  long b = 0;
  long c = 0;
  co_await tine::fork(&a, wander<Pool>, pool, other, 10);
  co_await tine::fork(&b, fib, 15);
  co_await tine::fork(&c, wander<Pool>, pool, other, 7);
  co_await tine::join();
  co_return a + b + c;
}

template <typename Pool>
void run_wanderers(std::size_t workers) {
  Pool pool(workers);
  tine::inline_scheduler other;
  for (int i = 0; i < 10; ++i) {
    BOOST_TEST(tine::sync_wait(pool, wanderers<Pool>, &pool, &other) == 144 * 17 + 610);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(tasks_wander_between_workers_and_schedulers, *boost::unit_test::timeout(120)) {
  for (std::size_t n : {1U, 2U, 5U}) {
    run_wanderers<tine::busy_pool<>>(n);
    run_wanderers<tine::lazy_pool<>>(n);
  }
}

BOOST_AUTO_TEST_CASE(foreign_threads_submit_to_chosen_workers, *boost::unit_test::timeout(120)) {
  tine::lazy_pool pool(3);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        if (tine::sync_wait(pool.worker(t % 3), fib, 12) != 144) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  BOOST_TEST(wrong.load() == 0);
  BOOST_TEST(pool.stats(0).submissions_run >= 40U);  // each worker got its share
  BOOST_TEST(pool.stats(2).submissions_run >= 40U);
}

BOOST_AUTO_TEST_SUITE_END()
