// tine::sort and tine::stable_sort over global spans on an mpi_pool, against std::sort and
// std::stable_sort on a std::vector holding the same values (every rank computes that reference
// itself):
// - random, sorted, reversed (strictly: reversed in place) and all-equal inputs of 0, 1, 2, 7,
//   1009 and 10^5 elements (10^6 once), as an odd subspan (the elements around it untouched),
//   with automatic leaves and leaves of 2, 3 and 64 (many merges, cut at the ranks' block
//   boundaries); on 3 and 4 ranks ("quick") random inputs of 1009 and 10^5, and of 0, 1, 9 and
//   13 with leaves of 2 in the task form (one collective call sorts them both ways);
// - stability: records with few distinct keys, sorted by key, keep their original order (also
//   when the keys come in descending order with ties, which is not reversed wholesale), on 5,000,
//   10^5 and 10^6 records (on 3 and 4 ranks 1009 and 3001);
// - input in order or strictly reversed found so by one read (comparisons counted);
// - a comparison with a projection, and std::greater;
// - the task form with a scratch span, inside a task; a scratch span too short, or in the
//   input's own vector (std::invalid_argument on every rank); an exception from the comparison
//   reaching every rank.
// Vectors are compared by a digest of their bytes computed by one task that checks out the whole
// span (its root runs on rank 0 and never forks, so no rank's copy goes stale).
#include <tine/distributed/distributed.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/distributed/global_digest.hpp"
#include "tests/distributed/mpi_check.hpp"

namespace {

using tine::mpi::global_span;
using tine::mpi::global_vector;

struct record {
  std::int32_t key;
  std::int32_t order;  // the record's original position
};
struct by_key {
  bool operator()(const record& a, const record& b) const { return a.key < b.key; }
};
struct key_of {
  std::int32_t operator()(const record& r) const { return r.key; }
};

enum class shape { random, sorted, reversed, equal };

double value_at(shape s, std::uint64_t i, std::uint64_t n) {
  switch (s) {
    case shape::sorted:
      return static_cast<double>(i);
    case shape::reversed:
      return static_cast<double>(n - i);
    case shape::equal:
      return 7.0;
    case shape::random:
      break;
  }
  std::uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  return static_cast<double>(x % 100'000) / 7.0;  // repeats in large inputs
}

using tine_test::digest;
using tine_test::digest_of;

template <typename T>
tine::task<void> write_all(global_span<T> s, std::vector<T> values) {
  auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
  std::copy(values.begin(), values.end(), out.begin());
}

// The task form, inside a task: sorts with a scratch span the caller made.
// [docs:global-sort-task]
tine::task<void> sort_in_task(global_span<double> s, global_span<double> scratch) {
  co_await tine::call(tine::async::sort, s, scratch);
  co_await tine::join();
}
// [docs:global-sort-task end]

// The quick runs' small sizes, in the task form with a scratch span: written, sorted ascending
// and descending, each read back, by one collective call. The digests of the two orders.
struct two_digests {
  std::uint64_t ascending = 0;
  std::uint64_t descending = 0;
};

tine::task<two_digests> sort_both_ways(global_span<double> s, global_span<double> scratch,
                                       std::vector<double> values) {
  two_digests d;
  co_await tine::call(write_all<double>, s, std::move(values));
  co_await tine::call(tine::async::sort, s, scratch, tine::grain{2});
  co_await tine::call(&d.ascending, digest_of<double>, global_span<const double>(s));
  co_await tine::call(tine::async::sort, s, scratch, std::greater<>{}, tine::grain{2});
  co_await tine::call(&d.descending, digest_of<double>, global_span<const double>(s));
  co_return d;
}

template <typename Pool>
void check_small(Pool& pool, std::uint64_t n) {
  global_vector<double> v(pool, n);
  global_vector<double> scratch(pool, n);
  std::vector<double> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = value_at(shape::random, i, n);
  }
  const two_digests d = tine::sync_wait(pool, sort_both_ways, v.span(), scratch.span(), ref);
  std::sort(ref.begin(), ref.end());
  CHECK(d.ascending == digest(ref));
  std::sort(ref.begin(), ref.end(), std::greater<>{});
  CHECK(d.descending == digest(ref));
}

struct throwing_less {
  bool operator()(double a, double b) const {
    if (a == 13.0 || b == 13.0) {
      throw std::runtime_error("a bad element");
    }
    return a < b;
  }
};

template <typename Pool>
void check_doubles(Pool& pool, std::uint64_t n, shape sh, tine::grain g) {
  global_vector<double> v(pool, n + 3);
  const global_span<double> s = v.span().subspan(1, n);  // odd offset; 1 before, 2 after
  std::vector<double> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = value_at(sh, i, n);
  }
  std::vector<double> whole(n + 3, -1.0);
  std::copy(ref.begin(), ref.end(), whole.begin() + 1);
  tine::sync_wait(pool, write_all<double>, v.span(), whole);

  tine::sort(pool, s, g);
  std::sort(ref.begin(), ref.end());
  std::copy(ref.begin(), ref.end(), whole.begin() + 1);
  CHECK(tine::sync_wait(pool, digest_of<double>, global_span<const double>(v.span())) ==
        digest(whole));

  tine::sort(pool, s, std::greater<>{}, g);
  std::sort(ref.begin(), ref.end(), std::greater<>{});
  std::copy(ref.begin(), ref.end(), whole.begin() + 1);
  CHECK(tine::sync_wait(pool, digest_of<double>, global_span<const double>(v.span())) ==
        digest(whole));
}

// Comparisons made in this process (relaxed: read between collective calls).
std::atomic<std::uint64_t> comparisons{0};

struct counting_less {
  bool operator()(double a, double b) const {
    comparisons.fetch_add(1, std::memory_order_relaxed);
    return a < b;
  }
};

// An input in order, or in strictly reverse order, is found so by one read (about a comparison
// per element, and a chunk more per leaf) and left alone or reversed, not merge sorted (n log n
// comparisons).
template <typename Pool>
void check_found_in_order(Pool& pool, std::uint64_t n) {
  global_vector<double> v(pool, n);
  for (const shape sh : {shape::sorted, shape::reversed}) {
    std::vector<double> ref(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      ref[i] = value_at(sh, i, n);
    }
    tine::sync_wait(pool, write_all<double>, v.span(), ref);
    const std::uint64_t before = comparisons.load(std::memory_order_relaxed);
    tine::sort(pool, v, counting_less{});
    const std::uint64_t made =
        tine_test::sum_over_ranks(comparisons.load(std::memory_order_relaxed) - before);
    CHECK(made <= 3 * n);
    std::sort(ref.begin(), ref.end());
    CHECK(tine::sync_wait(pool, digest_of<double>, global_span<const double>(v.span())) ==
          digest(ref));
  }
}

template <typename Pool>
void check_stable(Pool& pool, std::uint64_t n, tine::grain g) {
  global_vector<record> v(pool, n);
  std::vector<record> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = {static_cast<std::int32_t>(value_at(shape::random, i, n)) % 5,
              static_cast<std::int32_t>(i)};
  }
  tine::sync_wait(pool, write_all<record>, v.span(), ref);
  tine::stable_sort(pool, v, by_key{}, g);
  std::stable_sort(ref.begin(), ref.end(), by_key{});
  CHECK(tine::sync_wait(pool, digest_of<record>, global_span<const record>(v.span())) ==
        digest(ref));
  // By a projection, descending: equal keys still keep their order.
  tine::stable_sort(pool, v, std::ranges::greater{}, key_of{}, g);
  std::ranges::stable_sort(ref, std::ranges::greater{}, key_of{});
  CHECK(tine::sync_wait(pool, digest_of<record>, global_span<const record>(v.span())) ==
        digest(ref));
}

// Keys in descending order with ties: not strictly reversed, so not simply reversed either.
template <typename Pool>
void check_stable_descending(Pool& pool, std::uint64_t n) {
  global_vector<record> v(pool, n);
  std::vector<record> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = {static_cast<std::int32_t>((n - i) / 3), static_cast<std::int32_t>(i)};
  }
  tine::sync_wait(pool, write_all<record>, v.span(), ref);
  tine::stable_sort(pool, v, by_key{});
  std::stable_sort(ref.begin(), ref.end(), by_key{});
  CHECK(tine::sync_wait(pool, digest_of<record>, global_span<const record>(v.span())) ==
        digest(ref));
}

template <typename Pool>
void check_misuse(Pool& pool) {
  const std::uint64_t n = 1000;
  global_vector<double> v(pool, n);
  global_vector<double> scratch(pool, n);
  std::vector<double> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = value_at(shape::random, i, n);
  }
  tine::sync_wait(pool, write_all<double>, v.span(), ref);
  tine::sync_wait(pool, sort_in_task, v.span(), scratch.span());
  std::sort(ref.begin(), ref.end());
  CHECK(tine::sync_wait(pool, digest_of<double>, global_span<const double>(v.span())) ==
        digest(ref));

  const auto says = [](const std::invalid_argument& e, const char* text) {
    return std::string(e.what()).find(text) != std::string::npos;
  };
  try {
    tine::sync_wait(pool, sort_in_task, v.span(), scratch.span().subspan(0, n - 1));
    CHECK(false);
  } catch (const std::invalid_argument& e) {
    CHECK(says(e,
               "tine::sort on a global span: the scratch span has 999 elements, fewer than "
               "the input's 1000"));
  }
  try {
    tine::sync_wait(pool, sort_in_task, v.span().subspan(0, n / 2), v.span().subspan(n / 2, n / 2));
    CHECK(false);
  } catch (const std::invalid_argument& e) {
    CHECK(says(e, "the scratch span is in the input's own vector"));
  }
  tine::sync_wait(pool, write_all<double>, v.span(), std::vector<double>(n, 13.0));
  try {
    tine::sort(pool, v, throwing_less{}, tine::grain{16});
    CHECK(false);
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "a bad element");
  }
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi_pool pool;
    // "quick": the runs on more ranks than this machine has cores, where each collective call
    // waits for the OS scheduler: fewer cases.
    const bool quick = argc > 1 && std::string(argv[1]) == "quick";
    if (quick) {
      // Empty, one element, odd (9: one rank holds none on 4) and prime sizes, in five
      // collective calls each (the full runs sort these sizes blocking, as subspans).
      for (const std::uint64_t n : {0ULL, 1ULL, 9ULL, 13ULL}) {
        check_small(pool, n);
      }
    }
    for (const std::uint64_t n : {0ULL, 1ULL, 2ULL, 7ULL, 1009ULL, 100000ULL}) {
      for (const shape sh : {shape::random, shape::sorted, shape::reversed, shape::equal}) {
        if (quick && (n < 1009 || sh != shape::random)) {
          continue;
        }
        check_doubles(pool, n, sh, tine::grain{});
        if (n <= 1009) {
          for (const std::size_t leaf : {2, 3, 64}) {
            check_doubles(pool, n, sh, tine::grain{leaf});
          }
        }
      }
    }
    if (!quick) {
      check_doubles(pool, 1'000'000, shape::random, tine::grain{});
      check_stable(pool, 5000, tine::grain{});
      check_stable(pool, 5000, tine::grain{7});
      check_stable(pool, 100'000, tine::grain{});
      check_stable(pool, 1'000'000, tine::grain{});
    }
    check_stable(pool, 1009, tine::grain{3});
    check_stable_descending(pool, 3001);
    check_found_in_order(pool, 100'000);
    check_misuse(pool);
  }
  return tine_test::finish("global_sort_test");
}
