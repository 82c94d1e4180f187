// Task continuations in an rma_deque (run by mpiexec on 1 and 2 ranks; each rank on its own): a
// worker whose context has a tine::mpi::rma_continuation_queue installed forks into the rank's
// rma_deque, and a second thread of the same rank steals from that deque with the MPI atomics a
// remote thief uses and runs what it took with resume_stolen. Results and exceptions must come
// out as in a serial run, some continuations must have been stolen, some pops must have found
// their parent gone, and a deque too small for the recursion makes the fork fail with its
// message. (Frames do not move between processes here: that is the pool's work.)

#include <tine/core/core.hpp>
#include <tine/distributed/environment.hpp>
#include <tine/distributed/rma_continuation_queue.hpp>
#include <tine/distributed/rma_deque.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/distributed/mpi_check.hpp"

namespace {

// One worker with the queue installed and, optionally, a thief thread that steals from this
// rank's deque only; satisfies tine::scheduler.
class rma_queued_scheduler {
 public:
  rma_queued_scheduler(tine::mpi::rma_deque& deque, bool with_thief)
      : m_deque(deque), m_queue(deque) {
    m_worker = std::thread([this] { work(); });
    if (with_thief) {
      m_thief = std::thread([this] { steal(); });
    }
    while (m_context.load(std::memory_order_acquire) == nullptr) {
      std::this_thread::yield();
    }
  }
  ~rma_queued_scheduler() {
    m_stop.store(true, std::memory_order_release);
    m_worker.join();
    if (m_thief.joinable()) {
      m_thief.join();
    }
  }
  rma_queued_scheduler(const rma_queued_scheduler&) = delete;
  rma_queued_scheduler& operator=(const rma_queued_scheduler&) = delete;

  void schedule(tine::submit_node* node) noexcept {
    m_context.load(std::memory_order_acquire)->submit(node);
  }

  std::uint64_t steals() const { return m_steals.load(); }

 private:
  void work() {
    tine::worker_context context(1024, tine::owner_fence::full);
    context.bind();
    context.set_continuation_queue(&m_queue);
    m_context.store(&context, std::memory_order_release);
    while (!m_stop.load(std::memory_order_acquire)) {
      if (!context.run_one_submission()) {
        std::this_thread::yield();
      }
      if (context.deque_size() != 0) {
        m_own_deque_used.store(true);
      }
    }
    context.set_continuation_queue(nullptr);
    context.unbind();
    CHECK(!m_own_deque_used.load());
  }

  void steal() {
    tine::worker_context context(1024, /*unshared=*/true);
    context.bind();
    while (!m_stop.load(std::memory_order_acquire)) {
      const auto got = m_deque.steal(tine_test::my_rank);
      if (got.what == tine::mpi::rma_deque::status::success) {
        m_steals.fetch_add(1);
        context.resume_stolen(
            reinterpret_cast<tine::detail::frame*>(static_cast<std::uintptr_t>(got.value)));
      }
    }
    context.unbind();
  }

  tine::mpi::rma_deque& m_deque;
  tine::mpi::rma_continuation_queue m_queue;
  std::atomic<tine::worker_context*> m_context{nullptr};
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_own_deque_used{false};
  std::atomic<std::uint64_t> m_steals{0};
  std::thread m_worker;
  std::thread m_thief;
};

static_assert(tine::scheduler<rma_queued_scheduler>);

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

// A binary tree of forks whose nodes at depth `bad` throw (none when bad < 0).
tine::task<long> tree(int depth, int bad) {
  if (depth == bad) {
    throw std::runtime_error("a node failed");
  }
  if (depth == 0) {
    co_return 1;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, tree, depth - 1, bad);
  co_await tine::fork(&b, tree, depth - 1, bad);
  co_await tine::join();
  co_return a + b;
}

// A chain of forks `depth` deep: each keeps one continuation in the deque until it returns.
tine::task<long> chain(int depth) {
  if (depth == 0) {
    co_return 0;
  }
  long r = 0;
  co_await tine::fork(&r, chain, depth - 1);
  co_await tine::join();
  co_return r + 1;
}

void check_without_thief() {
  tine::mpi::rma_deque deque(MPI_COMM_WORLD, 1024);
  {
    rma_queued_scheduler sched(deque, /*with_thief=*/false);
    CHECK(tine::sync_wait(sched, fib, 20) == serial_fib(20));
    CHECK(tine::sync_wait(sched, chain, 500) == 500);
  }
  CHECK(deque.size() == 0);
  CHECK(deque.contended_pops() == 0);  // no thief: no pop needed the lock
  MPI_Barrier(MPI_COMM_WORLD);
}

void check_with_thief() {
  tine::mpi::rma_deque deque(MPI_COMM_WORLD, 1024);
  std::uint64_t steals = 0;
  {
    rma_queued_scheduler sched(deque, /*with_thief=*/true);
    // The thief steals only while both threads run at once, which a loaded machine makes rare:
    // keep going until it has (or the time is up, and the check below fails).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (sched.steals() < 20 && std::chrono::steady_clock::now() < until) {
      CHECK(tine::sync_wait(sched, fib, 22) == serial_fib(22));
    }
    for (int round = 0; round < 10; ++round) {
      CHECK(tine::sync_wait(sched, tree, 9, -1) == 512);
      bool threw = false;
      try {
        (void)tine::sync_wait(sched, tree, 9, 2);
      } catch (const std::runtime_error& e) {
        threw = std::string(e.what()) == "a node failed";
      }
      CHECK(threw);
    }
    steals = sched.steals();
  }
  CHECK(steals >= 20);
  CHECK(deque.size() == 0);
  MPI_Barrier(MPI_COMM_WORLD);
}

void check_full_deque() {
  tine::mpi::rma_deque deque(MPI_COMM_WORLD, 8);  // holds 7 continuations
  {
    rma_queued_scheduler sched(deque, /*with_thief=*/false);
    CHECK(tine::sync_wait(sched, chain, 7) == 7);
    std::string message;
    try {
      (void)tine::sync_wait(sched, chain, 8);
    } catch (const std::length_error& e) {
      message = e.what();
    }
    CHECK(message ==
          "tine::mpi::rma_continuation_queue: this rank's rma_deque is full (7 continuations): "
          "construct it with a larger capacity");
    CHECK(tine::sync_wait(sched, chain, 7) == 7);  // the worker goes on
  }
  CHECK(deque.size() == 0);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  check_without_thief();
  check_with_thief();
  check_full_deque();
  return tine_test::finish("rma_continuation_queue_test");
}
