#ifndef TINE_CORE_CONTEXT_HPP
#define TINE_CORE_CONTEXT_HPP

/// \file context.hpp
/// Moved: `tine::worker_context` is in <tine/core/worker_context.hpp>, the file named for what it
/// holds. This header only forwards to it, and goes in tine 0.3 (CHANGELOG.md).

#include <tine/core/worker_context.hpp>

#endif  // TINE_CORE_CONTEXT_HPP
