#ifndef TINE_BENCH_HARNESS_HPP
#define TINE_BENCH_HARNESS_HPP

/// \file harness.hpp
/// Shared driver of tine's benchmark binaries. A workload is a struct W with
///
///   static constexpr const char* name;          // "fib"
///   using input = ...; using result = ...;
///   static input parse(std::string_view);        // a size/tree name from the command line
///   static std::string show(const input&);       // its name in benchmark names
///   static std::vector<input> bench_inputs();    // what the Google Benchmark mode runs
///   static std::vector<input> full_inputs();     // extra inputs only for --full (may be empty)
///   static input smoke_input();                  // tiny input for the CI smoke mode
///   static result serial(const input&);          // the serial projection
///   template <class S> static result tine(S&, const input&);  // sync_wait on a tine scheduler
///   static result tbb(const input&);             // under tbb::global_control
///   static result omp(const input&);             // inside `omp parallel` + `omp single`
///   static std::uint64_t tasks(const input&);    // tasks (recursive invocations) per run
///   static std::string check(const input&, const result& got, const result& serial);
///                                                // "" if right, else what is wrong
///   static constexpr bool plain_checks_against_serial = true;   // optional: see plain_main
///
/// and its source ends with TINE_BENCH_MAIN(W). Each binary has five modes:
///   (default)           Google Benchmark: every library x worker count x input, side by side;
///   --plain --lib=L --workers=P --input=X [--reps=R]
///                       one library, one run (for /usr/bin/time -v), prints a result line;
///   --analyze --input=X [--repeats=R] [--workers=P] [--json=F] [--table]
///                       tine's task under tine::analyze (R runs, each strand's shortest time;
///                       algorithms sized for P workers), prints its work, span, parallelism and
///                       predicted speed-ups on one line, the analyzer's table with --table, and
///                       writes its JSON to F;
///   --smoke=tine|peers  tiny input, every library of the group once, results cross-checked;
///   --list              prints the libraries this binary has.

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include <tine/analysis/analyze.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

// The pools: tine's busy_pool/lazy_pool once they exist, else the test pool (simple_pool). This is
// the one place to change; BENCH_POOLS names what was used so results files record it.
#if __has_include(<tine/schedulers/busy_pool.hpp>) && \
    __has_include(<tine/schedulers/lazy_pool.hpp>) && \
    !defined(TINE_BENCH_FORCE_SIMPLE_POOL)
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>
namespace bench {
using busy_pool = tine::busy_pool<>;
using lazy_pool = tine::lazy_pool<>;
inline constexpr const char* pools_used = "tine::busy_pool<>, tine::lazy_pool<>";
}  // namespace bench
#else
#include <tine/testing/simple_pool.hpp>
namespace bench {
using busy_pool = tine::testing::simple_pool;
using lazy_pool = tine::testing::simple_pool;
inline constexpr const char* pools_used =
    "tine::testing::simple_pool (stand-in: busy/lazy pools not yet in schedulers/)";
}  // namespace bench
#endif

namespace bench {

/// Which OpenMP runtime this binary is linked with: one object file serves both binaries of a
/// workload (gomp and libomp), so ask the dynamic linker. Only LLVM's libomp has the __kmpc ABI.
inline const char* omp_runtime() {
  static const char* name = dlsym(RTLD_DEFAULT, "__kmpc_fork_call") != nullptr ? "libomp" : "gomp";
  return name;
}

/// A library/scheduler a workload runs on.
enum class lib { serial, tine_inline, tine_busy, tine_lazy, tbb, omp };

inline const char* lib_name(lib l) {
  switch (l) {
    case lib::serial:
      return "serial";
    case lib::tine_inline:
      return "tine_inline";
    case lib::tine_busy:
      return "tine_busy";
    case lib::tine_lazy:
      return "tine_lazy";
    case lib::tbb:
      return "tbb";
    case lib::omp:
      return omp_runtime();  // "gomp" or "libomp"
  }
  return "?";
}

inline std::optional<lib> lib_from_name(std::string_view s) {
  for (lib l :
       {lib::serial, lib::tine_inline, lib::tine_busy, lib::tine_lazy, lib::tbb, lib::omp}) {
    if (s == lib_name(l) || (l == lib::omp && (s == "omp" || s == "gomp" || s == "libomp"))) {
      return l;
    }
  }
  return std::nullopt;
}

/// A (library, workers) pair; serial and tine_inline have exactly one worker.
struct config {
  lib l;
  int workers;
};

inline int max_workers() {
  if (const char* e = std::getenv("TINE_BENCH_MAX_WORKERS")) {
    return std::max(1, std::atoi(e));
  }
  return 2;
}

inline std::vector<config> all_configs() {
  std::vector<config> out{{lib::serial, 1}, {lib::tine_inline, 1}};
  for (lib l : {lib::tine_busy, lib::tine_lazy, lib::tbb, lib::omp}) {
    for (int p = 1; p <= max_workers(); p *= 2) {
      out.push_back({l, p});
    }
  }
  return out;
}

/// Runs `run(w)` with whatever a library needs set up around it, `reps` times (setup once).
/// `each(result, seconds)` sees every repetition.
template <class W, class Each>
void with_library(config c, const typename W::input& in, int reps, Each&& each) {
  using clock = std::chrono::steady_clock;
  auto timed = [&](auto&& fn) {
    for (int r = 0; r < reps; ++r) {
      auto t0 = clock::now();
      auto res = fn();
      std::chrono::duration<double> d = clock::now() - t0;
      each(res, d.count());
    }
  };
  switch (c.l) {
    case lib::serial:
      timed([&] { return W::serial(in); });
      return;
    case lib::tine_inline: {
      tine::inline_scheduler s;
      timed([&] { return W::tine(s, in); });
      return;
    }
    case lib::tine_busy: {
      busy_pool s(static_cast<std::size_t>(c.workers));
      timed([&] { return W::tine(s, in); });
      return;
    }
    case lib::tine_lazy: {
      lazy_pool s(static_cast<std::size_t>(c.workers));
      timed([&] { return W::tine(s, in); });
      return;
    }
    case lib::tbb: {
      tbb::global_control gc(tbb::global_control::max_allowed_parallelism,
                             static_cast<std::size_t>(c.workers));
      timed([&] { return W::tbb(in); });
      return;
    }
    case lib::omp: {
      timed([&] {
        typename W::result r{};
#pragma omp parallel num_threads(c.workers) default(shared)
#pragma omp single
        r = W::omp(in);
        return r;
      });
      return;
    }
  }
}

template <class W>
const typename W::result& serial_reference(const typename W::input& in) {
  // One serial run per input, computed before timing starts.
  static std::vector<std::pair<std::string, typename W::result>> cache;
  std::string key = W::show(in);
  for (auto& [k, v] : cache) {
    if (k == key) {
      return v;
    }
  }
  cache.emplace_back(key, W::serial(in));
  return cache.back().second;
}

template <class W>
void register_benchmarks(const typename W::input& in) {
  const std::uint64_t tasks = W::tasks(in);
  for (config c : all_configs()) {
    if constexpr (requires { W::peers(in); }) {
      // Inputs that only tine has a variant of (UTS '*'): serial, TBB and OpenMP would repeat the
      // rows of the plain input.
      bool is_peer = c.l == lib::serial || c.l == lib::tbb || c.l == lib::omp;
      if (is_peer && !W::peers(in)) {
        continue;
      }
    }
    std::string name = std::string(W::name) + "/" + W::show(in) + "/" + lib_name(c.l) +
                       "/workers:" + std::to_string(c.workers);
    auto warmed = std::make_shared<bool>(false);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [c, in, tasks, warmed](benchmark::State& state) {
          const auto& ref = serial_reference<W>(in);
          std::string err;
          if (!*warmed) {
            // Once per benchmark, not per repetition: first-touch page faults, thread start-up.
            with_library<W>(c, in, 1, [&](const auto&, double) {});
            *warmed = true;
          }
          for (auto _ : state) {
            with_library<W>(c, in, 1, [&](const auto& r, double) {
              if (err.empty()) {
                err = W::check(in, r, ref);
              }
            });
          }
          if (!err.empty()) {
            state.SkipWithError(err.c_str());
            return;
          }
          state.counters["workers"] = c.workers;
          state.counters["tasks"] = static_cast<double>(tasks);
          // ns per task: wall time / (tasks x iterations), in ns.
          state.counters["ns_per_task"] = benchmark::Counter(
              static_cast<double>(tasks) * 1e-9,
              benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

inline std::string arg_value(int argc, char** argv, std::string_view key, std::string def = "") {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.size() > key.size() + 2 && a.substr(0, 2) == "--" && a.substr(2, key.size()) == key &&
        a[key.size() + 2] == '=') {
      return std::string(a.substr(key.size() + 3));
    }
  }
  return def;
}

inline bool has_flag(int argc, char** argv, std::string_view key) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.substr(0, 2) == "--" && a.substr(2, key.size()) == key &&
        (a.size() == key.size() + 2 || a[key.size() + 2] == '=')) {
      return true;
    }
  }
  return false;
}

template <class W>
int plain_main(int argc, char** argv) {
  auto l = lib_from_name(arg_value(argc, argv, "lib", "tine_busy"));
  if (!l) {
    std::fprintf(stderr, "unknown --lib (serial, tine_inline, tine_busy, tine_lazy, tbb, omp)\n");
    return 2;
  }
  int workers = std::atoi(arg_value(argc, argv, "workers", "1").c_str());
  int reps = std::atoi(arg_value(argc, argv, "reps", "1").c_str());
  auto in = W::parse(arg_value(argc, argv, "input", W::show(W::smoke_input())));
  // A workload whose only check is against the serial result (a digest of a grid, an image)
  // says so, and its serial run is made first, untimed; the others check themselves against
  // what they know (reference counts, a closed form, invariants) without one.
  std::optional<typename W::result> reference;
  if constexpr (requires { W::plain_checks_against_serial; }) {
    reference = W::serial(in);
  }
  int status = 0;
  with_library<W>({*l, workers}, in, reps, [&](const auto& r, double secs) {
    std::string err = W::check(in, r, reference ? *reference : r);
    std::printf("%s input=%s lib=%s workers=%d seconds=%.6f ns_per_task=%.3f %s\n", W::name,
                W::show(in).c_str(), lib_name(*l), workers, secs,
                secs * 1e9 / static_cast<double>(W::tasks(in)), err.empty() ? "ok" : err.c_str());
    if (!err.empty()) {
      status = 1;
    }
  });
  return status;
}

template <class W>
int analyze_main(int argc, char** argv) {
  auto in = W::parse(arg_value(argc, argv, "input", W::show(W::smoke_input())));
  tine::analysis_options o;
  o.name = std::string(W::name) + " " + W::show(in);
  o.repeats = std::max(1, std::atoi(arg_value(argc, argv, "repeats", "1").c_str()));
  o.workers = static_cast<std::size_t>(std::atoi(arg_value(argc, argv, "workers", "0").c_str()));
  tine::analyzer an(o);
  std::string err;
  double fastest = 0;  // the fastest analysed run's wall time: the analyzer's own cost shows here
  for (int r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto res = W::tine(an, in);
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    fastest = r == 0 ? d.count() : std::min(fastest, d.count());
    if (err.empty()) {
      err = W::check(in, res, res);  // self-check only, as in --plain
    }
  }
  const tine::analysis a = an.result();
  std::printf(
      "%s input=%s analysis work_s=%.6f span_s=%.9f burdened_span_s=%.9f parallelism=%.2f "
      "burdened_parallelism=%.2f predicted_2=%.4f predicted_256=%.2f steal_cost_s=%.9f "
      "forks=%llu runs=%d run_seconds=%.6f %s\n",
      W::name, W::show(in).c_str(), a.work(), a.span(), a.burdened_span(), a.parallelism(),
      a.burdened_parallelism(), a.speedup(2), a.speedup(256), a.steal_cost(),
      static_cast<unsigned long long>(a.forks()), a.raw().runs, fastest,
      err.empty() ? "ok" : err.c_str());
  if (has_flag(argc, argv, "table")) {
    a.print(std::cout);
  }
  if (const std::string json = arg_value(argc, argv, "json"); !json.empty()) {
    a.write_json(json);
  }
  return err.empty() ? 0 : 1;
}

template <class W>
int smoke_main(std::string_view group) {
  auto in = W::smoke_input();
  auto ref = W::serial(in);
  int failures = 0;
  for (config c : all_configs()) {
    bool peer = c.l == lib::tbb || c.l == lib::omp;
    if (c.l == lib::serial || (group == "tine") == peer) {
      continue;
    }
    with_library<W>(c, in, 2, [&](const auto& r, double secs) {
      std::string err = W::check(in, r, ref);
      std::printf("smoke %s input=%s lib=%s workers=%d seconds=%.4f %s\n", W::name,
                  W::show(in).c_str(), lib_name(c.l), c.workers, secs,
                  err.empty() ? "ok" : err.c_str());
      failures += !err.empty();
    });
  }
  std::printf("%s\n", failures == 0 ? "smoke: all ok" : "smoke: FAILED");
  return failures == 0 ? 0 : 1;
}

template <class W>
int main(int argc, char** argv) {
  try {
    if (has_flag(argc, argv, "list")) {
      for (config c : all_configs()) {
        std::printf("%s workers=%d\n", lib_name(c.l), c.workers);
      }
      return 0;
    }
    if (has_flag(argc, argv, "plain")) {
      return plain_main<W>(argc, argv);
    }
    if (has_flag(argc, argv, "smoke")) {
      return smoke_main<W>(arg_value(argc, argv, "smoke", "tine"));
    }
    if (has_flag(argc, argv, "analyze")) {
      return analyze_main<W>(argc, argv);
    }
    bool full = has_flag(argc, argv, "full");
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
      if (std::string_view(argv[i]) != "--full") {
        args.push_back(argv[i]);
      }
    }
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    benchmark::AddCustomContext("tine_pools", pools_used);
    benchmark::AddCustomContext("omp_runtime", omp_runtime());
    for (const auto& in : W::bench_inputs()) {
      register_benchmarks<W>(in);
    }
    if (full) {
      for (const auto& in : W::full_inputs()) {
        register_benchmarks<W>(in);
      }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace bench

#define TINE_BENCH_MAIN(W) \
  int main(int argc, char** argv) { return ::bench::main<W>(argc, argv); }

#endif  // TINE_BENCH_HARNESS_HPP
