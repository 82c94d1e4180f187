// tine's algorithms on global vectors (an mpi_pool) against the same algorithms on a std::vector
// on tine's busy_pool with 1 and 2 workers, in one run:
//
//   mpiexec.mpich -n 1 global_algorithms_bench [ROUNDS]
//   mpiexec.mpich -n 2 global_algorithms_bench [ROUNDS]
//
// Workloads, the same calls on both sides (automatic grain):
// - reduce: tine::reduce of 10^8 doubles;
// - transform_reduce: the sum of squares of the same 10^8 doubles;
// - for_each: x = sin(x) + 1, 64 times over, on each of 10^6 doubles (compute-heavy);
// - sort: tine::sort of 10^7 doubles, random, already sorted and reversed (refilled before each
//   run, untimed); the global form's time includes making and freeing its scratch vector.
// As in mpi_pool_bench, rank 0 first runs the busy pools on a std::vector while the other ranks
// sleep, then every rank runs the pool (one worker per rank unless TINE_MPI_WORKERS_PER_RANK
// says otherwise) on global vectors; rank 0 prints the medians, their ratios, and, per run over
// all ranks, the checkouts that copied, the bytes they moved, and the lines of other ranks'
// memory read from the block cache of all lines read through it (tine::mpi::traffic).
#include <tine/algorithms/algorithms.hpp>
#include <tine/distributed/distributed.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "bench/distributed/rank_zero_alone.hpp"

namespace {

using bench::median;
using bench::others_sleep;

constexpr std::size_t reduce_size = 100'000'000;
constexpr std::size_t for_each_size = 1'000'000;
constexpr std::size_t sort_size = 10'000'000;

double initial(std::size_t i) { return static_cast<double>(i % 1000) * 0.5; }

struct heavy {
  void operator()(double& x) const {
    for (int k = 0; k < 64; ++k) {
      x = std::sin(x) + 1.0;
    }
  }
};

struct square {
  double operator()(double x) const { return x * x; }
};

// The global vector's elements set to initial(i), by a fork-join tree of write checkouts.
tine::task<void> fill_initial(tine::mpi::global_span<double> s) {
  if (s.size() <= 65536) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = initial(s.offset() + i);
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(fill_initial, l);
  co_await tine::call(fill_initial, r);
  co_await tine::join();
}

enum class order { random, sorted, reversed };

double sort_input(order o, std::size_t i) {
  switch (o) {
    case order::sorted:
      return static_cast<double>(i);
    case order::reversed:
      return static_cast<double>(sort_size - i);
    case order::random:
      break;
  }
  std::uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  return static_cast<double>(x >> 11);
}

tine::task<void> fill_sort_input(tine::mpi::global_span<double> s, order o) {
  if (s.size() <= 65536) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = sort_input(o, s.offset() + i);
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(fill_sort_input, l, o);
  co_await tine::call(fill_sort_input, r, o);
  co_await tine::join();
}

tine::task<bool> is_sorted(tine::mpi::global_span<const double> s) {
  auto all = co_await tine::mpi::checkout(s);
  co_return std::is_sorted(all.begin(), all.end());
}

template <typename Run>
double seconds(Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

enum workload {
  reduce,
  transform_reduce,
  for_each,
  sort_random,
  sort_sorted,
  sort_reversed,
  workloads
};
const char* const names[workloads] = {"reduce",      "transform_reduce", "for_each",
                                      "sort random", "sort sorted",      "sort reversed"};
const order sort_orders[3] = {order::random, order::sorted, order::reversed};

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1) {  // a median of nothing is not a figure
    std::fprintf(stderr,
                 "usage: global_algorithms_bench [ROUNDS], a count of at least 1 (default 5)\n");
    return 2;
  }
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool right = true;
  double expected_sum = 0;
  double expected_squares = 0;
  for (std::size_t i = 0; i < reduce_size; ++i) {
    expected_sum += initial(i);
    expected_squares += initial(i) * initial(i);
  }
  const auto close = [](double got, double want) { return std::abs(got - want) <= 1e-9 * want; };

  // Busy pools on a std::vector, rank 0 alone.
  std::vector<double> busy[2][workloads];
  others_sleep(rank, [&] {
    std::vector<double> data(reduce_size);
    for (std::size_t i = 0; i < data.size(); ++i) {
      data[i] = initial(i);
    }
    std::vector<double> each(for_each_size);
    tine::busy_pool one(1);
    tine::busy_pool two(2);
    for (int r = 0; r < rounds; ++r) {
      for (int w = 0; w < 2; ++w) {
        tine::busy_pool<>& p = w == 0 ? one : two;
        double sum = 0;
        busy[w][reduce].push_back(seconds([&] { sum = tine::reduce(p, data, 0.0); }));
        right = right && close(sum, expected_sum);
        busy[w][transform_reduce].push_back(
            seconds([&] { sum = tine::transform_reduce(p, data, 0.0, std::plus<>{}, square{}); }));
        right = right && close(sum, expected_squares);
        for (std::size_t i = 0; i < each.size(); ++i) {
          each[i] = initial(i);
        }
        busy[w][for_each].push_back(seconds([&] { tine::for_each(p, each, heavy{}); }));
        std::vector<double> keys(sort_size);
        for (int k = 0; k < 3; ++k) {
          for (std::size_t i = 0; i < keys.size(); ++i) {
            keys[i] = sort_input(sort_orders[k], i);
          }
          busy[w][sort_random + k].push_back(seconds([&] { tine::sort(p, keys); }));
          right = right && std::is_sorted(keys.begin(), keys.end());
        }
      }
    }
  });

  const char* workers = std::getenv("TINE_MPI_WORKERS_PER_RANK");
  tine::mpi_pool pool({.workers_per_rank = workers != nullptr ? 0u : 1u});
  std::vector<double> dist[workloads];
  tine::mpi::global_traffic moved[workloads];
  const auto add_traffic = [](tine::mpi::global_traffic& to, const tine::mpi::global_traffic& a,
                              const tine::mpi::global_traffic& b) {
    to.copied_checkouts += b.copied_checkouts - a.copied_checkouts;
    to.checkouts += b.checkouts - a.checkouts;
    to.bytes_fetched += b.bytes_fetched - a.bytes_fetched;
    to.bytes_stored += b.bytes_stored - a.bytes_stored;
    to.cache_hits += b.cache_hits - a.cache_hits;
    to.cache_misses += b.cache_misses - a.cache_misses;
  };
  {
    tine::mpi::global_vector<double> data(pool, reduce_size);
    tine::sync_wait(pool, fill_initial, data.span());
    tine::mpi::global_vector<double> each(pool, for_each_size);
    for (int r = 0; r < rounds; ++r) {
      double sum = 0;
      auto before = tine::mpi::traffic();
      dist[reduce].push_back(seconds([&] { sum = tine::reduce(pool, data, 0.0); }));
      add_traffic(moved[reduce], before, tine::mpi::traffic());
      right = right && close(sum, expected_sum);
      before = tine::mpi::traffic();
      dist[transform_reduce].push_back(
          seconds([&] { sum = tine::transform_reduce(pool, data, 0.0, std::plus<>{}, square{}); }));
      add_traffic(moved[transform_reduce], before, tine::mpi::traffic());
      right = right && close(sum, expected_squares);
      tine::sync_wait(pool, fill_initial, each.span());
      before = tine::mpi::traffic();
      dist[for_each].push_back(seconds([&] { tine::for_each(pool, each, heavy{}); }));
      add_traffic(moved[for_each], before, tine::mpi::traffic());
    }
    {
      tine::mpi::global_vector<double> keys(pool, sort_size);
      for (int r = 0; r < rounds; ++r) {
        for (int k = 0; k < 3; ++k) {
          tine::sync_wait(pool, fill_sort_input, keys.span(), sort_orders[k]);
          const auto before = tine::mpi::traffic();
          dist[sort_random + k].push_back(seconds([&] { tine::sort(pool, keys); }));
          add_traffic(moved[sort_random + k], before, tine::mpi::traffic());
          if (r == rounds - 1) {
            right = right && tine::sync_wait(pool, is_sorted, keys.span());
          }
        }
      }
    }
    // A spot check of for_each's result: the element's value after heavy{}.
    double want = initial(for_each_size - 7);
    heavy{}(want);
    const std::uint64_t at = tine::find_if(pool, each, [want](double x) { return x == want; });
    right = right && at <= for_each_size - 7;
  }
  constexpr int figures = 5;
  std::uint64_t mine[workloads * figures];
  std::uint64_t all[workloads * figures];
  for (int w = 0; w < workloads; ++w) {
    mine[figures * w] = moved[w].copied_checkouts;
    mine[figures * w + 1] = moved[w].checkouts;
    mine[figures * w + 2] = moved[w].bytes_fetched + moved[w].bytes_stored;
    mine[figures * w + 3] = moved[w].cache_hits;
    mine[figures * w + 4] = moved[w].cache_misses;
  }
  MPI_Reduce(mine, all, workloads * figures, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%d rank(s) of %zu worker(s), %d rounds, medians in ms\n", size,
                pool.workers_per_rank(), rounds);
    std::printf("%-17s %9s %9s %9s %8s %8s %17s %10s %15s\n", "workload", "mpi_pool", "busy(1)",
                "busy(2)", "/busy(1)", "/busy(2)", "copied/checkouts", "MB moved",
                "cache hits/lines");
    for (int w = 0; w < workloads; ++w) {
      const double d = median(dist[w]);
      const double b1 = median(busy[0][w]);
      const double b2 = median(busy[1][w]);
      const std::uint64_t* f = all + figures * w;
      std::printf("%-17s %9.1f %9.1f %9.1f %8.3f %8.3f %8.1f of %6.1f %10.1f %6.1f of %6.1f\n",
                  names[w], d * 1e3, b1 * 1e3, b2 * 1e3, d / b1, d / b2,
                  static_cast<double>(f[0]) / rounds, static_cast<double>(f[1]) / rounds,
                  static_cast<double>(f[2]) / rounds / 1e6, static_cast<double>(f[3]) / rounds,
                  static_cast<double>(f[3] + f[4]) / rounds);
    }
    if (!right) {
      std::printf("WRONG RESULT\n");
    }
  }
  return right ? 0 : 1;
}
