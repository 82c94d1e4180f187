// The idle workers of a rank poll MPI themselves: run with the progress thread slowed to ten
// polls a second (TINE_MPI_PROGRESS_US=100000, set by the test target), arrivals at the joins of
// frames that moved are received at once, by workers waiting for them. Runs fib until arrivals
// crossed ranks, each result checked, and requires that workers received some of them (with only
// the thread receiving, each would wait up to 0.1 s, and none would count).
#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/distributed/distributed_tasks.hpp"
#include "tests/distributed/mpi_check.hpp"

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  const char* interval = std::getenv("TINE_MPI_PROGRESS_US");
  CHECK(interval != nullptr && std::string(interval) == "100000");
  {
    tine::mpi_pool pool({.workers_per_rank = 1});
    const long expected = distributed_tasks::serial_fib(24);
    int rounds = 0;
    std::uint64_t joins = 0;
    std::uint64_t by_workers = 0;
    // The thread asks for offers ten times a second (so do polling workers, at most): steals
    // come every few dozen rounds. Bounded by time, on every rank alike (rank 0 decides).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;; ++rounds) {
      CHECK(tine::sync_wait(pool, distributed_tasks::fib, 24) == expected);
      const tine::mpi::pool_counters c = pool.counters();
      joins = tine_test::sum_over_ranks(c.remote_joins);
      by_workers = tine_test::sum_over_ranks(c.messages_by_workers);
      int stop = (joins > 0 && by_workers > 0) || std::chrono::steady_clock::now() > until;
      MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (stop != 0) {
        break;
      }
    }
    CHECK(joins > 0);
    CHECK(by_workers > 0);
    if (tine_test::my_rank == 0) {
      std::printf("%d rounds: %lu arrivals sent across ranks, %lu messages received by workers\n",
                  rounds + 1, static_cast<unsigned long>(joins),
                  static_cast<unsigned long>(by_workers));
    }
  }
  return tine_test::finish("mpi_pool_idle_polling_test");
}
