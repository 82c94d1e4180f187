// Legal programs whose stacks are large (run by mpiexec on 2 and 3 ranks): each must give the
// result it gives on one rank, with continuations stolen while the victim's stack spans several
// stacklets.
// - A fork chain 60,000 deep that calls a slow leaf every 1,000 levels: the steals near its top
//   race the children's results coming home (a stolen frame's bytes once overwrote a result its
//   child had just written at home).
// - A chain 100,000 deep, deeper than the rank's deque holds (65,535).
// - A chain of frames with 4 KiB of locals each, 10,000 deep (40 MB of frames).
// - Chains with a 1 MiB and a 3 MiB stack allocation per level: with 3 MiB the allocations begin
//   new stacklets under their frames, so continuations of several pieces must move (the test
//   requires that some did).
// Each stack allocation is filled with a pattern of its level and checked after the join,
// wherever the frame resumes: bytes that moved wrongly are found even when the sums agree.

#include <tine/distributed/distributed.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "tests/distributed/mpi_check.hpp"

namespace {

constexpr int max_rounds = 40;

// Busy for about `iterations` loop turns: something for a thief to overlap with.
tine::task<std::uint64_t> leaf(int d, int iterations) {
  volatile std::uint64_t x = 0;
  for (int i = 0; i < iterations; ++i) {
    x = x + 1;
  }
  co_return static_cast<std::uint64_t>(d) << 32;
}

tine::task<std::uint64_t> chain(int d, int k) {
  if (d == 0) {
    co_return 0;
  }
  std::uint64_t r = 0;
  std::uint64_t s = 0;
  co_await tine::fork(&r, chain, d - 1, k);
  if (d % k == 0) {
    co_await tine::call(&s, leaf, d, 20000);
  }
  co_await tine::join();
  co_return r + s + static_cast<std::uint64_t>(d);
}

std::uint64_t serial_chain(int d, int k) {
  std::uint64_t total = 0;
  for (int i = 1; i <= d; ++i) {
    total += static_cast<std::uint64_t>(i) + (i % k == 0 ? static_cast<std::uint64_t>(i) << 32 : 0);
  }
  return total;
}

// 4 KiB of locals that live across the suspensions, so they are in the frame.
tine::task<std::uint64_t> fat_chain(int d) {
  if (d == 0) {
    co_return 0;
  }
  std::array<std::uint64_t, 512> pad;
  pad.fill(static_cast<std::uint64_t>(d));
  std::uint64_t r = 0;
  std::uint64_t s = 0;
  co_await tine::fork(&r, fat_chain, d - 1);
  if (d % 500 == 0) {
    co_await tine::call(&s, leaf, d, 20000);
  }
  co_await tine::join();
  std::uint64_t own = 0;
  for (std::uint64_t v : pad) {
    own += v == static_cast<std::uint64_t>(d) ? 1 : 0;
  }
  co_return r + s + own;  // own is 512 when the frame's bytes arrived intact
}

std::uint64_t serial_fat_chain(int d) {
  std::uint64_t total = 0;
  for (int i = 1; i <= d; ++i) {
    total += 512 + (i % 500 == 0 ? static_cast<std::uint64_t>(i) << 32 : 0);
  }
  return total;
}

// `bytes` of stack allocation per level, filled with the level's pattern and checked after the
// join; a slow leaf at every level.
tine::task<std::uint64_t> alloc_chain(int d, std::size_t bytes) {
  if (d == 0) {
    co_return 0;
  }
  tine::stack_array<std::uint64_t> a = co_await tine::stack_alloc<std::uint64_t>(bytes / 8);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<std::uint64_t>(d) * 1000003u + i;
  }
  std::uint64_t r = 0;
  std::uint64_t s = 0;
  co_await tine::fork(&r, alloc_chain, d - 1, bytes);
  co_await tine::call(&s, leaf, d, 2000000);
  co_await tine::join();
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    wrong += a[i] != static_cast<std::uint64_t>(d) * 1000003u + i ? 1 : 0;
  }
  co_return r + s + static_cast<std::uint64_t>(d) + (wrong << 48);
}

std::uint64_t serial_alloc_chain(int d) {
  std::uint64_t total = 0;
  for (int i = 1; i <= d; ++i) {
    total += static_cast<std::uint64_t>(i) + (static_cast<std::uint64_t>(i) << 32);
  }
  return total;
}

// Runs `round` (which returns whether its result was right) until the ranks stole during one
// run and `enough` holds, at most max_rounds runs; every run must be right.
template <typename Round, typename Enough>
void until_stolen(tine::mpi_pool<>& pool, const char* what, Round round, Enough enough) {
  int wrong = 0;
  int runs = 0;
  bool stolen = false;
  while (runs < max_rounds && !stolen) {
    const std::uint64_t before = tine_test::sum_over_ranks(pool.counters().steals);
    wrong += round() ? 0 : 1;
    ++runs;
    stolen = tine_test::sum_over_ranks(pool.counters().steals) > before && enough();
  }
  if (tine_test::my_rank == 0) {
    std::printf("%s: %d runs, %d wrong%s\n", what, runs, wrong, stolen ? "" : ", never stolen");
  }
  CHECK(wrong == 0);
  CHECK(stolen);
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi_pool pool;
    const auto always = [] { return true; };

    // Every run of these is checked; they run max_rounds times (a steal happens in the first).
    int wrong = 0;
    for (int i = 0; i < max_rounds; ++i) {
      wrong += tine::sync_wait(pool, chain, 60000, 1000) == serial_chain(60000, 1000) ? 0 : 1;
    }
    if (tine_test::my_rank == 0) {
      std::printf("chain 60000: %d runs, %d wrong\n", max_rounds, wrong);
    }
    CHECK(wrong == 0);

    until_stolen(
        pool, "chain 100000",
        [&] { return tine::sync_wait(pool, chain, 100000, 1000) == serial_chain(100000, 1000); },
        always);
    until_stolen(
        pool, "4 KiB frames",
        [&] { return tine::sync_wait(pool, fat_chain, 10000) == serial_fat_chain(10000); }, always);
    until_stolen(
        pool, "1 MiB per level",
        [&] {
          return tine::sync_wait(pool, alloc_chain, 12, std::size_t{1} << 20) ==
                 serial_alloc_chain(12);
        },
        always);
    // With 3 MiB per level, some levels' allocations begin a new stacklet under their frame: the
    // test waits for such a continuation to have moved.
    until_stolen(
        pool, "3 MiB per level",
        [&] {
          return tine::sync_wait(pool, alloc_chain, 10, std::size_t{3} << 20) ==
                 serial_alloc_chain(10);
        },
        [&] { return tine_test::sum_over_ranks(pool.counters().pieced_steals) > 0; });
  }
  return tine_test::finish("mpi_pool_stacks_test");
}
