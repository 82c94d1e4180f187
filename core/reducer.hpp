#ifndef TINE_CORE_REDUCER_HPP
#define TINE_CORE_REDUCER_HPP

/// \file reducer.hpp
/// Moved: tine::reducer, in <tine/reducers/reducer.hpp> since the reducers layer left core. This
/// header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/reducers/reducer.hpp>

#endif  // TINE_CORE_REDUCER_HPP
