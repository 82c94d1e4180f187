#ifndef TINE_DISTRIBUTED_RANK_TOPOLOGY_HPP
#define TINE_DISTRIBUTED_RANK_TOPOLOGY_HPP

/// \file rank_topology.hpp
/// The ranks of a communicator as a `tine::topology`, one place per rank, so that every victim
/// policy written for workers chooses among ranks unchanged: `uniform_victims` draws any other
/// rank, and `numa_victims` prefers ranks on the same node (libfork paper, eq. 6: each distance
/// class weighs 1/r², so with distance 1 within a node and 2 across, a thief with ranks on its own
/// node and elsewhere picks its own node four times as often as all others together).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstddef>
#include <vector>

#include <tine/policies/topology.hpp>

namespace tine::mpi {

/// Collective over `comm`: place r is rank r of `comm`; its NUMA node is the index of its
/// machine (ranks that share memory, `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`), numbered in
/// the order of each machine's lowest rank; distance 1 between ranks of one machine, 2 across.
topology rank_topology(MPI_Comm comm);

/// The same from a given assignment: `machine_of_rank[r]` is any label of rank r's machine
/// (equal labels, same machine). For tests, and for a launcher that knows better than MPI.
/// Throws std::invalid_argument for an empty assignment.
topology rank_topology_from_machines(const std::vector<int>& machine_of_rank);

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_RANK_TOPOLOGY_HPP
