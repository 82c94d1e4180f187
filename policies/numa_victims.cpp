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

numa_victims::numa_victims(const topology& topo) : size_{topo.size()} {
  class_begin_.reserve(size_ + 1);
  class_begin_.push_back(0);
  if (size_ == 1) {
    class_begin_.push_back(0);
    return;
  }
  victims_.reserve(size_ * (size_ - 1));
  for (std::size_t thief = 0; thief < size_; ++thief) {
    const std::size_t begin = victims_.size();
    for (std::size_t j = 0; j < size_; ++j) {
      if (j != thief) {
        victims_.push_back(j);
      }
    }
    // Nearest first; ties in index order, so the tables do not depend on sort stability.
    std::sort(victims_.begin() + static_cast<std::ptrdiff_t>(begin), victims_.end(),
              [&](std::size_t a, std::size_t b) {
                const unsigned ra = effective_distance(topo, thief, a);
                const unsigned rb = effective_distance(topo, thief, b);
                return ra != rb ? ra < rb : a < b;
              });

    // Split into runs of equal distance; each run (class) weighs n · 1/(n r²) = 1/r².
    const std::size_t first_class = classes_.size();
    double total = 0;
    for (std::size_t k = begin; k < victims_.size();) {
      const unsigned r = effective_distance(topo, thief, victims_[k]);
      std::size_t end = k;
      while (end < victims_.size() && effective_distance(topo, thief, victims_[end]) == r) {
        ++end;
      }
      const double weight = 1.0 / (static_cast<double>(r) * static_cast<double>(r));
      classes_.push_back(distance_class{0, k, end - k, weight});
      total += weight;
      k = end;
    }
    double cumulative = 0;
    for (std::size_t c = first_class; c < classes_.size(); ++c) {
      classes_[c].probability /= total;
      cumulative += classes_[c].probability;
      classes_[c].threshold = to_threshold(cumulative);
    }
    classes_.back().threshold = std::numeric_limits<std::uint64_t>::max();
    class_begin_.push_back(classes_.size());
  }
}

double numa_victims::probability(std::size_t thief, std::size_t victim) const {
  if (thief >= size_ || victim >= size_) {
    throw std::out_of_range("tine::numa_victims::probability: index " +
                            std::to_string(std::max(thief, victim)) +
                            " is out of range for a policy of " + std::to_string(size_) +
                            " workers");
  }
  if (size_ == 1) {
    return 1.0;
  }
  for (std::size_t c = class_begin_[thief]; c < class_begin_[thief + 1]; ++c) {
    const distance_class& k = classes_[c];
    const auto members = victims_.begin() + static_cast<std::ptrdiff_t>(k.begin);
    if (std::find(members, members + static_cast<std::ptrdiff_t>(k.count), victim) !=
        members + static_cast<std::ptrdiff_t>(k.count)) {
      return k.probability / static_cast<double>(k.count);
    }
  }
  return 0.0;  // victim == thief
}

}  // namespace tine
