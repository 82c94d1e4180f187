#ifndef TINE_DISTRIBUTED_POOL_OPTIONS_HPP
#define TINE_DISTRIBUTED_POOL_OPTIONS_HPP

/// \file pool_options.hpp
/// `tine::mpi::pool_options`: how a `tine::mpi_pool` is made (mpi_pool.hpp).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstddef>

namespace tine::mpi {

/// How an `mpi_pool` is made (every rank passes the same values; 0 means the default).
///
/// ```
/// tine::mpi_pool pool({.workers_per_rank = 4});
/// ```
struct pool_options {
  /// The ranks of the pool (duplicated: the pool's messages never meet the program's).
  MPI_Comm comm = MPI_COMM_WORLD;
  /// Workers on each rank, the constructing thread first. 0: the cores this rank may run on
  /// (its affinity mask), shared with the other ranks on its machine when their masks are the
  /// same (an `mpiexec` that does not bind), at least 1.
  std::size_t workers_per_rank = 0;
  /// Task-stack address space per rank (committed only as touched). 0: 1 GiB per worker.
  std::size_t slice_bytes = 0;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_POOL_OPTIONS_HPP
