#ifndef TINE_DISTRIBUTED_REMOTE_ERROR_HPP
#define TINE_DISTRIBUTED_REMOTE_ERROR_HPP

/// \file remote_error.hpp
/// `tine::mpi::remote_error`: what an exception becomes when it crosses MPI ranks and its type
/// cannot travel (register_exception.hpp lists the types that travel as themselves, and how a
/// program makes its own types travel). It carries the original `what()`, or for a type not
/// derived from `std::exception` the sentence "an exception of a type not derived from
/// std::exception".

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <stdexcept>
#include <string>

namespace tine::mpi {

class remote_error : public std::runtime_error {
 public:
  /// `message`: the original `what()`; `origin_rank`: the rank where it was described for the
  /// trip (-1 when unknown).
  remote_error(const std::string& message, int origin_rank)
      : std::runtime_error(message), m_origin_rank(origin_rank) {}

  /// The rank on which the original exception was described for the trip to other ranks.
  int origin_rank() const noexcept { return m_origin_rank; }

 private:
  int m_origin_rank;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_REMOTE_ERROR_HPP
