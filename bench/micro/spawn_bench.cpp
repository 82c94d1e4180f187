// tine::spawn and cancellation against TBB, side by side in one run
// (bench/journal/2026-11-26-futures-cancellation.md):
// - latency: from spawn to the root's first instruction, and from its last instruction to get()
//   returning, one root at a time on an idle pool (lazy_pool: its workers sleep between roots;
//   busy_pool: they spin), against tbb::task_group::run + wait and tbb::task_arena::enqueue with a
//   flag waited on;
// - throughput: 10^6 small roots (fib(8)) spawned by 1 and 2 threads, all then waited for, against
//   tbb::task_group::run from the same threads;
// - a cancelled search: nqueens, all solutions and the first one (the rest cancelled: tine's stop
//   scope, TBB's task_group::cancel).
//   bazel run --config=opt //bench:spawn_bench [-- rounds]
//   bazel-bin/bench/spawn_bench --smoke (CI)
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

double us_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// ---- latency -------------------------------------------------------------------------------

struct stamps {
  clock_type::time_point first;
  clock_type::time_point last;
};

tine::task<int> stamped(stamps* s) {
  s->first = clock_type::now();
  s->last = clock_type::now();
  co_return 1;
}

struct latency {
  std::vector<double> start;
  std::vector<double> finish;
};

void print_latency(const char* name, const latency& l) {
  std::printf("  %-34s start median %7.1f us p90 %7.1f   finish median %7.1f us p90 %7.1f\n", name,
              median(l.start), percentile(l.start, 0.9), median(l.finish),
              percentile(l.finish, 0.9));
}

template <typename Pool>
latency tine_latency(int samples, std::chrono::microseconds gap) {
  Pool pool(2);
  latency l;
  for (int i = 0; i < samples; ++i) {
    std::this_thread::sleep_for(gap);
    stamps s;
    const auto t0 = clock_type::now();
    tine::future<int> f = tine::spawn(pool, stamped, &s);
    if (f.get() != 1) {
      std::abort();
    }
    const auto t2 = clock_type::now();
    l.start.push_back(us_between(t0, s.first));
    l.finish.push_back(us_between(s.last, t2));
  }
  return l;
}

latency tbb_group_latency(int samples, std::chrono::microseconds gap) {
  tbb::task_arena arena(2);
  latency l;
  for (int i = 0; i < samples; ++i) {
    std::this_thread::sleep_for(gap);
    stamps s;
    tbb::task_group g;
    const auto t0 = clock_type::now();
    g.run([&s] {
      s.first = clock_type::now();
      s.last = clock_type::now();
    });
    g.wait();  // (the calling thread may run the task itself)
    const auto t2 = clock_type::now();
    l.start.push_back(us_between(t0, s.first));
    l.finish.push_back(us_between(s.last, t2));
  }
  return l;
}

latency tbb_enqueue_latency(int samples, std::chrono::microseconds gap) {
  tbb::task_arena arena(2);
  latency l;
  for (int i = 0; i < samples; ++i) {
    std::this_thread::sleep_for(gap);
    stamps s;
    std::atomic<bool> done{false};
    const auto t0 = clock_type::now();
    arena.enqueue([&s, &done] {
      s.first = clock_type::now();
      s.last = clock_type::now();
      done.store(true, std::memory_order_release);
      done.notify_one();
    });
    done.wait(false, std::memory_order_acquire);
    const auto t2 = clock_type::now();
    l.start.push_back(us_between(t0, s.first));
    l.finish.push_back(us_between(s.last, t2));
  }
  return l;
}

// ---- throughput -----------------------------------------------------------------------------

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

constexpr int small_root = 8;

/// Seconds to spawn `total` roots from `threads` threads and get every result.
double tine_throughput(tine::lazy_pool<>& pool, long total, int threads) {
  const auto t0 = clock_type::now();
  std::vector<std::thread> spawners;
  std::atomic<long> wrong{0};
  for (int t = 0; t < threads; ++t) {
    spawners.emplace_back([&] {
      const long mine = total / threads;
      std::vector<tine::future<long>> fs;
      fs.reserve(static_cast<std::size_t>(mine));
      for (long i = 0; i < mine; ++i) {
        fs.push_back(tine::spawn(pool, fib, small_root));
      }
      for (auto& f : fs) {
        wrong.fetch_add(f.get() == serial_fib(small_root) ? 0 : 1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& s : spawners) {
    s.join();
  }
  if (wrong.load() != 0) {
    std::abort();
  }
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

long tbb_fib(int n) {
  if (n < 2) {
    return n;
  }
  long a = 0;
  long b = 0;
  tbb::task_group g;
  g.run([&a, n] { a = tbb_fib(n - 1); });
  b = tbb_fib(n - 2);
  g.wait();
  return a + b;
}

double tbb_throughput(tbb::task_arena& arena, long total, int threads) {
  const auto t0 = clock_type::now();
  std::vector<std::thread> spawners;
  std::atomic<long> wrong{0};
  for (int t = 0; t < threads; ++t) {
    spawners.emplace_back([&] {
      const long mine = total / threads;
      std::vector<long> results(static_cast<std::size_t>(mine), 0);
      arena.execute([&] {
        tbb::task_group g;
        for (long i = 0; i < mine; ++i) {
          g.run([&results, i] { results[static_cast<std::size_t>(i)] = tbb_fib(small_root); });
        }
        g.wait();
      });
      for (long r : results) {
        wrong.fetch_add(r == serial_fib(small_root) ? 0 : 1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& s : spawners) {
    s.join();
  }
  if (wrong.load() != 0) {
    std::abort();
  }
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// ---- a cancelled search -----------------------------------------------------------------------

bool safe(std::uint32_t cols, std::uint32_t d1, std::uint32_t d2, int row, int c, int n) {
  const std::uint32_t bit = 1u << c;
  return (cols & bit) == 0 && (d1 & (bit << row)) == 0 && (d2 & (bit << (n - row))) == 0;
}

tine::task<long> queens(int n, int row, std::uint32_t cols, std::uint32_t d1, std::uint32_t d2,
                        bool first) {
  if (row == n) {
    if (first) {
      tine::request_stop();  // the first solution ends the search: stop the scope
    }
    co_return 1;
  }
  tine::stack_array<long> counts = co_await tine::stack_alloc<long>(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    counts[static_cast<std::size_t>(c)] = 0;
    if (safe(cols, d1, d2, row, c, n)) {
      const std::uint32_t bit = 1u << c;
      co_await tine::fork(&counts[static_cast<std::size_t>(c)], queens, n, row + 1, cols | bit,
                          d1 | (bit << row), d2 | (bit << (n - row)), first);
    }
  }
  co_await tine::join();
  long total = 0;
  for (int c = 0; c < n; ++c) {
    total += counts[static_cast<std::size_t>(c)];
  }
  co_return total;
}

tine::task<long> first_queens(int n) {
  std::optional<long> r;
  co_await tine::call(&r, tine::stop_scope, queens, n, 0, 0u, 0u, 0u, true);
  co_return r.has_value() ? *r : 1;  // stopped: one solution was found
}

long tbb_queens(int n, int row, std::uint32_t cols, std::uint32_t d1, std::uint32_t d2,
                tbb::task_group* top) {
  if (row == n) {
    if (top != nullptr) {
      top->cancel();  // the first solution ends the search
    }
    return 1;
  }
  long counts[32] = {};
  tbb::task_group g;  // created inside a task of `top`: its cancellation reaches this group
  for (int c = 0; c < n; ++c) {
    if (safe(cols, d1, d2, row, c, n)) {
      const std::uint32_t bit = 1u << c;
      g.run([&counts, c, n, row, cols, d1, d2, bit, top] {
        counts[c] =
            tbb_queens(n, row + 1, cols | bit, d1 | (bit << row), d2 | (bit << (n - row)), top);
      });
    }
  }
  g.wait();
  long total = 0;
  for (int c = 0; c < n; ++c) {
    total += counts[c];
  }
  return total;
}

template <typename F>
double seconds_of(F&& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const int rounds = smoke ? 1 : (argc > 1 ? std::atoi(argv[1]) : 5);
  const int samples = smoke ? 20 : 400;
  const long total = smoke ? 2000 : 1000000;
  const int nq = smoke ? 8 : 12;
  const long nq_all = smoke ? 92 : 14200;

  std::printf("latency, one root at a time, 2 workers, %d samples (gap 1 ms: pools idle)\n",
              samples);
  const auto gap = std::chrono::microseconds(1000);
  for (int r = 0; r < rounds; ++r) {
    print_latency("tine::spawn lazy_pool", tine_latency<tine::lazy_pool<>>(samples, gap));
    print_latency("tine::spawn busy_pool", tine_latency<tine::busy_pool<>>(samples, gap));
    print_latency("tbb::task_group::run+wait", tbb_group_latency(samples, gap));
    print_latency("tbb::task_arena::enqueue", tbb_enqueue_latency(samples, gap));
  }

  std::printf("throughput, %ld roots of fib(%d), spawned by 1 and 2 threads, 2 workers (s)\n",
              total, small_root);
  {
    tine::lazy_pool<> pool(2);
    tbb::task_arena arena(2);
    for (int r = 0; r < rounds; ++r) {
      for (int threads : {1, 2}) {
        const double t = tine_throughput(pool, total, threads);
        const double b = tbb_throughput(arena, total, threads);
        std::printf("  %d thread(s): tine::spawn %.3f  tbb::task_group %.3f  ratio %.2f\n", threads,
                    t, b, t / b);
      }
    }
  }

  std::printf("nqueens(%d), all solutions and the first (rest cancelled), 2 workers (ms)\n", nq);
  {
    tine::lazy_pool<> pool(2);
    tbb::task_arena arena(2);
    for (int r = 0; r < rounds; ++r) {
      long all_t = 0;
      long first_t = 0;
      long all_b = 0;
      long first_b = 0;
      const double ta =
          seconds_of([&] { all_t = tine::spawn(pool, queens, nq, 0, 0u, 0u, 0u, false).get(); });
      const double tf = seconds_of([&] { first_t = tine::spawn(pool, first_queens, nq).get(); });
      const double ba =
          seconds_of([&] { arena.execute([&] { all_b = tbb_queens(nq, 0, 0, 0, 0, nullptr); }); });
      const double bf = seconds_of([&] {
        arena.execute([&] {
          tbb::task_group top;
          top.run([&] { first_b = tbb_queens(nq, 0, 0, 0, 0, &top); });
          top.wait();
        });
      });
      if (all_t != nq_all || all_b != nq_all || first_t < 1 || first_b < 0) {
        std::printf("wrong: %ld %ld %ld %ld\n", all_t, all_b, first_t, first_b);
        return 1;
      }
      std::printf("  tine all %.2f first %.2f   tbb all %.2f first %.2f   first: tine/tbb %.2f\n",
                  ta * 1e3, tf * 1e3, ba * 1e3, bf * 1e3, tf / bf);
    }
  }
  return 0;
}
