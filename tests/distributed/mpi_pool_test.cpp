// tine::mpi_pool and its collective sync_wait (run by mpiexec on 1 to 4 ranks): every rank gets
// the root task's result, or its exception (with its type where it can travel); the pool runs
// one root after another; the root's frames live in rank 0's slice of the uni-address region;
// misuses are refused with their messages. (Steals are required by mpi_pool_steal_test.)

#include <tine/distributed/distributed.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>

#include "bench/distributed/distributed_tasks.hpp"
#include "tests/distributed/mpi_check.hpp"

namespace {

using distributed_tasks::fib;
using distributed_tasks::queens;
using distributed_tasks::serial_fib;

// A binary tree of forks whose nodes at depth `bad` throw (none when bad < 0).
tine::task<long> tree(int depth, int bad) {
  if (depth == bad) {
    throw std::runtime_error("a node failed at depth " + std::to_string(depth));
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

tine::task<void> throws_an_int() {
  throw 42;
  co_return;
}

// Where the root task's stack allocations are (a local that lives across no suspension may be on
// the thread's stack instead of the frame: Clang puts it there).
tine::task<std::uintptr_t> own_address() {
  tine::stack_array<int> local = co_await tine::stack_alloc<int>(1);
  co_return reinterpret_cast<std::uintptr_t>(&local[0]);
}

long touched = 0;
tine::task<void> touch() {
  ++touched;
  co_return;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  int world_rank = 0;
  int world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  {
    tine::mpi_pool pool;
    CHECK(pool.rank() == world_rank);
    CHECK(pool.size() == world_size);

    // Results reach every rank, root after root.
    for (int n : {0, 1, 15, 22}) {
      CHECK(tine::sync_wait(pool, fib, n) == serial_fib(n));
    }
    CHECK(tine::sync_wait(pool, queens, 8, 0, 0u, 0u, 0u) == 92);
    CHECK(tine::sync_wait(pool, tree, 12, -1) == 4096);

    // A void root: it ran on rank 0 only.
    tine::sync_wait(pool, touch);
    CHECK(touched == (world_rank == 0 ? 1 : 0));

    // With other ranks to steal it, the root's stack allocation is in rank 0's slice of the
    // region (alone, the worker runs on the heap's stacks, as a one-worker busy_pool); every rank
    // receives the same address.
    const std::uintptr_t at = tine::sync_wait(pool, own_address);
    if (world_size > 1) {
      CHECK(pool.region().home_rank(reinterpret_cast<const void*>(at)) == 0);
    }

    // An exception escaping the root reaches every rank with its type and message (the types
    // that travel: mpi_pool_exceptions_test).
    bool caught = false;
    try {
      tine::sync_wait(pool, tree, 10, 3);
    } catch (const std::runtime_error& e) {
      caught = typeid(e) == typeid(std::runtime_error);
      CHECK(std::string(e.what()) == "a node failed at depth 3");
    }
    CHECK(caught);

    // One of a type that cannot travel, as a remote_error on every rank (rank 0 too).
    caught = false;
    try {
      tine::sync_wait(pool, throws_an_int);
    } catch (const tine::mpi::remote_error& e) {
      caught = true;
      CHECK(std::string(e.what()) == "an exception of a type not derived from std::exception");
      CHECK(e.origin_rank() == 0);
    }
    CHECK(caught);

    // The pool still works after a failed root.
    CHECK(tine::sync_wait(pool, fib, 20) == serial_fib(20));

    const tine::mpi::pool_counters c = pool.counters();
    CHECK(c.roots == (world_rank == 0 ? 11u : 0u));
    CHECK(c.steals <= c.steal_attempts);

    // Misuse: a sync_wait from a thread other than the pool's throws, on every rank, before any
    // collective call. (spawn and resume_on do not compile with an mpi_pool: compile_fail/.)
    bool refused = false;
    std::thread other([&] {
      try {
        tine::sync_wait(pool, fib, 3);
      } catch (const std::logic_error& e) {
        refused =
            std::string(e.what()).find("the thread that constructed the pool") != std::string::npos;
      }
    });
    other.join();
    CHECK(refused);
  }
  return tine_test::finish("mpi_pool_test");
}
