#ifndef TINE_CORE_RESUME_ON_HPP
#define TINE_CORE_RESUME_ON_HPP

/// \file resume_on.hpp
/// Moved: tine::resume_on, in <tine/application/resume_on.hpp> since the application layer left
/// core. This header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/application/resume_on.hpp>

#endif  // TINE_CORE_RESUME_ON_HPP
