// Local collection of remotely freed blocks (run by mpiexec on 1 to 4 ranks): every rank
// allocates blocks in its slice, frees some itself and hands the others to the next rank, which
// frees them with a put the owner never waits for; the owner, computing without MPI calls,
// reclaims them all by looking at their free bits, and the region ends with nothing allocated.

#include <tine/distributed/environment.hpp>
#include <tine/distributed/progress_thread.hpp>
#include <tine/distributed/remote_objects.hpp>
#include <tine/distributed/uni_address_region.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine_test::my_rank;

constexpr int blocks = 200;

void check_local_rules(tine::mpi::uni_address_region& region) {
  tine::mpi::remote_objects objects(region);
  void* a = objects.allocate(100);
  void* b = objects.allocate(5000);
  void* c = objects.allocate(1);
  CHECK(a != nullptr && b != nullptr && c != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 64 == 0);
  CHECK(objects.live_blocks() == 3);
  objects.free_local(b);  // from the middle of the list
  CHECK(objects.live_blocks() == 2);
  CHECK(objects.collect() == 0);  // nothing freed remotely
  objects.free_local(c);
  objects.free_local(a);
  CHECK(objects.live_blocks() == 0 && objects.live_bytes() == 0);
  CHECK(region.allocated_bytes() == 0);
}

void check_remote_frees(MPI_Comm comm, tine::mpi::uni_address_region& region) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  // Reclaiming starts early, so allocate() collects along the way too.
  tine::mpi::remote_objects objects(region, 64 * 1024);
  std::vector<std::uint64_t> mine;
  for (int i = 0; i < blocks; ++i) {
    const std::size_t bytes = 64 + static_cast<std::size_t>(i % 7) * 300;
    void* p = objects.allocate(bytes);
    CHECK(p != nullptr);
    std::memset(p, my_rank + 1, bytes);
    if (i % 2 == 0) {
      mine.push_back(reinterpret_cast<std::uintptr_t>(p));
    } else {
      objects.free_local(p);
    }
  }
  CHECK(objects.live_blocks() == blocks / 2);
  // Hand the rest to the next rank (to itself when alone: then they are freed locally).
  const int to = (my_rank + 1) % size;
  const int from = (my_rank + size - 1) % size;
  std::vector<std::uint64_t> theirs(mine.size());
  MPI_Sendrecv(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, to, 0, theirs.data(),
               static_cast<int>(theirs.size()), MPI_UINT64_T, from, 0, comm, MPI_STATUS_IGNORE);
  if (size == 1) {
    for (const std::uint64_t p : theirs) {
      objects.free_local(reinterpret_cast<void*>(p));
    }
  } else {
    for (const std::uint64_t p : theirs) {
      CHECK(region.home_rank(reinterpret_cast<void*>(p)) == from);
      tine::mpi::remote_objects::free_remote(region, reinterpret_cast<void*>(p));
    }
    MPI_Win_flush_all(region.window());
  }
  // Reclaim without calling MPI until every block is back (the progress thread completes the
  // puts), with a deadline that only a hang would reach.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (objects.live_blocks() != 0 && std::chrono::steady_clock::now() < deadline) {
    objects.collect();
  }
  CHECK(objects.live_blocks() == 0);
  CHECK(region.allocated_bytes() == 0);
  MPI_Barrier(comm);
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi::uni_address_region region(MPI_COMM_WORLD, std::size_t{16} << 20);
    tine::mpi::progress_thread progress(MPI_COMM_WORLD);
    check_local_rules(region);
    check_remote_frees(MPI_COMM_WORLD, region);
  }
  const int status = tine_test::finish("remote_objects_test");
  return status;
}
