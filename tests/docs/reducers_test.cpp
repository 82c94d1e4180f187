// The examples of docs/reducers.md. Each region between [docs:NAME] markers appears verbatim in the
// page (checked by //tests/docs:doc_snippets_test); here they are compiled and run.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <tine/algorithms/for_each.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace reducers_page {

struct node {
  std::string name;
  long weight = 0;
  std::vector<const node*> children;
};

// clang-format off
// [docs:walk]
struct concat {                                    // any monoid: identity + associative reduce
  using value_type = std::string;
  static value_type identity() { return {}; }
  static void reduce(value_type& left, value_type& right) { left += right; }  // left := left ⊕ right
};

tine::task<void> walk(const node* n, tine::reducer<concat>& out, tine::reducer<tine::sum<long>>& total) {
  out.view() += n->name;                           // this strand's view; no lock, no atomic
  total.view() += n->weight;
  for (const node* c : n->children) co_await tine::fork(walk, c, out, total);
  co_await tine::join();
}
// [docs:walk end]
// clang-format on

std::string serial_preorder_names(const node* n) {
  std::string s = n->name;
  for (const node* c : n->children) {
    s += serial_preorder_names(c);
  }
  return s;
}

// clang-format off
// [docs:histogram]
struct histogram {                                 // element-wise sum of 16 counters
  using value_type = std::array<long, 16>;
  static value_type identity() { return {}; }
  static void reduce(value_type& left, value_type& right) {
    for (std::size_t i = 0; i < left.size(); ++i) left[i] += right[i];
  }
};

std::array<long, 16> count_digits(tine::busy_pool<>& pool, const std::vector<std::uint64_t>& xs) {
  tine::reducer<histogram> counts;
  tine::for_each(pool, xs, [&counts](std::uint64_t x) {
    ++counts.view()[x % 16];                       // the view of whichever strand runs this
  });
  return counts.get();                             // after the algorithm: every view merged
}
// [docs:histogram end]
// clang-format on

// clang-format off
// [docs:pi]
tine::task<long> hits(long samples) {
  tine::dprng rng = co_await tine::dprng::current();  // this task's next stream
  long in = 0;
  for (long i = 0; i < samples; ++i) {
    const double x = rng.uniform();
    const double y = rng.uniform();
    in += x * x + y * y < 1.0 ? 1 : 0;
  }
  co_return in;
}

tine::task<long> pi_estimate(long samples) {       // splits the samples in halves down to 10^4
  if (samples <= 10'000) {
    long in = 0;
    co_await tine::call(&in, hits, samples);
    co_return in;
  }
  long left = 0;
  long right = 0;
  co_await tine::fork(&left, pi_estimate, samples / 2);
  co_await tine::call(&right, pi_estimate, samples - samples / 2);
  co_await tine::join();
  co_return left + right;
}
// [docs:pi end]
// clang-format on

// clang-format off
// [docs:noise]
tine::task<void> add_noise(std::vector<double>* v) {  // element i gets the same noise anywhere
  co_await tine::call(tine::async::for_each, *v, [](double& x) -> tine::task<void> {
    tine::dprng rng = co_await tine::dprng::current();
    x += rng.uniform() - 0.5;
  });
  co_await tine::join();
}
// [docs:noise end]
// clang-format on

}  // namespace reducers_page

BOOST_AUTO_TEST_SUITE(reducers_page)

BOOST_AUTO_TEST_CASE(walk_gives_the_serial_preorder) {
  using namespace reducers_page;
  std::vector<node> nodes(40);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].name = "n" + std::to_string(i) + ",";
    nodes[i].weight = static_cast<long>(i);
    if (i > 0) {
      nodes[(i - 1) / 3].children.push_back(&nodes[i]);
    }
  }
  const node* root = &nodes[0];
  for (std::size_t workers : {1U, 2U}) {
    tine::busy_pool<> pool(workers);
    // clang-format off
    // [docs:walk_run]
    tine::reducer<concat> out;                         // views created on steals only
    tine::reducer<tine::sum<long>> total;
    tine::sync_wait(pool, walk, root, out, total);
    assert(out.get() == serial_preorder_names(root));  // exactly the serial order, on any pool
    // [docs:walk_run end]
    // clang-format on
    BOOST_TEST(out.get() == serial_preorder_names(root));
    BOOST_TEST(total.get() == 40L * 39 / 2);
  }
}

BOOST_AUTO_TEST_CASE(histogram_of_a_for_each) {
  std::vector<std::uint64_t> xs(100'000);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    xs[i] = i * 7;
  }
  tine::busy_pool<> pool(2);
  const std::array<long, 16> counts = reducers_page::count_digits(pool, xs);
  long total = 0;
  for (long c : counts) {
    total += c;
  }
  BOOST_TEST(total == 100'000);
  BOOST_TEST(counts[0] == 6250);
}

BOOST_AUTO_TEST_CASE(pi_is_the_same_on_every_scheduler) {
  using reducers_page::pi_estimate;
  tine::inline_scheduler one;
  const long want = tine::sync_wait(one, tine::dprng::seeded(42, pi_estimate), 1'000'000L);
  tine::busy_pool<> pool(2);
  // clang-format off
  // [docs:pi_run]
  long in = tine::sync_wait(pool, tine::dprng::seeded(42, pi_estimate), 1'000'000L);
  double pi = 4.0 * static_cast<double>(in) / 1e6;  // the same bits on any scheduler, any run
  // [docs:pi_run end]
  // clang-format on
  BOOST_TEST(in == want);
  BOOST_TEST(pi > 3.13);
  BOOST_TEST(pi < 3.15);
}

BOOST_AUTO_TEST_CASE(noise_in_an_algorithms_bodies_is_the_same_on_every_pool) {
  using reducers_page::add_noise;
  std::vector<double> want(1000, 1.0);
  tine::inline_scheduler one;
  tine::sync_wait(one, tine::dprng::seeded(7, add_noise), &want);
  for (std::size_t workers : {1U, 2U}) {
    tine::busy_pool<> pool(workers);
    std::vector<double> v(1000, 1.0);
    // clang-format off
    // [docs:noise_run]
    tine::sync_wait(pool, tine::dprng::seeded(7, add_noise), &v);  // v: the same bits on any pool
    // [docs:noise_run end]
    // clang-format on
    BOOST_TEST(v == want);
  }
  BOOST_TEST(want[0] != want[1]);
  BOOST_TEST((want[0] > 0.5 && want[0] < 1.5));
}

BOOST_AUTO_TEST_SUITE_END()
