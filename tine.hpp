#ifndef TINE_TINE_HPP
#define TINE_TINE_HPP

/// \file tine.hpp
/// All of tine: the core (tasks, fork/call/join, sync_wait, stack allocation, explicit
/// scheduling), the victim policies, the schedulers, the parallel algorithms and the work/span
/// analyzer.
/// Bazel target: `@tine//:tine`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/algorithms/algorithms.hpp>
#include <tine/analysis/analyze.hpp>
#include <tine/analysis/region.hpp>
#include <tine/core/core.hpp>
#include <tine/policies/cpu_claims.hpp>
#include <tine/policies/numa_victims.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/uniform_victims.hpp>
#include <tine/policies/victim_policy.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/schedulers/pool_observer.hpp>
#include <tine/schedulers/stats_observer.hpp>
#include <tine/schedulers/trace_observer.hpp>

#endif  // TINE_TINE_HPP
