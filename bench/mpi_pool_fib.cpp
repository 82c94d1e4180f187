// fib on tine::mpi_pool against tine's busy_pool with 1 and 2 workers, in one run, alternating:
//
//   mpiexec.mpich -n 1 mpi_pool_fib [N] [ROUNDS]
//
// Each round times sync_wait(fib, N) once on each of the three schedulers (the pool first made,
// then reused); the medians over the rounds and their ratios are printed by rank 0. On one rank
// this is the cost of the distributed pool's fork/join fast path: every fork pushes its
// continuation to the rank's rma_deque (through the core's continuation queue) and every return
// pops it back, where busy_pool(1) uses the core's own deque without fences. (With more ranks the
// other ranks only wait today: stealing across ranks is not built yet.)

#include <tine/distributed/distributed.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

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

template <typename Scheduler>
double seconds_for(Scheduler& s, int n, long& out) {
  const auto start = std::chrono::steady_clock::now();
  out = tine::sync_wait(s, fib, n);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 11;
  tine::mpi_pool pool;
  std::vector<double> distributed;
  std::vector<double> one;
  std::vector<double> two;
  long r = 0;
  for (int i = 0; i < rounds; ++i) {
    distributed.push_back(seconds_for(pool, n, r));
    if (pool.rank() == 0) {
      tine::busy_pool busy1(1);
      one.push_back(seconds_for(busy1, n, r));
      tine::busy_pool busy2(2);
      two.push_back(seconds_for(busy2, n, r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (pool.rank() == 0) {
    const double d = median(distributed);
    const double b1 = median(one);
    const double b2 = median(two);
    std::printf("fib(%d) = %ld, %d rounds, %d rank(s); medians:\n", n, r, rounds, pool.size());
    std::printf("  mpi_pool        %8.1f ms\n", d * 1e3);
    std::printf("  busy_pool(1)    %8.1f ms   mpi_pool / busy_pool(1) = %.3f\n", b1 * 1e3, d / b1);
    std::printf("  busy_pool(2)    %8.1f ms   mpi_pool / busy_pool(2) = %.3f\n", b2 * 1e3, d / b2);
  }
  return 0;
}
