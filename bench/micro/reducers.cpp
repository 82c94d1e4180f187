// tine::reducer against TBB's combinable and enumerable_thread_specific and against partial
// results passed through fork pointers (the way tine programs did it before reducers), and
// tine::dprng against a std::mt19937_64 per thread (not deterministic), at 1 and 2 workers, in
// one process. Every run checks its result. See bench/journal/2026-11-26-reducers-dprng.md.
//   bazel-bin/bench/reducers --benchmark_repetitions=5 --benchmark_display_aggregates_only=true
//   bazel-bin/bench/reducers --smoke     (CI: small sizes, results cross-checked, no timing)
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>

#include "bench/suite/uts.hpp"

namespace {

// ---- workloads and their sizes ----------------------------------------------------------------

std::int64_t histogram_samples = 100'000'000;  // 10^8
const char* uts_tree = "T3";
long pi_samples = 100'000'000;  // 10^8 points, two draws each
int fib_n = 32;

constexpr std::int64_t histogram_grain = 1 << 14;
constexpr long pi_grain = 10'000;

// The sample i of the histogram: a well-mixed word, bucketed by its top byte.
inline std::size_t bucket_of(std::int64_t i) {
  return static_cast<std::size_t>(tine::detail::pedigree::mix64(static_cast<std::uint64_t>(i)) >>
                                  56);
}

using hist = std::array<std::uint64_t, 256>;

struct hist_sum {
  using value_type = hist;
  static hist identity() { return {}; }
  static void reduce(hist& left, hist& right) {
    for (std::size_t i = 0; i < left.size(); ++i) {
      left[i] += right[i];
    }
  }
};

hist histogram_serial() {
  hist h{};
  for (std::int64_t i = 0; i < histogram_samples; ++i) {
    ++h[bucket_of(i)];
  }
  return h;
}

// tine, reducer: each leaf counts into its strand's view.
tine::task<void> histogram_reducer(std::int64_t lo, std::int64_t hi, tine::reducer<hist_sum>* r) {
  if (hi - lo <= histogram_grain) {
    hist& h = r->view();
    for (std::int64_t i = lo; i < hi; ++i) {
      ++h[bucket_of(i)];
    }
    co_return;
  }
  const std::int64_t mid = lo + (hi - lo) / 2;
  co_await tine::fork(histogram_reducer, lo, mid, r);
  co_await tine::call(histogram_reducer, mid, hi, r);
  co_await tine::join();
}

// tine, by hand: each task fills the histogram it is given; a parent gives its children two on
// its stack and adds them up after the join.
tine::task<void> histogram_by_hand(std::int64_t lo, std::int64_t hi, hist* out) {
  if (hi - lo <= histogram_grain) {
    for (std::int64_t i = lo; i < hi; ++i) {
      ++(*out)[bucket_of(i)];
    }
    co_return;
  }
  tine::stack_array<hist> parts = co_await tine::stack_alloc<hist>(2);
  parts[0] = hist{};
  parts[1] = hist{};
  const std::int64_t mid = lo + (hi - lo) / 2;
  co_await tine::fork(histogram_by_hand, lo, mid, &parts[0]);
  co_await tine::call(histogram_by_hand, mid, hi, &parts[1]);
  co_await tine::join();
  for (std::size_t b = 0; b < out->size(); ++b) {
    (*out)[b] += parts[0][b] + parts[1][b];
  }
}

template <typename Local>
void histogram_tbb_body(Local& local) {
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, histogram_samples, histogram_grain),
                    [&](const tbb::blocked_range<std::int64_t>& range) {
                      hist& h = local.local();
                      for (std::int64_t i = range.begin(); i != range.end(); ++i) {
                        ++h[bucket_of(i)];
                      }
                    });
}

// ---- UTS: a sum over the nodes of a tree --------------------------------------------------------

struct result_sum {
  using value_type = uts::result;
  static uts::result identity() { return {}; }
  static void reduce(uts::result& left, uts::result& right) { left += right; }
};

struct slot {
  uts::node node;
  uts::result res;
};

uts::result uts_serial(const uts::params& p, const uts::node& n) {
  const int k = uts::num_children(p, n);
  uts::result r{1, k == 0 ? 1U : 0U, n.depth};
  uts::node c;
  for (int i = 0; i < k; ++i) {
    uts::child(n, i, c);
    r += uts_serial(p, c);
  }
  return r;
}

// tine, reducer: every node adds itself to its strand's view.
tine::task<void> uts_reducer(const uts::params* p, const uts::node* n,
                             tine::reducer<result_sum>* r) {
  const int k = uts::num_children(*p, *n);
  r->view() += uts::result{1, k == 0 ? 1U : 0U, n->depth};
  if (k == 0) {
    co_return;
  }
  tine::stack_array<uts::node> cs =
      co_await tine::stack_alloc<uts::node>(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(*n, i, cs[static_cast<std::size_t>(i)]);
    co_await tine::fork(uts_reducer, p, &cs[static_cast<std::size_t>(i)], r);
  }
  co_await tine::join();
}

// tine, by hand: results through fork pointers into the task's stack (bench/suite/uts.cpp's UTS*).
tine::task<uts::result> uts_by_hand(const uts::params* p, const uts::node* n) {
  const int k = uts::num_children(*p, *n);
  uts::result r{1, k == 0 ? 1U : 0U, n->depth};
  if (k == 0) {
    co_return r;
  }
  tine::stack_array<slot> cs = co_await tine::stack_alloc<slot>(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(*n, i, cs[static_cast<std::size_t>(i)].node);
    co_await tine::fork(&cs[static_cast<std::size_t>(i)].res, uts_by_hand, p,
                        &cs[static_cast<std::size_t>(i)].node);
  }
  co_await tine::join();
  for (const slot& c : cs) {
    r += c.res;
  }
  co_return r;
}

template <typename Local>
void uts_tbb(const uts::params& p, const uts::node& n, Local& local) {
  const int k = uts::num_children(p, n);
  local.local() += uts::result{1, k == 0 ? 1U : 0U, n.depth};
  if (k == 0) {
    return;
  }
  std::vector<uts::node> cs(static_cast<std::size_t>(k));
  tbb::task_group g;
  for (int i = 0; i < k; ++i) {
    uts::child(n, i, cs[static_cast<std::size_t>(i)]);
    g.run([&p, &local, c = &cs[static_cast<std::size_t>(i)]] { uts_tbb(p, *c, local); });
  }
  g.wait();
}

// ---- Monte Carlo pi ---------------------------------------------------------------------------

double unit(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

tine::task<long> pi_dprng(long samples) {
  if (samples <= pi_grain) {
    tine::dprng rng = co_await tine::dprng::current();
    long in = 0;
    for (long i = 0; i < samples; ++i) {
      const double x = rng.uniform();
      const double y = rng.uniform();
      in += x * x + y * y < 1.0 ? 1 : 0;
    }
    co_return in;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, pi_dprng, samples / 2);
  co_await tine::call(&b, pi_dprng, samples - samples / 2);
  co_await tine::join();
  co_return a + b;
}

// A std::mt19937_64 per thread, seeded by thread: a number's value depends on which worker drew
// it and when (not deterministic). Read through a function that is not inlined: a task may
// change threads at a co_await (docs/design.md, "Limits and rules").
[[gnu::noinline]] std::mt19937_64& thread_engine() {
  thread_local std::mt19937_64 engine(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  asm volatile("" ::: "memory");
  return engine;
}

tine::task<long> pi_mt(long samples) {
  if (samples <= pi_grain) {
    std::mt19937_64& rng = thread_engine();  // no co_await below: stays this thread's
    long in = 0;
    for (long i = 0; i < samples; ++i) {
      const double x = unit(rng());
      const double y = unit(rng());
      in += x * x + y * y < 1.0 ? 1 : 0;
    }
    co_return in;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, pi_mt, samples / 2);
  co_await tine::call(&b, pi_mt, samples - samples / 2);
  co_await tine::join();
  co_return a + b;
}

// ---- fib with a random draw per node ----------------------------------------------------------

// fib(n), each node drawing one number and adding its low bit: the tasks' sum of those bits.
tine::task<long> fib_dprng(int n) {
  tine::dprng rng = co_await tine::dprng::current();
  const long bit = static_cast<long>(rng() & 1);
  if (n < 2) {
    co_return bit;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib_dprng, n - 1);
  co_await tine::call(&b, fib_dprng, n - 2);
  co_await tine::join();
  co_return a + b + bit;
}

tine::task<long> fib_mt(int n) {
  const long bit = static_cast<long>(thread_engine()() & 1);
  if (n < 2) {
    co_return bit;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib_mt, n - 1);
  co_await tine::call(&b, fib_mt, n - 2);
  co_await tine::join();
  co_return a + b + bit;
}

long fib_tasks(int n) { return n < 2 ? 1 : 1 + fib_tasks(n - 1) + fib_tasks(n - 2); }

// ---- the runs ---------------------------------------------------------------------------------

enum class variant { reducer, by_hand, tbb_combinable, tbb_ets, dprng, mt_per_thread };

const char* name_of(variant v) {
  switch (v) {
    case variant::reducer:
      return "tine_reducer";
    case variant::by_hand:
      return "tine_by_hand";
    case variant::tbb_combinable:
      return "tbb_combinable";
    case variant::tbb_ets:
      return "tbb_ets";
    case variant::dprng:
      return "tine_dprng";
    case variant::mt_per_thread:
      return "tine_mt19937_per_thread";
  }
  return "?";
}

hist run_histogram(variant v, std::size_t workers, tine::busy_pool<>* pool) {
  switch (v) {
    case variant::reducer: {
      tine::reducer<hist_sum> r;
      tine::sync_wait(*pool, histogram_reducer, std::int64_t{0}, histogram_samples, &r);
      return r.get();
    }
    case variant::by_hand: {
      hist h{};
      tine::sync_wait(*pool, histogram_by_hand, std::int64_t{0}, histogram_samples, &h);
      return h;
    }
    case variant::tbb_combinable: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::combinable<hist> local([] { return hist{}; });
      histogram_tbb_body(local);
      return local.combine([](hist a, const hist& b) {
        for (std::size_t i = 0; i < a.size(); ++i) {
          a[i] += b[i];
        }
        return a;
      });
    }
    case variant::tbb_ets: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::enumerable_thread_specific<hist> local(hist{});
      histogram_tbb_body(local);
      hist h{};
      for (const hist& part : local) {
        for (std::size_t i = 0; i < h.size(); ++i) {
          h[i] += part[i];
        }
      }
      return h;
    }
    default:
      return {};
  }
}

uts::result run_uts(variant v, std::size_t workers, tine::busy_pool<>* pool) {
  const uts::params& p = uts::tree(uts_tree);
  const uts::node root = uts::root(p);
  switch (v) {
    case variant::reducer: {
      tine::reducer<result_sum> r;
      tine::sync_wait(*pool, uts_reducer, &p, &root, &r);
      return r.get();
    }
    case variant::by_hand:
      return tine::sync_wait(*pool, uts_by_hand, &p, &root);
    case variant::tbb_combinable: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::combinable<uts::result> local;
      uts_tbb(p, root, local);
      return local.combine([](uts::result a, const uts::result& b) { return a += b; });
    }
    case variant::tbb_ets: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::enumerable_thread_specific<uts::result> local;
      uts_tbb(p, root, local);
      uts::result r;
      for (const uts::result& part : local) {
        r += part;
      }
      return r;
    }
    default:
      return {};
  }
}

long run_pi(variant v, tine::busy_pool<>* pool) {
  return v == variant::dprng ? tine::sync_wait(*pool, tine::dprng::seeded(42, pi_dprng), pi_samples)
                             : tine::sync_wait(*pool, pi_mt, pi_samples);
}

long run_fib(variant v, tine::busy_pool<>* pool) {
  return v == variant::dprng ? tine::sync_wait(*pool, tine::dprng::seeded(42, fib_dprng), fib_n)
                             : tine::sync_wait(*pool, fib_mt, fib_n);
}

// Every run is checked: the histogram and UTS against the serial result, pi to within the
// sampling error, fib's bit sum to within 6 standard deviations of half the tasks.
bool pi_plausible(long in) {
  const double n = static_cast<double>(pi_samples);
  const double p = 3.14159265358979 / 4;
  return std::abs(static_cast<double>(in) - n * p) < 6 * std::sqrt(n * p * (1 - p));
}
bool fib_plausible(long bits) {
  const double n = static_cast<double>(fib_tasks(fib_n));
  return std::abs(static_cast<double>(bits) - n / 2) < 6 * std::sqrt(n / 4);
}

const hist& histogram_reference() {
  static hist h = histogram_serial();
  return h;
}
const uts::result& uts_reference() {
  static uts::result r = [] {
    const uts::params& p = uts::tree(uts_tree);
    return uts_serial(p, uts::root(p));
  }();
  return r;
}

void bm_histogram(benchmark::State& state, variant v, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  const hist& want = histogram_reference();
  for (auto _ : state) {
    if (run_histogram(v, workers, &pool) != want) {
      state.SkipWithError("wrong histogram");
      break;
    }
  }
  state.counters["ns_per_sample"] = benchmark::Counter(
      static_cast<double>(histogram_samples) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_uts(benchmark::State& state, variant v, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  const uts::result& want = uts_reference();
  for (auto _ : state) {
    if (!(run_uts(v, workers, &pool) == want)) {
      state.SkipWithError("wrong UTS sum");
      break;
    }
  }
  state.counters["ns_per_node"] =
      benchmark::Counter(static_cast<double>(want.nodes) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_pi(benchmark::State& state, variant v, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  for (auto _ : state) {
    if (!pi_plausible(run_pi(v, &pool))) {
      state.SkipWithError("implausible pi");
      break;
    }
  }
  state.counters["ns_per_point"] =
      benchmark::Counter(static_cast<double>(pi_samples) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_fib(benchmark::State& state, variant v, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  for (auto _ : state) {
    if (!fib_plausible(run_fib(v, &pool))) {
      state.SkipWithError("implausible bit sum");
      break;
    }
  }
  state.counters["ns_per_task"] = benchmark::Counter(
      static_cast<double>(fib_tasks(fib_n)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

constexpr variant reducer_variants[] = {variant::reducer, variant::by_hand, variant::tbb_combinable,
                                        variant::tbb_ets};
constexpr variant dprng_variants[] = {variant::dprng, variant::mt_per_thread};

int smoke() {
  histogram_samples = 100'003;
  uts_tree = "T3small";
  pi_samples = 100'003;
  fib_n = 16;
  int failures = 0;
  auto report = [&failures](const char* what, variant v, std::size_t workers, bool ok) {
    failures += ok ? 0 : 1;
    std::printf("%-9s %-24s P=%zu %s\n", what, name_of(v), workers, ok ? "ok" : "WRONG");
  };
  long pi_first = -1;
  long fib_first = -1;
  for (std::size_t workers : {1U, 2U}) {
    tine::busy_pool<> pool(workers);
    for (variant v : reducer_variants) {
      report("histogram", v, workers, run_histogram(v, workers, &pool) == histogram_reference());
      report("uts", v, workers, run_uts(v, workers, &pool) == uts_reference());
    }
    for (variant v : dprng_variants) {
      const long pi = run_pi(v, &pool);
      const long fib = run_fib(v, &pool);
      bool same = true;
      if (v == variant::dprng) {  // deterministic: the same count at every worker count
        same = (pi_first < 0 || pi == pi_first) && (fib_first < 0 || fib == fib_first);
        pi_first = pi;
        fib_first = fib;
      }
      report("pi", v, workers, pi_plausible(pi) && same);
      report("fib", v, workers, fib_plausible(fib) && same);
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--smoke") == 0) {
    return smoke();
  }
  for (std::size_t workers : {1U, 2U}) {
    const std::string suffix = "/workers:" + std::to_string(workers);
    for (variant v : reducer_variants) {
      benchmark::RegisterBenchmark((std::string("histogram/1e8/") + name_of(v) + suffix).c_str(),
                                   bm_histogram, v, workers)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark((std::string("uts_sum/T3/") + name_of(v) + suffix).c_str(),
                                   bm_uts, v, workers)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (variant v : dprng_variants) {
      benchmark::RegisterBenchmark((std::string("pi/1e8/") + name_of(v) + suffix).c_str(), bm_pi, v,
                                   workers)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark((std::string("fib_draw/32/") + name_of(v) + suffix).c_str(),
                                   bm_fib, v, workers)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
