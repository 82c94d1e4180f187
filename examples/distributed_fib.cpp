// fib on tine::mpi_pool: the same task as on a shared-memory pool, run by every rank of an MPI
// job. Build and run (MPICH from Debian; tools/install-deps.sh installs it):
//   bazel build --config=opt //examples:distributed_fib
//   mpiexec.mpich -n 4 bazel-bin/examples/distributed_fib 30
// Every rank prints the result it received; idle ranks steal continuations from busy ones
// (docs/distributed.md).
#include <cstdio>
#include <cstdlib>

#include <tine/distributed/distributed.hpp>

namespace {

// [docs:distributed-fib]
tine::task<long> fib(int n) {  // the very same task as on a shared-memory pool
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

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }
// [docs:distributed-fib end]

}  // namespace

// [docs:distributed-main]
int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);  // first in main: it may execute the program again
  tine::mpi_pool pool;                     // collective over MPI_COMM_WORLD: workers on every rank
  const int n = argc > 1 ? std::atoi(argv[1]) : 25;
  const long r = tine::sync_wait(pool, fib, n);  // collective: every rank gets the result
  std::printf("rank %d of %d: fib(%d) = %ld\n", pool.rank(), pool.size(), n, r);
  return r == serial_fib(n) ? 0 : 1;
}
// [docs:distributed-main end]
