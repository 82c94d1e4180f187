// tine::mpi::global_vector against a std::vector on tine's busy_pool with 1 and 2 workers, in
// one run:
//
//   mpiexec.mpich -n 1 global_vector_bench [ROUNDS]
//   mpiexec.mpich -n 2 global_vector_bench [ROUNDS]
//
// Workloads, each a fork-join tree over the data down to leaves of 4,096 elements:
// - reduce: the sum of 10^8 doubles (each leaf checks out its range for reading);
// - for_each: x = sin(x) + 1, 64 times over, on each of 10^6 doubles (leaves check out for
//   reading and writing): compute-heavy.
// As in mpi_pool_bench, rank 0 first runs the busy pools on a std::vector while the other ranks
// sleep, then every rank runs the pool (one worker per rank unless TINE_MPI_WORKERS_PER_RANK
// says otherwise) on a global vector; rank 0 prints the medians, their ratios, and how many
// leaves' checkouts copied (held by another rank) per run, over all ranks.
#include <tine/distributed/distributed.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <span>
#include <thread>
#include <vector>

#include "bench/distributed/rank_zero_alone.hpp"

namespace {

using bench::median;
using bench::others_sleep;

constexpr std::size_t leaf = 4096;
constexpr std::size_t reduce_size = 100'000'000;
constexpr std::size_t for_each_size = 1'000'000;
constexpr int sin_steps = 64;

double initial(std::size_t i) { return static_cast<double>(i % 1000) * 0.5; }

double heavy(double x) {
  for (int k = 0; k < sin_steps; ++k) {
    x = std::sin(x) + 1.0;
  }
  return x;
}

// --- On one process: std::span over a std::vector.
tine::task<double> sum_local(std::span<const double> s) {
  if (s.size() <= leaf) {
    co_return std::accumulate(s.begin(), s.end(), 0.0);
  }
  double a = 0;
  double b = 0;
  co_await tine::fork(&a, sum_local, s.first(s.size() / 2));
  co_await tine::call(&b, sum_local, s.subspan(s.size() / 2));
  co_await tine::join();
  co_return a + b;
}

tine::task<void> heavy_local(std::span<double> s) {
  if (s.size() <= leaf) {
    for (double& x : s) {
      x = heavy(x);
    }
    co_return;
  }
  co_await tine::fork(heavy_local, s.first(s.size() / 2));
  co_await tine::call(heavy_local, s.subspan(s.size() / 2));
  co_await tine::join();
}

// --- Across ranks: global spans, leaves checked out.
std::atomic<std::uint64_t> copies{0};  // leaves whose checkout copied, on this rank

tine::task<double> sum_global(tine::mpi::global_span<const double> s) {
  if (s.size() <= leaf) {
    auto in = co_await tine::mpi::checkout(s);
    copies.fetch_add(in.copied() ? 1 : 0, std::memory_order_relaxed);
    co_return std::accumulate(in.begin(), in.end(), 0.0);
  }
  double a = 0;
  double b = 0;
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(&a, sum_global, l);
  co_await tine::call(&b, sum_global, r);
  co_await tine::join();
  co_return a + b;
}

tine::task<void> heavy_global(tine::mpi::global_span<double> s) {
  if (s.size() <= leaf) {
    auto io = co_await tine::mpi::checkout(s);
    copies.fetch_add(io.copied() ? 1 : 0, std::memory_order_relaxed);
    for (double& x : io) {
      x = heavy(x);
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(heavy_global, l);
  co_await tine::call(heavy_global, r);
  co_await tine::join();
}

tine::task<void> fill_global(tine::mpi::global_span<double> s) {
  if (s.size() <= leaf) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = initial(s.offset() + i);
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(fill_global, l);
  co_await tine::call(fill_global, r);
  co_await tine::join();
}

// The leaves of the trees above over n elements.
std::size_t leaves(std::size_t n) { return n <= leaf ? 1 : leaves(n / 2) + leaves(n - n / 2); }

template <typename Run>
double seconds(Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1) {  // a median of nothing is not a figure
    std::fprintf(stderr,
                 "usage: global_vector_bench [ROUNDS], a count of at least 1 (default 5)\n");
    return 2;
  }
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool right = true;
  double expected_sum = 0;
  for (std::size_t i = 0; i < reduce_size; ++i) {
    expected_sum += initial(i);
  }
  const double tolerance = 1e-9 * expected_sum;

  // Busy pools on a std::vector, rank 0 alone.
  std::vector<double> b1_reduce, b2_reduce, b1_each, b2_each;
  others_sleep(rank, [&] {
    std::vector<double> data(reduce_size);
    for (std::size_t i = 0; i < data.size(); ++i) {
      data[i] = initial(i);
    }
    std::vector<double> each(for_each_size);
    tine::busy_pool one(1);
    tine::busy_pool two(2);
    for (int r = 0; r < rounds; ++r) {
      for (tine::busy_pool<>* p : {&one, &two}) {
        double sum = 0;
        const double t =
            seconds([&] { sum = tine::sync_wait(*p, sum_local, std::span<const double>(data)); });
        right = right && std::abs(sum - expected_sum) <= tolerance;
        (p == &one ? b1_reduce : b2_reduce).push_back(t);
        for (std::size_t i = 0; i < each.size(); ++i) {
          each[i] = initial(i);
        }
        (p == &one ? b1_each : b2_each).push_back(seconds([&] {
          tine::sync_wait(*p, heavy_local, std::span<double>(each));
        }));
        right = right && each[12345] == heavy(initial(12345));
      }
    }
  });

  const char* workers = std::getenv("TINE_MPI_WORKERS_PER_RANK");
  tine::mpi_pool pool({.workers_per_rank = workers != nullptr ? 0u : 1u});
  std::vector<double> d_reduce, d_each;
  std::uint64_t reduce_copies = 0;
  std::uint64_t each_copies = 0;
  {
    tine::mpi::global_vector<double> data(pool, reduce_size);
    tine::sync_wait(pool, fill_global, data.span());
    tine::mpi::global_vector<double> each(pool, for_each_size);
    for (int r = 0; r < rounds; ++r) {
      copies = 0;
      double sum = 0;
      d_reduce.push_back(seconds([&] { sum = tine::sync_wait(pool, sum_global, data.span()); }));
      right = right && std::abs(sum - expected_sum) <= tolerance;
      reduce_copies += copies.exchange(0);
      tine::sync_wait(pool, fill_global, each.span());
      copies = 0;
      d_each.push_back(seconds([&] { tine::sync_wait(pool, heavy_global, each.span()); }));
      each_copies += copies.exchange(0);
    }
    std::uint64_t mine[2] = {reduce_copies, each_copies};
    std::uint64_t all[2] = {0, 0};
    MPI_Reduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    reduce_copies = all[0];
    each_copies = all[1];
    // A spot check of for_each's result, held by the last rank.
    const double expect = heavy(initial(for_each_size - 7));
    const double got = tine::sync_wait(
        pool, sum_global,
        tine::mpi::global_span<const double>(each.span().subspan(for_each_size - 7, 1)));
    right = right && got == expect;
  }
  if (rank == 0) {
    std::printf("%d rank(s) of %zu worker(s), %d rounds, medians in ms\n", size,
                pool.workers_per_rank(), rounds);
    std::printf("%-10s %10s %10s %10s %8s %8s %14s\n", "workload", "mpi_pool", "busy(1)", "busy(2)",
                "/busy(1)", "/busy(2)", "copies/run");
    std::printf("%-10s %10.1f %10.1f %10.1f %8.3f %8.3f %8.1f of %4zu\n", "reduce",
                median(d_reduce) * 1e3, median(b1_reduce) * 1e3, median(b2_reduce) * 1e3,
                median(d_reduce) / median(b1_reduce), median(d_reduce) / median(b2_reduce),
                static_cast<double>(reduce_copies) / rounds, leaves(reduce_size));
    std::printf("%-10s %10.1f %10.1f %10.1f %8.3f %8.3f %8.1f of %4zu\n", "for_each",
                median(d_each) * 1e3, median(b1_each) * 1e3, median(b2_each) * 1e3,
                median(d_each) / median(b1_each), median(d_each) / median(b2_each),
                static_cast<double>(each_copies) / rounds, leaves(for_each_size));
    if (!right) {
      std::printf("WRONG RESULT\n");
    }
  }
  return right ? 0 : 1;
}
