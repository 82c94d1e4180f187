// Continuation queues: a worker with one installed offers every fork's continuation there and
// takes it back from there (its own deque stays empty); a thief that takes continuations from the
// queue and runs them with resume_stolen() completes the joins, results and exceptions intact; a
// queue can be removed again; installing one over a non-empty deque, or from inside a task, is
// refused with a message.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

#include "tests/core/death.hpp"
#include "tests/queued_scheduler.hpp"

namespace {

// A work-stealing deque guarded by a mutex (its lock and unlock order a push before the steal
// that takes the item), counting what passes through it.
class locked_queue final : public tine::continuation_queue {
 public:
  void push(tine::detail::frame* parent, void* /*child*/) override {
    std::lock_guard<std::mutex> hold(m_mutex);
    m_items.push_back(parent);
    ++m_pushes;
  }
  std::optional<tine::detail::frame*> pop() noexcept override {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      ++m_empty_pops;
      return std::nullopt;
    }
    tine::detail::frame* f = m_items.back();
    m_items.pop_back();
    return f;
  }
  tine::detail::frame* steal() {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      return nullptr;
    }
    tine::detail::frame* f = m_items.front();
    m_items.pop_front();
    ++m_steals;
    return f;
  }
  std::size_t pushes() const { return m_pushes; }
  std::size_t steals() const { return m_steals; }
  std::size_t empty_pops() const { return m_empty_pops; }

 private:
  mutable std::mutex m_mutex;
  std::deque<tine::detail::frame*> m_items;
  std::size_t m_pushes = 0;
  std::size_t m_steals = 0;
  std::size_t m_empty_pops = 0;
};

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

// Forks of fib(n): one per call with n >= 2.
std::size_t forks_of_fib(int n) {
  return n < 2 ? 0 : 1 + forks_of_fib(n - 1) + forks_of_fib(n - 2);
}

// A tree whose leaves at `bad` depth throw; the first exception reaches the root's join.
tine::task<long> tree_with_fault(int depth, int bad) {
  if (depth == bad) {
    throw std::runtime_error("leaf failed");
  }
  if (depth == 0) {
    co_return 1;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, tree_with_fault, depth - 1, bad);
  co_await tine::fork(&b, tree_with_fault, depth - 1, bad);
  co_await tine::join();
  co_return a + b;
}

tine::task<int> install_from_inside_a_task(locked_queue* queue) {
  tine::current_worker()->set_continuation_queue(queue);
  co_return 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(continuation_queue)

BOOST_AUTO_TEST_CASE(every_continuation_goes_through_the_queue) {
  locked_queue queue;
  {
    tine_test::queued_scheduler sched(queue);
    BOOST_TEST(sched.queue_was_installed());
    BOOST_TEST(tine::sync_wait(sched, fib, 20) == serial_fib(20));
    BOOST_TEST(sched.largest_own_deque() == 0u);
  }
  BOOST_TEST(queue.pushes() == forks_of_fib(20));
  BOOST_TEST(queue.steals() == 0u);
  BOOST_TEST(queue.empty_pops() == 0u);  // nobody stole: every parent came back
}

BOOST_AUTO_TEST_CASE(a_thief_of_the_queue_completes_joins_results_and_exceptions) {
  locked_queue queue;
  {
    tine_test::queued_scheduler sched(queue, [&queue] { return queue.steal(); });
    // Steals are likely on the first run and certain over many: require some, or nothing
    // was tested.
    for (int round = 0; round < 200 && queue.steals() < 20; ++round) {
      BOOST_TEST(tine::sync_wait(sched, fib, 22) == serial_fib(22));
    }
    for (int round = 0; round < 20; ++round) {
      BOOST_CHECK_EXCEPTION(
          tine::sync_wait(sched, tree_with_fault, 10, 3), std::runtime_error,
          [](const std::runtime_error& e) { return std::string(e.what()) == "leaf failed"; });
      BOOST_TEST(tine::sync_wait(sched, tree_with_fault, 10, -1) == 1024);
    }
  }
  BOOST_TEST(queue.steals() >= 20u);
  BOOST_TEST(queue.empty_pops() > 0u);  // children that found their parent stolen
}

BOOST_AUTO_TEST_CASE(installing_from_inside_a_task_is_refused_with_a_message) {
  const auto r = tine_tests::run_in_child([] {
    locked_queue queue;
    tine::inline_scheduler sched;
    (void)tine::sync_wait(sched, install_from_inside_a_task, &queue);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("worker_context::set_continuation_queue: called from inside a "
                                "task") != std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_CASE(installing_on_an_unbound_context_is_refused_with_a_message) {
  const auto r = tine_tests::run_in_child([] {
    locked_queue queue;
    tine::worker_context context;
    context.set_continuation_queue(&queue);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(
      r.stderr_text.find("called on a thread this context is not bound to") != std::string::npos,
      r.stderr_text);
}

BOOST_AUTO_TEST_SUITE_END()
