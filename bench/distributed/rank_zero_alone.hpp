#ifndef TINE_BENCH_RANK_ZERO_ALONE_HPP
#define TINE_BENCH_RANK_ZERO_ALONE_HPP

// What the distributed benchmarks share: rank 0 times the shared-memory pools alone while the
// other ranks wait without taking a core, and medians of the rounds.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

namespace bench {

/// Collective: rank 0 runs `on_rank_0` while the other ranks poll a non-blocking barrier every
/// millisecond, leaving the cores to it.
inline void others_sleep(int rank, const std::function<void()>& on_rank_0) {
  if (rank == 0) {
    on_rank_0();
  }
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  for (int done = 0; done == 0;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bench

#endif  // TINE_BENCH_RANK_ZERO_ALONE_HPP
