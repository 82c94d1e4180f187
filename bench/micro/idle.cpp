// What a pool costs when it has nothing to do, and how fast a sleeping pool answers:
// CPU time used per second of idleness after a burst of work (getrusage over the process, so
// the main thread's sleep counts as zero), and the latency of sync_wait on a trivial root task
// after the pool has been idle.
//   bazel-bin/bench/idle [seconds=3] [samples=50]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
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

tine::task<int> nothing() { co_return 1; }

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

template <typename Pool>
void measure(const char* name, std::size_t workers, double seconds, int samples) {
  Pool pool(workers);
  if (tine::sync_wait(pool, fib, 25) != 75025) {
    std::printf("%s: wrong result\n", name);
    std::exit(1);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the burst wind down
  const double cpu0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double idle_cpu = (cpu_seconds() - cpu0) / wall;

  std::vector<double> us;
  for (int i = 0; i < samples; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // idle: lazy workers are asleep
    const auto s = std::chrono::steady_clock::now();
    if (tine::sync_wait(pool, nothing) != 1) {
      std::exit(1);
    }
    us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(us.begin(), us.end());
  std::printf(
      "%-14s workers=%zu idle_cpu=%.5f core-s/s  wake_latency_us median=%.1f p90=%.1f max=%.1f\n",
      name, workers, idle_cpu, us[us.size() / 2], us[us.size() * 9 / 10], us.back());
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const int samples = argc > 2 ? std::atoi(argv[2]) : 50;
  for (std::size_t workers : {1U, 2U}) {
    measure<tine::lazy_pool<>>("lazy_pool", workers, seconds, samples);
    measure<tine::busy_pool<>>("busy_pool", workers, seconds, samples);
  }
  return 0;
}
