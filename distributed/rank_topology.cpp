#include <tine/distributed/rank_topology.hpp>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

namespace tine::mpi {

topology rank_topology_from_machines(const std::vector<int>& machine_of_rank) {
  const std::size_t n = machine_of_rank.size();
  if (n == 0) {
    throw std::invalid_argument("tine::mpi::rank_topology_from_machines: no ranks");
  }
  // Dense node indices in the order machines first appear (that is, of their lowest rank).
  std::map<int, std::size_t> index;
  std::vector<std::size_t> node(n);
  for (std::size_t r = 0; r < n; ++r) {
    node[r] = index.try_emplace(machine_of_rank[r], index.size()).first->second;
  }
  std::vector<unsigned> distances(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      distances[i * n + j] = i == j ? 0U : node[i] == node[j] ? 1U : 2U;
    }
  }
  return topology::from_distances(std::move(node), std::move(distances));
}

namespace {

// TINE_MPI_RANKS_PER_MACHINE on this rank: its value if a positive integer, 0 if unset, -1 if
// set to anything else.
int ranks_per_machine_setting() {
  const char* text = std::getenv(ranks_per_machine_variable);
  if (text == nullptr) {
    return 0;
  }
  char* end = nullptr;
  errno = 0;
  const long k = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || k <= 0 || k > INT_MAX) {
    return -1;
  }
  return static_cast<int>(k);
}

}  // namespace

topology rank_topology(MPI_Comm comm) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // A machine's label: the lowest rank (in `comm`) of the ranks that share its memory. Asked
  // even when the variable overrides it, so that every rank makes the same collective calls.
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int label = 0;
  MPI_Allreduce(&rank, &label, 1, MPI_INT, MPI_MIN, local);
  MPI_Comm_free(&local);
  // The made-up layout, if asked for: the same on every rank, or refused on every rank.
  // One reduction for both extremes: the least negated setting is the greatest setting, negated.
  const int setting = ranks_per_machine_setting();
  const int mine[2] = {setting, -setting};
  int least[2] = {0, 0};
  MPI_Allreduce(mine, least, 2, MPI_INT, MPI_MIN, comm);
  const int lowest = least[0];
  const int highest = -least[1];
  if (lowest != highest || lowest < 0) {
    const char* text = std::getenv(ranks_per_machine_variable);
    throw std::invalid_argument(
        std::string("tine::mpi::rank_topology: ") + ranks_per_machine_variable +
        " must be unset or the same positive integer on every rank (on rank " +
        std::to_string(rank) + " it is " +
        (text == nullptr ? "unset" : "'" + std::string(text) + "'") +
        (lowest != highest ? ", and it differs between ranks)" : ")"));
  }
  if (setting > 0) {
    label = rank / setting;
  }
  std::vector<int> labels(static_cast<std::size_t>(size));
  MPI_Allgather(&label, 1, MPI_INT, labels.data(), 1, MPI_INT, comm);
  return rank_topology_from_machines(labels);
}

}  // namespace tine::mpi
