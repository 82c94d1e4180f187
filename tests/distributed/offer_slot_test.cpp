// tine::mpi::detail::offer_slot on 1 to 3 ranks (run by mpiexec): every rank offers items in its
// slot, one at a time, and takes some back, as a worker offers its oldest continuation and takes it
// back when nobody came; between its own operations it takes from the other ranks' slots. Every
// item offered must be taken exactly once, by its owner or by one thief, and on more than one
// rank some must have been taken across ranks (a run without would prove nothing).

#include <tine/distributed/environment.hpp>
#include <tine/distributed/foundation/progress_thread.hpp>
#include <tine/distributed/pool/offer_slot.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <vector>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine_test::my_rank;

void check_single_rank_rules() {
  // On this rank alone (a duplicate of COMM_SELF): one item at a time, taken once.
  tine::mpi::detail::offer_slot s(MPI_COMM_SELF);
  CHECK(!s.offered());
  CHECK(!s.take(0).has_value());
  CHECK(!s.take_back().has_value());
  CHECK(s.offer(5));
  CHECK(s.offered());
  CHECK(!s.offer(6));  // the slot holds 5
  CHECK(s.take(0) == std::optional<std::uint64_t>(5));
  CHECK(!s.offered());
  CHECK(!s.take_back().has_value());  // a thief took it
  CHECK(s.offer(7));
  CHECK(s.take_back() == std::optional<std::uint64_t>(7));
  CHECK(!s.take(0).has_value());
  bool threw = false;
  try {
    (void)s.offer(0);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
  CHECK(!s.offered());
}

// Each rank offers an item its neighbour then takes: the thief must see exactly the owner's word
// (a window laid out differently on the two sides would not).
void check_neighbour_takes(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  tine::mpi::detail::offer_slot s(comm);
  for (std::uint64_t round = 1; round <= 3; ++round) {
    CHECK(s.offer((static_cast<std::uint64_t>(my_rank) << 32) + round * 3));
    MPI_Barrier(comm);
    const int victim = (my_rank + 1) % size;
    CHECK(s.take(victim) ==
          std::optional<std::uint64_t>((static_cast<std::uint64_t>(victim) << 32) + round * 3));
    CHECK(!s.take(victim).has_value());
    MPI_Barrier(comm);
    CHECK(!s.offered());
  }
}

void check_concurrent(MPI_Comm comm, int rounds) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  tine::mpi::detail::progress_thread progress(comm);
  tine::mpi::detail::offer_slot s(comm);
  std::mt19937_64 rng(static_cast<std::uint64_t>(my_rank) * 7919 + 17);
  std::vector<std::uint64_t> taken;
  std::uint64_t next = 1;
  std::uint64_t steals = 0;
  for (int round = 0; round < rounds; ++round) {
    if (!s.offered()) {
      // Ids 1, 2, ... per rank, the rank in the high bits: never 0.
      CHECK(s.offer((static_cast<std::uint64_t>(my_rank) << 40) | next));
      ++next;
    }
    if (rng() % 3 == 0) {
      if (const auto v = s.take_back()) {
        taken.push_back(*v);
      }
    }
    if (size > 1) {
      int victim = static_cast<int>(rng() % static_cast<std::uint64_t>(size - 1));
      victim += victim >= my_rank ? 1 : 0;
      if (const auto v = s.take(victim)) {
        taken.push_back(*v);
        ++steals;
      }
    }
  }
  MPI_Barrier(comm);  // nobody takes any more
  if (const auto v = s.take_back()) {
    taken.push_back(*v);
  }
  CHECK(!s.offered());

  // Every offered id was taken exactly once, somewhere.
  const int count = static_cast<int>(taken.size());
  std::vector<int> counts(static_cast<std::size_t>(size));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::vector<int> offsets(static_cast<std::size_t>(size), 0);
  for (int r = 1; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] =
        offsets[static_cast<std::size_t>(r) - 1] + counts[static_cast<std::size_t>(r) - 1];
  }
  std::vector<std::uint64_t> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(taken.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(),
                 MPI_UINT64_T, comm);
  std::vector<std::uint64_t> offered(static_cast<std::size_t>(size));
  MPI_Allgather(&next, 1, MPI_UINT64_T, offered.data(), 1, MPI_UINT64_T, comm);
  std::sort(all.begin(), all.end());
  std::vector<std::uint64_t> expected;
  for (int r = 0; r < size; ++r) {
    for (std::uint64_t i = 1; i < offered[static_cast<std::size_t>(r)]; ++i) {
      expected.push_back((static_cast<std::uint64_t>(r) << 40) | i);
    }
  }
  CHECK(all == expected);
  if (all != expected && my_rank == 0) {
    std::fprintf(stderr, "taken %zu items, offered %zu\n", all.size(), expected.size());
  }
  std::uint64_t total_steals = 0;
  MPI_Allreduce(&steals, &total_steals, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (size > 1) {
    CHECK(total_steals > 0);
  }
  if (my_rank == 0) {
    std::printf("offer_slot_test: %zu items, %llu taken across ranks\n", expected.size(),
                static_cast<unsigned long long>(total_steals));
  }
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  check_single_rank_rules();
  check_neighbour_takes(MPI_COMM_WORLD);
  // More rounds for a longer run by hand: offer_slot_test_program ROUNDS.
  check_concurrent(MPI_COMM_WORLD, argc > 1 ? std::atoi(argv[1]) : 1500);
  return tine_test::finish("offer_slot_test");
}
