/// quicksort: a parallel quicksort of n 64-bit keys (the BOTS / Cilk-5 "sort" family's simplest
/// member). A range is partitioned serially around the median of three keys, then its two sides
/// are sorted in parallel; below 2048 keys std::sort takes over. The partition is serial, so the
/// span is at least n comparisons: the program measures how a runtime copes with parallelism that
/// grows only as the recursion deepens. Checked against std::sort. One task = one range.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/suite/harness.hpp"
#include "bench/suite/sort_keys.hpp"

namespace {

using key = bench::sort_key;

constexpr std::size_t cutoff = 2048;

const std::vector<key>& keys(std::size_t n) { return bench::sort_keys(n, 0x853c49e6748fea9bULL); }

/// Partitions [a, a + n) (n >= 2) around the median of its first, middle and last keys; returns
/// the size of the left side, which holds the keys not greater than the pivot and is neither
/// empty nor the whole range (checked exhaustively for n <= 9 over keys 0..3 while writing it;
/// the middle is (n - 1) / 2 so that for n = 2 the pivot is the first key, as Hoare's scheme
/// needs).
std::size_t partition(key* a, std::size_t n) {
  const key x = a[0];
  const key y = a[(n - 1) / 2];
  const key z = a[n - 1];
  const key pivot = std::max(std::min(x, y), std::min(std::max(x, y), z));
  std::size_t i = 0;
  std::size_t j = n - 1;
  for (;;) {  // Hoare's scheme: stops on keys equal to the pivot, so sides stay non-empty
    while (a[i] < pivot) {
      ++i;
    }
    while (a[j] > pivot) {
      --j;
    }
    if (i >= j) {
      return j + 1;
    }
    std::swap(a[i], a[j]);
    ++i;
    --j;
  }
}

void sort_serial(key* a, std::size_t n) {
  if (n <= cutoff) {
    std::sort(a, a + n);
    return;
  }
  const std::size_t left = partition(a, n);
  sort_serial(a, left);
  sort_serial(a + left, n - left);
}

tine::task<void> sort_tine(key* a, std::size_t n) {
  if (n <= cutoff) {
    std::sort(a, a + n);
    co_return;
  }
  const std::size_t left = partition(a, n);
  co_await tine::fork(sort_tine, a, left);
  co_await tine::call(sort_tine, a + left, n - left);
  co_await tine::join();
}

void sort_tbb(key* a, std::size_t n) {
  if (n <= cutoff) {
    std::sort(a, a + n);
    return;
  }
  const std::size_t left = partition(a, n);
  tbb::task_group g;
  g.run([=] { sort_tbb(a, left); });
  sort_tbb(a + left, n - left);
  g.wait();
}

void sort_omp(key* a, std::size_t n) {
  if (n <= cutoff) {
    std::sort(a, a + n);
    return;
  }
  const std::size_t left = partition(a, n);
#pragma omp task default(none) firstprivate(a, left)
  sort_omp(a, left);
  sort_omp(a + left, n - left);
#pragma omp taskwait
}

/// The tasks of a run (the recursion depends on the keys, the same for every runtime).
std::uint64_t count_tasks(key* a, std::size_t n) {
  if (n <= cutoff) {
    std::sort(a, a + n);
    return 1;
  }
  const std::size_t left = partition(a, n);
  return 1 + count_tasks(a, left) + count_tasks(a + left, n - left);
}

template <typename Sort>
std::vector<key> sorted_copy(std::size_t n, Sort&& sort) {
  std::vector<key> a = keys(n);
  sort(a.data(), n);
  return a;
}

struct quicksort_workload {
  static constexpr const char* name = "quicksort";
  using input = std::size_t;  // keys
  using result = std::vector<key>;

  static input parse(std::string_view s) { return std::stoull(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {10'000'000}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 100'003; }

  static result serial(input n) { return sorted_copy(n, sort_serial); }
  template <class S>
  static result tine(S& s, input n) {
    return sorted_copy(n,
                       [&s](key* a, std::size_t size) { tine::sync_wait(s, sort_tine, a, size); });
  }
  static result tbb(input n) { return sorted_copy(n, sort_tbb); }
  static result omp(input n) { return sorted_copy(n, sort_omp); }

  static std::uint64_t tasks(input n) {
    std::vector<key> a = keys(n);
    return count_tasks(a.data(), n);
  }
  static std::string check(input n, const result& got, const result& ref) {
    return bench::check_sorted(keys(n), got, ref);
  }
};

}  // namespace

TINE_BENCH_MAIN(quicksort_workload)
