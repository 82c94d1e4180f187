#ifndef TINE_POLICIES_UNIFORM_VICTIMS_HPP
#define TINE_POLICIES_UNIFORM_VICTIMS_HPP

/// \file uniform_victims.hpp
/// Every other worker equally likely: the classic randomized work stealing of Blumofe and
/// Leiserson, blind to the machine.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>

#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>

namespace tine {

/// Picks the victim uniformly among the workers other than the thief (one random draw).
class uniform_victims {
 public:
  explicit uniform_victims(const topology& topo) noexcept : m_size{topo.size()} {}

  /// Precondition: thief < size.
  std::size_t next_victim(std::size_t thief, xoshiro256ss& rng) const noexcept {
    if (m_size == 1) {
      return 0;
    }
    // Draw among the size - 1 others, then skip over the thief.
    const auto victim = static_cast<std::size_t>(rng.bounded(m_size - 1));
    return victim >= thief ? victim + 1 : victim;
  }

  std::size_t size() const noexcept { return m_size; }

 private:
  std::size_t m_size;
};

static_assert(victim_policy<uniform_victims>);

}  // namespace tine

#endif  // TINE_POLICIES_UNIFORM_VICTIMS_HPP
