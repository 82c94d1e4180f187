// A rank that dies ends the whole job, soon, with a non-zero exit: the other ranks, computing the
// root task or waiting for its outcome inside a collective sync_wait, do not hang. Run by
// mpi_run.sh with EXPECT_FAILURE under a time limit:
//   mpi_pool_rank_death_test RANK   (RANK dies 300 ms into the run)
// The program keeps rank 0 busy with roots for up to 60 s, so a job that outlives the dead rank
// by more than the test's time limit fails the test.

#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "bench/distributed/distributed_tasks.hpp"

using distributed_tasks::fib;

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const int dies = argc > 1 ? std::atoi(argv[1]) : 0;
  tine::mpi_pool pool;
  if (pool.rank() == dies) {
    std::thread([rank = pool.rank()] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      std::printf("rank %d dies now\n", rank);
      std::fflush(stdout);
      std::_Exit(3);
    }).detach();
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    (void)tine::sync_wait(pool, fib, 27);
  }
  std::printf("rank %d: still running after 60 s\n", pool.rank());
  return 0;
}
