// The cost of observing a pool: fib, reduce and UTS T3 on busy_pool / lazy_pool with no observer,
// the stats observer or the trace observer; one line per timed run. The same file builds against
// a tine without observers (then only `none` exists), to compare a pool's default before and
// after observers were added. See bench/journal/2026-11-23-observer-overhead.md for commands and
// figures.
//   observer_overhead fib|reduce|uts busy|lazy none|stats|trace WORKERS REPS
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include <tine/algorithms/reduce.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "bench/suite/uts.hpp"

#if __has_include(<tine/schedulers/trace_observer.hpp>) && !defined(TINE_BENCH_NO_OBSERVERS)
#include <tine/schedulers/stats_observer.hpp>
#include <tine/schedulers/trace_observer.hpp>
#define TINE_BENCH_HAS_OBSERVERS 1
#else
#define TINE_BENCH_HAS_OBSERVERS 0
#endif

// -DTINE_BENCH_ONLY_STATS / -DTINE_BENCH_ONLY_TRACE: a binary with that observer alone (and no
// observer), like a program that uses one. With all three in one unit, GCC's unit-wide inlining
// budget runs out before the task bodies' fork/join steps (see
// bench/journal/2026-11-23-observer-overhead.md).
#if TINE_BENCH_HAS_OBSERVERS && !defined(TINE_BENCH_ONLY_TRACE)
#define TINE_BENCH_STATS 1
#else
#define TINE_BENCH_STATS 0
#endif
#if TINE_BENCH_HAS_OBSERVERS && !defined(TINE_BENCH_ONLY_STATS)
#define TINE_BENCH_TRACE 1
#else
#define TINE_BENCH_TRACE 0
#endif

namespace {

// The pools as templates of (policy, observer); without observers the observer is ignored.
#if TINE_BENCH_HAS_OBSERVERS
using no_observer = tine::no_observer;
template <typename P, typename O>
using busy = tine::busy_pool<P, O>;
template <typename P, typename O>
using lazy = tine::lazy_pool<P, O>;
#else
struct no_observer {};
template <typename P, typename>
using busy = tine::busy_pool<P>;
template <typename P, typename>
using lazy = tine::lazy_pool<P>;
#endif

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

struct uts_slot {
  uts::node node;
  uts::result res;
};

tine::task<uts::result> traverse(const uts::params* p, const uts::node* n) {
  const int k = uts::num_children(*p, *n);
  uts::result r{1, k == 0 ? 1u : 0u, n->depth};
  if (k == 0) {
    co_return r;
  }
  std::vector<uts_slot> cs(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(*n, i, cs[static_cast<std::size_t>(i)].node);
    co_await tine::fork(&cs[static_cast<std::size_t>(i)].res, traverse, p,
                        &cs[static_cast<std::size_t>(i)].node);
  }
  co_await tine::join();
  for (const uts_slot& c : cs) {
    r += c.res;
  }
  co_return r;
}

constexpr int fib_n = 32;                               // 7,049,155 tasks
constexpr std::size_t reduce_n = std::size_t{1} << 25;  // doubles

const std::vector<double>& reduce_input() {
  static const std::vector<double> v = [] {
    std::vector<double> x(reduce_n);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<double>(i % 1024);
    }
    return x;
  }();
  return v;
}

// Runs the workload once on `pool`; returns the number of tasks (fib, uts) or elements (reduce),
// or 0 when the result is wrong.
template <typename Pool>
std::uint64_t run(std::string_view workload, Pool& pool) {
  if (workload == "fib") {
    return tine::sync_wait(pool, fib, fib_n) == 2178309 ? 7049155 : 0;
  }
  if (workload == "reduce") {
    const double s = tine::reduce(pool, reduce_input(), 0.0, std::plus<>{});
    return s == static_cast<double>(reduce_n / 1024) * (1023.0 * 1024.0 / 2.0) ? reduce_n : 0;
  }
  const uts::params& p = uts::tree("T3");
  const uts::node root = uts::root(p);
  const uts::result r = tine::sync_wait(pool, traverse, &p, &root);
  return r.nodes == p.nodes && r.leaves == p.leaves ? r.nodes : 0;
}

// Counts the bytes written through it.
struct counting_buf : std::streambuf {
  std::uint64_t bytes = 0;
  int_type overflow(int_type c) override {
    ++bytes;
    return c;
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<std::uint64_t>(n);
    return n;
  }
};

template <template <typename, typename> class Pool, typename Observer, typename... Obs>
int time_one(std::string_view workload, std::string_view pool_name, std::string_view obs_name,
             std::size_t workers, Obs&... obs) {
  Pool<tine::numa_victims, Observer> pool(workers, obs...);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t tasks = run(workload, pool);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (tasks == 0) {
    std::fprintf(stderr, "observer_overhead: wrong result\n");
    return 1;
  }
  std::printf("%.*s %.*s %.*s %zu %.6f %llu", static_cast<int>(workload.size()), workload.data(),
              static_cast<int>(pool_name.size()), pool_name.data(),
              static_cast<int>(obs_name.size()), obs_name.data(), workers, secs,
              static_cast<unsigned long long>(tasks));
  return 0;
}

template <template <typename, typename> class Pool>
int rep(std::string_view workload, std::string_view pool_name, std::string_view obs,
        std::size_t workers) {
  int rc = 2;
  if (obs == "none") {
    rc = time_one<Pool, no_observer>(workload, pool_name, obs, workers);
#if TINE_BENCH_STATS
  } else if (obs == "stats") {
    tine::stats_observer stats;
    rc = time_one<Pool, tine::stats_observer>(workload, pool_name, obs, workers, stats);
#endif
#if TINE_BENCH_TRACE
  } else if (obs == "trace") {
    tine::trace_observer trace(std::size_t{1} << 22);
    rc = time_one<Pool, tine::trace_observer>(workload, pool_name, obs, workers, trace);
    if (rc == 0) {
      counting_buf buf;
      std::ostream out(&buf);
      trace.write_chrome_trace(out);
      std::printf(" events=%zu dropped=%llu bytes=%llu", trace.recorded_events(),
                  static_cast<unsigned long long>(trace.dropped_events()),
                  static_cast<unsigned long long>(buf.bytes));
    }
#endif
  } else {
    std::fprintf(stderr, "observer_overhead: unknown observer %.*s\n", static_cast<int>(obs.size()),
                 obs.data());
  }
  if (rc == 0) {
    std::printf("\n");
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s fib|reduce|uts busy|lazy none|stats|trace WORKERS REPS\n",
                 argv[0]);
    return 2;
  }
  const std::string_view workload = argv[1];
  const std::string_view pool = argv[2];
  const auto workers = static_cast<std::size_t>(std::atoi(argv[4]));
  const int reps = std::atoi(argv[5]);
  if (workload == "reduce") {
    (void)reduce_input();  // built before the first timed run
  }
  for (int i = 0; i < reps; ++i) {
    const int rc = pool == "busy" ? rep<busy>(workload, pool, argv[3], workers)
                                  : rep<lazy>(workload, pool, argv[3], workers);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}
