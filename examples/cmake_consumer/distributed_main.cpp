// A user's MPI program built with CMake against tine's distributed layer
// (find_package(tine COMPONENTS distributed) or add_subdirectory, target tine::distributed), run
// as `mpiexec -n 2 ./distributed_app`: a recursive task whose continuations the ranks steal from
// each other. Every rank checks the result it received and exits non-zero on a wrong one.
#include <cstdio>

#include <tine/distributed/distributed.hpp>

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

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);  // first in main: it may execute the program again
  tine::mpi_pool pool;
  const long f = tine::sync_wait(pool, fib, 22);
  const bool ok = f == 17711;
  std::printf("tine %s, rank %d of %d: fib(22) = %ld: %s\n", TINE_VERSION_STRING, pool.rank(),
              pool.size(), f, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
