// The tine demo: fork/join results and timings on each scheduler, a parallel reduce, and an
// exception travelling from a child to the caller. Run it with: tools/demo.sh
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tine/tine.hpp>

namespace {

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);  // runs now; the rest of this task may be stolen
  co_await tine::call(&b, fib, n - 2);  // a plain call: nothing to steal
  co_await tine::join();                // wait for the fork
  co_return a + b;
}

[[gnu::noinline]] long serial_fib(int n) {
  return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

tine::task<int> checked_sqrt(int x) {
  if (x < 0) {
    throw std::domain_error("negative input " + std::to_string(x));
  }
  int r = 0;
  while ((r + 1) * (r + 1) <= x) {
    ++r;
  }
  co_return r;
}

tine::task<int> sum_of_roots(int a, int b) {
  int ra = 0;
  int rb = 0;
  co_await tine::fork(&ra, checked_sqrt, a);
  co_await tine::fork(&rb, checked_sqrt, b);
  co_await tine::join();  // rethrows a child's exception, after both children finished
  co_return ra + rb;
}

template <typename F>
double millis(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  // --quick: small sizes, for the test suite (which also runs it under the sanitizers).
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const int n = quick ? 20 : 32;
  const std::size_t count = quick ? 100'000 : 10'000'000;
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  long expected = 0;
  const double serial_ms = millis([&] { expected = serial_fib(n); });
  std::printf("tine demo: fib(%d) = %ld; plain serial recursion takes %.1f ms\n", n, expected,
              serial_ms);
  // How the pools see this machine: "hwloc", or "flat: built without hwloc" (docs/build.md).
  const tine::topology machine = tine::topology::discover(cores);
  std::printf("topology: %zu places on %zu NUMA node(s), source: %.*s\n\n", machine.size(),
              machine.numa_nodes(), static_cast<int>(machine.source().size()),
              machine.source().data());
  std::printf("%-28s %10s %10s\n", "scheduler", "result", "ms");

  bool ok = true;
  auto run = [&](const char* name, auto& sched) {
    long r = 0;
    const double ms = millis([&] { r = tine::sync_wait(sched, fib, n); });
    ok = ok && r == expected;
    std::printf("%-28s %10ld %10.1f\n", name, r, ms);
  };
  {
    tine::inline_scheduler sched;
    run("inline_scheduler", sched);
  }
  for (unsigned workers = 1; workers <= cores; workers *= 2) {
    tine::lazy_pool<> pool(workers);
    char name[64];
    std::snprintf(name, sizeof name, "lazy_pool(%u)", workers);
    run(name, pool);
  }
  for (unsigned workers = 1; workers <= cores; workers *= 2) {
    tine::busy_pool<> pool(workers);
    char name[64];
    std::snprintf(name, sizeof name, "busy_pool(%u)", workers);
    run(name, pool);
  }

  tine::lazy_pool<> pool(cores);
  std::vector<double> values(count);
  std::iota(values.begin(), values.end(), 1.0);
  double sum = 0;
  const double reduce_ms = millis([&] { sum = tine::reduce(pool, values, 0.0, std::plus<>{}); });
  const double c = static_cast<double>(count);
  const double expect_sum = c * (c + 1) / 2;  // exact in a double for these sizes
  ok = ok && sum == expect_sum;
  std::printf("\ntine::reduce over %zu doubles on %u workers: %.0f (expected %.0f) in %.1f ms\n",
              count, cores, sum, expect_sum, reduce_ms);

  std::printf("sum_of_roots(16, 81) = %d\n", tine::sync_wait(pool, sum_of_roots, 16, 81));
  try {
    (void)tine::sync_wait(pool, sum_of_roots, 16, -4);
    ok = false;
  } catch (const std::domain_error& e) {
    std::printf("sum_of_roots(16, -4) threw at the join, caught by the caller: %s\n", e.what());
  }
  std::printf("\n%s\n", ok ? "all results correct" : "WRONG RESULT");
  return ok ? 0 : 1;
}
