// Uses tine::execution (tine in std::execution, with stdexec): sender code on a tine pool, bulk as
// tine's loop, and a tine task as a sender. Exits non-zero on a wrong result.
#include <cstdio>
#include <vector>

#include <stdexec/execution.hpp>
#include <tine/execution/execution.hpp>
#include <tine/schedulers/lazy_pool.hpp>

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
  namespace ex = stdexec;
  tine::lazy_pool<> pool(2);
  auto sch = tine::execution::scheduler(pool);
  auto [x] = ex::sync_wait(ex::starts_on(sch, ex::just(20) | ex::then([](int n) { return 2 * n; })))
                 .value();
  std::vector<int> v(100000, 0);
  ex::sync_wait(ex::schedule(sch) | ex::bulk(ex::par, v.size(), [&](std::size_t i) {
                  v[i] = static_cast<int>(i % 3);
                }));
  long sum = 0;
  for (int e : v) {
    sum += e;
  }
  auto [f] = ex::sync_wait(tine::execution::as_sender(pool, fib, 20)).value();
  const bool ok = x == 40 && sum == 99999 && f == 6765;
  std::printf("tine::execution: then %d, bulk sum %ld, as_sender fib(20) = %ld: %s\n", x, sum, f,
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
