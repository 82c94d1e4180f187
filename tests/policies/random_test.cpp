#include <tine/policies/random.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(random_generators)

BOOST_AUTO_TEST_CASE(splitmix64_matches_the_reference_sequence) {
  // The first outputs of splitmix64 seeded with 0, as published with the algorithm.
  tine::splitmix64 gen{0};
  BOOST_TEST(gen() == 0xe220a8397b1dcdafULL);
  BOOST_TEST(gen() == 0x6e789e6aa1b965f4ULL);
  BOOST_TEST(gen() == 0x06c45d188009454fULL);
}

BOOST_AUTO_TEST_CASE(xoshiro256ss_matches_the_reference_sequence) {
  // xoshiro256** from the state {1, 2, 3, 4}; the first two follow by hand from the definition
  // (rotl(5 * s1, 7) * 9 = 11520, then s1 becomes 0).
  tine::xoshiro256ss gen{std::array<std::uint64_t, 4>{1, 2, 3, 4}};
  BOOST_TEST(gen() == 11520U);
  BOOST_TEST(gen() == 0U);
  BOOST_TEST(gen() == 1509978240U);
  BOOST_TEST(gen() == 1215971899390074240ULL);
}

BOOST_AUTO_TEST_CASE(all_zero_state_is_replaced) {
  tine::xoshiro256ss gen{std::array<std::uint64_t, 4>{0, 0, 0, 0}};
  BOOST_TEST((gen == tine::xoshiro256ss{std::uint64_t{0}}));
  BOOST_TEST((gen() | gen() | gen()) != 0U);
}

BOOST_AUTO_TEST_CASE(seeding_is_deterministic_and_seed_sensitive) {
  tine::xoshiro256ss a{42};
  tine::xoshiro256ss b{42};
  tine::xoshiro256ss c{43};
  int differences = 0;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a();
    BOOST_TEST(x == b());
    differences += x != c() ? 1 : 0;
  }
  BOOST_TEST(differences == 100);
}

BOOST_AUTO_TEST_CASE(works_with_standard_distributions) {
  static_assert(std::uniform_random_bit_generator<tine::xoshiro256ss>);
  static_assert(tine::xoshiro256ss::min() == 0);
  static_assert(tine::xoshiro256ss::max() == std::numeric_limits<std::uint64_t>::max());
  tine::xoshiro256ss gen{7};
  std::uniform_int_distribution<int> die{1, 6};
  for (int i = 0; i < 1000; ++i) {
    const int roll = die(gen);
    BOOST_TEST((roll >= 1 && roll <= 6));
  }
}

BOOST_AUTO_TEST_CASE(constexpr_usable) {
  constexpr std::uint64_t first = [] {
    tine::xoshiro256ss gen{std::array<std::uint64_t, 4>{1, 2, 3, 4}};
    return gen();
  }();
  static_assert(first == 11520);
}

BOOST_AUTO_TEST_CASE(bounded_stays_in_range) {
  tine::xoshiro256ss gen{1};
  for (int i = 0; i < 1000; ++i) {
    BOOST_TEST(gen.bounded(1) == 0U);
  }
  BOOST_TEST(gen.bounded(0) == 0U);
  const std::uint64_t big = (std::uint64_t{1} << 63U) + 1;  // rejection zone of almost half
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t n : {std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{7}, big, huge}) {
    for (int i = 0; i < 1000; ++i) {
      BOOST_TEST(gen.bounded(n) < n);
    }
  }
}

BOOST_AUTO_TEST_CASE(bounded_is_uniform) {
  // Chi-square over 10 bins, 9 degrees of freedom: 40 is far beyond the 0.9999 quantile (33.7).
  tine::xoshiro256ss gen{2024};
  constexpr int bins = 10;
  constexpr int draws = 100'000;
  std::vector<int> count(bins, 0);
  for (int i = 0; i < draws; ++i) {
    ++count[gen.bounded(bins)];
  }
  const double expected = static_cast<double>(draws) / bins;
  double chi2 = 0;
  for (int c : count) {
    chi2 += (c - expected) * (c - expected) / expected;
  }
  BOOST_TEST(chi2 < 40.0);

  // For n = 3 · 2^62 a plain modulo would put 5/8 of the draws in the lower half of [0, n);
  // check the halves are even.
  const std::uint64_t big = (std::uint64_t{1} << 63U) + (std::uint64_t{1} << 62U);
  int lower = 0;
  for (int i = 0; i < 10'000; ++i) {
    lower += gen.bounded(big) < big / 2 ? 1 : 0;
  }
  BOOST_TEST(lower > 4'700);
  BOOST_TEST(lower < 5'300);
}

BOOST_AUTO_TEST_SUITE_END()
