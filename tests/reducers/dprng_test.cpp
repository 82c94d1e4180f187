// tine::dprng: the same bits on every scheduler and worker count, in every run, on seeded random
// fork-join trees (forks, calls, exceptions, streams taken before and after forks and held across
// co_awaits, resume_on); the documented derivation of a stream from its pedigree; what is
// refused. The statistics are in dprng_statistics_test.cpp.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include <tine/algorithms/detail/index_keys.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/random_tree.hpp"
#include "tests/random_steal_scheduler.hpp"

namespace {

using tine_tests::node_error;
using tine_tests::tree;

static_assert(std::uniform_random_bit_generator<tine::dprng>);

// An ordered fingerprint of a sequence of words: (hash, length) with h(xy) = h(x)·B^|y| + h(y)
// (mod 2^64), associative and not commutative, so a reducer of it sees the draws' serial order.
struct fingerprint {
  std::uint64_t hash = 0;
  std::uint64_t power = 1;  // B^length
  friend bool operator==(const fingerprint&, const fingerprint&) = default;
};
constexpr std::uint64_t base = 0x100000001b3ULL;

struct sequence_hash {
  using value_type = fingerprint;
  static fingerprint identity() { return {}; }
  static void reduce(fingerprint& left, fingerprint& right) {
    left.hash = left.hash * right.power + right.hash;
    left.power *= right.power;
  }
};

void add(fingerprint& f, std::uint64_t x) {
  f.hash = f.hash * base + x;
  f.power *= base;
}

struct draws {
  tine::reducer<sequence_hash> all;       // every draw, in serial order
  std::vector<std::uint64_t> first;       // each node's first draw (0: none)
  std::vector<std::uint64_t> after_join;  // each node's draw after its join (0: none)
  explicit draws(std::size_t nodes) : first(nodes), after_join(nodes) {}
};

tine::task<void> random_walk(const tree* t, int id, draws* d) {
  const auto me = static_cast<std::size_t>(id);
  const tree::node& n = t->nodes[me];
  tine::dprng rng = co_await tine::dprng::current();
  d->first[me] = rng();
  add(d->all.view(), d->first[me]);
  for (int k = 0; k < id % 3; ++k) {
    add(d->all.view(), rng());
  }
  if (n.throws) {
    throw node_error(id);
  }
  bool caught = false;
  try {
    for (std::size_t k = 0; k < n.children.size(); ++k) {
      if (k + 1 == n.children.size() && n.last_by_call) {
        // Nothing between a call and the join: a call whose child throws rethrows at once when
        // nothing was stolen, and at the join otherwise, so code there would run or not
        // depending on the schedule (the program, not the generator, would differ).
        co_await tine::call(random_walk, t, n.children[k], d);
      } else {
        co_await tine::fork(random_walk, t, n.children[k], d);
        if (id % 5 == 1) {
          add(d->all.view(), rng());  // the same stream, held across forks, on any worker
        }
      }
    }
    co_await tine::join();
  } catch (const node_error&) {
    if (!n.catches) {
      throw;
    }
    caught = true;
  }
  if (caught) {
    co_await tine::join();
  }
  if (id % 4 == 2) {
    tine::dprng later = co_await tine::dprng::current();  // a second stream of this task
    d->after_join[me] = later();
    add(d->all.view(), d->after_join[me]);
  }
}

struct outcome {
  fingerprint all;
  std::vector<std::uint64_t> first;
  std::vector<std::uint64_t> after_join;
  bool threw = false;
  friend bool operator==(const outcome&, const outcome&) = default;
};

template <typename S>
outcome run_tree(S& sched, const tree& t, std::uint64_t seed) {
  draws d(t.nodes.size());
  outcome o;
  try {
    tine::sync_wait(sched, tine::dprng::seeded(seed, random_walk), &t, 0, &d);
  } catch (const node_error&) {
    o.threw = true;
  }
  o.all = d.all.get();
  o.first = std::move(d.first);
  o.after_join = std::move(d.after_join);
  return o;
}

constexpr int tree_count = 12;
constexpr std::size_t tree_size = 500;

std::vector<outcome> reference_outcomes() {
  tine::inline_scheduler one;
  std::vector<outcome> out;
  for (int i = 0; i < tree_count; ++i) {
    const tree t = tine_tests::make_tree(static_cast<std::uint64_t>(i) + 100, tree_size,
                                         i % 2 == 0 ? 0.0 : 0.02, 0.5);
    out.push_back(run_tree(one, t, 42 + static_cast<std::uint64_t>(i)));
  }
  return out;
}

// The draws of a run against the serial program's. Without exceptions, the same bits exactly.
// With them, a fork after a sibling's exception starts nothing when it sees the exception, but
// with thieves about may run first: every node the serial program started must have started with
// the same draws, and the others may have run too (their draws are not in the reference, so the
// whole-run fingerprint is not compared).
bool same_draws(const outcome& got, const outcome& want, bool exceptions) {
  if (!exceptions) {
    return got == want;
  }
  if (got.threw != want.threw || got.first.size() != want.first.size()) {
    return false;
  }
  for (std::size_t i = 0; i < want.first.size(); ++i) {
    if (want.first[i] != 0 &&
        (got.first[i] != want.first[i] || got.after_join[i] != want.after_join[i])) {
      return false;
    }
  }
  return true;
}

template <typename S>
void check_same_bits(S& sched, const std::vector<outcome>& want) {
  for (int i = 0; i < tree_count; ++i) {
    const bool exceptions = i % 2 != 0;
    const tree t = tine_tests::make_tree(static_cast<std::uint64_t>(i) + 100, tree_size,
                                         exceptions ? 0.02 : 0.0, 0.5);
    BOOST_TEST_INFO("tree " << i);
    BOOST_TEST(same_draws(run_tree(sched, t, 42 + static_cast<std::uint64_t>(i)),
                          want[static_cast<std::size_t>(i)], exceptions));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dprng)

BOOST_AUTO_TEST_CASE(the_trees_draw_distinct_numbers_and_some_throw) {
  const std::vector<outcome> want = reference_outcomes();
  int threw = 0;  // nodes that ran and threw
  for (int i = 0; i < tree_count; ++i) {
    const tree t = tine_tests::make_tree(static_cast<std::uint64_t>(i) + 100, tree_size,
                                         i % 2 == 0 ? 0.0 : 0.02, 0.5);
    auto before = [&](int id) { threw += t.nodes[static_cast<std::size_t>(id)].throws ? 1 : 0; };
    auto after = [](int) {};
    tine_tests::visit_serially(t, 0, before, after);
  }
  std::set<std::uint64_t> seen;
  std::size_t draws_made = 0;
  for (const outcome& o : want) {
    for (std::uint64_t x : o.first) {
      if (x != 0) {
        seen.insert(x);
        ++draws_made;
      }
    }
  }
  BOOST_TEST(threw > 0);
  BOOST_TEST(draws_made > 2000U);
  BOOST_TEST(seen.size() == draws_made);  // no two nodes of any tree share a first number
}

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(600))
BOOST_AUTO_TEST_CASE(same_bits_on_every_scheduler_and_run) {
  const std::vector<outcome> want = reference_outcomes();
  {
    tine::inline_scheduler one;
    check_same_bits(one, want);  // a second run
  }
  for (std::size_t workers : {1U, 2U, 3U}) {
    BOOST_TEST_CONTEXT("workers " << workers) {
      tine::busy_pool<> busy(workers);
      check_same_bits(busy, want);
      check_same_bits(busy, want);
      tine::lazy_pool<> lazy(workers);
      check_same_bits(lazy, want);
    }
  }
  for (double p : {0.4, 1.0}) {
    BOOST_TEST_CONTEXT("random steals p=" << p) {
      tine_test::random_steal_scheduler coins(3, p, 9);
      check_same_bits(coins, want);
      BOOST_TEST(coins.steals() > 100U);
    }
  }
}

namespace {

tine::task<std::uint64_t> first_number() {
  tine::dprng rng = co_await tine::dprng::current();
  co_return rng();
}

tine::task<std::uint64_t> first_two_streams() {
  tine::dprng a = co_await tine::dprng::current();
  tine::dprng b = co_await tine::dprng::current();
  co_return a() ^ (b() << 1);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_stream_is_derived_from_seed_and_pedigree_as_documented) {
  namespace p = tine::detail::pedigree;
  tine::inline_scheduler one;
  // seeded(42, first_number): the seeded task calls first_number, which claims rank 0 of it;
  // first_number's first stream is its rank 0.
  const std::uint64_t task_key = p::combine(p::seed_key(42), 0);
  tine::dprng expected = tine::dprng::from_key(p::combine(task_key, 0));
  BOOST_TEST(tine::sync_wait(one, tine::dprng::seeded(42, first_number)) == expected());
  // The same bits as when these tests were written: a change of the generator shows here.
  BOOST_TEST(tine::sync_wait(one, tine::dprng::seeded(42, first_number)) == 0x292effc8f6330c6fULL);
  tine::dprng second = tine::dprng::from_key(p::combine(task_key, tine::detail::pedigree_step));
  BOOST_TEST(tine::sync_wait(one, tine::dprng::seeded(42, first_two_streams)) ==
             (tine::dprng::from_key(p::combine(task_key, 0))() ^ (second() << 1)));
  BOOST_TEST(tine::sync_wait(one, tine::dprng::seeded(43, first_number)) !=
             tine::sync_wait(one, tine::dprng::seeded(42, first_number)));
}

namespace {

// Loops as the parallel algorithms run them (index_keys.hpp): a leaf, whose pedigree_pass
// parameter makes it transparent and whose loop variable is its frame's index, calls a body at
// each index; a task that forks passes pedigrees through with a co_await and keys a body with
// at_index. Both below a transparent task of their own.
tine::task<void> leaf_loop(const std::vector<std::uint64_t>* indices,
                           std::vector<std::uint64_t>* out, tine::detail::pedigree_pass pass) {
  for (std::uint64_t i : *indices) {
    std::uint64_t x = 0;
    pass.at(i);
    co_await tine::call(&x, first_number);
    out->push_back(x);
  }
}

tine::task<void> nothing() { co_return; }

tine::task<void> forking_loop(const std::vector<std::uint64_t>* indices,
                              std::vector<std::uint64_t>* out) {
  co_await tine::detail::pass_pedigree_through();
  for (std::uint64_t i : *indices) {
    std::uint64_t x = 0;
    co_await tine::fork(nothing);  // a fork moves the count that holds the role
    co_await tine::join();
    co_await tine::detail::at_index(i, tine::detail::op_role);
    co_await tine::call(&x, first_number);
    out->push_back(x);
  }
}

tine::task<void> split_then_loop(const std::vector<std::uint64_t>* indices,
                                 std::vector<std::uint64_t>* out) {
  co_await tine::detail::pass_pedigree_through();
  co_await tine::call(leaf_loop, indices, out,
                      tine::detail::pedigree_pass{tine::detail::element_role});
  co_await tine::call(forking_loop, indices, out);
}

tine::task<void> loop_entry(const std::vector<std::uint64_t>* indices,
                            std::vector<std::uint64_t>* out) {
  co_await tine::call(split_then_loop, indices, out);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_body_keyed_by_index_has_the_documented_stream_for_any_64_bit_index) {
  namespace p = tine::detail::pedigree;
  constexpr std::uint64_t big = std::uint64_t{1} << 29;  // where ranks wrap
  const std::vector<std::uint64_t> indices = {
      0, 1, 5, big - 1, big, 2 * big + 1, 1ULL << 32, (1ULL << 32) + 1, ~0ULL};
  tine::inline_scheduler one;
  std::vector<std::uint64_t> out;
  tine::sync_wait(one, tine::dprng::seeded(42, loop_entry), &indices, &out);
  // loop_entry claims rank 0 of the seeded task; the transparent tasks pass its key down; the
  // body at index i in role r is the child of rank r of a child of rank i of loop_entry, and its
  // first stream is its own rank 0.
  const std::uint64_t entry = p::combine(p::seed_key(42), 0);
  const std::size_t n = indices.size();
  BOOST_TEST_REQUIRE(out.size() == 2 * n);
  std::set<std::uint64_t> distinct;
  for (std::size_t k = 0; k < n; ++k) {
    for (std::uint32_t role : {0U, 1U}) {
      const std::uint64_t body =
          p::combine(p::index_key(entry, indices[k]), role * tine::detail::pedigree_step);
      BOOST_TEST(out[role * n + k] == tine::dprng::from_key(p::combine(body, 0))(),
                 "index " << indices[k] << ", role " << role);
      distinct.insert(out[role * n + k]);
    }
    if (indices[k] < big) {  // an index key is the key of a child of that rank
      BOOST_TEST(
          p::index_key(entry, indices[k]) ==
          p::combine(entry, static_cast<std::uint32_t>(indices[k]) * tine::detail::pedigree_step));
    }
  }
  BOOST_TEST(distinct.size() == out.size());  // no index or role repeats another's stream
  // Outside a seeded computation the walk through transparent tasks still ends in the refusal.
  out.clear();
  BOOST_CHECK_THROW(tine::sync_wait(one, loop_entry, &indices, &out), std::logic_error);
}

BOOST_AUTO_TEST_CASE(a_stream_is_a_counter_of_its_key) {
  tine::dprng a = tine::dprng::from_key(12345);
  tine::dprng b = a;
  std::vector<std::uint64_t> first;
  for (int i = 0; i < 10; ++i) {
    first.push_back(a());
  }
  b.discard(6);
  BOOST_TEST(b() == first[6]);
  BOOST_TEST(!(a == b));
  b.discard(3);  // b has drawn or skipped 10, as a has
  BOOST_TEST((a == b));
  const double u = tine::dprng::from_key(1).uniform();
  BOOST_TEST((u >= 0.0 && u < 1.0));
}

namespace {

tine::task<void> draw_and_move(tine::inline_scheduler* away, std::vector<std::uint64_t>* out) {
  tine::dprng rng = co_await tine::dprng::current();
  out->push_back(rng());
  co_await tine::resume_on(*away);
  out->push_back(rng());  // the stream moved with the task
  tine::dprng again = co_await tine::dprng::current();
  out->push_back(again());
  std::uint64_t child = 0;
  co_await tine::call(&child, first_number);
  out->push_back(child);
}

tine::task<std::uint64_t> outer_then_inner() {
  auto inner = tine::dprng::seeded(7, first_number);
  std::uint64_t x = 0;
  co_await tine::call(&x, inner);  // a nested seeded computation starts from its own seed
  co_return x;
}

tine::task<std::uint64_t> unseeded() {
  tine::dprng rng = co_await tine::dprng::current();
  co_return rng();
}

}  // namespace

BOOST_AUTO_TEST_CASE(resume_on_changes_nothing) {
  tine::inline_scheduler away;
  tine::inline_scheduler one;
  tine::busy_pool<> pool(2);
  std::vector<std::uint64_t> here, there;
  tine::sync_wait(one, tine::dprng::seeded(5, draw_and_move), &away, &here);
  tine::sync_wait(pool, tine::dprng::seeded(5, draw_and_move), &away, &there);
  BOOST_TEST(here.size() == 4U);
  BOOST_TEST(here == there);
}

BOOST_AUTO_TEST_CASE(nested_seeded_computations_restart_from_their_seed) {
  tine::inline_scheduler one;
  BOOST_TEST(tine::sync_wait(one, tine::dprng::seeded(1, outer_then_inner)) ==
             tine::sync_wait(one, tine::dprng::seeded(7, first_number)));
  BOOST_TEST(tine::sync_wait(one, tine::dprng::seeded(2, outer_then_inner)) ==
             tine::sync_wait(one, tine::dprng::seeded(7, first_number)));
}

BOOST_AUTO_TEST_CASE(a_stream_outside_a_seeded_computation_is_refused) {
  tine::inline_scheduler one;
  BOOST_CHECK_EXCEPTION(
      tine::sync_wait(one, unseeded), std::logic_error, [](const std::logic_error& e) {
        return std::string(e.what()).find("tine::dprng::seeded") != std::string::npos;
      });
}

BOOST_AUTO_TEST_SUITE_END()
