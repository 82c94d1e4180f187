#ifndef TINE_POLICIES_NUMA_VICTIMS_HPP
#define TINE_POLICIES_NUMA_VICTIMS_HPP

/// \file numa_victims.hpp
/// Victims weighted by topological distance (libfork paper, section III-D, eq. 6): the default
/// policy of tine's pools.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>

namespace tine {

/// Picks victim j of thief i with probability proportional to
///
///     w_ij = 1 / (n_ij · r_ij²)
///
/// where r_ij is the topological distance between places i and j and n_ij the number of places
/// (other than i) at that distance from i. Every distance class therefore gets a total weight
/// of 1 / r², shared equally by its members: a thief looks close by far more often, however many
/// places sit far away, yet never starves a remote node.
///
/// On a flat topology (tine built without hwloc: one NUMA node, every other place at distance 1 or
/// 0) there is one class, so the choice is uniform over the other places.
///
/// Places on the same core as the thief (distance 0, only under oversubscription) are counted as
/// distance 1, together with any places truly at distance 1: they are as near as it gets, and
/// 1 / 0² has no meaning.
///
/// The draw is done in two steps that multiply out to w_ij: a distance class with probability
/// proportional to 1 / r² (one 64-bit draw against a precomputed cumulative table, scanned from
/// the nearest class, which is the most likely), then a uniform member of the class. The tables
/// are built at construction, O(size²) memory; next_victim does not allocate and costs two draws
/// plus a scan over the few distinct distances (at most the depth of the hwloc tree).
class numa_victims {
 public:
  explicit numa_victims(const topology& topo);

  /// Precondition: thief < size().
  std::size_t next_victim(std::size_t thief, xoshiro256ss& rng) const noexcept {
    if (m_size == 1) {
      return 0;
    }
    const distance_class* first = m_classes.data() + m_class_begin[thief];
    const distance_class* last = m_classes.data() + m_class_begin[thief + 1] - 1;
    const std::uint64_t x = rng();
    while (first != last && x >= first->threshold) {
      ++first;
    }
    const std::size_t member =
        first->count == 1 ? 0 : static_cast<std::size_t>(rng.bounded(first->count));
    return m_victims[first->begin + member];
  }

  /// The probability that next_victim(thief, rng) returns victim: the normalised w_ij.
  /// For tests and diagnostics; O(size). Throws std::out_of_range for indices >= size().
  double probability(std::size_t thief, std::size_t victim) const;

  std::size_t size() const noexcept { return m_size; }

 private:
  /// The places at one distance from a thief: m_victims[begin, begin + count).
  struct distance_class {
    /// The class is chosen when the 64-bit draw is below this (cumulative probability · 2^64);
    /// the last class of a thief takes whatever is left.
    std::uint64_t threshold;
    std::size_t begin;
    std::size_t count;
    /// The probability of the class as a whole (for probability()).
    double probability;
  };

  std::size_t m_size;
  std::vector<std::size_t> m_victims;      // thief i's others, nearest first, at i * (size - 1)
  std::vector<distance_class> m_classes;   // thief i's classes are [m_class_begin[i], [i + 1])
  std::vector<std::size_t> m_class_begin;  // size + 1 entries
};

static_assert(victim_policy<numa_victims>);

}  // namespace tine

#endif  // TINE_POLICIES_NUMA_VICTIMS_HPP
