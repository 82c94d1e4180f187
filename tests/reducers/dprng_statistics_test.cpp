// Statistical tests of tine::dprng's streams, written here (no TestU01 or PractRand package in
// Debian 12). Each test computes a chi-square, binomial or Poisson statistic from fixed seeds,
// turns it into a standard normal z, and requires |z| < 4: a sound generator fails one such
// test with probability about 6·10^-5, and, the seeds being fixed, a test that passes once
// passes every time. What is tested:
// - within one stream: uniformity of the high and low bytes, pairs of successive values, the
//   frequency of every bit, birthday spacings (which catch lattice structure);
// - across streams: the first numbers of 2^16 streams of one task (consecutive ranks) and of
//   the 2^16 - 1 tasks of a binary fork tree, alone, in pairs of neighbours (siblings; parent
//   and child) and by birthday spacings; the k-th numbers of sibling streams against each other.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace {

constexpr double z_limit = 4.0;

// Wilson-Hilferty: a chi-square with `df` degrees of freedom as a standard normal (accurate to a
// few hundredths of z for df >= 30).
double chi_square_z(double chi2, double df) {
  const double h = 2.0 / (9.0 * df);
  return (std::cbrt(chi2 / df) - (1.0 - h)) / std::sqrt(h);
}

// Chi-square z of `counts` against equal expected frequencies.
double uniform_z(const std::vector<std::uint64_t>& counts) {
  double total = 0;
  for (std::uint64_t c : counts) {
    total += static_cast<double>(c);
  }
  const double want = total / static_cast<double>(counts.size());
  double chi2 = 0;
  for (std::uint64_t c : counts) {
    const double d = static_cast<double>(c) - want;
    chi2 += d * d / want;
  }
  return chi_square_z(chi2, static_cast<double>(counts.size() - 1));
}

// High byte, low byte, pairs of high nibbles and bit frequencies of `xs`, each |z| < limit.
void check_sample(const std::vector<std::uint64_t>& xs, const char* what) {
  BOOST_TEST_CONTEXT(what) {
    std::vector<std::uint64_t> high(256), low(256), pairs(256), ones(64);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      ++high[xs[i] >> 56];
      ++low[xs[i] & 0xff];
      if (i % 2 == 1) {
        ++pairs[((xs[i - 1] >> 60) << 4) | (xs[i] >> 60)];
      }
      for (int b = 0; b < 64; ++b) {
        ones[static_cast<std::size_t>(b)] += (xs[i] >> b) & 1;
      }
    }
    BOOST_TEST(std::abs(uniform_z(high)) < z_limit, "high byte, z = " << uniform_z(high));
    BOOST_TEST(std::abs(uniform_z(low)) < z_limit, "low byte, z = " << uniform_z(low));
    BOOST_TEST(std::abs(uniform_z(pairs)) < z_limit, "pairs, z = " << uniform_z(pairs));
    const double n = static_cast<double>(xs.size());
    for (int b = 0; b < 64; ++b) {
      const double z =
          (static_cast<double>(ones[static_cast<std::size_t>(b)]) - n / 2) / std::sqrt(n / 4);
      BOOST_TEST(std::abs(z) < z_limit + 0.5, "bit " << b << ", z = " << z);  // 64 tests
    }
  }
}

// Birthday spacings (Marsaglia): m birthdays in a year of 2^32 days, the number of repeated
// spacings is Poisson with mean m^3 / (4 * 2^32) = 4 for m = 2^12; summed over the rounds (15 or
// more) it is Poisson(4 * rounds).
void check_birthday_spacings(const std::vector<std::uint64_t>& xs, const char* what) {
  constexpr std::size_t m = 4096;
  const std::size_t rounds = xs.size() / m;
  std::uint64_t repeats = 0;
  std::vector<std::uint64_t> days(m), spacings(m);
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < m; ++i) {
      days[i] = xs[r * m + i] >> 32;
    }
    std::sort(days.begin(), days.end());
    spacings[0] = days[0];
    for (std::size_t i = 1; i < m; ++i) {
      spacings[i] = days[i] - days[i - 1];
    }
    std::sort(spacings.begin(), spacings.end());
    for (std::size_t i = 1; i < m; ++i) {
      repeats += spacings[i] == spacings[i - 1] ? 1 : 0;
    }
  }
  const double mean = 4.0 * static_cast<double>(rounds);
  const double z = (static_cast<double>(repeats) - mean) / std::sqrt(mean);
  BOOST_TEST(rounds >= 15U);
  BOOST_TEST(std::abs(z) < z_limit, what << ": birthday spacings, z = " << z);
}

// Pairs (a_i, b_i) of high nibbles: independence of two samples of the same length.
void check_pairs(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                 const char* what) {
  std::vector<std::uint64_t> cells(256);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ++cells[((a[i] >> 60) << 4) | (b[i] >> 60)];
  }
  BOOST_TEST(std::abs(uniform_z(cells)) < z_limit, what << ", z = " << uniform_z(cells));
}

tine::task<void> one_stream(std::size_t n, std::vector<std::uint64_t>* out) {
  tine::dprng rng = co_await tine::dprng::current();
  for (std::size_t i = 0; i < n; ++i) {
    out->push_back(rng());
  }
}

// Streams of consecutive ranks of one task: for each, its first `per_stream` numbers.
tine::task<void> sibling_streams(std::size_t streams, std::size_t per_stream,
                                 std::vector<std::vector<std::uint64_t>>* out) {
  out->assign(per_stream, {});
  for (std::size_t s = 0; s < streams; ++s) {
    tine::dprng rng = co_await tine::dprng::current();
    for (std::size_t k = 0; k < per_stream; ++k) {
      (*out)[k].push_back(rng());
    }
  }
}

// A complete binary fork tree; node i's first number goes to (*out)[i] (heap numbering).
tine::task<void> tree_streams(std::size_t node, std::size_t nodes,
                              std::vector<std::uint64_t>* out) {
  tine::dprng rng = co_await tine::dprng::current();
  (*out)[node] = rng();
  if (2 * node + 2 < nodes) {
    co_await tine::fork(tree_streams, 2 * node + 1, nodes, out);
    co_await tine::call(tree_streams, 2 * node + 2, nodes, out);
    co_await tine::join();
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dprng_statistics)

BOOST_AUTO_TEST_CASE(within_one_stream) {
  tine::inline_scheduler one;
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    std::vector<std::uint64_t> xs;
    tine::sync_wait(one, tine::dprng::seeded(seed, one_stream), std::size_t{1} << 20, &xs);
    check_sample(xs, "one stream");
    check_birthday_spacings(xs, "one stream");
  }
}

BOOST_AUTO_TEST_CASE(across_the_streams_of_one_task) {
  tine::inline_scheduler one;
  for (std::uint64_t seed : {4U, 5U}) {
    std::vector<std::vector<std::uint64_t>> kth;
    tine::sync_wait(one, tine::dprng::seeded(seed, sibling_streams), std::size_t{1} << 16,
                    std::size_t{3}, &kth);
    check_sample(kth[0], "first numbers of sibling streams");
    check_birthday_spacings(kth[0], "first numbers of sibling streams");
    std::vector<std::uint64_t> next(kth[0].begin() + 1, kth[0].end());
    std::vector<std::uint64_t> prev(kth[0].begin(), kth[0].end() - 1);
    check_pairs(prev, next, "first numbers of neighbouring sibling streams");
    check_pairs(kth[0], kth[1], "first and second numbers of each stream");
    check_pairs(kth[1], kth[2], "second and third numbers of each stream");
  }
}

BOOST_AUTO_TEST_CASE(across_the_tasks_of_a_fork_tree) {
  tine::inline_scheduler one;
  constexpr std::size_t nodes = (std::size_t{1} << 16) - 1;
  for (std::uint64_t seed : {6U, 7U}) {
    std::vector<std::uint64_t> firsts(nodes);
    tine::sync_wait(one, tine::dprng::seeded(seed, tree_streams), std::size_t{0}, nodes, &firsts);
    check_sample(firsts, "first numbers of the tasks of a tree");
    check_birthday_spacings(firsts, "first numbers of the tasks of a tree");
    std::vector<std::uint64_t> parents, children, lefts, rights;
    for (std::size_t i = 0; 2 * i + 2 < nodes; ++i) {
      parents.push_back(firsts[i]);
      children.push_back(firsts[2 * i + 1]);
      lefts.push_back(firsts[2 * i + 1]);
      rights.push_back(firsts[2 * i + 2]);
    }
    check_pairs(parents, children, "parent and child");
    check_pairs(lefts, rights, "forked and called siblings");
  }
}

BOOST_AUTO_TEST_CASE(uniform_doubles_have_the_moments_of_u01) {
  tine::dprng rng = tine::dprng::from_key(99);
  constexpr int n = 1 << 20;
  double sum = 0;
  double squares = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    sum += u;
    squares += u * u;
  }
  const double mean_z = (sum / n - 0.5) / std::sqrt(1.0 / 12.0 / n);
  const double second_z = (squares / n - 1.0 / 3.0) / std::sqrt((1.0 / 5.0 - 1.0 / 9.0) / n);
  BOOST_TEST(std::abs(mean_z) < z_limit);
  BOOST_TEST(std::abs(second_z) < z_limit);
}

BOOST_AUTO_TEST_SUITE_END()
