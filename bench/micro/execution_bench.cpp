// tine's P2300 scheduler (tine::execution::scheduler) against stdexec's exec::static_thread_pool
// and oneTBB's exec::tbb::tbb_thread_pool, on the same 1 and 2 threads, side by side in one run
// (bench/journal/2026-11-29-p2300-vs-stdexec.md):
// - latency: sync_wait(schedule(sch) | then(f)), one round trip at a time;
// - throughput: many small starts_on(sch, just() | then(f)) spawned into a counting scope, then
//   the scope joined;
// - bulk over 10^7 elements, a cheap body and an uneven one (cost growing with the index), with
//   stdexec::bulk(par, ...) on every scheduler and tine::for_each on the tine pools;
// - fib(30) written with senders (let_value recursion, serial below 20), and tine's task fib(30)
//   as one sender (as_sender), a task per call and with the senders' cutoff.
//   bazel run -c opt //bench:execution_bench
//   bazel-bin/bench/execution_bench --smoke (CI)
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <ranges>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <exec/any_sender_of.hpp>
#include <exec/static_thread_pool.hpp>
#include <exec/tbb/tbb_thread_pool.hpp>
#include <stdexec/execution.hpp>

#include <tine/algorithms/for_each.hpp>
#include <tine/core/core.hpp>
#include <tine/execution/execution.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

namespace {

namespace ex = stdexec;

// ---- the pools, each with its P2300 scheduler ------------------------------------------------

template <typename Pool>
struct tine_pool {
  Pool pool;
  explicit tine_pool(int workers) : pool(workers) {}
  tine::execution::scheduler<Pool> scheduler() { return tine::execution::scheduler(pool); }
};

struct tine_lazy : tine_pool<tine::lazy_pool<>> {
  static constexpr const char* name = "tine_lazy";
  static constexpr bool is_tine = true;
  using tine_pool::tine_pool;
};

struct tine_busy : tine_pool<tine::busy_pool<>> {
  static constexpr const char* name = "tine_busy";
  static constexpr bool is_tine = true;
  using tine_pool::tine_pool;
};

struct stdexec_static {
  static constexpr const char* name = "static_thread_pool";
  static constexpr bool is_tine = false;
  exec::static_thread_pool pool;
  explicit stdexec_static(int workers) : pool(static_cast<std::uint32_t>(workers)) {}
  auto scheduler() { return pool.get_scheduler(); }
};

// An arena of `workers` slots, none reserved for the calling thread: sync_wait's thread does not
// join the arena, so all `workers` threads are TBB workers (main() lets TBB have that many).
struct tbb_pool {
  static constexpr const char* name = "tbb_thread_pool";
  static constexpr bool is_tine = false;
  exec::tbb::tbb_thread_pool pool;
  explicit tbb_pool(int workers) : pool(workers, 0u) {}
  auto scheduler() { return pool.get_scheduler(); }
};

// Ends the program with a message: a wrong result is never timed.
[[noreturn]] void wrong(const char* what, const char* pool, int workers) {
  std::fprintf(stderr, "WRONG: %s on %s with %d threads\n", what, pool, workers);
  std::exit(1);
}

// ---- 1. latency ------------------------------------------------------------------------------

template <typename P>
bool latency_once(P& p) {
  auto [r] =
      ex::sync_wait(ex::schedule(p.scheduler()) | ex::then([]() noexcept { return 7; })).value();
  return r == 7;
}

// ---- 2. throughput ---------------------------------------------------------------------------

template <typename P>
bool throughput_once(P& p, std::vector<unsigned char>& hit) {
  ex::simple_counting_scope scope;
  auto sch = p.scheduler();
  for (std::size_t i = 0; i < hit.size(); ++i) {
    // spawn takes senders without an error completion: every pool here declares none.
    ex::spawn(ex::starts_on(sch, ex::just() | ex::then([&hit, i]() noexcept { hit[i] = 1; })),
              scope.get_token());
  }
  ex::sync_wait(scope.join());
  bool all = true;
  for (auto& h : hit) {
    all = all && h == 1;
    h = 0;
  }
  return all;
}

// ---- 3. bulk ---------------------------------------------------------------------------------

// Cost growing linearly with the index, up to `uneven_max` dependent steps: the last elements
// cost the most, so a loop that splits the range statically into equal parts is unbalanced.
constexpr unsigned uneven_max = 32;

inline double uneven(std::size_t i, std::size_t n, double x) {
  const auto steps = static_cast<unsigned>((i * uneven_max) / n);
  for (unsigned k = 0; k < steps; ++k) {
    x = x * 0.999 + 1.0;
  }
  return x;
}

struct bulk_data {
  std::vector<double> in;
  std::vector<double> out;
  explicit bulk_data(std::size_t n) : in(n), out(n) {
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<double>(i % 1000);
    }
  }
  bool check_cheap() const {
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (out[i] != in[i] * 2) {
        return false;
      }
    }
    return true;
  }
  bool check_uneven() const {
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (out[i] != uneven(i, in.size(), in[i])) {
        return false;
      }
    }
    return true;
  }
};

template <bool Uneven>
struct bulk_body {
  const double* in;
  double* out;
  std::size_t n;
  void operator()(std::size_t i) const noexcept {
    if constexpr (Uneven) {
      out[i] = uneven(i, n, in[i]);
    } else {
      out[i] = in[i] * 2;
    }
  }
};

template <bool Uneven, typename P>
void bulk_once(P& p, bulk_data& d) {
  const bulk_body<Uneven> body{d.in.data(), d.out.data(), d.in.size()};
  ex::sync_wait(ex::schedule(p.scheduler()) | ex::bulk(ex::par, d.in.size(), body));
}

template <bool Uneven, typename P>
void for_each_once(P& p, bulk_data& d) {
  const bulk_body<Uneven> body{d.in.data(), d.out.data(), d.in.size()};
  tine::for_each(p.pool, std::views::iota(std::size_t{0}, d.in.size()), body);
}

// ---- 4. fib ----------------------------------------------------------------------------------

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// Senders of fib below the cutoff are the serial function: one sender per call above it.
constexpr int sender_cutoff = 20;

using long_sender = exec::any_sender<exec::any_receiver<ex::completion_signatures<
    ex::set_value_t(long), ex::set_error_t(std::exception_ptr), ex::set_stopped_t()>>>;

// fib(n) = when_all(fib(n-1) started on sch, fib(n-2)) | then(+), each built when started
// (let_value), so the sender tree unfolds as it runs.
template <typename Sch>
long_sender fib_sender(Sch sch, int n) {
  if (n < sender_cutoff) {
    return ex::just() | ex::then([n] { return fib_serial(n); });
  }
  return ex::when_all(ex::starts_on(sch, ex::just() | ex::let_value([sch, n] {
                                           return fib_sender(sch, n - 1);
                                         })),
                      ex::just() | ex::let_value([sch, n] { return fib_sender(sch, n - 2); })) |
         ex::then([](long a, long b) { return a + b; });
}

// tine's fib: a task per call (Cutoff 2), or with the senders' cutoff (the same tree of tasks
// as the senders', so the two compare the cost of a node).
template <int Cutoff>
tine::task<long> fib_task(int n) {
  if (n < Cutoff) {
    co_return fib_serial(n);
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib_task<Cutoff>, n - 1);
  co_await tine::call(&b, fib_task<Cutoff>, n - 2);
  co_await tine::join();
  co_return a + b;
}

template <typename P>
long fib_senders_once(P& p, int n) {
  auto [r] = ex::sync_wait(ex::starts_on(p.scheduler(), fib_sender(p.scheduler(), n))).value();
  return r;
}

template <int Cutoff, typename P>
long fib_task_once(P& p, int n) {
  auto [r] = ex::sync_wait(tine::execution::as_sender(p.pool, fib_task<Cutoff>, n)).value();
  return r;
}

// ---- sizes -----------------------------------------------------------------------------------

struct sizes {
  std::size_t spawned;
  std::size_t bulk_n;
  int fib_n;
};

constexpr sizes bench_sizes{100'000, 10'000'000, 30};
constexpr sizes smoke_sizes{2'000, 50'000, 23};

// ---- Google Benchmark registration -----------------------------------------------------------

// The rows being registered: main() registers one group of rows at a time for every pool and
// thread count, so the figures compared sit next to each other in the run.
std::vector<std::string> registering;

template <typename P, typename F>
void add(const std::string& row, int workers, F once) {
  if (std::find(registering.begin(), registering.end(), row) == registering.end()) {
    return;
  }
  benchmark::RegisterBenchmark(
      (row + "/" + P::name + "/threads:" + std::to_string(workers)).c_str(),
      [workers, once](benchmark::State& state) {
        P p(workers);
        once(p, state);
      })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

template <typename P>
void register_pool(int workers) {
  const sizes s = bench_sizes;
  add<P>("latency", workers, [](P& p, benchmark::State& state) {
    for (auto _ : state) {
      if (!latency_once(p)) {
        wrong("latency", P::name, 0);
      }
    }
  });
  add<P>("throughput", workers, [s, workers](P& p, benchmark::State& state) {
    std::vector<unsigned char> hit(s.spawned, 0);
    for (auto _ : state) {
      if (!throughput_once(p, hit)) {
        wrong("throughput", P::name, workers);
      }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.spawned));
  });
  add<P>("bulk_cheap", workers, [s, workers](P& p, benchmark::State& state) {
    bulk_data d(s.bulk_n);
    for (auto _ : state) {
      bulk_once<false>(p, d);
    }
    if (!d.check_cheap()) {
      wrong("bulk_cheap", P::name, workers);
    }
  });
  add<P>("bulk_uneven", workers, [s, workers](P& p, benchmark::State& state) {
    bulk_data d(s.bulk_n);
    for (auto _ : state) {
      bulk_once<true>(p, d);
    }
    if (!d.check_uneven()) {
      wrong("bulk_uneven", P::name, workers);
    }
  });
  if constexpr (P::is_tine) {
    add<P>("for_each_cheap", workers, [s, workers](P& p, benchmark::State& state) {
      bulk_data d(s.bulk_n);
      for (auto _ : state) {
        for_each_once<false>(p, d);
      }
      if (!d.check_cheap()) {
        wrong("for_each_cheap", P::name, workers);
      }
    });
    add<P>("for_each_uneven", workers, [s, workers](P& p, benchmark::State& state) {
      bulk_data d(s.bulk_n);
      for (auto _ : state) {
        for_each_once<true>(p, d);
      }
      if (!d.check_uneven()) {
        wrong("for_each_uneven", P::name, workers);
      }
    });
  }
  add<P>("fib_senders", workers, [s, workers](P& p, benchmark::State& state) {
    const long expected = fib_serial(s.fib_n);
    for (auto _ : state) {
      if (fib_senders_once(p, s.fib_n) != expected) {
        wrong("fib_senders", P::name, workers);
      }
    }
  });
  if constexpr (P::is_tine) {
    add<P>("fib_task", workers, [s, workers](P& p, benchmark::State& state) {
      const long expected = fib_serial(s.fib_n);
      for (auto _ : state) {
        if (fib_task_once<2>(p, s.fib_n) != expected) {
          wrong("fib_task", P::name, workers);
        }
      }
    });
    add<P>("fib_task_cutoff", workers, [s, workers](P& p, benchmark::State& state) {
      const long expected = fib_serial(s.fib_n);
      for (auto _ : state) {
        if (fib_task_once<sender_cutoff>(p, s.fib_n) != expected) {
          wrong("fib_task_cutoff", P::name, workers);
        }
      }
    });
  }
}

// ---- smoke mode: every row once on tiny sizes, results checked -------------------------------

template <typename P>
void smoke_pool(int workers) {
  const sizes s = smoke_sizes;
  P p(workers);
  for (int i = 0; i < 100; ++i) {
    if (!latency_once(p)) {
      wrong("latency", P::name, workers);
    }
  }
  std::vector<unsigned char> hit(s.spawned, 0);
  if (!throughput_once(p, hit)) {
    wrong("throughput", P::name, workers);
  }
  bulk_data d(s.bulk_n);
  bulk_once<false>(p, d);
  if (!d.check_cheap()) {
    wrong("bulk_cheap", P::name, workers);
  }
  bulk_once<true>(p, d);
  if (!d.check_uneven()) {
    wrong("bulk_uneven", P::name, workers);
  }
  if constexpr (P::is_tine) {
    bulk_data e(s.bulk_n);
    for_each_once<false>(p, e);
    if (!e.check_cheap()) {
      wrong("for_each_cheap", P::name, workers);
    }
    for_each_once<true>(p, e);
    if (!e.check_uneven()) {
      wrong("for_each_uneven", P::name, workers);
    }
    if (fib_task_once<2>(p, s.fib_n) != fib_serial(s.fib_n)) {
      wrong("fib_task", P::name, workers);
    }
    if (fib_task_once<sender_cutoff>(p, s.fib_n) != fib_serial(s.fib_n)) {
      wrong("fib_task_cutoff", P::name, workers);
    }
  }
  if (fib_senders_once(p, s.fib_n) != fib_serial(s.fib_n)) {
    wrong("fib_senders", P::name, workers);
  }
  std::printf("smoke: %s with %d threads: every row right\n", P::name, workers);
}

}  // namespace

int main(int argc, char** argv) {
  // TBB's default allows hardware_concurrency - 1 workers; the TBB arena here has 2 slots for
  // workers and the main thread besides.
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 3);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      for (int workers : {1, 2}) {
        smoke_pool<tine_lazy>(workers);
        smoke_pool<tine_busy>(workers);
        smoke_pool<stdexec_static>(workers);
        smoke_pool<tbb_pool>(workers);
      }
      return 0;
    }
  }
  const std::vector<std::vector<std::string>> groups = {
      {"latency"},
      {"throughput"},
      {"bulk_cheap", "for_each_cheap"},
      {"bulk_uneven", "for_each_uneven"},
      {"fib_senders", "fib_task", "fib_task_cutoff"}};
  for (const auto& group : groups) {
    registering = group;
    for (int workers : {1, 2}) {
      register_pool<tine_lazy>(workers);
      register_pool<tine_busy>(workers);
      register_pool<stdexec_static>(workers);
      register_pool<tbb_pool>(workers);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
