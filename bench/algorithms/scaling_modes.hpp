#ifndef TINE_BENCH_SCALING_MODES_HPP
#define TINE_BENCH_SCALING_MODES_HPP

/// \file scaling_modes.hpp
/// The --plain and --analyze modes of the benchmark programs that do not use harness.hpp
/// (algorithms_bench.cpp, sort_bench.cpp), with the harness's output lines, for
/// bench/scripts/scaling_check.py:
///   --plain --what=W --pool=busy|lazy --workers=P [--reps=R]   timed runs of tine's W
///   --analyze [--what=W] [--repeats=R] [--workers=P]            tine::analyze of W (P: 2)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tine/analysis/analyze.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

namespace bench::scaling {

inline bool has(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], flag) == 0) {
      return true;
    }
  }
  return false;
}

inline std::string value(int argc, char** argv, const std::string& key, std::string def) {
  const std::string prefix = "--" + key + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return argv[i] + prefix.size();
    }
  }
  return def;
}

/// `run(scheduler, what)` runs tine's `what` once and returns whether its result was right.
template <typename Run>
int main(int argc, char** argv, const std::vector<std::string>& workloads, Run run) {
  const int reps = std::max(1, std::atoi(value(argc, argv, "reps", "1").c_str()));
  if (has(argc, argv, "--plain")) {
    const std::string what = value(argc, argv, "what", workloads.front());
    const std::string pool = value(argc, argv, "pool", "busy");
    const auto workers =
        static_cast<std::size_t>(std::atoi(value(argc, argv, "workers", "1").c_str()));
    auto timed = [&](auto& s) {
      bool ok = run(s, what);  // warm: first touches, threads started
      for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        ok = run(s, what) && ok;
        const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
        std::printf("%s lib=tine_%s workers=%zu seconds=%.6f %s\n", what.c_str(), pool.c_str(),
                    workers, d.count(), ok ? "ok" : "WRONG");
      }
      return ok ? 0 : 1;
    };
    if (pool == "lazy") {
      tine::lazy_pool<> s(workers);
      return timed(s);
    }
    tine::busy_pool<> s(workers);
    return timed(s);
  }
  const int repeats = std::max(1, std::atoi(value(argc, argv, "repeats", "3").c_str()));
  int status = 0;
  for (const std::string& what : workloads) {
    if (const std::string only = value(argc, argv, "what", ""); !only.empty() && only != what) {
      continue;
    }
    tine::analysis_options o;
    o.name = what;
    o.repeats = repeats;
    o.workers = static_cast<std::size_t>(std::atoi(value(argc, argv, "workers", "2").c_str()));
    tine::analyzer an(o);
    bool ok = true;
    double fastest = 0;  // the fastest analysed run's wall time
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      ok = run(an, what) && ok;
      const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
      fastest = r == 0 ? d.count() : std::min(fastest, d.count());
    }
    const tine::analysis a = an.result();
    std::printf(
        "%s input=- analysis work_s=%.6f span_s=%.9f burdened_span_s=%.9f parallelism=%.2f "
        "burdened_parallelism=%.2f predicted_2=%.4f predicted_256=%.2f steal_cost_s=%.9f "
        "forks=%llu runs=%d run_seconds=%.6f %s\n",
        what.c_str(), a.work(), a.span(), a.burdened_span(), a.parallelism(),
        a.burdened_parallelism(), a.speedup(2), a.speedup(256), a.steal_cost(),
        static_cast<unsigned long long>(a.forks()), a.raw().runs, fastest, ok ? "ok" : "WRONG");
    status |= ok ? 0 : 1;
  }
  return status;
}

}  // namespace bench::scaling

#endif  // TINE_BENCH_SCALING_MODES_HPP
