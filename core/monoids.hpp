#ifndef TINE_CORE_MONOIDS_HPP
#define TINE_CORE_MONOIDS_HPP

/// \file monoids.hpp
/// Moved: tine::sum, product, min, max and append, in <tine/reducers/monoids.hpp> since the
/// reducers layer left core. This header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/reducers/monoids.hpp>

#endif  // TINE_CORE_MONOIDS_HPP
