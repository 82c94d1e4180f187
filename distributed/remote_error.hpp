#ifndef TINE_DISTRIBUTED_REMOTE_ERROR_HPP
#define TINE_DISTRIBUTED_REMOTE_ERROR_HPP

/// \file remote_error.hpp
/// `tine::mpi::remote_error`: how an exception crosses processes. An exception object lives in one
/// process's heap and cannot be copied to another, so what travels is its message: a root task
/// that throws on an `mpi_pool` makes `tine::sync_wait` throw a `remote_error` on every rank,
/// whose `what()` is the original exception's `what()`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <stdexcept>
#include <string>

namespace tine::mpi {

class remote_error : public std::runtime_error {
 public:
  /// `message`: the original `what()`; `origin_rank`: the rank where the exception was caught.
  remote_error(const std::string& message, int origin_rank)
      : std::runtime_error(message), m_origin_rank(origin_rank) {}

  /// The rank on which the task's exception was caught (the rank that finished the root task).
  int origin_rank() const noexcept { return m_origin_rank; }

 private:
  int m_origin_rank;
};

namespace detail {

/// What crosses processes of an exception: its `what()`, or a sentence for other types.
inline std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& caught) {
    return caught.what();
  } catch (...) {
    return "an exception of a type not derived from std::exception";
  }
}

}  // namespace detail
}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_REMOTE_ERROR_HPP
