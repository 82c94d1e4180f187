#ifndef TINE_CORE_DPRNG_HPP
#define TINE_CORE_DPRNG_HPP

/// \file dprng.hpp
/// Moved: tine::dprng, in <tine/reducers/dprng.hpp> since the reducers layer left core. This header
/// only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/reducers/dprng.hpp>

#endif  // TINE_CORE_DPRNG_HPP
