// Global memory under random choices, against the standard library on a std::vector holding the
// same values. Each round picks a size (0, 1, a prime, or another up to 20,001), where the spans
// lie in their vectors (random offsets and lengths around them), the leaves (automatic, or 1 to
// 64 elements and at least a 512th of the span), the value range (2 values, so many ties, up to
// 2^30), the order, and the form (every algorithm blocking, or all of them inside one task), then
// checks:
// - reduce with a non-commutative op (composition of affine maps: the fold's order matters);
// - find_if (a value present or not), min_element (first of equals);
// - map, inclusive_scan (with and without init) and exclusive_scan into three regions of a
//   second vector, the rest of it untouched;
// - sort (ascending or descending) and stable_sort of records by key (ascending, or descending by
//   a projection), each record carrying its original position, so equal keys out of their
//   original order change the digest; the elements around the spans untouched.
// Every rank makes the same choices (the collective calls must match): round r's generator is
// seeded from the base seed and r, and the base seed is rank 0's (TINE_STRESS_SEED, else its
// clock), broadcast. It is printed at the start, and a rank whose checks failed prints the
// round's choices; TINE_STRESS_SEED=S repeats a run's choices (its steals differ).
//   global_stress_test [rounds]
#include <tine/distributed/distributed.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/distributed/global_digest.hpp"
#include "tests/distributed/mpi_check.hpp"

namespace {

using tine::mpi::global_span;
using tine::mpi::global_vector;
using value = std::int64_t;
using tine_test::digest;
using tine_test::digest_of;

// x -> a x + b modulo a prime; composed in order, which is associative and not commutative.
struct affine {
  static constexpr std::uint64_t prime = 1'000'000'007;
  std::uint64_t a = 1;
  std::uint64_t b = 0;
  affine() = default;
  affine(value x)  // NOLINT(google-explicit-constructor): an element folds in as its map
      : a(static_cast<std::uint64_t>(x) % 7 + 2), b(static_cast<std::uint64_t>(x) % prime) {}
  friend bool operator==(const affine&, const affine&) = default;
};
struct then {
  affine operator()(const affine& f, const affine& g) const {
    affine h;
    h.a = f.a * g.a % affine::prime;
    h.b = (f.b * g.a + g.b) % affine::prime;
    return h;
  }
};

struct record {
  std::int32_t key;
  std::int32_t order;  // the record's original position
};
struct by_key {
  bool operator()(const record& x, const record& y) const { return x.key < y.key; }
};
struct key_of {
  std::int32_t operator()(const record& r) const { return r.key; }
};
struct equals {
  value wanted;
  bool operator()(value x) const { return x == wanted; }
};
struct scramble {
  value operator()(value x) const { return x * 7 + 3; }
};

// One round's choices, the same on every rank.
struct round_plan {
  std::uint64_t n = 0;
  std::uint64_t before = 0;  // elements of the vectors before the spans
  std::uint64_t after = 0;   // and after them
  std::uint64_t gap = 0;     // between the output vector's three regions
  std::uint64_t leaf = 0;    // 0: automatic
  value range = 2;
  value find = 0;  // what find_if looks for
  value init = 0;  // the scans' and the fold's start
  bool scan_init = false;
  bool descending = false;
  bool in_task = false;

  tine::grain grain() const { return leaf == 0 ? tine::grain{} : tine::grain{leaf}; }
  std::uint64_t vector_size() const { return before + n + after; }
  std::uint64_t region(int k) const { return before + static_cast<std::uint64_t>(k) * (n + gap); }
  std::uint64_t out_size() const { return region(3); }
};

round_plan plan_round(std::mt19937_64& rng) {
  constexpr std::uint64_t primes[] = {2, 3, 5, 13, 31, 127, 257, 1009, 4099, 10007};
  round_plan p;
  switch (rng() % 6) {
    case 0:
      p.n = 0;
      break;
    case 1:
      p.n = 1;
      break;
    case 2:
      p.n = primes[rng() % std::size(primes)];
      break;
    case 5:
      p.n = 2 + rng() % 20'000;
      break;
    default:
      p.n = 2 + rng() % 3'000;
  }
  p.before = rng() % 20;
  p.after = rng() % 20;
  p.gap = rng() % 9;
  if (rng() % 4 != 0) {
    // At most about 512 leaves: where the ranks are laid out as machines, every leaf and merge
    // piece another rank holds is copied through MPI, and on 4 oversubscribed ranks or under
    // ASan a round of thousands of them took seconds.
    p.leaf = std::max<std::uint64_t>(1 + rng() % 64, p.n / 512 + 1);
  }
  constexpr value ranges[] = {2, 7, 1000, value{1} << 30};
  p.range = ranges[rng() % std::size(ranges)];
  p.find = static_cast<value>(rng() % static_cast<std::uint64_t>(p.range + 1));  // maybe absent
  p.init = static_cast<value>(rng() % 1000);
  p.scan_init = rng() % 2 == 0;
  p.descending = rng() % 2 == 0;
  p.in_task = rng() % 2 == 0;
  return p;
}

void print_plan(const round_plan& p, std::uint64_t base, std::uint64_t round) {
  std::fprintf(stderr,
               "rank %d: round %llu of base seed %llu failed (TINE_STRESS_SEED=%llu repeats it): "
               "n %llu, offsets %llu/%llu, gap %llu, leaf %llu, range %lld, find %lld, init %lld, "
               "scan init %d, descending %d, in a task %d\n",
               tine_test::my_rank, static_cast<unsigned long long>(round),
               static_cast<unsigned long long>(base), static_cast<unsigned long long>(base),
               static_cast<unsigned long long>(p.n), static_cast<unsigned long long>(p.before),
               static_cast<unsigned long long>(p.after), static_cast<unsigned long long>(p.gap),
               static_cast<unsigned long long>(p.leaf), static_cast<long long>(p.range),
               static_cast<long long>(p.find), static_cast<long long>(p.init), p.scan_init,
               p.descending, p.in_task);
}

template <typename T>
tine::task<void> write_all(global_span<T> s, std::vector<T> values) {
  auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
  std::copy(values.begin(), values.end(), out.begin());
}

template <typename T>
tine::task<void> write_both(global_span<value> a, std::vector<value> va, global_span<T> b,
                            std::vector<T> vb) {
  co_await tine::call(write_all<value>, a, std::move(va));
  co_await tine::call(write_all<T>, b, std::move(vb));
}

struct found {
  affine fold;
  std::uint64_t first = 0;
  std::uint64_t min = 0;
};

struct digests {
  std::uint64_t data = 0;
  std::uint64_t out = 0;
  std::uint64_t records = 0;
};

tine::task<digests> digest_all(global_span<const value> data, global_span<const value> out,
                               global_span<const record> records) {
  digests d;
  co_await tine::call(&d.data, digest_of<value>, data);
  co_await tine::call(&d.out, digest_of<value>, out);
  co_await tine::call(&d.records, digest_of<record>, records);
  co_return d;
}

// The spans of one round.
struct spans {
  global_span<value> in;
  global_span<value> map_out;
  global_span<value> inclusive_out;
  global_span<value> exclusive_out;
  global_span<record> records;
  global_span<value> scratch;  // the task form's sorts (other vectors')
  global_span<record> record_scratch;
};

// Every algorithm of the round inside one task: the reads and the writes to separate regions
// forked together, then the two sorts (which write their inputs) together.
tine::task<found> all_in_task(spans s, round_plan p) {
  const global_span<const value> in = s.in;
  const tine::grain g = p.grain();
  found f;
  co_await tine::fork(&f.fold, tine::async::reduce, in, affine(p.init), then{}, g);
  co_await tine::fork(&f.first, tine::async::find_if, in, equals{p.find}, g);
  co_await tine::fork(&f.min, tine::async::min_element, in, std::ranges::less{}, std::identity{},
                      g);
  co_await tine::fork(tine::async::map, in, s.map_out, scramble{}, g);
  if (p.scan_init) {
    co_await tine::fork(tine::async::inclusive_scan, in, s.inclusive_out, std::plus<>{}, p.init, g);
  } else {
    co_await tine::fork(tine::async::inclusive_scan, in, s.inclusive_out, std::plus<>{}, g);
  }
  co_await tine::call(tine::async::exclusive_scan, in, s.exclusive_out, p.init, std::plus<>{}, g);
  co_await tine::join();
  if (p.descending) {
    co_await tine::fork(tine::async::sort, s.in, s.scratch, std::greater<>{}, g);
    co_await tine::call(tine::async::stable_sort, s.records, s.record_scratch,
                        std::ranges::greater{}, key_of{}, g);
  } else {
    co_await tine::fork(tine::async::sort, s.in, s.scratch, g);
    co_await tine::call(tine::async::stable_sort, s.records, s.record_scratch, by_key{}, g);
  }
  co_await tine::join();
  co_return f;
}

// The same calls, blocking (collective), one after another.
template <typename Pool>
found all_blocking(Pool& pool, const spans& s, const round_plan& p) {
  const global_span<const value> in = s.in;
  const tine::grain g = p.grain();
  found f;
  f.fold = tine::reduce(pool, in, affine(p.init), then{}, g);
  f.first = tine::find_if(pool, in, equals{p.find}, g);
  f.min = tine::min_element(pool, in, std::ranges::less{}, std::identity{}, g);
  tine::map(pool, in, s.map_out, scramble{}, g);
  if (p.scan_init) {
    tine::inclusive_scan(pool, in, s.inclusive_out, std::plus<>{}, p.init, g);
  } else {
    tine::inclusive_scan(pool, in, s.inclusive_out, std::plus<>{}, g);
  }
  tine::exclusive_scan(pool, in, s.exclusive_out, p.init, std::plus<>{}, g);
  if (p.descending) {
    tine::sort(pool, s.in, std::greater<>{}, g);
    tine::stable_sort(pool, s.records, std::ranges::greater{}, key_of{}, g);
  } else {
    tine::sort(pool, s.in, g);
    tine::stable_sort(pool, s.records, by_key{}, g);
  }
  return f;
}

template <typename Pool>
void run_round(Pool& pool, const round_plan& p, std::mt19937_64& rng) {
  const std::uint64_t n = p.n;
  // The vectors, elements outside the spans included, as they must end.
  std::vector<value> data(p.vector_size(), -1);
  std::vector<record> records(p.vector_size(), record{-1, -1});
  for (std::uint64_t i = 0; i < n; ++i) {
    data[p.before + i] = static_cast<value>(rng() % static_cast<std::uint64_t>(p.range));
    records[p.before + i] = {static_cast<std::int32_t>(data[p.before + i] % 1000),
                             static_cast<std::int32_t>(i)};
  }
  global_vector<value> data_v(pool, data.size());
  global_vector<value> out_v(pool, p.out_size());
  global_vector<record> records_v(pool, records.size());
  tine::sync_wait(pool, write_both<record>, data_v.span(), data, records_v.span(), records);

  spans s;
  s.in = data_v.span().subspan(p.before, n);
  s.map_out = out_v.span().subspan(p.region(0), n);
  s.inclusive_out = out_v.span().subspan(p.region(1), n);
  s.exclusive_out = out_v.span().subspan(p.region(2), n);
  s.records = records_v.span().subspan(p.before, n);
  found f;
  if (p.in_task) {
    // Scratch spans at least as long as the input, at an offset in vectors of their own.
    global_vector<value> scratch_v(pool, p.vector_size() + 2);
    global_vector<record> record_scratch_v(pool, p.vector_size() + 2);
    s.scratch = scratch_v.span().subspan(p.after, n + 2);
    s.record_scratch = record_scratch_v.span().subspan(p.before + 1, n);
    f = tine::sync_wait(pool, all_in_task, s, p);
  } else {
    f = all_blocking(pool, s, p);
  }
  const digests d =
      tine::sync_wait(pool, digest_all, data_v.span(), out_v.span(), records_v.span());

  // The same on std::vectors.
  const auto first = data.begin() + static_cast<std::ptrdiff_t>(p.before);
  const auto last = first + static_cast<std::ptrdiff_t>(n);
  CHECK(f.fold == std::accumulate(first, last, affine(p.init), then{}));
  CHECK(f.first == static_cast<std::uint64_t>(std::find_if(first, last, equals{p.find}) - first));
  CHECK(f.min == static_cast<std::uint64_t>(std::min_element(first, last) - first));
  std::vector<value> out(p.out_size(), 0);
  std::transform(first, last, out.begin() + static_cast<std::ptrdiff_t>(p.region(0)), scramble{});
  const auto inclusive_at = out.begin() + static_cast<std::ptrdiff_t>(p.region(1));
  if (p.scan_init) {
    std::inclusive_scan(first, last, inclusive_at, std::plus<>{}, p.init);
  } else {
    std::inclusive_scan(first, last, inclusive_at);
  }
  std::exclusive_scan(first, last, out.begin() + static_cast<std::ptrdiff_t>(p.region(2)), p.init);
  CHECK(d.out == digest(out));
  const auto records_first = records.begin() + static_cast<std::ptrdiff_t>(p.before);
  const auto records_last = records_first + static_cast<std::ptrdiff_t>(n);
  if (p.descending) {
    std::sort(first, last, std::greater<>{});
    std::ranges::stable_sort(records_first, records_last, std::ranges::greater{}, key_of{});
  } else {
    std::sort(first, last);
    std::stable_sort(records_first, records_last, by_key{});
  }
  CHECK(d.data == digest(data));
  CHECK(d.records == digest(records));
}

std::uint64_t base_seed() {
  std::uint64_t seed = 0;
  if (const char* s = std::getenv("TINE_STRESS_SEED"); s != nullptr) {
    seed = std::strtoull(s, nullptr, 10);
  } else {
    seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  }
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);  // rank 0's, on every rank
  return seed;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  const std::uint64_t rounds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 6;
  const std::uint64_t base = base_seed();
  if (tine_test::my_rank == 0) {
    std::printf(
        "global_stress_test: %llu rounds, base seed %llu (TINE_STRESS_SEED=%llu repeats "
        "the choices)\n",
        static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(base),
        static_cast<unsigned long long>(base));
  }
  {
    tine::mpi_pool pool({.workers_per_rank = 2});
    for (std::uint64_t round = 0; round < rounds; ++round) {
      std::seed_seq seq{static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(base >> 32),
                        static_cast<std::uint32_t>(round)};
      std::mt19937_64 rng(seq);
      const round_plan p = plan_round(rng);
      const int before = tine_test::failures;
      run_round(pool, p, rng);
      if (tine_test::failures != before) {
        print_plan(p, base, round);
      }
    }
  }
  return tine_test::finish("global_stress_test");
}
