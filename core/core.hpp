#ifndef TINE_CORE_CORE_HPP
#define TINE_CORE_CORE_HPP

/// \file core.hpp
/// Umbrella: the task API in one include. tine's core (tasks, fork/call/join, sync_wait,
/// cancellation, the stack allocation API, the worker context that scheduler plugins drive) with
/// the two layers above it that every application uses: application/ (spawn and futures,
/// when_all, stop scopes, explicit scheduling) and reducers/ (reducers, monoids, deterministic
/// random numbers). The core's own files include none of them.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/application/future.hpp>
#include <tine/application/resume_on.hpp>
#include <tine/application/spawn.hpp>
#include <tine/application/stop_scope.hpp>
#include <tine/application/when_all.hpp>
#include <tine/core/cancelled.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/stop.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/core/version.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/reducers/dprng.hpp>
#include <tine/reducers/monoids.hpp>
#include <tine/reducers/reducer.hpp>

#endif  // TINE_CORE_CORE_HPP
