/// cilksort: the Cilk-5 suite's merge sort of n 64-bit keys. An array is cut in quarters, the
/// quarters are sorted in parallel, the two pairs are merged in parallel into a scratch array,
/// and the two halves merged back; each merge is itself parallel (it splits the larger input at
/// its middle, finds that key's place in the other input by binary search, and merges the two
/// sides in parallel). Below 2048 keys a quarter is sorted by std::sort, below 4096 keys a merge
/// runs serially. Checked against std::sort. One task = one sort or merge call.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"
#include "bench/suite/sort_keys.hpp"

namespace {

using key = bench::sort_key;

constexpr std::size_t sort_cutoff = 2048;
constexpr std::size_t merge_cutoff = 4096;

const std::vector<key>& keys(std::size_t n) { return bench::sort_keys(n, 0x2545f4914f6cdd1dULL); }

/// Where the merge of [a, a + na) and [b, b + nb) splits: the middle of the larger input and the
/// place of its key in the other, so that each side's keys go before the other side's.
struct merge_split {
  std::size_t ia, ib;
};

merge_split split_merge(const key* a, std::size_t na, const key* b, std::size_t nb) {
  if (na >= nb) {
    const std::size_t ia = na / 2;
    return {ia, std::size_t(std::lower_bound(b, b + nb, a[ia]) - b)};
  }
  const std::size_t ib = nb / 2;
  return {std::size_t(std::upper_bound(a, a + na, b[ib]) - a), ib};
}

// ---- serial ----

void merge_serial(const key* a, std::size_t na, const key* b, std::size_t nb, key* out) {
  std::merge(a, a + na, b, b + nb, out);
}

/// Sorts [a, a + n) using [tmp, tmp + n).
void sort_serial(key* a, key* tmp, std::size_t n) {
  if (n <= sort_cutoff) {
    std::sort(a, a + n);
    return;
  }
  const std::size_t q = n / 4;
  key* A = a;
  key* B = a + q;
  key* C = a + 2 * q;
  key* D = a + 3 * q;
  sort_serial(A, tmp, q);
  sort_serial(B, tmp + q, q);
  sort_serial(C, tmp + 2 * q, q);
  sort_serial(D, tmp + 3 * q, n - 3 * q);
  merge_serial(A, q, B, q, tmp);
  merge_serial(C, q, D, n - 3 * q, tmp + 2 * q);
  merge_serial(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

// ---- tine ----

tine::task<void> merge_tine(const key* a, std::size_t na, const key* b, std::size_t nb, key* out) {
  if (na + nb <= merge_cutoff) {
    merge_serial(a, na, b, nb, out);
    co_return;
  }
  const merge_split s = split_merge(a, na, b, nb);
  co_await tine::fork(merge_tine, a, s.ia, b, s.ib, out);
  co_await tine::call(merge_tine, a + s.ia, na - s.ia, b + s.ib, nb - s.ib, out + s.ia + s.ib);
  co_await tine::join();
}

tine::task<void> sort_tine(key* a, key* tmp, std::size_t n) {
  if (n <= sort_cutoff) {
    std::sort(a, a + n);
    co_return;
  }
  const std::size_t q = n / 4;
  co_await tine::fork(sort_tine, a, tmp, q);
  co_await tine::fork(sort_tine, a + q, tmp + q, q);
  co_await tine::fork(sort_tine, a + 2 * q, tmp + 2 * q, q);
  co_await tine::call(sort_tine, a + 3 * q, tmp + 3 * q, n - 3 * q);
  co_await tine::join();
  co_await tine::fork(merge_tine, a, q, a + q, q, tmp);
  co_await tine::call(merge_tine, a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
  co_await tine::join();
  co_await tine::call(merge_tine, tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

// ---- TBB ----

void merge_tbb(const key* a, std::size_t na, const key* b, std::size_t nb, key* out) {
  if (na + nb <= merge_cutoff) {
    merge_serial(a, na, b, nb, out);
    return;
  }
  const merge_split s = split_merge(a, na, b, nb);
  tbb::task_group g;
  g.run([=] { merge_tbb(a, s.ia, b, s.ib, out); });
  merge_tbb(a + s.ia, na - s.ia, b + s.ib, nb - s.ib, out + s.ia + s.ib);
  g.wait();
}

void sort_tbb(key* a, key* tmp, std::size_t n) {
  if (n <= sort_cutoff) {
    std::sort(a, a + n);
    return;
  }
  const std::size_t q = n / 4;
  tbb::task_group g;
  g.run([=] { sort_tbb(a, tmp, q); });
  g.run([=] { sort_tbb(a + q, tmp + q, q); });
  g.run([=] { sort_tbb(a + 2 * q, tmp + 2 * q, q); });
  sort_tbb(a + 3 * q, tmp + 3 * q, n - 3 * q);
  g.wait();
  g.run([=] { merge_tbb(a, q, a + q, q, tmp); });
  merge_tbb(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
  g.wait();
  merge_tbb(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

// ---- OpenMP ----

void merge_omp(const key* a, std::size_t na, const key* b, std::size_t nb, key* out) {
  if (na + nb <= merge_cutoff) {
    merge_serial(a, na, b, nb, out);
    return;
  }
  const merge_split s = split_merge(a, na, b, nb);
#pragma omp task default(none) firstprivate(a, b, out, s)
  merge_omp(a, s.ia, b, s.ib, out);
  merge_omp(a + s.ia, na - s.ia, b + s.ib, nb - s.ib, out + s.ia + s.ib);
#pragma omp taskwait
}

void sort_omp(key* a, key* tmp, std::size_t n) {
  if (n <= sort_cutoff) {
    std::sort(a, a + n);
    return;
  }
  const std::size_t q = n / 4;
#pragma omp task default(none) firstprivate(a, tmp, q)
  sort_omp(a, tmp, q);
#pragma omp task default(none) firstprivate(a, tmp, q)
  sort_omp(a + q, tmp + q, q);
#pragma omp task default(none) firstprivate(a, tmp, q)
  sort_omp(a + 2 * q, tmp + 2 * q, q);
  sort_omp(a + 3 * q, tmp + 3 * q, n - 3 * q);
#pragma omp taskwait
#pragma omp task default(none) firstprivate(a, tmp, q)
  merge_omp(a, q, a + q, q, tmp);
  merge_omp(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
#pragma omp taskwait
  merge_omp(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

// ---- counts ----

std::uint64_t merge_tasks(std::size_t na, std::size_t nb) {
  if (na + nb <= merge_cutoff) {
    return 1;
  }
  // The split depends on the keys; count it as halving both (an estimate of the shape).
  return 1 + 2 * merge_tasks(na / 2, nb / 2);
}

std::uint64_t sort_tasks(std::size_t n) {
  if (n <= sort_cutoff) {
    return 1;
  }
  const std::size_t q = n / 4;
  return 1 + 3 * sort_tasks(q) + sort_tasks(n - 3 * q) + 2 * merge_tasks(q, q) +
         merge_tasks(2 * q, n - 2 * q);
}

template <typename Sort>
std::vector<key> sorted_copy(std::size_t n, Sort&& sort) {
  std::vector<key> a = keys(n);
  std::vector<key> tmp(n);
  sort(a.data(), tmp.data(), n);
  return a;
}

struct cilksort_workload {
  static constexpr const char* name = "cilksort";
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
    return sorted_copy(n, [&s](key* a, key* tmp, std::size_t size) {
      tine::sync_wait(s, sort_tine, a, tmp, size);
    });
  }
  static result tbb(input n) { return sorted_copy(n, sort_tbb); }
  static result omp(input n) { return sorted_copy(n, sort_omp); }

  /// An estimate: a merge's split depends on the keys.
  static std::uint64_t tasks(input n) { return sort_tasks(n); }
  static std::string check(input n, const result& got, const result& ref) {
    return bench::check_sorted(keys(n), got, ref);
  }
};

}  // namespace

TINE_BENCH_MAIN(cilksort_workload)
