// Several workers on every rank (tine::mpi::pool_options::workers_per_rank): the rank's workers
// steal from each other's deques and lanes, and ranks steal from each other, in the same runs.
// Checked against serial evaluations, and run until both kinds of steal happened:
// - fib, whose continuations carry only the frame;
// - a tree whose every node keeps its children's results in a stack allocation, so that a
//   continuation moves with it, and whose leaves at one depth may throw: the first exception
//   reaches every rank's sync_wait with its type and message;
// - the refusal of pools whose ranks ask for different numbers of workers (every rank throws
//   std::invalid_argument naming them) and of a number out of range, after which a pool made
//   alike works.
#include <tine/distributed/distributed.hpp>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "bench/distributed/distributed_tasks.hpp"
#include "tests/distributed/mpi_check.hpp"

namespace {

using distributed_tasks::fib;
using distributed_tasks::serial_fib;

constexpr int max_rounds = 400;

// Built over the one-rank MPI stub with the lanes of several ranks (TINE_MPI_LANES_ON_ONE_RANK),
// the runs go on until a worker also took what another had offered, through the rank's window.
#ifdef TINE_MPI_LANES_ON_ONE_RANK
constexpr bool expect_lane_steals = true;
#else
constexpr bool expect_lane_steals = false;
#endif

// Four children per node, their results in the node's stack allocation; a leaf at depth `bad`
// (counted down) throws when `throw_at` is its id modulo 7.
tine::task<std::uint64_t> tree(int depth, std::uint64_t id, int bad) {
  if (depth == bad && id % 7 == 3) {
    throw std::runtime_error("leaf " + std::to_string(id) + " failed");
  }
  if (depth == 0) {
    co_return id % 1000;
  }
  tine::stack_array<std::uint64_t> r = co_await tine::stack_alloc<std::uint64_t>(4);
  for (std::uint64_t i = 0; i < 4; ++i) {
    co_await tine::fork(&r[i], tree, depth - 1, id * 4 + i, bad);
  }
  co_await tine::join();
  co_return r[0] + r[1] + r[2] + r[3] + 1;
}

std::uint64_t serial_tree(int depth, std::uint64_t id) {
  if (depth == 0) {
    return id % 1000;
  }
  std::uint64_t sum = 1;
  for (std::uint64_t i = 0; i < 4; ++i) {
    sum += serial_tree(depth - 1, id * 4 + i);
  }
  return sum;
}

// Whether making a pool with these options throws std::invalid_argument containing `text`.
bool refused(const tine::mpi::pool_options& options, const char* text) {
  try {
    tine::mpi_pool pool(options);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what()).find(text) != std::string::npos;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::size_t workers = 2;
  {
    tine::mpi_pool pool({.workers_per_rank = workers});
    CHECK(pool.workers_per_rank() == workers);
    const long expected_fib = serial_fib(24);
    const std::uint64_t expected_tree = serial_tree(7, 1);
    // Steals within ranks are certain over a few runs and steals across ranks likely: run until
    // both happened (or the bound), every run checked.
    int rounds = 0;
    for (; rounds < max_rounds; ++rounds) {
      CHECK(tine::sync_wait(pool, fib, 24) == expected_fib);
      CHECK(tine::sync_wait(pool, tree, 7, std::uint64_t{1}, -1) == expected_tree);
      const tine::mpi::pool_counters c = pool.counters();
      using tine_test::sum_over_ranks;
      if (sum_over_ranks(c.local_steals) > 0 && (ranks == 1 || sum_over_ranks(c.steals) > 0) &&
          (!expect_lane_steals || sum_over_ranks(c.lane_steals) > 0)) {
        break;
      }
    }
    CHECK(rounds < max_rounds);
    for (int round = 0; round < 20; ++round) {
      bool caught = false;
      try {
        (void)tine::sync_wait(pool, tree, 7, std::uint64_t{1}, 2);
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        caught = what.rfind("leaf ", 0) == 0 && what.find(" failed") != std::string::npos;
      }
      CHECK(caught);
      CHECK(tine::sync_wait(pool, fib, 20) == serial_fib(20));
    }
    const tine::mpi::pool_counters c = pool.counters();
    if (tine_test::my_rank == 0) {
      std::printf(
          "%d rank(s) of %zu workers: %d rounds; rank 0: %lu local steals (%lu from lanes), %lu "
          "steals\n",
          ranks, workers, rounds + 1, static_cast<unsigned long>(c.local_steals),
          static_cast<unsigned long>(c.lane_steals), static_cast<unsigned long>(c.steals));
    }
  }
  if (ranks > 1) {
    CHECK(refused({.workers_per_rank = tine_test::my_rank == 0 ? 1u : 2u}, "workers_per_rank"));
  }
  CHECK(refused({.workers_per_rank = 5000}, "from 1 to 4096"));
  {
    tine::mpi_pool pool({.workers_per_rank = 3});
    CHECK(tine::sync_wait(pool, fib, 20) == serial_fib(20));
  }
  return tine_test::finish("mpi_pool_workers_test");
}
