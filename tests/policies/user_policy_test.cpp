// A victim policy written outside tine, as a user would: the example of docs/policies.md.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <boost/test/unit_test.hpp>

// clang-format off
// [docs:ring_policy]
#include <tine/policies/random.hpp>
#include <tine/policies/topology.hpp>
#include <tine/policies/victim_policy.hpp>

// Workers sit on a ring: a thief tries a neighbour three times in four (left or right alike),
// and anyone else the fourth time, so work still spreads round the whole ring.
class ring_victims {
 public:
  explicit ring_victims(const tine::topology& topo) noexcept : m_size{topo.size()} {}

  std::size_t next_victim(std::size_t thief, tine::xoshiro256ss& rng) const noexcept {
    if (m_size == 1) {
      return 0;  // the contract: a lone worker names itself
    }
    if (rng.bounded(4) == 0) {
      // Uniform among the size - 1 others: draw, then skip over the thief.
      const auto other = static_cast<std::size_t>(rng.bounded(m_size - 1));
      return other >= thief ? other + 1 : other;
    }
    return (rng() & 1U) != 0 ? (thief + 1) % m_size : (thief + m_size - 1) % m_size;
  }

 private:
  std::size_t m_size;
};

static_assert(tine::victim_policy<ring_victims>);
// [docs:ring_policy end]
// clang-format on

namespace {

// Shapes that are not victim policies, so the concept is seen to reject something.
struct not_constructible_from_topology {
  std::size_t next_victim(std::size_t, tine::xoshiro256ss&) const { return 0; }
};
struct mutating_next_victim {
  explicit mutating_next_victim(const tine::topology&) {}
  std::size_t next_victim(std::size_t, tine::xoshiro256ss&) { return 0; }  // not const
};
struct wrong_result_type {
  explicit wrong_result_type(const tine::topology&) {}
  int next_victim(std::size_t, tine::xoshiro256ss&) const { return 0; }
};

static_assert(!tine::victim_policy<not_constructible_from_topology>);
static_assert(!tine::victim_policy<mutating_next_victim>);
static_assert(!tine::victim_policy<wrong_result_type>);

}  // namespace

BOOST_AUTO_TEST_SUITE(user_policy)

BOOST_AUTO_TEST_CASE(ring_policy_keeps_the_contract) {
  tine::xoshiro256ss rng{11};
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
    const tine::topology topo = tine::topology::synthetic(1, n);
    const ring_victims policy{topo};
    for (std::size_t thief = 0; thief < n; ++thief) {
      int bad = 0;
      for (int i = 0; i < 2'000; ++i) {
        const std::size_t victim = policy.next_victim(thief, rng);
        bad += victim >= n || (n > 1 && victim == thief) || (n == 1 && victim != 0) ? 1 : 0;
      }
      BOOST_TEST(bad == 0, "n = " << n << ", thief " << thief);
    }
  }
}

BOOST_AUTO_TEST_CASE(ring_policy_prefers_neighbours) {
  // n = 8: a neighbour is picked with probability 3/8 + 1/4 · 1/7 each, any other worker with
  // 1/4 · 1/7.
  const ring_victims policy{tine::topology::synthetic(1, 8)};
  tine::xoshiro256ss rng{12};
  constexpr int draws = 100'000;
  std::vector<int> count(9, 0);  // the last slot counts victims out of range
  for (int i = 0; i < draws; ++i) {
    ++count[std::min<std::size_t>(policy.next_victim(3, rng), 8)];
  }
  BOOST_TEST(count[8] == 0);
  for (std::size_t j = 0; j < 8; ++j) {
    const double expected = j == 3 ? 0.0 : j == 2 || j == 4 ? 3.0 / 8 + 1.0 / 28 : 1.0 / 28;
    BOOST_TEST(std::abs(static_cast<double>(count[j]) / draws - expected) < 0.01,
               "victim " << j << ": " << count[j]);
  }
}

BOOST_AUTO_TEST_SUITE_END()
