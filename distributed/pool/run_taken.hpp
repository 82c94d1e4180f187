#ifndef TINE_DISTRIBUTED_POOL_RUN_TAKEN_HPP
#define TINE_DISTRIBUTED_POOL_RUN_TAKEN_HPP

/// \file run_taken.hpp
/// How a worker of a distributed pool runs a continuation it took (internal to `tine::mpi_pool`).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <new>

#include <tine/core/frame.hpp>
#include <tine/core/worker_context.hpp>

namespace tine::mpi::detail {

/// Runs a continuation this worker took: from a deque of its rank, back from its own lane, or
/// from another rank. It cannot be put back (its strands' arrivals, perhaps on other ranks, count
/// on it running), so no memory for a stack to run it on ends the program.
inline void run_taken(tine::worker_context& w, tine::detail::frame* f) {
  try {
    w.resume_stolen(f);
  } catch (const std::bad_alloc&) {
    tine::detail::fatal("tine::mpi_pool: no memory for a stack to run a taken continuation on");
  }
}

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_RUN_TAKEN_HPP
