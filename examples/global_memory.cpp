// Data across ranks: a global vector whose blocks are spread over the ranks of an mpi_pool, with
// tine's algorithms on it and a task that checks parts of it out by hand. Build and run (MPICH
// from Debian; tools/install-deps.sh installs it):
//   bazel build --config=opt //examples:global_memory
//   mpiexec.mpich -n 4 bazel-bin/examples/global_memory 100000000
// Every rank prints the same sums and whether the vector came out sorted
// (docs/distributed.md, "Global memory").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>

#include <tine/distributed/distributed.hpp>

namespace {

tine::task<double> sum_range(tine::mpi::global_span<const double> s) {  // by hand, in a task
  if (s.size() <= 4096) {
    auto local = co_await tine::mpi::checkout(s);  // read-only copy or direct map; RAII checkin
    co_return std::accumulate(local.begin(), local.end(), 0.0);
  }
  double a = 0;
  double b = 0;
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(&a, sum_range, l);
  co_await tine::call(&b, sum_range, r);
  co_await tine::join();
  co_return a + b;
}

tine::task<bool> is_sorted(tine::mpi::global_span<const double> s) {
  auto all = co_await tine::mpi::checkout(s);
  co_return std::is_sorted(all.begin(), all.end());
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  bool ok = true;
  {
    // [docs:global-memory]
    tine::mpi_pool pool;                          // collective
    tine::mpi::global_vector<double> v(pool, n);  // collective; blocks spread over ranks
    tine::mpi::global_span<double> s = v;         // non-owning view, cheap to copy

    tine::fill(pool, s, 1.0);          // the same algorithm calls
    tine::inclusive_scan(pool, s, s);  // 1, 2, 3, ...
    tine::for_each(pool, s, [](double& x) { x = std::sin(x); });
    double sum = tine::reduce(pool, s, 0.0, std::plus<>{});  // every rank gets the result
    double by_hand = tine::sync_wait(pool, sum_range, s);
    tine::sort(pool, s);  // a parallel sort across ranks
    // [docs:global-memory end]
    double expected = 0;
    for (std::uint64_t i = 1; i <= n; ++i) {
      expected += std::sin(static_cast<double>(i));
    }
    const double tolerance = 1e-12 * static_cast<double>(n) + 1e-9;  // sums in other orders
    ok = std::abs(sum - expected) <= tolerance && std::abs(by_hand - expected) <= tolerance;
    if (n <= 10'000'000) {  // one task checks the whole vector out: only for moderate sizes
      ok = ok && tine::sync_wait(pool, is_sorted, s);
    }
    std::printf("rank %d of %d: n = %llu, reduce %.6f, by hand %.6f, %s\n", pool.rank(),
                pool.size(), static_cast<unsigned long long>(n), sum, by_hand, ok ? "ok" : "WRONG");
  }
  return ok ? 0 : 1;
}
