// The uni-address foundation of the distributed pool, on 1 to 4 ranks (run by mpiexec): the
// environment (same layout on every rank), the region (same address everywhere, disjoint
// slices, allocation), moving bytes between ranks to the same address with every internal
// pointer still valid, and one-sided operations completing while their target computes.

#include <tine/distributed/environment.hpp>
#include <tine/distributed/foundation/progress_thread.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>

#include <tine/core/core.hpp>

#include "tests/sourced_scheduler.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine_test::my_rank;

// A stand-in for a frame with its stack allocations: nodes linked by pointers into the same
// block, as a coroutine frame's locals point at each other and at stack_alloc storage.
struct node {
  node* next;
  std::uint64_t value;
};

constexpr int chain_length = 500;

node* build_chain(void* block, int seed) {
  auto* nodes = static_cast<node*>(block);
  for (int i = 0; i < chain_length; ++i) {
    // A permutation, so the walk jumps around the block.
    const int j = (i * 7 + 3) % chain_length;
    const int k = ((i + 1) * 7 + 3) % chain_length;
    nodes[j].value = static_cast<std::uint64_t>(seed) * 1000 + static_cast<std::uint64_t>(i);
    nodes[j].next = i + 1 < chain_length ? &nodes[k] : nullptr;
  }
  return &nodes[3];
}

std::uint64_t walk(const node* n) {
  std::uint64_t sum = 0;
  int steps = 0;
  for (; n != nullptr && steps <= chain_length; n = n->next, ++steps) {
    sum += n->value;
  }
  return steps == chain_length ? sum : ~std::uint64_t{0};
}

std::uint64_t expected_sum(int seed) {
  std::uint64_t sum = 0;
  for (int i = 0; i < chain_length; ++i) {
    sum += static_cast<std::uint64_t>(seed) * 1000 + static_cast<std::uint64_t>(i);
  }
  return sum;
}

void check_region(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  tine::mpi::detail::uni_address_region region(comm, std::size_t{64} << 20);
  CHECK(region.rank() == my_rank);
  CHECK(region.size() == size);

  // The same base on every rank.
  std::uint64_t base = reinterpret_cast<std::uintptr_t>(region.base());
  std::uint64_t lowest = 0;
  std::uint64_t highest = 0;
  MPI_Allreduce(&base, &lowest, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&base, &highest, 1, MPI_UINT64_T, MPI_MAX, comm);
  CHECK(lowest == highest);

  // Blocks come from this rank's slice, aligned, distinct, reused after a free.
  void* a = region.allocate(100);
  void* b = region.allocate(20000);
  CHECK(a != nullptr && b != nullptr && a != b);
  CHECK(region.home_rank(a) == my_rank && region.home_rank(b) == my_rank);
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
  CHECK(region.allocated_bytes() == (8u << 10) + (32u << 10));
  region.deallocate(a, 100);
  CHECK(region.allocate(8000) == a);
  CHECK(region.home_rank(&base) == -1);
  CHECK(region.allocate(region.slice_bytes() + 1) == nullptr);

  // Each rank builds a chain in its slice; the next rank copies it to the same address and walks
  // its pointers there.
  void* block = region.allocate(chain_length * sizeof(node));
  const node* head = build_chain(block, my_rank + 1);
  std::uint64_t mine[2] = {reinterpret_cast<std::uintptr_t>(block),
                           reinterpret_cast<std::uintptr_t>(head)};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, comm);
  const int from = (my_rank + size - 1) % size;
  auto* theirs = reinterpret_cast<node*>(all[2 * static_cast<std::size_t>(from)]);
  auto* their_head = reinterpret_cast<node*>(all[2 * static_cast<std::size_t>(from) + 1]);
  CHECK(region.home_rank(theirs) == from);
  if (from != my_rank) {
    CHECK(walk(their_head) != expected_sum(from + 1));  // not here before the copy
  }
  region.fetch(from, theirs, chain_length * sizeof(node));
  CHECK(walk(their_head) == expected_sum(from + 1));

  // Write a result into the copy and store it back where it came from, as a child whose parent
  // moved sends its result to the parent's rank.
  their_head->value += 1000000;
  region.store(from, &their_head->value, sizeof(their_head->value));
  MPI_Barrier(comm);
  MPI_Win_sync(region.window());
  CHECK(walk(head) == expected_sum(my_rank + 1) + 1000000);
  MPI_Barrier(comm);
  region.deallocate(block, chain_length * sizeof(node));
  region.deallocate(b, 20000);
}

const tine::mpi::detail::uni_address_region* region_of_frames = nullptr;
bool frames_in_slice = true;

void note_frame(const void* local) {
  if (region_of_frames->home_rank(local) != my_rank) {
    frames_in_slice = false;
  }
}

tine::task<long> fib(int n) {
  long a = 0;
  note_frame(&a);
  if (n < 2) {
    co_return n;
  }
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

// Children's results in a stack allocation, as UTS's variant with children in stack_alloc.
tine::task<long> tree(int depth) {
  if (depth == 0) {
    co_return 1;
  }
  auto parts = co_await tine::stack_alloc<long>(3);
  note_frame(parts.data());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    co_await tine::fork(&parts[i], tree, depth - 1);
  }
  co_await tine::join();
  co_return 1 + parts[0] + parts[1] + parts[2];
}

// A worker whose stacklets come from this rank's slice: every frame and stack allocation of its
// tasks is at an address of the slice, and every stacklet goes back to the slice.
void check_frames_in_slice(tine::mpi::detail::uni_address_region& region) {
  region_of_frames = &region;
  frames_in_slice = true;
  const std::size_t before = region.allocated_bytes();
  {
    tine_test::sourced_scheduler sched(region.stacklet_source());
    CHECK(region.allocated_bytes() > before);
    CHECK(tine::sync_wait(sched, fib, 22) == 17711);
    CHECK(tine::sync_wait(sched, tree, 7) == 3280);  // (3^8 - 1) / 2 nodes
  }
  CHECK(frames_in_slice);
  CHECK(region.allocated_bytes() == before);
  CHECK(tine::mpi::detail::uni_address_region::block_bytes(1) == 8192);
  CHECK(tine::mpi::detail::uni_address_region::block_bytes(8193) == 16384);
}

// Rank 0 computes without calling MPI until a flag in its slice is set, by every other rank with
// an MPI_Put: only a progress thread can complete those while rank 0 computes.
void check_progress(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  tine::mpi::detail::uni_address_region region(comm, std::size_t{1} << 20);
  tine::mpi::detail::progress_thread progress(comm);
  auto* flags = reinterpret_cast<std::uint64_t*>(region.slice_begin(0));
  if (my_rank == 0) {
    for (int r = 0; r < size; ++r) {
      flags[r] = 0;
    }
  }
  MPI_Barrier(comm);
  if (my_rank == 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int seen = 0;
    while (seen < size - 1 && std::chrono::steady_clock::now() < deadline) {
      seen = 0;
      for (int r = 1; r < size; ++r) {
        seen += std::atomic_ref<std::uint64_t>(flags[r]).load(std::memory_order_acquire) ==
                        static_cast<std::uint64_t>(r)
                    ? 1
                    : 0;
      }
    }
    CHECK(seen == size - 1);
  } else {
    std::uint64_t value = static_cast<std::uint64_t>(my_rank);
    flags[my_rank] = value;
    region.store(0, &flags[my_rank], sizeof value);
  }
  MPI_Barrier(comm);
  if (my_rank == 0 && size > 1) {
    CHECK(!progress.running() || progress.polls() > 0);  // it did the work
  }
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  CHECK(env.owns_mpi());
  tine_test::start_checks();
  check_region(MPI_COMM_WORLD);
  {
    tine::mpi::detail::uni_address_region region(MPI_COMM_WORLD, std::size_t{64} << 20);
    check_frames_in_slice(region);
  }
  check_progress(MPI_COMM_WORLD);
  const int status = tine_test::finish("region_test");
  return status;
}
