// Misuse of global vectors that ends the program with a message (run by mpi_run.sh with
// EXPECT_FAILURE, which requires a non-zero exit and the message):
//   pool-first:    the pool destroyed while a global vector made on it exists;
//   live-checkout: a global vector destroyed while a view of it (kept past its task) is live.
#include <tine/distributed/distributed.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace {

using view = tine::mpi::checked_out<const int, tine::mpi::access::read_t>;

std::optional<view> kept;

tine::task<void> keep_a_view(tine::mpi::global_span<const int> s) {
  kept.emplace(co_await tine::mpi::checkout(s));
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
  }
  std::puts("not stopped");
  return 0;
}
