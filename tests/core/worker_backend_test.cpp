// Worker backends (the continuation side; stacklet sources and codecs: stacklet_source_test): a
// backend that asks for an offer at every fork takes every continuation and gives each back
// (the worker's own deque stays empty); one that takes, when asked, the worker's oldest
// continuation from its deque, as a distributed pool's rank does, sees the others stay there; a
// thief that takes continuations from the backend and runs them with resume_stolen() completes
// the joins, results and exceptions intact; a backend can be removed again; installing one over
// a non-empty deque, or from inside a task, is refused with a message; a backend's frames leave
// the process exactly while it is installed with a process boundary.
//
// And joins counted by the backends and finished by the frame's home worker, as the distributed
// pool does, here with two workers of one process (so ThreadSanitizer sees every access): each
// worker has its own backend (a queue), which is its own process boundary, and steals from the
// other's. Every arrival at the join of a stolen frame goes to `process_boundary::arrive`, which
// counts it in a table shared by both queues.
// The arrival that completes a join continues the frame at once when it happens on the frame's
// home; otherwise the frame is handed to its home, which continues it with
// `worker_context::resume_joined` when idle. A frame's home here is the worker whose queue first
// received its address (addresses are reused, so not always its creator; in one process that
// does not matter: any idle worker may adopt a frame's stack).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

#include "tests/core/death.hpp"
#include "tests/queued_scheduler.hpp"

namespace {

// A work-stealing deque guarded by a mutex (its lock and unlock order a push before the steal
// that takes the item), counting what passes through it.
class locked_queue final : public tine::worker_backend {
 public:
  // Takes every fork's continuation: asks for the next offer each time.
  bool offer(tine::detail::frame* parent, void* /*child*/,
             tine::deque<tine::detail::frame*>& /*continuations*/) override {
    {
      std::lock_guard<std::mutex> hold(m_mutex);
      m_items.push_back(parent);
      ++m_pushes;
    }
    tine::current_worker()->request_offer();
    return true;
  }
  tine::detail::frame* take_back() noexcept override {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      ++m_empty_pops;
      return nullptr;
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

// Holds at most one continuation: asked for an offer, it takes the worker's oldest from its
// deque, or the forking parent's own when the deque is empty, as a distributed pool's rank does
// for its thieves in other processes.
class oldest_offer final : public tine::worker_backend {
 public:
  bool offer(tine::detail::frame* parent, void* /*child*/,
             tine::deque<tine::detail::frame*>& continuations) override {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_held != nullptr) {
      return false;
    }
    if (continuations.empty()) {
      m_held = parent;
      ++m_parents;
      return true;
    }
    const tine::steal_result<tine::detail::frame*> got = continuations.steal();
    if (got.status == tine::steal_status::success) {
      m_held = got.value;
      ++m_oldest;
    }
    return false;
  }
  tine::detail::frame* take_back() noexcept override {
    std::lock_guard<std::mutex> hold(m_mutex);
    tine::detail::frame* f = m_held;
    m_held = nullptr;
    m_taken_back += f != nullptr ? 1 : 0;
    return f;
  }
  tine::detail::frame* steal() {
    std::lock_guard<std::mutex> hold(m_mutex);
    tine::detail::frame* f = m_held;
    m_held = nullptr;
    return f;
  }
  std::size_t parents() const {
    std::lock_guard<std::mutex> hold(m_mutex);
    return m_parents;
  }
  std::size_t oldest() const {
    std::lock_guard<std::mutex> hold(m_mutex);
    return m_oldest;
  }
  std::size_t taken_back() const {
    std::lock_guard<std::mutex> hold(m_mutex);
    return m_taken_back;
  }

 private:
  mutable std::mutex m_mutex;
  tine::detail::frame* m_held = nullptr;
  std::size_t m_parents = 0;
  std::size_t m_oldest = 0;
  std::size_t m_taken_back = 0;
};

class home_queue;

// The arrivals at the joins of stolen frames, shared by both workers' queues.
struct join_table {
  std::mutex mutex;
  std::unordered_map<tine::detail::frame*, std::uint64_t> counts;
  std::unordered_map<tine::detail::frame*, home_queue*>
      homes;  // where a frame was first pushed in its scope
};

class home_queue final : public tine::worker_backend, public tine::process_boundary {
 public:
  explicit home_queue(join_table& table) : m_table(table) {}

  tine::process_boundary* boundary() noexcept override { return this; }
  const tine::detail::exception_codec& exceptions() const noexcept override {
    return tine_test::boxing_codec;
  }

  // Takes every fork's continuation: asks for the next offer each time.
  bool offer(tine::detail::frame* parent, void* /*child*/,
             tine::deque<tine::detail::frame*>& /*continuations*/) override {
    {
      std::lock_guard<std::mutex> hold(m_table.mutex);
      m_table.homes.emplace(parent, this);  // kept if already there: the first push wins
    }
    {
      std::lock_guard<std::mutex> hold(m_mutex);
      m_items.push_back(parent);
    }
    tine::current_worker()->request_offer();
    return true;
  }

  tine::detail::frame* take_back() noexcept override {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      return nullptr;
    }
    tine::detail::frame* f = m_items.back();
    m_items.pop_back();
    return f;
  }

  bool arrive(tine::detail::frame* f, tine::join_arrival& a) noexcept override {
    if (a.exception) {
      f->stash_exception(std::move(a.exception));  // the first one wins, as in the core
    }
    home_queue* home = nullptr;
    {
      // The table's lock orders every strand's writes (results, exception) before the
      // completing arrival, and the ready list's lock orders them before the home resumes f.
      std::lock_guard<std::mutex> hold(m_table.mutex);
      std::uint64_t& count = m_table.counts[f];
      count += a.strands;
      if (count != tine::detail::frame::max_joins) {
        return false;
      }
      m_table.counts.erase(f);
      home = m_table.homes.at(f);
      m_table.homes.erase(f);
    }
    if (home == this) {
      m_greedy.fetch_add(1, std::memory_order_relaxed);
      return true;  // completed on the frame's home: continue now
    }
    std::lock_guard<std::mutex> hold(home->m_mutex);
    home->m_ready.push_back(f);
    return false;
  }

  tine::detail::frame* steal() {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      return nullptr;
    }
    tine::detail::frame* f = m_items.front();
    m_items.pop_front();
    return f;
  }

  tine::detail::frame* take_ready() {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_ready.empty()) {
      return nullptr;
    }
    tine::detail::frame* f = m_ready.front();
    m_ready.pop_front();
    return f;
  }

  // relaxed: statistics, read after the workers are joined.
  std::uint64_t greedy() const { return m_greedy.load(std::memory_order_relaxed); }

 private:
  join_table& m_table;
  std::mutex m_mutex;
  std::deque<tine::detail::frame*> m_items;
  std::deque<tine::detail::frame*> m_ready;  // frames whose joins completed elsewhere
  std::atomic<std::uint64_t> m_greedy{0};
};

// Two workers, each with a home_queue, stealing from each other; roots go to the first.
class two_homes {
 public:
  two_homes() : m_queues{home_queue(m_table), home_queue(m_table)} {
    for (int i = 0; i < 2; ++i) {
      m_threads[i] = std::thread([this, i] { work(i); });
    }
    while (m_contexts[0].load(std::memory_order_acquire) == nullptr) {
      std::this_thread::yield();
    }
  }
  ~two_homes() {
    m_stop.store(true, std::memory_order_release);
    for (std::thread& t : m_threads) {
      t.join();
    }
  }
  two_homes(const two_homes&) = delete;
  two_homes& operator=(const two_homes&) = delete;

  void schedule(tine::submit_node* node) noexcept {
    m_contexts[0].load(std::memory_order_acquire)->submit(node);
  }

  std::uint64_t steals() const { return m_steals.load(); }
  std::uint64_t resumed_by_home() const { return m_resumed.load(); }
  std::uint64_t greedy() const { return m_queues[0].greedy() + m_queues[1].greedy(); }

 private:
  void work(int i) {
    tine::worker_context context(1024, tine::owner_fence::full);
    context.bind();
    context.set_backend(&m_queues[i]);
    context.request_offer();
    m_contexts[i].store(&context, std::memory_order_release);
    while (!m_stop.load(std::memory_order_acquire)) {
      if (tine::detail::frame* f = m_queues[i].take_ready()) {
        m_resumed.fetch_add(1);
        context.resume_joined(f);
      } else if (context.run_one_submission()) {
      } else if (tine::detail::frame* g = m_queues[1 - i].steal()) {
        m_steals.fetch_add(1);
        context.resume_stolen(g);
      } else {
        std::this_thread::yield();
      }
    }
    context.set_backend(nullptr);
    context.unbind();
  }

  join_table m_table;
  home_queue m_queues[2];
  std::atomic<tine::worker_context*> m_contexts[2] = {nullptr, nullptr};
  std::atomic<bool> m_stop{false};
  std::atomic<std::uint64_t> m_steals{0};
  std::atomic<std::uint64_t> m_resumed{0};
  std::thread m_threads[2];
};

static_assert(tine::scheduler<two_homes>);

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
  tine::current_worker()->set_backend(queue);
  co_return 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_backend)

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

BOOST_AUTO_TEST_CASE(offers_of_the_oldest_continuation_leave_the_rest_in_the_deque) {
  oldest_offer backend;
  {
    tine_test::queued_scheduler sched(backend, [&backend] { return backend.steal(); });
    // Each way of offering, taking back and stealing is likely on the first runs and certain
    // over many: run until each happened, or nothing was tested.
    for (int round = 0; round < 5000 && (sched.steals() < 20 || backend.oldest() < 20 ||
                                         backend.parents() < 5 || backend.taken_back() < 5);
         ++round) {
      BOOST_TEST(tine::sync_wait(sched, fib, 20) == serial_fib(20));
    }
    for (int round = 0; round < 20; ++round) {
      BOOST_CHECK_EXCEPTION(
          tine::sync_wait(sched, tree_with_fault, 10, 3), std::runtime_error,
          [](const std::runtime_error& e) { return std::string(e.what()) == "leaf failed"; });
      BOOST_TEST(tine::sync_wait(sched, tree_with_fault, 10, -1) == 1024);
    }
    BOOST_TEST(sched.steals() >= 20u);
    BOOST_TEST(sched.largest_own_deque() == 0u);  // idle, the worker's deque is empty
  }
  BOOST_TEST(backend.oldest() >= 20u);
  BOOST_TEST(backend.parents() >= 5u);
  BOOST_TEST(backend.taken_back() >= 5u);
}

BOOST_AUTO_TEST_CASE(joins_counted_by_the_queues_complete_at_home) {
  // Both ways of completing a join are likely on the first runs and certain over many: require
  // some of each, or nothing was tested. (On a loaded machine a worker may sit preempted through
  // whole runs, and 500 runs were once not enough: the loop ends as soon as both were seen.)
  two_homes sched;
  for (int round = 0; round < 20000 && (sched.resumed_by_home() < 10 || sched.greedy() < 10);
       ++round) {
    BOOST_TEST(tine::sync_wait(sched, fib, 20) == serial_fib(20));
    BOOST_TEST(tine::sync_wait(sched, tree_with_fault, 10, -1) == 1024);
  }
  for (int round = 0; round < 20; ++round) {
    BOOST_CHECK_EXCEPTION(
        tine::sync_wait(sched, tree_with_fault, 10, 3), std::runtime_error,
        [](const std::runtime_error& e) { return std::string(e.what()) == "leaf failed"; });
  }
  BOOST_TEST(sched.steals() > 0u);
  BOOST_TEST(sched.resumed_by_home() >= 10u);
  BOOST_TEST(sched.greedy() >= 10u);
}

BOOST_AUTO_TEST_CASE(installing_from_inside_a_task_is_refused_with_a_message) {
  const auto r = tine_tests::run_in_child([] {
    locked_queue queue;
    tine::inline_scheduler sched;
    (void)tine::sync_wait(sched, install_from_inside_a_task, &queue);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("worker_context::set_backend: called from inside a "
                                "task") != std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_CASE(installing_on_an_unbound_context_is_refused_with_a_message) {
  const auto r = tine_tests::run_in_child([] {
    locked_queue queue;
    tine::worker_context context;
    context.set_backend(&queue);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(
      r.stderr_text.find("called on a thread this context is not bound to") != std::string::npos,
      r.stderr_text);
}

BOOST_AUTO_TEST_CASE(frames_leave_the_process_only_while_a_process_boundary_is_installed) {
  // The one explicit capability (a boundary, which cannot be made without an exception codec:
  // compile_fail/process_boundary_without_codec.cpp), installed and uninstalled with the backend.
  struct staying final : tine::worker_backend {
    bool offer(tine::detail::frame*, void*, tine::deque<tine::detail::frame*>&) override {
      return false;
    }
    tine::detail::frame* take_back() noexcept override { return nullptr; }
  };
  struct across final : tine::process_boundary {
    const tine::detail::exception_codec& exceptions() const noexcept override {
      return tine_test::boxing_codec;
    }
  };
  struct leaving final : tine::worker_backend {
    bool offer(tine::detail::frame*, void*, tine::deque<tine::detail::frame*>&) override {
      return false;
    }
    tine::detail::frame* take_back() noexcept override { return nullptr; }
    tine::process_boundary* boundary() noexcept override { return &edge; }
    across edge;
  };
  staying plain;
  leaving away;
  tine::worker_context context;
  context.bind();
  BOOST_TEST(!tine::detail::frames_may_leave_process());
  context.set_backend(&plain);
  BOOST_TEST(!tine::detail::frames_may_leave_process());
  BOOST_TEST(tine::detail::read_tls_exception_codec() == nullptr);
  context.set_backend(&away);
  BOOST_TEST(tine::detail::frames_may_leave_process());
  BOOST_TEST(tine::detail::read_tls_exception_codec() == &tine_test::boxing_codec);
  context.set_backend(nullptr);
  BOOST_TEST(!tine::detail::frames_may_leave_process());
  BOOST_TEST(tine::detail::read_tls_exception_codec() == nullptr);
  context.set_backend(&away);
  context.unbind();
  BOOST_TEST(!tine::detail::frames_may_leave_process());
}

BOOST_AUTO_TEST_SUITE_END()
