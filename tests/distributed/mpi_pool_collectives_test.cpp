// The pool's collective calls made wrongly (run by mpiexec on 2 and 3 ranks). The first argument
// says which mistake:
// - parameters: the ranks construct a pool with different slice sizes, then with different
//   numbers of workers: every rank's constructor throws std::invalid_argument, naming the
//   parameters, and a pool constructed alike afterwards works;
// - only-rank-0: rank 0 calls sync_wait, the others go on to destroy the pool: the job must end
//   with a message naming each rank's call (tests/distributed/BUILD.bazel expects it);
// - different-functions: the ranks call sync_wait with different functions;
// - late: rank 1 calls sync_wait long after the others, which give up after TINE_MPI_WAIT_LIMIT.

#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/distributed/mpi_check.hpp"

namespace {

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

tine::task<long> not_fib(int n) { co_return n; }

// Whether constructing a pool with these parameters throws std::invalid_argument naming them.
bool refused(std::size_t workers, std::size_t slice_bytes) {
  try {
    tine::mpi_pool pool(
        {.comm = MPI_COMM_WORLD, .workers_per_rank = workers, .slice_bytes = slice_bytes});
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    return what.find("different parameters") != std::string::npos &&
           what.find("slice_bytes") != std::string::npos &&
           what.find("workers_per_rank") != std::string::npos;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  const std::string mistake = argc > 1 ? argv[1] : "";
  const int rank = tine_test::my_rank;
  const std::size_t slice = std::size_t{64} << 20;
  if (mistake == "parameters") {
    CHECK(refused(1, rank == 0 ? slice : 2 * slice));
    CHECK(refused(rank == 0 ? 1 : 2, slice));
    tine::mpi_pool pool(MPI_COMM_WORLD, slice);
    CHECK(tine::sync_wait(pool, fib, 20) == 6765);
  } else {
    tine::mpi_pool pool;
    CHECK(tine::sync_wait(pool, fib, 15) == 610);
    if (mistake == "only-rank-0") {
      if (rank == 0) {
        tine::sync_wait(pool, fib, 10);
      }
    } else if (mistake == "different-functions") {
      tine::sync_wait(pool, rank == 0 ? fib : not_fib, 10);
    } else if (mistake == "late") {
      if (rank == 1) {
        std::this_thread::sleep_for(std::chrono::seconds(20));
      }
      tine::sync_wait(pool, fib, 10);
    }
  }
  return tine_test::finish("mpi_pool_collectives_test");
}
