// Misuse of global vectors that ends the program with a message (run by mpi_run.sh with
// EXPECT_FAILURE, which requires a non-zero exit and the message):
//   pool-first:    the pool destroyed while a global vector made on it exists;
//   live-checkout: a global vector destroyed while a view of it (kept past its task) is live;
//   held-across-fork: a task forks while it holds a view (stopped in checked builds only);
// and collective calls made wrongly (collective_call.cpp: the job ends naming each rank's call):
//   vector-on-rank-0: rank 0 makes a second vector, the others go on to destroy the first;
//   different-sizes:  rank r makes a vector of 50 + r elements;
//   algorithm-on-rank-0: rank 0 calls tine::reduce on the vector, the others go on to destroy it;
//   algorithm-late:   rank 1 sleeps for 30 s before its tine::reduce; the others give up after
//                     TINE_MPI_WAIT_LIMIT.
#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace {

using view = tine::mpi::checked_out<const int, tine::mpi::access::read_t>;

std::optional<view> kept;

tine::task<void> keep_a_view(tine::mpi::global_span<const int> s) {
  kept.emplace(co_await tine::mpi::checkout(s));
}

tine::task<int> first(tine::mpi::global_span<const int> s) {
  auto in = co_await tine::mpi::checkout(s.subspan(0, 1));
  co_return in[0];
}

tine::task<int> fork_holding_a_view(tine::mpi::global_span<const int> s) {
  auto in = co_await tine::mpi::checkout(s);
  int a = 0;
  co_await tine::fork(&a, first, s);  // the view is still live
  co_await tine::join();
  co_return a + in[0];
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  const std::string what = argc > 1 ? argv[1] : "";
  auto pool = std::make_unique<tine::mpi_pool<>>();
  auto v = std::make_unique<tine::mpi::global_vector<int>>(*pool, 100);
  if (what == "pool-first") {
    pool.reset();
  } else if (what == "live-checkout") {
    tine::sync_wait(*pool, keep_a_view, v->span());
    v.reset();
  } else if (what == "held-across-fork") {
    tine::sync_wait(*pool, fork_holding_a_view, v->span());
  } else if (what == "vector-on-rank-0") {
    if (pool->rank() == 0) {
      tine::mpi::global_vector<int> only_here(*pool, 7);
    }
  } else if (what == "different-sizes") {
    tine::mpi::global_vector<int> sized_by_rank(*pool, 50 + static_cast<unsigned>(pool->rank()));
  } else if (what == "algorithm-on-rank-0") {
    if (pool->rank() == 0) {
      (void)tine::reduce(*pool, *v);
    }
  } else if (what == "algorithm-late") {
    if (pool->rank() == 1) {
      std::this_thread::sleep_for(std::chrono::seconds(30));
    }
    (void)tine::reduce(*pool, *v);
  }
  std::puts("not stopped");
  return 0;
}
