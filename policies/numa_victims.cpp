#include <tine/policies/numa_victims.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

namespace tine {

namespace {

/// Distance 0 between distinct places (two workers on one core) counts as the nearest class.
unsigned effective_distance(const topology& topo, std::size_t i, std::size_t j) {
  return std::max(topo.distance(i, j), 1U);
}

/// p · 2^64 as an integer threshold, saturating: p is a cumulative probability in [0, 1].
std::uint64_t to_threshold(double p) {
  if (!(p < 1.0)) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return static_cast<std::uint64_t>(std::ldexp(std::max(p, 0.0), 64));
}

}  // namespace

numa_victims::numa_victims(const topology& topo) : m_size{topo.size()} {
  m_class_begin.reserve(m_size + 1);
  m_class_begin.push_back(0);
  if (m_size == 1) {
    m_class_begin.push_back(0);
    return;
  }
  m_victims.reserve(m_size * (m_size - 1));
  for (std::size_t thief = 0; thief < m_size; ++thief) {
    const std::size_t begin = m_victims.size();
    for (std::size_t j = 0; j < m_size; ++j) {
      if (j != thief) {
        m_victims.push_back(j);
      }
    }
    // Nearest first; ties in index order, so the tables do not depend on sort stability.
    std::sort(m_victims.begin() + static_cast<std::ptrdiff_t>(begin), m_victims.end(),
              [&](std::size_t a, std::size_t b) {
                const unsigned ra = effective_distance(topo, thief, a);
                const unsigned rb = effective_distance(topo, thief, b);
                return ra != rb ? ra < rb : a < b;
              });

    // Split into runs of equal distance; each run (class) weighs n · 1/(n r²) = 1/r².
    const std::size_t first_class = m_classes.size();
    double total = 0;
    for (std::size_t k = begin; k < m_victims.size();) {
      const unsigned r = effective_distance(topo, thief, m_victims[k]);
      std::size_t end = k;
      while (end < m_victims.size() && effective_distance(topo, thief, m_victims[end]) == r) {
        ++end;
      }
      const double weight = 1.0 / (static_cast<double>(r) * static_cast<double>(r));
      m_classes.push_back(distance_class{0, k, end - k, weight});
      total += weight;
      k = end;
    }
    double cumulative = 0;
    for (std::size_t c = first_class; c < m_classes.size(); ++c) {
      m_classes[c].probability /= total;
      cumulative += m_classes[c].probability;
      m_classes[c].threshold = to_threshold(cumulative);
    }
    m_classes.back().threshold = std::numeric_limits<std::uint64_t>::max();
    m_class_begin.push_back(m_classes.size());
  }
}

double numa_victims::probability(std::size_t thief, std::size_t victim) const {
  if (thief >= m_size || victim >= m_size) {
    throw std::out_of_range(
        "tine::numa_victims::probability: index " + std::to_string(std::max(thief, victim)) +
        " is out of range for a policy of " + std::to_string(m_size) + " workers");
  }
  if (m_size == 1) {
    return 1.0;
  }
  for (std::size_t c = m_class_begin[thief]; c < m_class_begin[thief + 1]; ++c) {
    const distance_class& k = m_classes[c];
    const auto members = m_victims.begin() + static_cast<std::ptrdiff_t>(k.begin);
    if (std::find(members, members + static_cast<std::ptrdiff_t>(k.count), victim) !=
        members + static_cast<std::ptrdiff_t>(k.count)) {
      return k.probability / static_cast<double>(k.count);
    }
  }
  return 0.0;  // victim == thief
}

}  // namespace tine
