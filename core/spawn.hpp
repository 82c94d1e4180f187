#ifndef TINE_CORE_SPAWN_HPP
#define TINE_CORE_SPAWN_HPP

/// \file spawn.hpp
/// Moved: tine::spawn, in <tine/application/spawn.hpp> since the application layer left core. This
/// header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/application/spawn.hpp>

#endif  // TINE_CORE_SPAWN_HPP
