// Task continuations in an rma_deque (run by mpiexec on 1 and 2 ranks; each rank on its own): a
// worker whose context has a tine::mpi::rma_continuation_queue installed forks into the rank's
// rma_deque, and a second thread of the same rank steals from that deque with the MPI atomics a
// remote thief uses and runs what it took with resume_stolen. Results and exceptions must come
// out as in a serial run, some continuations must have been stolen, the worker's own deque must
// stay empty, and a deque too small for the recursion makes the fork fail with its message.
// (Frames do not move between processes here: that is the pool's work.)

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
#include "tests/queued_scheduler.hpp"

namespace {

// A thief of this rank's deque, through MPI as a thief on another rank would.
tine_test::queued_scheduler::steal_function thief_of(tine::mpi::rma_deque& deque) {
  return [&deque]() -> tine::detail::frame* {
    const auto got = deque.steal(tine_test::my_rank);
    if (got.what != tine::mpi::rma_deque::status::success) {
      return nullptr;
    }
    return reinterpret_cast<tine::detail::frame*>(static_cast<std::uintptr_t>(got.value));
  };
}

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
  tine::mpi::rma_continuation_queue queue(deque);
  {
    tine_test::queued_scheduler sched(queue);
    CHECK(sched.queue_was_installed());
    CHECK(tine::sync_wait(sched, fib, 20) == serial_fib(20));
    CHECK(tine::sync_wait(sched, chain, 500) == 500);
    CHECK(sched.largest_own_deque() == 0);
  }
  CHECK(deque.size() == 0);
  CHECK(deque.contended_pops() == 0);  // no thief: no pop needed the lock
  MPI_Barrier(MPI_COMM_WORLD);
}

void check_with_thief() {
  tine::mpi::rma_deque deque(MPI_COMM_WORLD, 1024);
  tine::mpi::rma_continuation_queue queue(deque);
  std::uint64_t steals = 0;
  {
    tine_test::queued_scheduler sched(queue, thief_of(deque));
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
    CHECK(sched.largest_own_deque() == 0);
  }
  CHECK(steals >= 20);
  CHECK(deque.size() == 0);
  MPI_Barrier(MPI_COMM_WORLD);
}

void check_full_deque() {
  tine::mpi::rma_deque deque(MPI_COMM_WORLD, 8);  // holds 7 continuations
  tine::mpi::rma_continuation_queue queue(deque);
  {
    tine_test::queued_scheduler sched(queue);
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
