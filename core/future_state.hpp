#ifndef TINE_CORE_FUTURE_STATE_HPP
#define TINE_CORE_FUTURE_STATE_HPP

/// \file future_state.hpp
/// Moved: what a future and its work share, in <tine/application/future_state.hpp> since the
/// application layer left core. This header only forwards to it, and goes in tine 0.3
/// (CHANGELOG.md).

#include <tine/application/future_state.hpp>

#endif  // TINE_CORE_FUTURE_STATE_HPP
