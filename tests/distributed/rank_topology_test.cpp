// Ranks as a topology (run by mpiexec on 1 to 4 ranks of this one machine, and on 4 ranks that
// TINE_MPI_RANKS_PER_MACHINE=2 places on two made-up machines), and victim policies over it:
// uniform over the other ranks, and NUMA-weighted ranks preferring their own machine in a
// made-up layout of two machines. A made-up layout that is malformed or differs between ranks
// is refused on every rank.

#include <tine/distributed/environment.hpp>
#include <tine/distributed/rank_topology.hpp>
#include <tine/policies/numa_victims.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/uniform_victims.hpp>
#include <tine/policies/victim_policy.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine_test::my_rank;

// The machine rank r is on: all on this one, unless TINE_MPI_RANKS_PER_MACHINE=k makes up
// machines of k ranks each (the cross-machine form of this test sets it).
std::size_t machine_of(std::size_t r) {
  const char* k = std::getenv("TINE_MPI_RANKS_PER_MACHINE");
  return k == nullptr ? 0 : r / static_cast<std::size_t>(std::atoi(k));
}

void check_this_machine(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const tine::topology topo = tine::mpi::rank_topology(comm);
  CHECK(topo.size() == static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < topo.size(); ++i) {
    CHECK(topo.numa_node(i) == machine_of(i));
    for (std::size_t j = 0; j < topo.size(); ++j) {
      CHECK(topo.distance(i, j) == (i == j ? 0U : machine_of(i) == machine_of(j) ? 1U : 2U));
    }
  }
  // Uniform victims over the ranks: never the thief (unless alone), every other rank reached.
  const tine::uniform_victims policy(topo);
  tine::xoshiro256ss rng(static_cast<std::uint64_t>(my_rank) + 1);
  std::vector<int> hits(static_cast<std::size_t>(size), 0);
  for (int i = 0; i < 1000; ++i) {
    ++hits[policy.next_victim(static_cast<std::size_t>(my_rank), rng)];
  }
  for (int r = 0; r < size; ++r) {
    if (size == 1) {
      CHECK(hits[0] == 1000);
    } else if (r == my_rank) {
      CHECK(hits[static_cast<std::size_t>(r)] == 0);
    } else {
      CHECK(hits[static_cast<std::size_t>(r)] > 0);
    }
  }
}

void check_two_machines() {
  // Ranks 0, 1, 4 on one machine ("a"), 2, 3, 5 on another ("b"): labels are any ints.
  const tine::topology topo = tine::mpi::rank_topology_from_machines({7, 7, 3, 3, 7, 3});
  CHECK(topo.size() == 6);
  CHECK(topo.numa_node(0) == 0 && topo.numa_node(1) == 0 && topo.numa_node(4) == 0);
  CHECK(topo.numa_node(2) == 1 && topo.numa_node(3) == 1 && topo.numa_node(5) == 1);
  CHECK(topo.distance(0, 4) == 1 && topo.distance(0, 2) == 2 && topo.distance(3, 5) == 1);
  // Eq. 6: the own machine's two other ranks together weigh 1, the other machine's three 1/4:
  // 80% of the draws stay on the machine.
  const tine::numa_victims policy(topo);
  tine::xoshiro256ss rng(42);
  int same = 0;
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) {
    const std::size_t v = policy.next_victim(0, rng);
    CHECK(v != 0 && v < 6);
    same += topo.numa_node(v) == 0 ? 1 : 0;
  }
  const double share = static_cast<double>(same) / draws;
  CHECK(share > 0.78 && share < 0.82);
  bool threw = false;
  try {
    (void)tine::mpi::rank_topology_from_machines({});
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
}

// A made-up layout that is not a positive integer, or not the same on every rank, is refused
// on every rank with a message naming the variable (and nobody waits in a collective).
void check_bad_layouts(MPI_Comm comm) {
  const char* saved = std::getenv("TINE_MPI_RANKS_PER_MACHINE");
  const std::string kept = saved == nullptr ? "" : saved;
  int size = 0;
  MPI_Comm_size(comm, &size);
  for (const std::string& value : {std::string("0"), std::string("two"), std::string("-1"),
                                   std::string("2x"), std::to_string(my_rank + 1)}) {
    if (value == "1" && size == 1) {
      continue;  // one rank: its own value is the same everywhere, and valid
    }
    setenv("TINE_MPI_RANKS_PER_MACHINE", value.c_str(), 1);
    std::string message;
    try {
      (void)tine::mpi::rank_topology(comm);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    CHECK(message.find("TINE_MPI_RANKS_PER_MACHINE must be unset or the same positive integer "
                       "on every rank") != std::string::npos);
  }
  if (saved == nullptr) {
    unsetenv("TINE_MPI_RANKS_PER_MACHINE");
  } else {
    setenv("TINE_MPI_RANKS_PER_MACHINE", kept.c_str(), 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  check_this_machine(MPI_COMM_WORLD);
  check_two_machines();
  check_bad_layouts(MPI_COMM_WORLD);
  check_this_machine(MPI_COMM_WORLD);  // the layout as before the refused ones
  const int status = tine_test::finish("rank_topology_test");
  return status;
}
