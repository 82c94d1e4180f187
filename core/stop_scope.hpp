#ifndef TINE_CORE_STOP_SCOPE_HPP
#define TINE_CORE_STOP_SCOPE_HPP

/// \file stop_scope.hpp
/// Moved: tine::stop_scope, in <tine/application/stop_scope.hpp> since the application layer left
/// core. This header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/application/stop_scope.hpp>

#endif  // TINE_CORE_STOP_SCOPE_HPP
