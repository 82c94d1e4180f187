#ifndef TINE_TESTS_DISTRIBUTED_MPI_CHECK_HPP
#define TINE_TESTS_DISTRIBUTED_MPI_CHECK_HPP

// What every MPI test program here shares: CHECK, which reports a failed condition with the
// rank and carries on, and finish(), which adds up the failures of every rank and gives the exit
// status (mpi_run.sh runs the program under mpiexec and passes it on).

#include <mpi.h>

#include <cstdint>
#include <cstdio>

namespace tine_test {

inline int failures = 0;
inline int my_rank = 0;

/// Call after MPI is initialised: remembers this rank for the reports.
inline void start_checks() { MPI_Comm_rank(MPI_COMM_WORLD, &my_rank); }

/// Collective: the sum of every rank's `mine`, on every rank.
inline std::uint64_t sum_over_ranks(std::uint64_t mine) {
  std::uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/// Collective: 0 when no rank had a failed check, 1 otherwise; rank 0 says which.
inline int finish(const char* test) {
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (my_rank == 0) {
    std::printf("%s: %s (%d failed checks over all ranks)\n", test,
                total == 0 ? "passed" : "FAILED", total);
  }
  return total == 0 ? 0 : 1;
}

}  // namespace tine_test

#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", ::tine_test::my_rank, __FILE__, \
                   __LINE__, #cond);                                                             \
      ++::tine_test::failures;                                                                   \
    }                                                                                            \
  } while (0)

#endif  // TINE_TESTS_DISTRIBUTED_MPI_CHECK_HPP
