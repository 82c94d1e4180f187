#ifndef TINE_CORE_CANCELLED_HPP
#define TINE_CORE_CANCELLED_HPP

/// \file cancelled.hpp
/// `tine::cancelled`: the exception a stopped root (or stop scope) ends with, unless its tasks
/// return a value anyway. A fork in a stopped scope does not start its child; it stores a
/// `tine::cancelled` in the forking task instead, which its join rethrows (docs/application.md).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>

namespace tine {

class cancelled : public std::exception {
 public:
  const char* what() const noexcept override {
    return "tine::cancelled: the task's root or stop scope was asked to stop";
  }
};

}  // namespace tine

#endif  // TINE_CORE_CANCELLED_HPP
