#ifndef TINE_BENCH_SORT_KEYS_HPP
#define TINE_BENCH_SORT_KEYS_HPP

/// \file sort_keys.hpp
/// What the classic suite's sorts (cilksort, quicksort) share: their input, n random 64-bit keys
/// made once per size, and their check.

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bench {

using sort_key = std::uint64_t;

/// n keys from a xorshift generator seeded with `seed`, made once per (n, seed) and kept.
inline const std::vector<sort_key>& sort_keys(std::size_t n, std::uint64_t seed) {
  static std::vector<std::pair<std::pair<std::size_t, std::uint64_t>, std::vector<sort_key>>> made;
  for (auto& [k, v] : made) {
    if (k.first == n && k.second == seed) {
      return v;
    }
  }
  std::vector<sort_key> v(n);
  std::uint64_t s = seed;
  for (sort_key& x : v) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = s;
  }
  made.emplace_back(std::make_pair(n, seed), std::move(v));
  return made.back().second;
}

/// "" if `got` equals the serial sort's `ref`, itself checked against std::sort of the input
/// once per input (checks run inside the timed loop: they must be cheap).
inline std::string check_sorted(const std::vector<sort_key>& input,
                                const std::vector<sort_key>& got,
                                const std::vector<sort_key>& ref) {
  static std::vector<std::pair<const std::vector<sort_key>*, bool>> verified;
  const auto known = std::find_if(verified.begin(), verified.end(),
                                  [&input](const auto& v) { return v.first == &input; });
  bool serial_right = false;
  // A run checked against itself (harness.hpp's --plain) is checked in full every time: the
  // verdict kept is about the serial result of one run, not about another run's result.
  if (known != verified.end() && &got != &ref) {
    serial_right = known->second;
  } else {
    std::vector<sort_key> want = input;
    std::sort(want.begin(), want.end());
    serial_right = ref == want;
    if (&got != &ref) {
      verified.emplace_back(&input, serial_right);
    }
  }
  if (!serial_right) {
    return "the serial sort's keys are not std::sort's order";
  }
  return got == ref ? "" : "the keys are not std::sort's order";
}

}  // namespace bench

#endif  // TINE_BENCH_SORT_KEYS_HPP
