// The block cache of other ranks' global-vector memory (distributed/memory/block_cache.hpp), on 2
// ranks of one worker, from one task on rank 0 that never forks (so nothing else runs on its rank
// and no acquire point falls between its reads):
// - re-reading a range another rank holds costs no MPI (no bytes fetched, a hit per line);
// - a write to it is read back at once (its lines were dropped), from the other rank's memory;
// - a read larger than the cache bypasses it (fetched, not kept: read again, fetched again);
// - under a cache of 2 lines (TINE_MPI_CACHE_BYTES=8192, the second run), reading three lines
//   evicts the least recently used, which is fetched again;
// - a new root starts with every line stale (an acquire point): its first read fetches.
// Values are checked everywhere. The counters are this process's (tine::mpi::traffic), so the
// task returns them to every rank.
#include <tine/distributed/distributed.hpp>
#include <tine/distributed/memory/block_cache.hpp>

#include <cstdint>
#include <cstdio>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine::mpi::global_span;
using tine::mpi::global_vector;
using cache = tine::mpi::detail::block_cache;

constexpr std::uint64_t per_line = cache::line_bytes / sizeof(std::int64_t);

std::int64_t value_at(std::uint64_t i) { return static_cast<std::int64_t>(i * 3 + 1); }

tine::task<void> write_values(global_span<std::int64_t> s) {
  auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = value_at(s.offset() + i);
  }
}

// The sum of `s` read through one checkout, and the bytes fetched and lines hit and missed.
struct read_cost {
  std::int64_t sum = 0;
  std::uint64_t fetched = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
};

read_cost read(global_span<const std::int64_t> s) {
  const tine::mpi::global_traffic before = tine::mpi::traffic();
  read_cost c;
  {
    auto in = tine::mpi::detail::checkout_here(s, tine::mpi::access::read);
    for (const std::int64_t x : in) {
      c.sum += x;
    }
  }
  const tine::mpi::global_traffic after = tine::mpi::traffic();
  c.fetched = after.bytes_fetched - before.bytes_fetched;
  c.hits = after.cache_hits - before.cache_hits;
  c.misses = after.cache_misses - before.cache_misses;
  return c;
}

std::int64_t expected_sum(std::uint64_t first, std::uint64_t count) {
  std::int64_t sum = 0;
  for (std::uint64_t i = first; i < first + count; ++i) {
    sum += value_at(i);
  }
  return sum;
}

struct outcome {
  int failures = 0;
  std::uint64_t first_root_fetched = 0;
};

// The checks, on rank 0; `remote` is elements held by rank 1 (two whole lines and a bit).
tine::task<outcome> probe(global_span<std::int64_t> remote, std::uint64_t capacity) {
  outcome o;
  const auto check = [&o](bool ok, int line) {
    if (!ok) {
      std::fprintf(stderr, "rank 0: global_cache_test.cpp:%d: check failed\n", line);
      ++o.failures;
    }
  };
  const global_span<const std::int64_t> small = remote.subspan(5, 10);  // inside one line
  const read_cost first = read(small);
  check(first.sum == expected_sum(remote.offset() + 5, 10), __LINE__);
  check(first.misses == 1 && first.fetched == cache::line_bytes, __LINE__);
  const read_cost again = read(small);
  check(again.sum == first.sum, __LINE__);
  check(again.fetched == 0 && again.hits == 1 && again.misses == 0, __LINE__);

  // A write, read back at once: from rank 1's memory, not the dropped line.
  {
    auto w = tine::mpi::detail::checkout_here(remote.subspan(7, 1), tine::mpi::access::write);
    w[0] = -1000;
  }
  const read_cost after_write = read(small);
  check(after_write.sum == first.sum - value_at(remote.offset() + 7) - 1000, __LINE__);
  check(after_write.misses == 1 && after_write.fetched > 0, __LINE__);
  {
    auto w = tine::mpi::detail::checkout_here(remote.subspan(7, 1), tine::mpi::access::write);
    w[0] = value_at(remote.offset() + 7);
  }

  // Larger than the cache takes: fetched each time, never hit.
  const std::uint64_t big = (cache::bypass_lines + 1) * per_line;
  if (remote.size() >= big) {
    const read_cost b1 = read(remote.subspan(0, big));
    const read_cost b2 = read(remote.subspan(0, big));
    check(b1.sum == expected_sum(remote.offset(), big) && b2.sum == b1.sum, __LINE__);
    check(b2.fetched == big * sizeof(std::int64_t) && b2.hits == 0, __LINE__);
  }

  if (capacity == 2 * cache::line_bytes) {
    // Lines A, B, C of rank 1's block (whole lines of it: the block starts a line).
    const auto line_of = [&](std::uint64_t k) { return remote.subspan(k * per_line, 4); };
    const read_cost a = read(line_of(0));
    const read_cost b = read(line_of(1));
    const read_cost a_again = read(line_of(0));  // A most recently used: B goes next
    const read_cost c = read(line_of(2));
    const read_cost a_third = read(line_of(0));
    const read_cost b_again = read(line_of(1));  // evicted by C
    check(a_again.hits == 1 && a_third.hits == 1, __LINE__);
    check(b_again.misses == 1 && b_again.fetched == cache::line_bytes, __LINE__);
    check(c.misses == 1 && a.sum == expected_sum(remote.offset(), 4) &&
              b.sum == expected_sum(remote.offset() + per_line, 4) &&
              c.sum == expected_sum(remote.offset() + 2 * per_line, 4) && b_again.sum == b.sum &&
              a_third.sum == a.sum,
          __LINE__);
  }
  co_return o;
}

// The next root's first read of the range fetches again (lines are stale at a new root).
tine::task<std::uint64_t> fetched_by_next_root(global_span<const std::int64_t> s) {
  co_return read(s).fetched;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi_pool pool({.workers_per_rank = 1});
    const std::uint64_t capacity = cache::instance().capacity();
    CHECK(pool.size() == 2);
    // Rank 1's block starts at element B = n / 2, a whole number of lines in.
    const std::uint64_t n = 2 * (cache::bypass_lines + 4) * per_line;
    global_vector<std::int64_t> v(pool, n);
    tine::sync_wait(pool, write_values, v.span());
    const global_span<std::int64_t> remote = v.span().subspan(n / 2, n / 2);
    const outcome o = tine::sync_wait(pool, probe, remote, capacity);
    CHECK(o.failures == 0);
    const global_span<const std::int64_t> small = remote.subspan(5, 10);
    CHECK(tine::sync_wait(pool, fetched_by_next_root, small) == cache::line_bytes);
  }
  return tine_test::finish("global_cache_test");
}
