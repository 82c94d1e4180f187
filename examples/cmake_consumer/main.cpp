// A user's program built with CMake (find_package, add_subdirectory or FetchContent) or with
// pkg-config against an installed tine: a recursive task and a parallel reduce on a lazy pool, and
// the work/span analyzer on the task (analysis/, headers and library). Exits non-zero on a wrong
// result.
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#include <tine/tine.hpp>

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

int main() {
  tine::lazy_pool<> pool(2);
  const long f = tine::sync_wait(pool, fib, 25);

  std::vector<long> v(100'000);
  std::iota(v.begin(), v.end(), 1L);
  const long sum = tine::reduce(pool, v, 0L, std::plus<>{});

  // Counted in units (each strand 1): fib(15) has 1973 tasks, so its work is the same every run.
  const tine::analysis a = tine::analyze({.unit_strands = true}, fib, 15);

  const bool ok =
      f == 75025 && sum == 5'000'050'000L && a.work() > 0 && a.span() > 0 && a.parallelism() > 1;
  std::printf("tine %s: fib(25) = %ld, reduce(1..100000) = %ld, fib(15)'s parallelism %.1f: %s\n",
              TINE_VERSION_STRING, f, sum, a.parallelism(), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
