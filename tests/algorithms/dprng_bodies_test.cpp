// tine::dprng in the task bodies of the parallel algorithms: what a body applied at index i
// draws from `co_await tine::dprng::current()` depends on the seed, on the algorithm call's place
// in the fork tree and on i, never on the scheduler, its worker count or the grain (the
// automatic grain follows the worker count, and the recursive split follows the grain). Every
// algorithm that accepts task bodies runs here on the inline scheduler, busy_pool(1),
// busy_pool(2) and lazy_pool(2), with the automatic grain and several explicit ones, and each
// application's first number must be the same bit for bit in every run, and differ between
// indices and between an element's callable and `op`.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tine/algorithms/algorithms.hpp>
#include <tine/core/core.hpp>

#include "tests/algorithms/test_support.hpp"

namespace {

using tine_test::interval;

// What the callables drew, by (role, index): role 0 for the element's callable (f, pred,
// transform), 1 for `op`, 2 for the bodies of an inner algorithm. Filled from any worker.
class draw_log {
 public:
  using key = std::pair<int, std::size_t>;

  void add(int role, std::size_t index, std::uint64_t first) {
    const std::lock_guard<std::mutex> hold(m_lock);
    m_entries.push_back({{role, index}, first});
  }

  // One number per (role, index); several applications at one index (a scan's passes) must
  // have drawn the same one.
  std::map<key, std::uint64_t> settle(const std::string& where) const {
    std::map<key, std::uint64_t> out;
    std::size_t conflicts = 0;
    for (const auto& [k, first] : m_entries) {
      const auto [it, fresh] = out.emplace(k, first);
      conflicts += fresh || it->second == first ? 0 : 1;
    }
    BOOST_TEST(conflicts == 0, where << ": " << conflicts
                                     << " applications drew other numbers than an earlier "
                                        "application at the same role and index");
    return out;
  }

 private:
  std::mutex m_lock;
  std::vector<std::pair<key, std::uint64_t>> m_entries;
};

// The first number of the calling task's first stream.
#define TINE_TEST_DRAW(log, role, index)                         \
  do {                                                           \
    tine::dprng rng_ = co_await tine::dprng::current();          \
    (log)->add((role), static_cast<std::size_t>(index), rng_()); \
  } while (false)

struct inputs {
  std::vector<long> v;          // 0, 1, ..., n-1
  std::vector<long> w;          // the same
  std::vector<interval> units;  // [i, i+1)
  std::list<long> l;            // 0, 1, ..., n-1
};

inputs make_inputs(std::size_t n) {
  inputs in;
  in.v.resize(n);
  std::iota(in.v.begin(), in.v.end(), 0L);
  in.w = in.v;
  in.units = tine_test::unit_intervals(n);
  in.l.assign(in.v.begin(), in.v.end());
  return in;
}

// `op` on intervals is applied at the first index of its right operand.
auto interval_op(draw_log* log) {
  return [log](interval a, interval b) -> tine::task<interval> {
    TINE_TEST_DRAW(log, 1, b.lo);
    co_return tine_test::join_intervals{}(a, b);
  };
}

auto unit_of(draw_log* log) {
  return [log](long x) -> tine::task<interval> {
    TINE_TEST_DRAW(log, 0, x);
    co_return interval{x, x + 1, true};
  };
}

auto never(draw_log* log) {
  return [log](long x) -> tine::task<bool> {
    TINE_TEST_DRAW(log, 0, x);
    co_return false;
  };
}

auto always(draw_log* log) {
  return [log](long x) -> tine::task<bool> {
    TINE_TEST_DRAW(log, 0, x);
    co_return true;
  };
}

auto same(draw_log* log) {
  return [log](long x, long y) -> tine::task<bool> {
    TINE_TEST_DRAW(log, 0, x);
    co_return x == y;
  };
}

// Each algorithm run as a seeded task; `in` and `log` outlive it.
using body_run = tine::task<void> (*)(const inputs*, tine::grain, draw_log*);

tine::task<void> for_each_run(const inputs* in, tine::grain g, draw_log* log) {
  co_await tine::call(
      tine::async::for_each, in->v,
      [log](long x) -> tine::task<void> { TINE_TEST_DRAW(log, 0, x); }, g);
  co_await tine::join();
}

tine::task<void> for_each_list_run(const inputs* in, tine::grain g, draw_log* log) {
  co_await tine::call(
      tine::async::for_each, in->l,
      [log](long x) -> tine::task<void> { TINE_TEST_DRAW(log, 0, x); }, g);
  co_await tine::join();
}

tine::task<void> map_run(const inputs* in, tine::grain g, draw_log* log) {
  std::vector<long> out(in->v.size());
  std::vector<long>::iterator end;
  co_await tine::call(
      &end, tine::async::map, in->v, out.begin(),
      [log](long x) -> tine::task<long> {
        TINE_TEST_DRAW(log, 0, x);
        co_return x;
      },
      g);
  co_await tine::join();
  BOOST_TEST((out == in->v));
}

void check_whole(const interval& all, std::size_t n) {
  BOOST_TEST((all == interval{0, static_cast<long>(n), true}));
}

tine::task<void> reduce_run(const inputs* in, tine::grain g, draw_log* log) {
  interval all;
  co_await tine::call(&all, tine::async::reduce, in->units, interval{}, interval_op(log), g);
  co_await tine::join();
  check_whole(all, in->v.size());
}

tine::task<void> transform_reduce_both_run(const inputs* in, tine::grain g, draw_log* log) {
  interval all;
  co_await tine::call(&all, tine::async::transform_reduce, in->v, interval{}, interval_op(log),
                      unit_of(log), g);
  co_await tine::join();
  check_whole(all, in->v.size());
}

tine::task<void> transform_reduce_op_run(const inputs* in, tine::grain g, draw_log* log) {
  interval all;
  co_await tine::call(
      &all, tine::async::transform_reduce, in->v, interval{}, interval_op(log),
      [](long x) {
        return interval{x, x + 1, true};
      },
      g);
  co_await tine::join();
  check_whole(all, in->v.size());
}

tine::task<void> transform_reduce_transform_run(const inputs* in, tine::grain g, draw_log* log) {
  interval all;
  co_await tine::call(&all, tine::async::transform_reduce, in->v, interval{},
                      tine_test::join_intervals{}, unit_of(log), g);
  co_await tine::join();
  check_whole(all, in->v.size());
}

tine::task<void> transform_reduce_two_run(const inputs* in, tine::grain g, draw_log* log) {
  interval all;
  co_await tine::call(
      &all, tine::async::transform_reduce, in->v, in->w.begin(), interval{}, interval_op(log),
      [log](long x, long) -> tine::task<interval> {
        TINE_TEST_DRAW(log, 0, x);
        co_return interval{x, x + 1, true};
      },
      g);
  co_await tine::join();
  check_whole(all, in->v.size());
}

tine::task<void> count_if_run(const inputs* in, tine::grain g, draw_log* log) {
  std::ptrdiff_t hits = -1;
  co_await tine::call(&hits, tine::async::count_if, in->v, always(log), g);
  co_await tine::join();
  BOOST_TEST(hits == static_cast<std::ptrdiff_t>(in->v.size()));
}

tine::task<void> find_if_run(const inputs* in, tine::grain g, draw_log* log) {
  std::vector<long>::const_iterator found;
  co_await tine::call(&found, tine::async::find_if, in->v, never(log), g);
  co_await tine::join();
  BOOST_TEST((found == in->v.end()));
}

tine::task<void> any_of_run(const inputs* in, tine::grain g, draw_log* log) {
  bool answer = true;
  co_await tine::call(&answer, tine::async::any_of, in->v, never(log), g);
  co_await tine::join();
  BOOST_TEST(!answer);
}

tine::task<void> none_of_run(const inputs* in, tine::grain g, draw_log* log) {
  bool answer = false;
  co_await tine::call(&answer, tine::async::none_of, in->v, never(log), g);
  co_await tine::join();
  BOOST_TEST(answer);
}

tine::task<void> all_of_run(const inputs* in, tine::grain g, draw_log* log) {
  bool answer = false;
  co_await tine::call(&answer, tine::async::all_of, in->v, always(log), g);
  co_await tine::join();
  BOOST_TEST(answer);
}

tine::task<void> equal_run(const inputs* in, tine::grain g, draw_log* log) {
  bool answer = false;
  co_await tine::call(&answer, tine::async::equal, in->v, in->w.begin(), same(log), g);
  co_await tine::join();
  BOOST_TEST(answer);
}

tine::task<void> mismatch_run(const inputs* in, tine::grain g, draw_log* log) {
  std::ranges::in_in_result<std::vector<long>::const_iterator, std::vector<long>::const_iterator>
      where;
  co_await tine::call(&where, tine::async::mismatch, in->v, in->w.cbegin(), same(log), g);
  co_await tine::join();
  BOOST_TEST((where.in1 == in->v.end()));
}

void check_spans(const std::vector<interval>& out, long first_hi) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    BOOST_TEST((out[i] == interval{0, first_hi + static_cast<long>(i), true}));
  }
}

tine::task<void> inclusive_scan_run(const inputs* in, tine::grain g, draw_log* log) {
  std::vector<interval> out(in->units.size());
  std::vector<interval>::iterator end;
  co_await tine::call(&end, tine::async::inclusive_scan, in->units, out.begin(), interval_op(log),
                      g);
  co_await tine::join();
  check_spans(out, 1);
}

tine::task<void> inclusive_scan_init_run(const inputs* in, tine::grain g, draw_log* log) {
  std::vector<interval> out(in->units.size());
  std::vector<interval>::iterator end;
  co_await tine::call(&end, tine::async::inclusive_scan, in->units, out.begin(), interval_op(log),
                      interval{}, g);
  co_await tine::join();
  check_spans(out, 1);
}

tine::task<void> exclusive_scan_run(const inputs* in, tine::grain g, draw_log* log) {
  std::vector<interval> out(in->units.size());
  std::vector<interval>::iterator end;
  co_await tine::call(&end, tine::async::exclusive_scan, in->units, out.begin(), interval{},
                      interval_op(log), g);
  co_await tine::join();
  check_spans(out, 0);
}

// Algorithms inside a body: each inner body's draws depend on the outer index and its own.
tine::task<void> nested_run(const inputs* in, tine::grain g, draw_log* log) {
  constexpr std::size_t inner = 13;  // a constant: the lambdas use it without capturing it
  co_await tine::call(
      tine::async::for_each, in->v,
      [log, g](long x) -> tine::task<void> {
        std::vector<long> ys(inner);
        std::iota(ys.begin(), ys.end(), 0L);
        const auto body = [log, x](long y) -> tine::task<void> {
          TINE_TEST_DRAW(log, 2, static_cast<std::size_t>(x) * inner + static_cast<std::size_t>(y));
        };
        co_await tine::call(tine::async::for_each, ys, body, g);
        co_await tine::join();
      },
      g);
  co_await tine::join();
}

struct algorithm_case {
  const char* name;
  body_run run;
};

const std::vector<algorithm_case> cases = {
    {"for_each", for_each_run},
    {"for_each over a list", for_each_list_run},
    {"map", map_run},
    {"reduce", reduce_run},
    {"transform_reduce, both tasks", transform_reduce_both_run},
    {"transform_reduce, a task op", transform_reduce_op_run},
    {"transform_reduce, a task transform", transform_reduce_transform_run},
    {"transform_reduce over two inputs", transform_reduce_two_run},
    {"count_if", count_if_run},
    {"find_if", find_if_run},
    {"any_of", any_of_run},
    {"none_of", none_of_run},
    {"all_of", all_of_run},
    {"equal", equal_run},
    {"mismatch", mismatch_run},
    {"inclusive_scan", inclusive_scan_run},
    {"inclusive_scan with init", inclusive_scan_init_run},
    {"exclusive_scan", exclusive_scan_run},
    {"nested for_each", nested_run},
};

constexpr std::uint64_t seed = 20240611;

std::map<draw_log::key, std::uint64_t> draws_of(tine::scheduler_ref sched, body_run run,
                                                const inputs& in, tine::grain g,
                                                const std::string& where) {
  draw_log log;
  tine::sync_wait(sched, tine::dprng::seeded(seed, run), &in, g, &log);
  return log.settle(where);
}

// The indices every run of a case must cover, by role.
std::size_t expected_entries(const std::string& name, std::size_t n) {
  if (name == "nested for_each") {
    return n * 13;
  }
  if (name.rfind("transform_reduce, both", 0) == 0 || name == "transform_reduce over two inputs") {
    return 2 * n;  // the transform at every index, op at every index (op(init, all) at 0)
  }
  if (name == "inclusive_scan") {
    return n - 1;  // op at every index but the first
  }
  return n;
}

void draws_agree_everywhere(const std::vector<std::pair<std::string, tine::scheduler_ref>>& scheds,
                            std::size_t n) {
  const inputs in = make_inputs(n);
  std::vector<tine::grain> grains = {tine::grain{},  tine::grain{1},  tine::grain{3},
                                     tine::grain{7}, tine::grain{64}, tine::grain{n + 3}};
  for (const algorithm_case& c : cases) {
    std::map<draw_log::key, std::uint64_t> reference;
    std::string reference_where;
    for (const auto& [sname, sched] : scheds) {
      for (tine::grain g : grains) {
        std::ostringstream where;
        where << c.name << " on " << sname << ", grain " << g.size;
        const auto draws = draws_of(sched, c.run, in, g, where.str());
        if (reference_where.empty()) {
          reference = draws;
          reference_where = where.str();
          BOOST_TEST(draws.size() == expected_entries(c.name, n), where.str());
          std::set<std::uint64_t> distinct;
          for (const auto& [k, first] : draws) {
            distinct.insert(first);
          }
          BOOST_TEST(distinct.size() == draws.size(),
                     where.str() << ": two indices or roles drew the same number");
          continue;
        }
        std::size_t differ = 0;
        for (const auto& [k, first] : draws) {
          const auto it = reference.find(k);
          differ += it == reference.end() || it->second != first ? 1 : 0;
        }
        BOOST_TEST((differ == 0 && draws.size() == reference.size()),
                   where.str() << " drew differently from " << reference_where << " at " << differ
                               << " of " << draws.size() << " applications");
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dprng_bodies)

BOOST_AUTO_TEST_CASE(the_same_draws_on_every_scheduler_worker_count_and_grain) {
  const std::size_t n = tine_test::sanitized ? 263 : 1031;
  tine::inline_scheduler one;
  tine::busy_pool<> busy1(1);
  tine::busy_pool<> busy2(2);
  tine::lazy_pool<> lazy2(2);
  draws_agree_everywhere({{"inline_scheduler", tine::scheduler_ref(one)},
                          {"busy_pool(1)", tine::scheduler_ref(busy1)},
                          {"busy_pool(2)", tine::scheduler_ref(busy2)},
                          {"lazy_pool(2)", tine::scheduler_ref(lazy2)}},
                         n);
}

BOOST_AUTO_TEST_CASE(a_bodys_stream_is_derived_from_the_algorithms_place_and_the_index) {
  namespace p = tine::detail::pedigree;
  // for_each_run claims rank 0 of the seeded task, the algorithm's entry task rank 0 of
  // for_each_run; the body at index i is the child of rank 0 of a child of rank i of the entry,
  // and its first stream is its own rank 0 (docs/reducers.md).
  const std::uint64_t entry = p::combine(p::combine(p::seed_key(seed), 0), 0);
  const inputs in = make_inputs(97);
  tine::busy_pool<> pool(2);
  const auto draws = draws_of(pool, for_each_run, in, tine::grain{}, "for_each");
  BOOST_TEST_REQUIRE(draws.size() == in.v.size());
  for (std::size_t i = 0; i < in.v.size(); ++i) {
    const std::uint64_t body = p::combine(p::index_key(entry, i), 0);
    BOOST_TEST(draws.at({0, i}) == tine::dprng::from_key(p::combine(body, 0))(), "index " << i);
  }
}

BOOST_AUTO_TEST_CASE(a_body_outside_a_seeded_computation_is_refused) {
  tine::busy_pool<> pool(2);
  const std::vector<long> v(100, 1);
  BOOST_CHECK_THROW(tine::for_each(pool, v,
                                   [](long) -> tine::task<void> {
                                     tine::dprng rng = co_await tine::dprng::current();
                                     (void)rng();
                                   }),
                    std::logic_error);
}

BOOST_AUTO_TEST_SUITE_END()
