#ifndef TINE_POLICIES_RANDOM_HPP
#define TINE_POLICIES_RANDOM_HPP

/// \file random.hpp
/// The random source of the steal loop: xoshiro256** seeded through splitmix64.
///
/// A thief draws a number on every steal attempt, so the generator must be a few cycles and
/// carry no locks; std::mt19937_64 is 2.5 KB of state per worker and slower. xoshiro256** (Blackman
/// and Vigna) passes the usual statistical batteries with 32 bytes of state. It is not
/// cryptographic, and nothing here needs it to be.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>

namespace tine {

/// splitmix64 (Steele, Lea and Flood): a 64-bit counter passed through a bijective mixer. Used to
/// expand one seed into the four words of xoshiro's state: neighbouring seeds (0, 1, 2 ... as a
/// pool gives its workers) then yield unrelated, and never all-zero, states.
class splitmix64 {
 public:
  using result_type = std::uint64_t;

  constexpr explicit splitmix64(std::uint64_t seed) noexcept : m_state{seed} {}

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  constexpr result_type operator()() noexcept {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }

 private:
  std::uint64_t m_state;
};

/// xoshiro256**: a std::uniform_random_bit_generator with period 2^256 - 1.
///
/// One generator per thread: `operator()` mutates the state and is not thread-safe. Give each
/// worker its own seed (its index mixed with a pool seed, say); splitmix64 seeding makes the
/// streams of distinct seeds overlap only with negligible probability.
class xoshiro256ss {
 public:
  using result_type = std::uint64_t;

  /// Expands `seed` (any value, 0 included) with splitmix64.
  constexpr explicit xoshiro256ss(std::uint64_t seed) noexcept : m_state{} {
    splitmix64 expand{seed};
    for (auto& word : m_state) {
      word = expand();
    }
  }

  /// Takes the raw state, for reproducing published test vectors. An all-zero state is the one
  /// fixed point of the generator (it would return 0 forever), so it is replaced by the seeded
  /// state of seed 0.
  constexpr explicit xoshiro256ss(const std::array<std::uint64_t, 4>& state) noexcept
      : m_state{state} {
    if ((m_state[0] | m_state[1] | m_state[2] | m_state[3]) == 0) {
      *this = xoshiro256ss{std::uint64_t{0}};
    }
  }

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  constexpr result_type operator()() noexcept {
    const std::uint64_t result = std::rotl(m_state[1] * 5U, 7) * 9U;
    const std::uint64_t t = m_state[1] << 17U;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = std::rotl(m_state[3], 45);
    return result;
  }

  /// A uniform integer in [0, n), for n > 0 (bounded(0) returns 0).
  ///
  /// Lemire's multiply-shift ("Fast random integer generation in an interval", 2019): the high
  /// word of x·n is in [0, n) and costs one multiplication instead of a division. Taken alone it
  /// favours some values by at most n / 2^64; the rejection step below removes even that, and
  /// its division runs only when the low word falls under n, i.e. with probability n / 2^64.
  constexpr std::uint64_t bounded(std::uint64_t n) noexcept {
    __extension__ typedef unsigned __int128 u128;  // GCC/Clang extension: 64x64->128 multiply
    u128 product = static_cast<u128>((*this)()) * n;
    auto low = static_cast<std::uint64_t>(product);
    if (low < n) {
      // 2^64 mod n: the number of low words that would make some results more likely.
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        product = static_cast<u128>((*this)()) * n;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<std::uint64_t>(product >> 64U);
  }

  /// The current state, e.g. to checkpoint a generator.
  constexpr const std::array<std::uint64_t, 4>& state() const noexcept { return m_state; }

  friend constexpr bool operator==(const xoshiro256ss&, const xoshiro256ss&) noexcept = default;

 private:
  std::array<std::uint64_t, 4> m_state;
};

static_assert(std::uniform_random_bit_generator<splitmix64>);
static_assert(std::uniform_random_bit_generator<xoshiro256ss>);

}  // namespace tine

#endif  // TINE_POLICIES_RANDOM_HPP
