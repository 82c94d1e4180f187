#ifndef TINE_DISTRIBUTED_FOUNDATION_COLLECTIVE_CALL_HPP
#define TINE_DISTRIBUTED_FOUNDATION_COLLECTIVE_CALL_HPP

/// \file collective_call.hpp
/// How the ranks of a distributed pool make sure they are in the same collective call (internal
/// to `tine::mpi_pool`). Every collective member of the pool (`sync_wait`, the destructor, and
/// the constructor and destructor of a global vector made on it) starts by announcing what it is
/// to the other ranks. When the ranks disagree (one rank's `sync_wait` meets another's
/// destructor, a root of another function or result size, or a global vector of another size or
/// element size) the job ends with a message that names each rank's call, where it would
/// otherwise wait forever, or worse, mix two calls' messages or lay out a vector's blocks
/// differently on each rank. A rank whose partners do not come waits sleeping, not spinning, and
/// says so on stderr after a minute (and again each time the wait doubles);
/// `TINE_MPI_WAIT_LIMIT=S` ends the job instead after S seconds.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <cstdint>

namespace tine::mpi::detail {

/// What a rank is about to do.
struct collective_call {
  enum kind_t : std::uint64_t { root = 1, destroy = 2, allocate = 3, deallocate = 4 };
  std::uint64_t kind;
  std::uint64_t sequence;  ///< how many collective calls this pool made before
  /// for a root: its function's identity; for a global vector: its elements
  std::uint64_t signature;
  std::uint64_t result_bytes;  ///< for a root: its result's size; for a global vector: an element's
};

/// Collective over `comm`: returns once every rank announced `mine`, the same call. Ends the job
/// with a message otherwise.
void agree_on_call(MPI_Comm comm, const collective_call& mine);

/// Ends the job: rank 0 of `comm` prints `message` (after "tine: fatal: "), every rank of `comm`
/// (all of which call this) waits for that, then exits with status 1 without finalising MPI.
[[noreturn]] void stop_job(MPI_Comm comm, const char* message);

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_FOUNDATION_COLLECTIVE_CALL_HPP
