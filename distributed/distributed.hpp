#ifndef TINE_DISTRIBUTED_DISTRIBUTED_HPP
#define TINE_DISTRIBUTED_DISTRIBUTED_HPP

/// \file distributed.hpp
/// Umbrella: everything a program needs to run tine tasks across MPI ranks (with the task API of
/// <tine/core/core.hpp>): the environment (MPI's lifetime, the same code addresses on every
/// rank), `tine::mpi_pool` with its collective `sync_wait`, its options and counters, global
/// vectors with their traffic and tine's algorithms over them (scans and sorts included),
/// `tine::mpi::register_exception` and `tine::mpi::remote_error`. Every public name of
/// distributed/ is declared in one of the headers at its top; the folders below hold the
/// internals (`tine::mpi::detail`). See docs/distributed.md.

#include <tine/core/core.hpp>
#include <tine/distributed/environment.hpp>
#include <tine/distributed/global_algorithms.hpp>
#include <tine/distributed/global_scan.hpp>
#include <tine/distributed/global_sort.hpp>
#include <tine/distributed/global_traffic.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/mpi_pool.hpp>
#include <tine/distributed/pool_counters.hpp>
#include <tine/distributed/pool_options.hpp>
#include <tine/distributed/register_exception.hpp>
#include <tine/distributed/remote_error.hpp>

#endif  // TINE_DISTRIBUTED_DISTRIBUTED_HPP
