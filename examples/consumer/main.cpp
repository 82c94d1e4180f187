// A user's program built in its own Bazel workspace against @tine//:tine: a task on a lazy pool,
// a parallel reduce, and a victim policy written here, plugged into a busy pool.
#include <cstddef>
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

// Steal from the next worker on a ring first, then from anyone: a user-defined victim policy.
class next_on_ring {
 public:
  explicit next_on_ring(const tine::topology& topo) : m_size(topo.size()) {}

  std::size_t next_victim(std::size_t thief, tine::xoshiro256ss& rng) const noexcept {
    if (m_size == 1) {
      return 0;
    }
    if (rng.bounded(2) == 0) {
      return (thief + 1) % m_size;
    }
    const std::size_t other = static_cast<std::size_t>(rng.bounded(m_size - 1));
    return other >= thief ? other + 1 : other;
  }

 private:
  std::size_t m_size;
};

static_assert(tine::victim_policy<next_on_ring>);

}  // namespace

int main() {
  tine::lazy_pool<> lazy(2);
  const long f = tine::sync_wait(lazy, fib, 25);

  std::vector<double> v(1'000'000);
  std::iota(v.begin(), v.end(), 1.0);
  const double sum = tine::reduce(lazy, v, 0.0, std::plus<>{});

  tine::busy_pool<next_on_ring> busy(2);
  const long g = tine::sync_wait(busy, fib, 20);

  const bool ok = f == 75025 && sum == 500000500000.0 && g == 6765;
  std::printf("fib(25) = %ld, reduce = %.0f, fib(20) on a busy pool with a ring policy = %ld: %s\n",
              f, sum, g, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
