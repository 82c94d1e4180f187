#ifndef TINE_DISTRIBUTED_FOUNDATION_EXCEPTION_TRANSPORT_HPP
#define TINE_DISTRIBUTED_FOUNDATION_EXCEPTION_TRANSPORT_HPP

/// \file exception_transport.hpp
/// How an exception crosses MPI ranks as itself (internal to `tine::mpi_pool`). An exception
/// object lives in one process's heap, so what travels is a description: the name of its type,
/// its `what()`, and whatever else the type needs to be rebuilt. This process's registry of the
/// types that travel (the standard ones, and those `tine::mpi::register_exception` adds:
/// register_exception.hpp) writes the description on one rank and rebuilds the object from it on
/// another.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <string>
#include <string_view>

#include <tine/distributed/register_exception.hpp>

namespace tine::mpi::detail {

/// The bytes that describe `e` (its type's name, its what(), its payload, `origin_rank`).
std::string serialise_exception(const std::exception_ptr& e, int origin_rank);

/// An exception rebuilt from serialise_exception's bytes: of the registered type it names, or a
/// remote_error carrying its what() when this process knows no such type.
std::exception_ptr rebuild_exception(std::string_view bytes);

/// The what() of `e`, or a sentence for a type not derived from std::exception.
std::string message_of(const std::exception_ptr& e);

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_FOUNDATION_EXCEPTION_TRANSPORT_HPP
