// Stops on a distributed pool (run by mpiexec on 2 ranks, with one and two workers per rank),
// as docs/distributed.md ("The rules") states them: a stop reaches the tasks that run on the rank
// whose root (or stop scope) it is, stolen there or not, and not the continuations other ranks
// took.
// - the root asks for its own stop before its first fork (on rank 0's first worker, where every
//   root starts): tine::request_stop() returns true, tine::stop_requested() is true, the fork
//   starts no child and the join throws tine::cancelled;
// - a stop scope asked to stop by its own task, on rank 0: the same, and the scope gives
//   std::nullopt while the root goes on, not stopped;
// - the root's continuation after a slow child, taken by nobody, by another worker of rank 0 or
//   by rank 1, asks for a stop: on rank 0 it is obeyed as above (the continuation sees its root),
//   on rank 1 request_stop() returns false and the fork starts its child. Runs until a
//   continuation was taken by another worker of rank 0 (two workers per rank) or by rank 1 (one
//   worker per rank), so that a pass has shown that case;
// - a search in a stop scope whose leaf asks for the stop amid steals ends, with std::nullopt or
//   with every leaf counted (when every fork after the stop ran where it does not reach: it
//   depends on the schedule). A stop must not keep a continuation that a returning child gives
//   back to its worker's deque from going back (that hung: the give-back is no fork).
// Built over the one-rank MPI stub with the lanes of several ranks (mpi_pool_stop_stub_test),
// rank 0's workers take each other's continuations through their lanes too, under TSan.

#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <thread>

#include "tests/distributed/mpi_check.hpp"

namespace {

constexpr int max_rounds = 600;

tine::task<int> leaf() { co_return 1; }

// What a task saw when it asked for a stop and forked once more.
struct stop_outcome {
  int rank = -1;         ///< the rank the asking task ran on
  int other_thread = 0;  ///< 1: another thread than its slow child's
  int asked = 0;         ///< tine::request_stop()'s answer
  int seen = 0;          ///< tine::stop_requested() after it
  int started = 0;       ///< the fork after it started its child
  int cancelled = 0;     ///< the join threw tine::cancelled
};

// The task asks for a stop, forks, and joins; `o` gets what it saw.
tine::task<stop_outcome> stop_then_fork() {
  stop_outcome o;
  o.rank = tine_test::my_rank;
  o.asked = tine::request_stop() ? 1 : 0;
  o.seen = tine::stop_requested() ? 1 : 0;
  int started = 0;
  co_await tine::fork(&started, leaf);
  try {
    co_await tine::join();
  } catch (const tine::cancelled&) {
    o.cancelled = 1;
  }
  o.started = started;
  co_return o;
}

bool obeyed(const stop_outcome& o) {
  return o.asked == 1 && o.seen == 1 && o.started == 0 && o.cancelled == 1;
}

bool not_reached(const stop_outcome& o) {
  return o.asked == 0 && o.seen == 0 && o.started == 1 && o.cancelled == 0;
}

void print(const char* what, const stop_outcome& o) {
  if (tine_test::my_rank != 0) {
    return;  // every rank has the same outcome
  }
  std::fprintf(stderr,
               "rank %d: %s: ran on rank %d (other thread %d): asked %d, seen %d, child started "
               "%d, cancelled %d\n",
               tine_test::my_rank, what, o.rank, o.other_thread, o.asked, o.seen, o.started,
               o.cancelled);
}

// 2. A stop scope stopped from inside, then a fork of the root outside it.
struct scope_outcome {
  int scope_value = 0;  ///< -1: the scope gave std::nullopt
  int root_stopped = 0;
  int after = 0;  ///< the root's own fork after the scope started its child
};

tine::task<int> stopping_body() {
  tine::request_stop();
  int started = 0;
  co_await tine::fork(&started, leaf);
  co_await tine::join();  // throws tine::cancelled when the fork started no child
  co_return started;
}

tine::task<scope_outcome> scope_root() {
  scope_outcome s;
  std::optional<int> r;
  co_await tine::call(&r, tine::stop_scope, stopping_body);
  s.scope_value = r.has_value() ? *r : -1;
  s.root_stopped = tine::stop_requested() ? 1 : 0;
  co_await tine::fork(&s.after, leaf);
  co_await tine::join();
  co_return s;
}

// 3. The root's continuation after a slow child asks for the stop, wherever it was taken.
std::uint64_t thread_key() { return std::hash<std::thread::id>{}(std::this_thread::get_id()); }

tine::task<std::uint64_t> slow_child() {
  // No forks: the continuation stays where the root's fork left it (the deque or the lane).
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(3);
  while (std::chrono::steady_clock::now() < until) {
  }
  co_return thread_key();
}

tine::task<stop_outcome> continuation_root() {
  std::uint64_t child_thread = 0;
  co_await tine::fork(&child_thread, slow_child);
  // The continuation: here on the first worker (not taken), another worker's, or rank 1's.
  const std::uint64_t mine = thread_key();
  stop_outcome o;
  o.rank = tine_test::my_rank;
  o.asked = tine::request_stop() ? 1 : 0;
  o.seen = tine::stop_requested() ? 1 : 0;
  int started = 0;
  co_await tine::fork(&started, leaf);
  try {
    co_await tine::join();  // joins the slow child too
  } catch (const tine::cancelled&) {
    o.cancelled = 1;
  }
  o.started = started;
  o.other_thread = child_thread != mine ? 1 : 0;
  co_return o;
}

// 4. A search whose leaf `target` stops the scope around it.
tine::task<long> search(int depth, long index, long target) {
  if (depth == 0) {
    if (index == target) {
      tine::request_stop();
    }
    co_return 1;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, search, depth - 1, 2 * index, target);
  co_await tine::call(&b, search, depth - 1, 2 * index + 1, target);
  co_await tine::join();
  co_return a + b;
}

tine::task<long> search_root(int depth, long target) {
  std::optional<long> r;
  co_await tine::call(&r, tine::stop_scope, search, depth, 0L, target);
  co_return r.has_value() ? *r : -1;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    // The workers per rank: the program's argument.
    const unsigned workers = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 1u;
    tine::mpi_pool pool({.workers_per_rank = workers});
    const bool two_workers = pool.workers_per_rank() > 1;
    const bool ranks = pool.size() > 1;

    // 1. The root's own stop, before any fork: on rank 0's first worker.
    const stop_outcome first = tine::sync_wait(pool, stop_then_fork);
    if (!obeyed(first) || first.rank != 0) {
      print("the root's own stop", first);
    }
    CHECK(obeyed(first));
    CHECK(first.rank == 0);

    // 2. A stop scope stopped from inside, on rank 0; the root goes on.
    const scope_outcome scoped = tine::sync_wait(pool, scope_root);
    CHECK(scoped.scope_value == -1);
    CHECK(scoped.root_stopped == 0);
    CHECK(scoped.after == 1);

    // 3. The continuation, wherever it runs.
    int at_home = 0;
    int other_worker = 0;
    int other_rank = 0;
    int wrong = 0;
    for (int round = 0; round < max_rounds; ++round) {
      const stop_outcome o = tine::sync_wait(pool, continuation_root);
      if (o.rank == 0) {
        ++(o.other_thread == 1 ? other_worker : at_home);
        if (!obeyed(o)) {
          ++wrong;
          print("a continuation on rank 0", o);
        }
      } else {
        ++other_rank;
        if (!not_reached(o)) {
          ++wrong;
          print("a continuation on another rank", o);
        }
      }
      // Every rank has the same outcome: the same decision.
      if ((!two_workers || other_worker > 0) && (!ranks || two_workers || other_rank > 0) &&
          round >= 20) {
        break;
      }
    }
    if (tine_test::my_rank == 0) {
      std::printf(
          "continuations asking for a stop: %d not taken, %d taken by another worker of rank 0, "
          "%d by another rank; %d wrong\n",
          at_home, other_worker, other_rank, wrong);
    }
    CHECK(wrong == 0);
    if (two_workers) {
      CHECK(other_worker > 0);
    } else if (ranks) {
      CHECK(other_rank > 0);
    }

    // 4. A search stopped by one of its leaves, amid steals.
    constexpr int depth = 12;
    constexpr long all = 1L << depth;
    int stopped = 0;
    for (int run = 0; run < 20; ++run) {
      const long target = (run * 977L) % all;
      const long r = tine::sync_wait(pool, search_root, depth, target);
      CHECK(r == -1 || r == all);
      stopped += r == -1 ? 1 : 0;
    }
    if (tine_test::my_rank == 0) {
      std::printf("searches: %d of 20 stopped\n", stopped);
    }
  }
  return tine_test::finish("mpi_pool_stop_test");
}
