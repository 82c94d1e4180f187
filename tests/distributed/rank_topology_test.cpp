// Ranks as a topology (run by mpiexec on 1 to 4 ranks, all on this one machine), and victim
// policies over it: uniform over the other ranks, and NUMA-weighted ranks preferring their own
// machine in a made-up layout of two machines.

#include <tine/distributed/environment.hpp>
#include <tine/distributed/rank_topology.hpp>
#include <tine/policies/numa_victims.hpp>
#include <tine/policies/random.hpp>
#include <tine/policies/uniform_victims.hpp>
#include <tine/policies/victim_policy.hpp>

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine_test::my_rank;

void check_this_machine(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const tine::topology topo = tine::mpi::rank_topology(comm);
  CHECK(topo.size() == static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < topo.size(); ++i) {
    CHECK(topo.numa_node(i) == 0);  // one machine
    for (std::size_t j = 0; j < topo.size(); ++j) {
      CHECK(topo.distance(i, j) == (i == j ? 0U : 1U));
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

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  check_this_machine(MPI_COMM_WORLD);
  check_two_machines();
  const int status = tine_test::finish("rank_topology_test");
  return status;
}
