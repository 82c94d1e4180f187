// Uses tine::testing (the <tine/testing/...> headers, no test framework): fib on simple_pool,
// the minimal user-written scheduler, then the scheduler conformance kit's neutral API on it.
// Exits non-zero on a wrong result or a failed check.
#include <cstdio>

#include <tine/core/core.hpp>
#include <tine/testing/scheduler_conformance.hpp>
#include <tine/testing/simple_pool.hpp>

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
  tine::testing::simple_pool pool(2);
  const long f = tine::sync_wait(pool, fib, 20);
  const bool ok = f == 6765;
  std::printf("simple_pool: fib(20) = %ld: %s\n", f, ok ? "ok" : "WRONG");
  const tine::testing::conformance_result r = tine::testing::run_conformance(pool, {.workers = 2});
  std::printf("simple_pool: conformance kit: %s\n%s", r.ok() ? "ok" : "FAILED",
              r.summary().c_str());
  return ok && r.ok() ? 0 : 1;
}
