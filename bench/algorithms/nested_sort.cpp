// Nested parallelism: a parallel for over rows whose body sorts its row in parallel. tine's
// `tine::for_each` with a body that is a task running `tine::async::sort`, against TBB's nested
// `tbb::parallel_for` + `tbb::parallel_sort`, and a serial `std::sort` per row, at 1 and 2
// workers (TBB limited by `tbb::global_control`), in one process. Three shapes of the same 2^22
// doubles: many small rows, some mid-sized ones, a few large ones. Every run checks that each
// row is sorted and equals the serial sort's.
//   bazel-bin/bench/nested_sort --benchmark_repetitions=5 --benchmark_display_aggregates_only=true
//   bazel-bin/bench/nested_sort --smoke     (CI: small rows, both libraries checked, no timing)
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <tine/algorithms/for_each.hpp>
#include <tine/algorithms/sort.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>

namespace {

using row = std::vector<double>;

struct shape {
  const char* name;
  std::size_t rows;
  std::size_t cells;
};

// 2^22 doubles (32 MiB) in each shape.
constexpr shape shapes[] = {
    {"4096x1024", 4096, 1024}, {"256x16384", 256, 16384}, {"16x262144", 16, 262144}};

std::vector<row> make_rows(const shape& s) {
  std::vector<row> rows(s.rows, row(s.cells));
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (row& r : rows) {
    for (double& x : r) {
      x = uniform(rng);
    }
  }
  return rows;
}

enum class lib { tine, tbb, serial };
constexpr lib libs[] = {lib::tine, lib::tbb, lib::serial};

const char* name_of(lib l) {
  switch (l) {
    case lib::tine:
      return "tine_busy";
    case lib::tbb:
      return "tbb";
    case lib::serial:
      return "serial";
  }
  return "";
}

void sort_rows(lib l, std::size_t workers, tine::busy_pool<>* pool, std::vector<row>& rows) {
  switch (l) {
    case lib::tine:
      // As an application writes it: each row's body is a task that sorts the row in parallel.
      tine::for_each(*pool, rows,
                     [](row& r) -> tine::task<void> { co_await tine::call(tine::async::sort, r); });
      return;
    case lib::tbb: {
      tbb::global_control c(tbb::global_control::max_allowed_parallelism, workers);
      tbb::parallel_for(std::size_t{0}, rows.size(), [&rows](std::size_t i) {
        tbb::parallel_sort(rows[i].begin(), rows[i].end());
      });
      return;
    }
    case lib::serial:
      for (row& r : rows) {
        std::sort(r.begin(), r.end());
      }
      return;
  }
}

void bm_nested(benchmark::State& state, lib l, shape s, std::size_t workers) {
  tine::busy_pool<> pool(workers);
  const std::vector<row> source = make_rows(s);
  std::vector<row> expected = source;
  for (row& r : expected) {
    std::sort(r.begin(), r.end());
  }
  std::vector<row> rows = source;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::copy(source[i].begin(), source[i].end(), rows[i].begin());
    }
    state.ResumeTiming();
    sort_rows(l, workers, &pool, rows);
  }
  if (rows != expected) {
    state.SkipWithError("wrong result");
  }
}

int smoke() {
  int failures = 0;
  const shape small = {"64x1000", 64, 1000};
  const std::vector<row> source = make_rows(small);
  std::vector<row> expected = source;
  for (row& r : expected) {
    std::sort(r.begin(), r.end());
  }
  for (std::size_t workers : {1U, 2U}) {
    tine::busy_pool<> pool(workers);
    for (lib l : libs) {
      std::vector<row> rows = source;
      sort_rows(l, workers, &pool, rows);
      const bool ok = rows == expected;
      failures += ok ? 0 : 1;
      std::printf("%-10s P=%zu %s\n", name_of(l), workers, ok ? "ok" : "WRONG");
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--smoke") == 0) {
    return smoke();
  }
  for (const shape& s : shapes) {
    for (std::size_t workers : {1U, 2U}) {
      for (lib l : libs) {
        if (l == lib::serial && workers != 1) {
          continue;
        }
        const std::string name = std::string("nested_sort/") + s.name + "/" + name_of(l) +
                                 "/workers:" + std::to_string(workers);
        benchmark::RegisterBenchmark(name.c_str(), bm_nested, l, s, workers)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
