// The one-sided MPI operations a distributed steal and a remote join are made of, timed from
// rank 0 against rank 1 while rank 1 computes without calling MPI, as a victim does:
//
//   mpiexec.mpich -n 2 rma_costs [SAMPLES] [progress: thread|none]
//
// `thread` (default) runs tine's progress thread on every rank; `none` runs none: with
// MPICH_ASYNC_PROGRESS=1 MPICH's own thread makes progress, and without it one operation is
// timed, which waits for the target's next MPI call (rank 1 computes for 3 s). Prints the median
// and 90th percentile of each operation in microseconds, and the CPU time rank 1's process used per
// second of wall time while it computed (its progress thread's share is what exceeds 1.0).

#include <tine/distributed/environment.hpp>
#include <tine/distributed/foundation/progress_thread.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>
#include <tine/distributed/pool/offer_slot.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

template <typename Op>
void time_op(const char* name, int samples, Op op) {
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    const auto t0 = clock_type::now();
    op();
    us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("%-28s median %8.2f us   p90 %8.2f us\n", name, us[us.size() / 2],
              us[us.size() * 9 / 10]);
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) {
      std::fprintf(stderr, "rma_costs: run it on 2 ranks (mpiexec -n 2)\n");
    }
    return 2;
  }
  const int samples = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (samples < 1) {  // a median of nothing is not a figure
    std::fprintf(stderr, "usage: rma_costs [SAMPLES], a count of at least 1 (default 1000)\n");
    return 2;
  }
  const bool with_thread = !(argc > 2 && std::string(argv[2]) == "none");
  const char* async_env = std::getenv("MPICH_ASYNC_PROGRESS");
  const bool async_progress = async_env != nullptr && async_env[0] == '1';

  tine::mpi::detail::uni_address_region region(MPI_COMM_WORLD, std::size_t{16} << 20);
  std::unique_ptr<tine::mpi::detail::progress_thread> progress;
  if (with_thread) {
    progress = std::make_unique<tine::mpi::detail::progress_thread>(MPI_COMM_WORLD);
  }
  // Rank 1 offers an item (the slot part of stealing a continuation: one replace, which costs
  // the same whether it finds the item or, after the first, nothing).
  tine::mpi::detail::offer_slot slot(MPI_COMM_WORLD);
  if (rank == 1) {
    slot.offer(42);
  }
  // Rank 1's slice: a counter word, a flag word, and a 64 KiB block standing in for frames.
  auto* words = reinterpret_cast<std::int64_t*>(region.slice_begin(1));
  std::byte* block = region.slice_begin(1) + 4096;
  if (rank == 1) {
    std::memset(words, 0, 4096 + 65536);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const MPI_Win win = region.window();
  const auto offset = [&](const void* p) {
    return static_cast<MPI_Aint>(static_cast<const std::byte*>(p) - region.base());
  };

  if (rank == 1) {
    // Compute until rank 0 sets the flag (words[1]), without calling MPI; at most 3 s.
    const double cpu0 = cpu_seconds();
    const auto t0 = clock_type::now();
    volatile double x = 1.0;
    while (std::atomic_ref<std::int64_t>(words[1]).load(std::memory_order_acquire) == 0 &&
           clock_type::now() - t0 < std::chrono::seconds(3)) {
      for (int i = 0; i < 1000; ++i) {
        x = x * 1.0000001;
      }
    }
    const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
    std::printf("rank 1 (computing, %s): %.2f CPU seconds per wall second over %.2f s\n",
                with_thread      ? "tine progress thread"
                : async_progress ? "MPICH_ASYNC_PROGRESS=1"
                                 : "no progress",
                (cpu_seconds() - cpu0) / wall, wall);
  } else if (!with_thread && !async_progress) {
    // Nothing makes progress for rank 1: the operation waits for its next MPI call.
    std::int64_t one = 1;
    std::int64_t old = 0;
    time_op("fetch_and_op, no progress", 1, [&] {
      MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, offset(&words[0]), MPI_SUM, win);
      MPI_Win_flush(1, win);
    });
  } else {
    std::int64_t one = 1;
    std::int64_t old = 0;
    std::int64_t expected = 0;
    time_op("fetch_and_op (8 B)", samples, [&] {
      MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, offset(&words[0]), MPI_SUM, win);
      MPI_Win_flush(1, win);
    });
    time_op("compare_and_swap (8 B)", samples, [&] {
      std::int64_t desired = expected + 1;
      MPI_Compare_and_swap(&desired, &expected, &old, MPI_INT64_T, 1, offset(&words[2]), win);
      MPI_Win_flush(1, win);
      expected = old == expected ? desired : old;
    });
    for (const std::size_t bytes : {std::size_t{256}, std::size_t{4096}, std::size_t{65536}}) {
      const std::string name = "get (" + std::to_string(bytes) + " B)";
      time_op(name.c_str(), samples, [&] { region.fetch(1, block, bytes); });
    }
    time_op("put (8 B)", samples, [&] { region.store(1, &words[3], sizeof(std::int64_t)); });
    int taken = 0;
    time_op("offer_slot take", samples, [&] { taken += slot.take(1).has_value() ? 1 : 0; });
    std::printf("(%d of those takes found the offered item)\n", taken);
    // Release rank 1.
    MPI_Accumulate(&one, 1, MPI_INT64_T, 1, offset(&words[1]), 1, MPI_INT64_T, MPI_REPLACE, win);
    MPI_Win_flush(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}
