#ifndef TINE_POLICIES_VICTIM_POLICY_HPP
#define TINE_POLICIES_VICTIM_POLICY_HPP

/// \file victim_policy.hpp
/// What a scheduler asks of the code that picks whom a thief steals from.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>

#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>

namespace tine {

/// A victim policy names, for a worker that ran out of work (the thief), the worker to try to
/// steal from next.
///
/// Contract:
/// - A pool constructs its policy once, from `(const topology&)`, before its workers start; the
///   policy may keep whatever it precomputes from the topology (but not a reference to it: the
///   pool need not keep the topology alive).
/// - `p.next_victim(thief, rng)` takes the thief's index in [0, topo.size()) and the thief's own
///   generator, and returns a worker index in [0, topo.size()).
/// - The victim is never the thief when size > 1. When size == 1 it is 0, the thief itself: a
///   lone worker may "steal" from itself, and the runtime handles that.
/// - `next_victim` is const and is called concurrently by every thief, each with its own rng:
///   it may read the policy's state but must not change it (no mutable caches, no locks).
/// - It runs inside the steal loop: it must be cheap (O(1) or O(log n), a couple of random
///   draws), must not allocate, block or make system calls, and should not throw.
/// - Randomness comes only from `rng`, so a seeded pool picks the same victims run after run.
template <typename P>
concept victim_policy = std::destructible<P> && std::constructible_from<P, const topology&> &&
                        requires(const P& policy, std::size_t thief, xoshiro256ss& rng) {
                          { policy.next_victim(thief, rng) } -> std::same_as<std::size_t>;
                        };

}  // namespace tine

#endif  // TINE_POLICIES_VICTIM_POLICY_HPP
