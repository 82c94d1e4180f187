// Observing a pool: fib on a lazy_pool with a stats observer and a trace observer at once. Prints
// the statistics table and writes the Chrome trace (open it in ui.perfetto.dev or
// chrome://tracing; see docs/observability.md).
//   trace_demo TRACE.json [FIB_N=27] [WORKERS=2] [EVENTS_PER_WORKER=1048576]
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

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

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 5) {
    std::cerr << "usage: " << argv[0] << " TRACE.json [FIB_N=27] [WORKERS=2] [EVENTS_PER_WORKER]\n";
    return 2;
  }
  const std::string path = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : 27;
  const long workers = argc > 3 ? std::atol(argv[3]) : 2;
  const long capacity = argc > 4 ? std::atol(argv[4]) : 1L << 20;
  if (n < 0 || n > 45 || workers < 1 || capacity < 2) {
    std::cerr << "trace_demo: FIB_N must be in [0, 45], WORKERS >= 1, EVENTS_PER_WORKER >= 2\n";
    return 2;
  }
  try {
    tine::stats_observer stats;
    tine::trace_observer trace(static_cast<std::size_t>(capacity));
    tine::observers both(stats, trace);
    long result = 0;
    {
      tine::lazy_pool pool(static_cast<std::size_t>(workers), both);
      result = tine::sync_wait(pool, fib, n);
    }  // destroyed: the observers may be read now
    const bool ok = result == serial_fib(n);
    std::cout << "fib(" << n << ") = " << result << (ok ? " (correct)" : " (WRONG)") << " on "
              << workers << " workers\n\n";
    stats.report().print(std::cout);
    trace.write_chrome_trace(path);
    std::cout << "\ntrace: " << path << ", " << trace.recorded_events() << " events recorded, "
              << trace.dropped_events() << " dropped\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "trace_demo: " << e.what() << '\n';
    return 1;
  }
}
