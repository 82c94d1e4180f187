#ifndef TINE_DISTRIBUTED_DISTRIBUTED_HPP
#define TINE_DISTRIBUTED_DISTRIBUTED_HPP

/// \file distributed.hpp
/// Umbrella: everything a program needs to run tine tasks across MPI ranks (with the task API of
/// <tine/core/core.hpp>): the environment (MPI's lifetime,
/// the same code addresses on every rank), `tine::mpi_pool` with its collective `sync_wait`, and
/// `tine::mpi::remote_error`. See docs/distributed.md.

#include <tine/core/core.hpp>
#include <tine/distributed/environment.hpp>
#include <tine/distributed/foundation/exception_transport.hpp>
#include <tine/distributed/global_algorithms.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/memory/global_scan.hpp>
#include <tine/distributed/memory/global_sort.hpp>
#include <tine/distributed/mpi_pool.hpp>
#include <tine/distributed/remote_error.hpp>

#endif  // TINE_DISTRIBUTED_DISTRIBUTED_HPP
