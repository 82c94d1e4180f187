/// fib: recursive Fibonacci, no cutoff: a task does a handful of instructions, so this measures the
/// runtime's per-task overhead. One task = one invocation of fib.

#include <string>
#include <string_view>

#include "bench/suite/harness.hpp"

namespace {

long fib_serial(int n) {
  if (n < 2) {
    return n;
  }
  return fib_serial(n - 1) + fib_serial(n - 2);
}

tine::task<long> fib_tine(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib_tine, n - 1);
  co_await tine::call(&b, fib_tine, n - 2);
  co_await tine::join();
  co_return a + b;
}

long fib_tbb(int n) {
  if (n < 2) {
    return n;
  }
  long a = 0;
  long b = 0;
  tbb::task_group g;
  g.run([&] { a = fib_tbb(n - 1); });
  b = fib_tbb(n - 2);
  g.wait();
  return a + b;
}

long fib_omp(int n) {
  if (n < 2) {
    return n;
  }
  long a = 0;
  long b = 0;
#pragma omp task default(none) shared(a) firstprivate(n)
  a = fib_omp(n - 1);
  b = fib_omp(n - 2);
#pragma omp taskwait
  return a + b;
}

struct fib_workload {
  static constexpr const char* name = "fib";
  using input = int;
  using result = long;

  static input parse(std::string_view s) { return std::stoi(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {30, 32, 34, 36, 38}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 20; }

  static result serial(input n) { return fib_serial(n); }
  template <class S>
  static result tine(S& s, input n) {
    return tine::sync_wait(s, fib_tine, n);
  }
  static result tbb(input n) { return fib_tbb(n); }
  static result omp(input n) { return fib_omp(n); }

  static long exact(input n) {
    long a = 0;
    long b = 1;
    for (int i = 0; i < n; ++i) {
      long t = a + b;
      a = b;
      b = t;
    }
    return a;
  }
  // calls(n) = 2 fib(n + 1) - 1
  static std::uint64_t tasks(input n) { return static_cast<std::uint64_t>(2 * exact(n + 1) - 1); }
  static std::string check(input n, result got, result) {
    return got == exact(n)
               ? ""
               : "wrong result " + std::to_string(got) + ", expected " + std::to_string(exact(n));
  }
};

}  // namespace

TINE_BENCH_MAIN(fib_workload)
