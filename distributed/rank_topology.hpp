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

/// The environment variable that makes up a layout of machines: with
/// `TINE_MPI_RANKS_PER_MACHINE=k` (the same positive integer on every rank), rank r counts as on
/// machine r / k, whatever machines the ranks really run on. With the MPI library's shared-memory
/// transport turned off as well (docs/distributed.md), ranks of one machine then exercise what
/// ranks on several machines do: tine's tests run that way.
inline constexpr const char* ranks_per_machine_variable = "TINE_MPI_RANKS_PER_MACHINE";

/// Collective over `comm`: place r is rank r of `comm`; its NUMA node is the index of its
/// machine (ranks that share memory, `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`, or the layout
/// `TINE_MPI_RANKS_PER_MACHINE` makes up), numbered in the order of each machine's lowest rank;
/// distance 1 between ranks of one machine, 2 across. Throws std::invalid_argument on every rank
/// if the variable is set to anything but a positive integer, or differs between ranks.
topology rank_topology(MPI_Comm comm);

/// The same from a given assignment: `machine_of_rank[r]` is any label of rank r's machine
/// (equal labels, same machine). For tests, and for a launcher that knows better than MPI.
/// Throws std::invalid_argument for an empty assignment.
topology rank_topology_from_machines(const std::vector<int>& machine_of_rank);

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_RANK_TOPOLOGY_HPP
