#ifndef TINE_CORE_WHEN_ALL_HPP
#define TINE_CORE_WHEN_ALL_HPP

/// \file when_all.hpp
/// Moved: tine::when_all, in <tine/application/when_all.hpp> since the application layer left core.
/// This header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/application/when_all.hpp>

#endif  // TINE_CORE_WHEN_ALL_HPP
