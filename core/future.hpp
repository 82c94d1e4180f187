#ifndef TINE_CORE_FUTURE_HPP
#define TINE_CORE_FUTURE_HPP

/// \file future.hpp
/// Moved: tine::future and tine::stop_handle, in <tine/application/future.hpp> since the
/// application layer left core. This header only forwards to it, and goes in tine 0.3
/// (CHANGELOG.md).

#include <tine/application/future.hpp>

#endif  // TINE_CORE_FUTURE_HPP
