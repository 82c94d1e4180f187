// The instructions of one reducer::view(), one dprng draw, one dprng::current() and one fork of
// fib, for valgrind --tool=callgrind: each mode runs its operation N times inside a task on the
// inline scheduler; the difference of two runs (N and 2N) divided by N is the cost of one
// operation (bench/journal/2026-11-26-reducers-dprng.md has the commands and the figures).
//   reducer_costs view|draw|current|fork N
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace {

// Not inlined, and the optimiser cannot see that successive calls find the same view.
[[gnu::noinline]] void add(tine::reducer<tine::sum<long>>& r, long x) {
  asm volatile("" ::: "memory");
  r.view() += x;
}

[[gnu::noinline]] std::uint64_t draw(tine::dprng& rng) {
  asm volatile("" ::: "memory");
  return rng();
}

tine::task<long> views(long n, tine::reducer<tine::sum<long>>* r) {
  for (long i = 0; i < n; ++i) {
    add(*r, i);
  }
  co_return 0;
}

tine::task<long> draws(long n) {
  tine::dprng rng = co_await tine::dprng::current();
  std::uint64_t x = 0;
  for (long i = 0; i < n; ++i) {
    x ^= draw(rng);
  }
  co_return static_cast<long>(x & 1);
}

tine::task<long> streams(long n) {
  std::uint64_t x = 0;
  for (long i = 0; i < n; ++i) {
    tine::dprng rng = co_await tine::dprng::current();
    x ^= rng.from_key(0)();  // keeps the stream object alive without drawing from it
    asm volatile("" ::: "memory");
  }
  co_return static_cast<long>(x & 1);
}

tine::task<long> empty() { co_return 0; }

tine::task<long> forks(long n) {
  long sink = 0;
  for (long i = 0; i < n; ++i) {
    co_await tine::fork(&sink, empty);
    co_await tine::join();
  }
  co_return sink;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: reducer_costs view|draw|current|fork N\n");
    return 2;
  }
  const long n = std::atol(argv[2]);
  tine::inline_scheduler sched;
  tine::reducer<tine::sum<long>> r;
  long out = 0;
  if (std::strcmp(argv[1], "view") == 0) {
    out = tine::sync_wait(sched, views, n, &r);
  } else if (std::strcmp(argv[1], "draw") == 0) {
    out = tine::sync_wait(sched, tine::dprng::seeded(1, draws), n);
  } else if (std::strcmp(argv[1], "current") == 0) {
    out = tine::sync_wait(sched, tine::dprng::seeded(1, streams), n);
  } else if (std::strcmp(argv[1], "fork") == 0) {
    out = tine::sync_wait(sched, forks, n);
  } else {
    return 2;
  }
  std::printf("%ld %ld\n", out, r.get());
  return 0;
}
