#ifndef TINE_CORE_CORE_HPP
#define TINE_CORE_CORE_HPP

/// \file core.hpp
/// Everything in tine's core: tasks, fork/call/join, sync_wait, spawn and futures, cancellation,
/// the stack allocation API, explicit scheduling, reducers, deterministic random numbers and the
/// worker context that scheduler plugins drive.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/core/cancelled.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/dprng.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/future.hpp>
#include <tine/core/join.hpp>
#include <tine/core/monoids.hpp>
#include <tine/core/reducer.hpp>
#include <tine/core/resume_on.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/spawn.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/stop.hpp>
#include <tine/core/stop_scope.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/core/version.hpp>
#include <tine/core/when_all.hpp>
#include <tine/core/worker_context.hpp>

#endif  // TINE_CORE_CORE_HPP
