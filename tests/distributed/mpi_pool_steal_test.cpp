// Continuations stolen across ranks (run by mpiexec on 2 to 4 ranks, oversubscribed): fib,
// nqueens(10) with its counts in a stack allocation, UTS T1 with each node's children in a stack
// allocation, seeded random fork-join trees whose nodes may throw, and a seeded mixed tree (deep
// chains, fat frames, large stack allocations, exceptions caught by type: mixed_tree.hpp), each
// compared with a serial evaluation, on every rank; then fib on a pool whose victims the NUMA
// policy chooses. Each
// workload runs until the ranks together have stolen from one another during one of its runs (at
// most `max_rounds` runs, every one checked): a run without a steal proves nothing about moving
// continuations.

#include <tine/distributed/distributed.hpp>
#include <tine/policies/numa_victims.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "bench/distributed/distributed_tasks.hpp"
#include "bench/suite/uts.hpp"
#include "tests/distributed/mixed_tree.hpp"
#include "tests/distributed/mpi_check.hpp"

namespace {

constexpr int max_rounds = 100;

using distributed_tasks::fib;
using distributed_tasks::queens;
using distributed_tasks::serial_fib;
using distributed_tasks::uts_search;

// A random fork-join tree: node `id` at `depth` has 0 to 4 children (a hash decides), forks all
// but the last and calls the last, sums their values with its own, and throws when the hash says
// so and `failing` is on. Results in a stack allocation.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

int children_of(std::uint64_t id, int depth) {
  if (depth >= 16) {
    return 0;
  }
  return depth < 4 ? 3 : static_cast<int>(mix(id) % 5);  // about 330,000 nodes
}

bool throws_at(std::uint64_t id, bool failing) { return failing && mix(id ^ 0x5eed) % 4099 == 0; }

tine::task<std::uint64_t> dag(std::uint64_t id, int depth, bool failing) {
  if (throws_at(id, failing)) {
    throw std::runtime_error("node " + std::to_string(id) + " failed");
  }
  const int k = children_of(id, depth);
  std::uint64_t sum = mix(id) & 0xffff;
  if (k == 0) {
    co_return sum;
  }
  tine::stack_array<std::uint64_t> values =
      co_await tine::stack_alloc<std::uint64_t>(static_cast<std::size_t>(k));
  for (int i = 0; i + 1 < k; ++i) {
    co_await tine::fork(&values[static_cast<std::size_t>(i)], dag, id * 5 + 1 + i, depth + 1,
                        failing);
  }
  co_await tine::call(&values[static_cast<std::size_t>(k - 1)], dag, id * 5 + k, depth + 1,
                      failing);
  co_await tine::join();
  for (int i = 0; i < k; ++i) {
    sum += values[static_cast<std::size_t>(i)];
  }
  co_return sum;
}

// The serial evaluation: the value, and whether some node throws (then which ids do is checked
// against the message).
std::uint64_t serial_dag(std::uint64_t id, int depth, bool failing, bool& threw) {
  if (throws_at(id, failing)) {
    threw = true;
    return 0;
  }
  const int k = children_of(id, depth);
  std::uint64_t sum = mix(id) & 0xffff;
  for (int i = 0; i < k; ++i) {
    sum += serial_dag(id * 5 + 1 + i, depth + 1, failing, threw);
  }
  return sum;
}

// Whether "node N failed" names a node that throws in the serial evaluation's rule.
bool names_a_failing_node(const std::string& message) {
  std::uint64_t id = 0;
  if (std::sscanf(message.c_str(), "node %lu failed", &id) != 1) {
    return false;
  }
  return message == "node " + std::to_string(id) + " failed" && throws_at(id, true);
}

// Steals over all ranks so far (collective).
template <typename Pool>
std::uint64_t total_steals(const Pool& pool) {
  std::uint64_t mine = pool.counters().steals;
  std::uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// Runs `round` (which checks its own result) until the ranks have stolen during one run.
template <typename Pool, typename Round>
void until_stolen(Pool& pool, const char* what, Round round) {
  for (int i = 0; i < max_rounds; ++i) {
    const std::uint64_t before = total_steals(pool);
    round();
    if (total_steals(pool) > before) {
      return;
    }
  }
  if (tine_test::my_rank == 0) {
    std::fprintf(stderr, "%s: no steal across ranks in %d runs\n", what, max_rounds);
  }
  CHECK(false);
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi_pool pool;

    until_stolen(pool, "fib", [&] { CHECK(tine::sync_wait(pool, fib, 26) == serial_fib(26)); });
    until_stolen(pool, "nqueens",
                 [&] { CHECK(tine::sync_wait(pool, queens, 10, 0, 0u, 0u, 0u) == 724); });

    const uts::params& t1 = uts::tree("T1");
    until_stolen(pool, "uts", [&] {
      const uts::result r = tine::sync_wait(pool, uts_search, &t1, uts::root(t1));
      CHECK(r.nodes == t1.nodes);
      CHECK(r.leaves == t1.leaves);
      CHECK(r.depth == t1.depth);
    });

    bool threw = false;
    const std::uint64_t expected = serial_dag(0, 0, false, threw);
    CHECK(!threw);
    until_stolen(pool, "random tree", [&] {
      CHECK(tine::sync_wait(pool, dag, std::uint64_t{0}, 0, false) == expected);
    });

    threw = false;
    serial_dag(0, 0, true, threw);
    CHECK(threw);  // the seeded tree has failing nodes: the test of exceptions is not empty
    until_stolen(pool, "random tree with exceptions", [&] {
      bool caught = false;
      try {
        tine::sync_wait(pool, dag, std::uint64_t{0}, 0, true);
      } catch (const std::runtime_error& e) {
        caught = true;
        if (!names_a_failing_node(e.what())) {
          std::fprintf(stderr, "rank %d: unexpected message: %s\n", tine_test::my_rank, e.what());
          CHECK(false);
        }
      }
      CHECK(caught);
    });

    // The mixed tree: deep chains, fat frames, large stack allocations, and exceptions caught by
    // type after steals (or escaping with their type).
    for (const bool failing : {false, true}) {
      const std::optional<std::uint64_t> want = mixed_tree::serial_node(0, 0, failing);
      CHECK(want.has_value());  // the seed: exceptions are thrown, and all caught by type
      // Many steals, not one: the exceptions to catch are thrown in a few places only.
      const std::uint64_t before = total_steals(pool);
      int runs = 0;
      for (; runs < 3 * max_rounds / 4 && (runs < 3 || total_steals(pool) - before < 60); ++runs) {
        std::optional<std::uint64_t> got;
        try {
          got = tine::sync_wait(pool, mixed_tree::node, std::uint64_t{0}, 0, failing);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "rank %d: mixed tree: %s\n", tine_test::my_rank, e.what());
        }
        CHECK(got == want);
      }
      const std::uint64_t stolen = total_steals(pool) - before;
      if (tine_test::my_rank == 0) {
        std::printf("mixed tree%s: %d runs, %lu steals\n", failing ? " with exceptions" : "", runs,
                    static_cast<unsigned long>(stolen));
      }
      CHECK(stolen >= 60);
    }

    const tine::mpi::pool_counters c = pool.counters();
    CHECK(c.steals <= c.steal_attempts);
    CHECK(c.bytes_migrated >= c.steals * 64);
    if (tine_test::my_rank == 0) {
      std::printf(
          "rank 0: %lu steals in %lu attempts, %lu bytes, %lu remote joins\n",
          static_cast<unsigned long>(c.steals), static_cast<unsigned long>(c.steal_attempts),
          static_cast<unsigned long>(c.bytes_migrated), static_cast<unsigned long>(c.remote_joins));
    }
  }
  {
    // Victims chosen by the NUMA policy over the ranks' machines (one machine here).
    tine::mpi_pool<tine::numa_victims> pool;
    until_stolen(pool, "fib, numa_victims",
                 [&] { CHECK(tine::sync_wait(pool, fib, 26) == serial_fib(26)); });
  }
  return tine_test::finish("mpi_pool_steal_test");
}
