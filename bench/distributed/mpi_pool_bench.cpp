// tine::mpi_pool against tine's busy_pool with 1 and 2 workers, in one run:
//
//   mpiexec.mpich -n 1 mpi_pool_bench [ROUNDS]
//   mpiexec.mpich -n 2 mpi_pool_bench [ROUNDS]
//
// The pool has its default workers per rank (the rank's share of the cores it may run on;
// TINE_MPI_WORKERS_PER_RANK=N sets N). Workloads: fib(36), nqueens(12), UTS T1 and T3 (each
// node's children in a stack allocation).
// First, on rank 0 alone, ROUNDS runs on busy_pool(1) and busy_pool(2), alternating, while the
// other ranks sleep (they poll a non-blocking barrier every millisecond, so they leave the cores
// to rank 0's pools), and before the mpi_pool exists (its threads would take time from them);
// then ROUNDS collective runs on the pool. Rank 0 prints the medians, their ratios, the steals of
// the pool's runs (over all ranks, per run), and the latency of the successful steals of every
// rank (median and 90th percentile, from the attempt until the continuation's bytes had arrived).

#include <tine/distributed/distributed.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench/distributed/distributed_tasks.hpp"
#include "bench/distributed/rank_zero_alone.hpp"
#include "bench/suite/uts.hpp"

namespace {

using bench::median;
using bench::others_sleep;

using distributed_tasks::fib;
using distributed_tasks::queens;
using distributed_tasks::uts_search;

template <typename Scheduler, typename Run>
double seconds(Scheduler& s, Run& run) {
  const auto start = std::chrono::steady_clock::now();
  run(s);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct workload {
  std::string name;
  std::function<bool(tine::mpi_pool<>&)> on_pool;   // true if the result is right
  std::function<bool(tine::busy_pool<>&)> on_busy;  // idem
};

template <typename F>
workload make(std::string name, F run) {
  return {std::move(name), [run](tine::mpi_pool<>& p) { return run(p); },
          [run](tine::busy_pool<>& p) { return run(p); }};
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1) {  // a median of nothing is not a figure
    std::fprintf(stderr, "usage: mpi_pool_bench [ROUNDS], a count of at least 1 (default 5)\n");
    return 2;
  }
  const uts::params& t1 = uts::tree("T1");
  const uts::params& t3 = uts::tree("T3");
  std::vector<workload> workloads;
  workloads.push_back(
      make("fib(36)", [](auto& s) { return tine::sync_wait(s, fib, 36) == 14930352; }));
  workloads.push_back(make("nqueens(12)", [](auto& s) {
    return tine::sync_wait(s, queens, 12, 0, 0u, 0u, 0u) == 14200;
  }));
  workloads.push_back(make("UTS T1", [&t1](auto& s) {
    return tine::sync_wait(s, uts_search, &t1, uts::root(t1)).nodes == t1.nodes;
  }));
  workloads.push_back(make("UTS T3", [&t3](auto& s) {
    return tine::sync_wait(s, uts_search, &t3, uts::root(t3)).nodes == t3.nodes;
  }));

  bool right = true;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The busy pools first, before the mpi_pool exists: its threads (one per rank, entering MPI
  // every 20 us) would otherwise take time from them.
  std::vector<std::vector<double>> b1(workloads.size());
  std::vector<std::vector<double>> b2(workloads.size());
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    others_sleep(rank, [&] {
      const auto run_busy = [&](tine::busy_pool<>& p) { right = workloads[w].on_busy(p) && right; };
      tine::busy_pool one(1);
      tine::busy_pool two(2);
      for (int i = 0; i < rounds; ++i) {
        b1[w].push_back(seconds(one, run_busy));
        b2[w].push_back(seconds(two, run_busy));
      }
    });
  }
  tine::mpi_pool pool;
  if (rank == 0) {
    std::printf("%d rank(s) of %zu worker(s), %d rounds, medians in ms\n", size,
                pool.workers_per_rank(), rounds);
    std::printf("%-12s %10s %10s %10s %8s %8s %8s\n", "workload", "mpi_pool", "busy(1)", "busy(2)",
                "/busy(1)", "/busy(2)", "steals");
  }
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    std::vector<double> d;
    std::uint64_t steals = 0;
    for (int i = 0; i < rounds; ++i) {
      const std::uint64_t before = pool.counters().steals;
      const auto run_pool = [&](tine::mpi_pool<>& p) { right = workloads[w].on_pool(p) && right; };
      d.push_back(seconds(pool, run_pool));
      std::uint64_t mine = pool.counters().steals - before;
      std::uint64_t all = 0;
      MPI_Reduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
      steals += all;
    }
    if (rank == 0) {
      std::printf("%-12s %10.1f %10.1f %10.1f %8.3f %8.3f %8.1f\n", workloads[w].name.c_str(),
                  median(d) * 1e3, median(b1[w]) * 1e3, median(b2[w]) * 1e3,
                  median(d) / median(b1[w]), median(d) / median(b2[w]),
                  static_cast<double>(steals) / rounds);
    }
  }
  // Steal latencies of every rank, gathered on rank 0.
  std::vector<std::uint32_t> mine = pool.steal_latencies_ns();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(pool.size()));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(counts.size());
  int total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    offsets[i] = total;
    total += counts[i];
  }
  std::vector<std::uint32_t> all(static_cast<std::size_t>(pool.rank() == 0 ? total : 0));
  MPI_Gatherv(mine.data(), count, MPI_UINT32_T, all.data(), counts.data(), offsets.data(),
              MPI_UINT32_T, 0, MPI_COMM_WORLD);
  if (pool.rank() == 0 && !all.empty()) {
    std::sort(all.begin(), all.end());
    std::printf("steal latency over %zu steals: median %.1f us, p90 %.1f us\n", all.size(),
                all[all.size() / 2] / 1e3, all[all.size() * 9 / 10] / 1e3);
  }
  if (!right) {
    std::printf("rank %d: WRONG RESULT\n", pool.rank());
  }
  return right ? 0 : 1;
}
