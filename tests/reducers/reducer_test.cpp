// tine::reducer: the serial program's result on every scheduler, for monoids that do not commute
// (string and list append, 2x2 matrix product), on seeded random fork-join trees whose nodes may
// throw, with steals left to the pools' timing and with steals decided by coin flips; many
// reducers at once; move-only and over-aligned views; reducers declared in tasks; views that
// travel with resume_on; the misuses get() and the destructor catch; reduce that throws.
#include <boost/test/unit_test.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <list>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tine/algorithms/for_each.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/death.hpp"
#include "tests/core/random_tree.hpp"
#include "tests/random_steal_scheduler.hpp"

namespace {

using tine_tests::node_error;
using tine_tests::tree;

// 2x2 matrices over the integers modulo 2^64: associative, not commutative.
struct matrix {
  std::uint64_t a = 1, b = 0, c = 0, d = 1;
  friend matrix operator*(const matrix& x, const matrix& y) {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
            x.c * y.b + x.d * y.d};
  }
  friend bool operator==(const matrix&, const matrix&) = default;
};

struct matrix_product {
  using value_type = matrix;
  static matrix identity() { return {}; }
  static void reduce(matrix& left, matrix& right) { left = left * right; }
};

matrix opening(int id) {
  const auto k = static_cast<std::uint64_t>(id);
  return matrix{1, k + 1, 0, 1} * matrix{1, 0, 2 * k + 3, 1};
}
matrix closing(int id) {
  const auto k = static_cast<std::uint64_t>(id);
  return matrix{k + 2, 1, 1, 0};
}

// The reducers a walk updates, and the same values computed serially.
struct updates {
  tine::reducer<tine::append<std::string>> text;
  tine::reducer<tine::append<std::list<int>>> order;
  tine::reducer<matrix_product> product;
  tine::reducer<tine::sum<long>> total;
  tine::reducer<tine::max<long>> highest;
  std::vector<char> ran;  // 1 for each node that started (each written by its own task)
};

struct expected {
  std::string text;
  std::list<int> order;
  matrix product;
  long total = 0;
  long highest = std::numeric_limits<long>::lowest();
};

long weight(int id) { return (static_cast<long>(id) * 7919) % 1009 - 500; }

tine::task<void> walk(const tree* t, int id, updates* u) {
  const tree::node& n = t->nodes[static_cast<std::size_t>(id)];
  u->ran[static_cast<std::size_t>(id)] = 1;
  u->text.view() += "(" + std::to_string(id);
  u->order.view().push_back(id);
  u->product.view() = u->product.view() * opening(id);
  u->total.view() += weight(id);
  tine::max<long>::update(u->highest.view(), weight(id));
  if (n.throws) {
    throw node_error(id);
  }
  tine_tests::spin_for(n.spin);
  bool caught = false;
  try {
    for (std::size_t k = 0; k < n.children.size(); ++k) {
      if (k + 1 == n.children.size() && n.last_by_call) {
        co_await tine::call(walk, t, n.children[k], u);
      } else {
        co_await tine::fork(walk, t, n.children[k], u);
      }
    }
    co_await tine::join();
  } catch (const node_error&) {
    if (!n.catches) {
      throw;  // after the join, or out of an eager call (nothing stolen): no child runs
    }
    caught = true;
  }
  if (caught) {
    co_await tine::join();  // a call's exception comes out before the join: close the scope
  }
  u->text.view() += ")";
  u->order.view().push_back(-id - 1);
  u->product.view() = u->product.view() * closing(id);
}

struct recorder {
  expected& e;
  void before(int id) const {
    e.text += "(" + std::to_string(id);
    e.order.push_back(id);
    e.product = e.product * opening(id);
    e.total += weight(id);
    e.highest = std::max(e.highest, weight(id));
  }
  void after(int id) const {
    e.text += ")";
    e.order.push_back(-id - 1);
    e.product = e.product * closing(id);
  }
};

// The serial program's results; `started` receives the nodes it starts.
bool expect(const tree& t, expected& e, std::vector<char>& started) {
  const recorder r{e};
  auto before = [&r](int id) { r.before(id); };
  auto after = [&r](int id) { r.after(id); };
  started.assign(t.nodes.size(), 0);
  return tine_tests::visit_serially(t, 0, before, after, &started);
}

// The results of the serial order over the nodes a run started (`ok`: their set follows the
// rules, see visit_as_run).
void expect_as_run(const tree& t, const std::vector<char>& ran, expected& e, bool& ok) {
  const recorder r{e};
  auto before = [&r](int id) { r.before(id); };
  auto after = [&r](int id) { r.after(id); };
  auto started = [&ran](int id) { return ran[static_cast<std::size_t>(id)] != 0; };
  tine_tests::visit_as_run(t, 0, before, after, started, ok);
}

// `trees` random trees of about `size` nodes on `sched`, each against the serial walk.
template <typename S>
void check_walks(S& sched, int trees, std::size_t size, double throw_probability,
                 bool one_worker = false) {
  int threw = 0;
  for (int seed = 1; seed <= trees; ++seed) {
    const tree t =
        tine_tests::make_tree(static_cast<std::uint64_t>(seed), size, throw_probability, 0.5);
    expected serial;
    std::vector<char> serially_started;
    const bool want_throw = expect(t, serial, serially_started);
    updates u;
    u.ran.assign(t.nodes.size(), 0);
    bool got_throw = false;
    try {
      tine::sync_wait(sched, walk, &t, 0, &u);
    } catch (const node_error&) {
      got_throw = true;
    }
    threw += got_throw ? 1 : 0;
    // A fork after a sibling's exception starts nothing when it sees the exception; with
    // thieves it may run first. The views are then those of the nodes that started, in serial
    // order; with one worker, exactly the serial program's.
    expected e;
    bool ok = true;
    expect_as_run(t, u.ran, e, ok);
    BOOST_TEST_INFO("tree " << seed);
    BOOST_TEST(ok);
    if (one_worker) {
      BOOST_TEST((u.ran == serially_started));
    }
    BOOST_TEST(got_throw == want_throw);
    BOOST_TEST(u.text.get() == e.text);
    BOOST_TEST((u.order.get() == e.order));
    BOOST_TEST((u.product.get() == e.product));
    BOOST_TEST(u.total.get() == e.total);
    BOOST_TEST(u.highest.get() == e.highest);
  }
  if (throw_probability > 0) {
    BOOST_TEST(threw > 0);  // the trees with exceptions did test exceptions
  }
}

constexpr int trees_per_scheduler = 24;
constexpr std::size_t tree_size = 400;

}  // namespace

BOOST_AUTO_TEST_SUITE(reducer)

BOOST_AUTO_TEST_CASE(outside_tasks_the_view_is_the_reducers_own_value) {
  tine::reducer<tine::append<std::string>> r(std::string("start:"));
  r.view() += "main";
  BOOST_TEST(r.get() == "start:main");
  tine::reducer<tine::product<long>> p;
  BOOST_TEST(p.get() == 1);
  tine::reducer<tine::min<double>> m;
  BOOST_TEST(m.get() == std::numeric_limits<double>::infinity());
}

BOOST_AUTO_TEST_CASE(serial_result_on_the_inline_scheduler) {
  tine::inline_scheduler sched;
  check_walks(sched, trees_per_scheduler, tree_size, 0.0, true);
  check_walks(sched, trees_per_scheduler, tree_size, 0.02, true);
}

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(600))
BOOST_AUTO_TEST_CASE(serial_result_on_busy_pools) {
  for (std::size_t workers : {1U, 2U, 3U}) {
    tine::busy_pool<> pool(workers);
    BOOST_TEST_CONTEXT("busy_pool(" << workers << ")") {
      check_walks(pool, trees_per_scheduler, tree_size, 0.0);
      check_walks(pool, trees_per_scheduler, tree_size, 0.02);
    }
  }
}

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(600))
BOOST_AUTO_TEST_CASE(serial_result_on_lazy_pools) {
  for (std::size_t workers : {1U, 2U, 3U}) {
    tine::lazy_pool<> pool(workers);
    BOOST_TEST_CONTEXT("lazy_pool(" << workers << ")") {
      check_walks(pool, trees_per_scheduler, tree_size, 0.0);
      check_walks(pool, trees_per_scheduler, tree_size, 0.02);
    }
  }
}

// Steals by coin flip: most continuations of every depth are stolen, whatever the load.
BOOST_TEST_DECORATOR(*boost::unit_test::timeout(600))
BOOST_AUTO_TEST_CASE(serial_result_with_random_steals) {
  for (double p : {0.3, 0.9}) {
    for (std::size_t workers : {2U, 3U}) {
      tine_test::random_steal_scheduler sched(workers, p, 7);
      BOOST_TEST_CONTEXT("random steals p=" << p << " workers=" << workers) {
        check_walks(sched, trees_per_scheduler, tree_size, 0.0);
        check_walks(sched, trees_per_scheduler, tree_size, 0.02);
        BOOST_TEST(sched.steals() > 100U);
      }
    }
  }
}

namespace {

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load()) {
    std::this_thread::yield();
  }
}

constexpr std::size_t many = 40;  // past the tables' first sizes (8, 16, 32)
using many_reducers = std::array<tine::reducer<tine::append<std::string>>, many>;

tine::task<void> scatter(const tree* t, int id, many_reducers* rs) {
  const tree::node& n = t->nodes[static_cast<std::size_t>(id)];
  (*rs)[static_cast<std::size_t>(id) % many].view() += "<" + std::to_string(id);
  (*rs)[static_cast<std::size_t>(id * 7 + 3) % many].view() += "|" + std::to_string(id);
  for (int c : n.children) {
    co_await tine::fork(scatter, t, c, rs);
  }
  co_await tine::join();
  (*rs)[static_cast<std::size_t>(id * 13) % many].view() += ">";
}

}  // namespace

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(300))
BOOST_AUTO_TEST_CASE(many_reducers_at_once) {
  const tree t = tine_tests::make_tree(99, 600, 0, 0);
  std::array<std::string, many> want;
  auto before = [&](int id) {
    want[static_cast<std::size_t>(id) % many] += "<" + std::to_string(id);
    want[static_cast<std::size_t>(id * 7 + 3) % many] += "|" + std::to_string(id);
  };
  auto after = [&](int id) { want[static_cast<std::size_t>(id * 13) % many] += ">"; };
  tine_tests::visit_serially(t, 0, before, after);
  tine::inline_scheduler one;
  tine::busy_pool<> pool(3);
  tine_test::random_steal_scheduler coins(3, 0.7, 11);
  for (int round = 0; round < 3; ++round) {
    many_reducers a, b, c;
    tine::sync_wait(one, scatter, &t, 0, &a);
    tine::sync_wait(pool, scatter, &t, 0, &b);
    tine::sync_wait(coins, scatter, &t, 0, &c);
    for (std::size_t i = 0; i < many; ++i) {
      BOOST_TEST_INFO("reducer " << i);
      BOOST_TEST(a[i].get() == want[i]);
      BOOST_TEST(b[i].get() == want[i]);
      BOOST_TEST(c[i].get() == want[i]);
    }
  }
}

namespace {

// A view type that can only be moved.
struct log_of_ids {
  std::vector<int> ids;
  log_of_ids() = default;
  log_of_ids(log_of_ids&&) = default;
  log_of_ids& operator=(log_of_ids&&) = default;
  log_of_ids(const log_of_ids&) = delete;
  log_of_ids& operator=(const log_of_ids&) = delete;
};

struct move_only_append {
  using value_type = log_of_ids;
  static log_of_ids identity() { return {}; }
  static void reduce(log_of_ids& left, log_of_ids& right) {
    left.ids.insert(left.ids.end(), right.ids.begin(), right.ids.end());
  }
};

struct unique_text {
  using value_type = std::unique_ptr<std::string>;
  static value_type identity() { return std::make_unique<std::string>(); }
  static void reduce(value_type& left, value_type& right) { *left += *right; }
};

// A view aligned beyond the frames' 64 bytes, holding a matrix product.
struct alignas(128) wide_matrix {
  matrix m;
  char pad[64];
};

struct wide_product {
  using value_type = wide_matrix;
  static wide_matrix identity() { return {}; }
  static void reduce(wide_matrix& left, wide_matrix& right) { left.m = left.m * right.m; }
};

struct odd_types {
  tine::reducer<move_only_append> ids;
  tine::reducer<unique_text> text;
  tine::reducer<wide_product> product;
  std::atomic<int> misaligned{0};
};

tine::task<void> odd_walk(const tree* t, int id, odd_types* o) {
  const tree::node& n = t->nodes[static_cast<std::size_t>(id)];
  o->ids.view().ids.push_back(id);
  *o->text.view() += std::to_string(id) + ",";
  wide_matrix& w = o->product.view();
  if (reinterpret_cast<std::uintptr_t>(&w) % alignof(wide_matrix) != 0) {
    o->misaligned.fetch_add(1);
  }
  w.m = w.m * opening(id);
  for (int c : n.children) {
    co_await tine::fork(odd_walk, t, c, o);
  }
  co_await tine::join();
  o->ids.view().ids.push_back(-id - 1);
}

}  // namespace

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(300))
BOOST_AUTO_TEST_CASE(move_only_and_over_aligned_views) {
  const tree t = tine_tests::make_tree(5, 800, 0, 0);
  std::vector<int> ids;
  std::string text;
  matrix product;
  auto before = [&](int id) {
    ids.push_back(id);
    text += std::to_string(id) + ",";
    product = product * opening(id);
  };
  auto after = [&](int id) { ids.push_back(-id - 1); };
  tine_tests::visit_serially(t, 0, before, after);
  tine::busy_pool<> pool(2);
  tine_test::random_steal_scheduler coins(2, 0.8, 3);
  for (int round = 0; round < 4; ++round) {
    odd_types a, b;
    tine::sync_wait(pool, odd_walk, &t, 0, &a);
    tine::sync_wait(coins, odd_walk, &t, 0, &b);
    for (odd_types* o : {&a, &b}) {
      BOOST_TEST(o->ids.get().ids == ids);
      BOOST_TEST(*o->text.get() == text);
      BOOST_TEST((o->product.get().m == product));
      BOOST_TEST(o->misaligned.load() == 0);
      BOOST_TEST(reinterpret_cast<std::uintptr_t>(&o->product.get()) % 128 == 0U);
    }
  }
}

namespace {

tine::task<void> count_leaves(const tree* t, int id, tine::reducer<tine::append<std::string>>* r) {
  const tree::node& n = t->nodes[static_cast<std::size_t>(id)];
  if (n.children.empty()) {
    r->view() += std::to_string(id) + " ";
  }
  for (int c : n.children) {
    co_await tine::fork(count_leaves, t, c, r);
  }
  co_await tine::join();
}

// A reducer local to a task, itself run in many strands at once: its views are merged at the
// task's join, and get() and the destructor run in the strand that declared it.
tine::task<std::string> leaves_of(const tree* t, int id) {
  tine::reducer<tine::append<std::string>> local(std::string("leaves:"));
  co_await tine::call(count_leaves, t, id, &local);
  co_return local.get();
}

tine::task<std::string> subtree_leaves(const tree* t) {
  const tree::node& root = t->nodes[0];
  std::vector<std::string> parts(root.children.size());
  for (std::size_t k = 0; k < root.children.size(); ++k) {
    co_await tine::fork(&parts[k], leaves_of, t, root.children[k]);
  }
  co_await tine::join();
  std::string all;
  for (const std::string& p : parts) {
    all += p;
  }
  co_return all;
}

}  // namespace

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(300))
BOOST_AUTO_TEST_CASE(reducers_declared_in_tasks) {
  const tree t = tine_tests::make_tree(21, 900, 0, 0);
  std::string want;
  for (int c : t.nodes[0].children) {
    want += "leaves:";
    auto before = [&](int id) {
      if (t.nodes[static_cast<std::size_t>(id)].children.empty()) {
        want += std::to_string(id) + " ";
      }
    };
    auto after = [](int) {};
    tine_tests::visit_serially(t, c, before, after);
  }
  tine::busy_pool<> pool(3);
  tine_test::random_steal_scheduler coins(3, 0.8, 5);
  for (int round = 0; round < 5; ++round) {
    BOOST_TEST(tine::sync_wait(pool, subtree_leaves, &t) == want);
    BOOST_TEST(tine::sync_wait(coins, subtree_leaves, &t) == want);
  }
}

namespace {

tine::task<void> add_one(tine::reducer<tine::sum<long>>* r) {
  r->view() += 1;
  co_return;
}

// Moves between schedulers: the strand's views go with it, in serial order.
tine::task<void> travel(tine::reducer<tine::append<std::string>>* r,
                        tine::reducer<tine::sum<long>>* n, tine::inline_scheduler* away,
                        tine::busy_pool<>* home) {
  r->view() += "a";
  co_await tine::fork(add_one, n);
  co_await tine::join();
  co_await tine::resume_on(*away);
  r->view() += "b";
  for (int i = 0; i < 50; ++i) {
    co_await tine::fork(add_one, n);
  }
  co_await tine::join();
  co_await tine::resume_on(*home);
  r->view() += "c";
}

tine::task<void> travellers(tine::reducer<tine::append<std::string>>* r,
                            tine::reducer<tine::sum<long>>* n, tine::inline_scheduler* away,
                            tine::busy_pool<>* home) {
  for (int i = 0; i < 8; ++i) {
    r->view() += std::to_string(i);
    co_await tine::fork(travel, r, n, away, home);
  }
  co_await tine::join();
  r->view() += ".";
}

}  // namespace

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(120))
BOOST_AUTO_TEST_CASE(views_travel_with_resume_on) {
  tine::inline_scheduler away;
  tine::busy_pool<> home(2);
  std::string want;
  for (int i = 0; i < 8; ++i) {
    want += std::to_string(i) + "abc";
  }
  want += ".";
  for (int round = 0; round < 10; ++round) {
    tine::reducer<tine::append<std::string>> r;
    tine::reducer<tine::sum<long>> n;
    tine::sync_wait(home, travellers, &r, &n, &away, &home);
    BOOST_TEST(r.get() == want);
    BOOST_TEST(n.get() == 8 * 51);
  }
}

namespace {

// A forked child that moves away and comes back to a worker that holds a later continuation of
// its parent (pushed by another strand): the child must not take that one back as its own.
struct crossing {
  tine::inline_scheduler* home;
  tine::inline_scheduler* away;
  tine::inline_scheduler* elsewhere;
  tine::reducer<tine::append<std::string>>* text;
  std::atomic<bool> second_fork_next{false};
  std::atomic<bool> first_child_queued{false};
};

tine::task<void> leaves_and_comes_back(crossing* x) {
  co_await tine::resume_on(*x->away);  // its parent's continuation stays home, taken back there
  wait_for(x->second_fork_next);
  x->first_child_queued.store(true);
  co_await tine::resume_on(*x->home);  // queued while home runs the second child
  x->text->view() += "c";
}

tine::task<void> leaves_for_good(crossing* x) {
  x->text->view() += "d";
  wait_for(x->first_child_queued);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // its resume_on has queued it
  co_await tine::resume_on(*x->elsewhere);  // home now runs the first child, its deque holding
                                            // the continuation this child's fork pushed
}

tine::task<void> crossing_children(crossing* x) {
  x->text->view() += "a";
  co_await tine::fork(leaves_and_comes_back, x);
  x->text->view() += "b";
  x->second_fork_next.store(true);
  co_await tine::fork(leaves_for_good, x);
  x->text->view() += "e";
  co_await tine::join();
}

}  // namespace

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(60))
BOOST_AUTO_TEST_CASE(a_child_back_from_a_move_does_not_take_a_later_continuation) {
  tine::inline_scheduler home, away, elsewhere;
  for (int round = 0; round < 5; ++round) {
    tine::reducer<tine::append<std::string>> text;
    crossing x{&home, &away, &elsewhere, &text};
    tine::sync_wait(home, crossing_children, &x);
    BOOST_TEST(text.get() == "acbde");
  }
}

namespace {

// A worker left with two continuations of one chain (the root's and its child's) must take the
// newer back first: taking the root's first, the child's scope would end on this worker under a
// continuation the root pushed in a later strand, and take that one back as its own.
struct two_left {
  tine::inline_scheduler* away;
  tine::inline_scheduler* elsewhere;
  tine::reducer<tine::append<std::string>>* text;
  std::atomic<bool> grandchild_done{false};
};

tine::task<void> grandchild(two_left* x) {
  co_await tine::resume_on(*x->away);  // leaves its parent's and the root's continuations home
  x->text->view() += "3";
  x->grandchild_done.store(true);
}

tine::task<void> middle(two_left* x) {
  x->text->view() += "2";
  co_await tine::fork(grandchild, x);
  x->text->view() += "4";
  co_await tine::join();
  x->text->view() += "5";
}

tine::task<void> mover(two_left* x) {
  x->text->view() += "7";
  wait_for(x->grandchild_done);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // it has ended by now
  co_await tine::resume_on(*x->elsewhere);
}

tine::task<void> two_continuations_left(two_left* x) {
  x->text->view() += "1";
  co_await tine::fork(middle, x);
  x->text->view() += "6";
  co_await tine::fork(mover, x);
  x->text->view() += "8";
  co_await tine::join();
}

}  // namespace

BOOST_TEST_DECORATOR(*boost::unit_test::timeout(60))
BOOST_AUTO_TEST_CASE(a_worker_takes_its_own_continuations_back_newest_first) {
  tine::inline_scheduler home, away, elsewhere;
  for (int round = 0; round < 5; ++round) {
    tine::reducer<tine::append<std::string>> text;
    two_left x{&away, &elsewhere, &text};
    tine::sync_wait(home, two_continuations_left, &x);
    BOOST_TEST(text.get() == "12345678");
  }
}

BOOST_AUTO_TEST_CASE(reducers_in_parallel_algorithm_bodies) {
  std::vector<int> v(100'000);
  std::iota(v.begin(), v.end(), 0);
  tine::busy_pool<> pool(2);
  for (int round = 0; round < 5; ++round) {
    tine::reducer<tine::sum<long>> total;
    tine::reducer<tine::append<std::vector<int>>> odd;
    tine::for_each(pool, v, [&](int x) {
      total.view() += x;
      if (x % 1000 == 1) {
        odd.view().push_back(x);
      }
    });
    BOOST_TEST(total.get() == 100'000L * 99'999 / 2);
    std::vector<int> want;
    for (int x = 1; x < 100'000; x += 1000) {
      want.push_back(x);
    }
    BOOST_TEST(odd.get() == want);  // in the serial order of the elements
  }
}

namespace {

tine::task<void> add_one_and_tell(tine::reducer<tine::sum<long>>* r, std::atomic<bool>* made) {
  r->view() += 1;
  made->store(true);
  co_return;
}

tine::task<void> get_while_a_sibling_holds_a_view(tine::reducer<tine::sum<long>>* r,
                                                  bool* refused) {
  std::atomic<bool> made{false};
  co_await tine::fork(add_one_and_tell, r, &made);  // its view stays with the leftmost strand
  wait_for(made);  // the continuation was stolen (coin flips of probability 1): wait for it
  try {
    (void)r->get();
  } catch (const std::logic_error&) {
    *refused = true;
  }
  co_await tine::join();
}

// A monoid whose reduce fails when the right-hand view is 13.
struct picky_sum {
  using value_type = long;
  static long identity() { return 0; }
  static void reduce(long& left, long& right) {
    if (right == 13) {
      throw std::runtime_error("cannot add 13");
    }
    left += right;
  }
};

tine::task<void> add_picky(tine::reducer<picky_sum>* r, long x) {
  r->view() += x;
  co_return;
}

tine::task<void> merge_that_fails(tine::reducer<picky_sum>* r) {
  co_await tine::fork(add_picky, r, 1L);  // the leftmost strand's view: 1
  r->view() += 13;                        // the stolen continuation's view: 13
  co_await tine::join();                  // 1 ⊕ 13 throws here
}

}  // namespace

BOOST_AUTO_TEST_CASE(get_in_parallel_with_an_updating_strand_throws) {
  tine_test::random_steal_scheduler always(2, 1.0, 1);
  tine::reducer<tine::sum<long>> r;
  bool refused = false;
  tine::sync_wait(always, get_while_a_sibling_holds_a_view, &r, &refused);
  BOOST_TEST(refused);
  BOOST_TEST(r.get() == 1);
}

BOOST_AUTO_TEST_CASE(a_reduce_that_throws_is_rethrown_at_the_join_and_leaks_nothing) {
  tine_test::random_steal_scheduler always(2, 1.0, 2);
  tine::reducer<picky_sum> r;
  BOOST_CHECK_THROW(tine::sync_wait(always, merge_that_fails, &r), std::runtime_error);
  BOOST_TEST(r.get() == 1);  // the left view reached the reducer; the failed one was destroyed
  // A root's views are folded into the reducer at its end: there the exception reaches
  // sync_wait, on every scheduler.
  tine::inline_scheduler one;
  tine::reducer<picky_sum> s;
  BOOST_CHECK_THROW(tine::sync_wait(one, add_picky, &s, 13L), std::runtime_error);
  BOOST_TEST(s.get() == 0);
}

namespace {

tine::task<void> destroy_too_early(tine::reducer<tine::sum<long>>* r) {
  std::atomic<bool> made{false};
  co_await tine::fork(add_one_and_tell, r, &made);
  wait_for(made);
  delete r;  // the child's view still waits for the join: the program stops
  co_await tine::join();
}

}  // namespace

BOOST_AUTO_TEST_CASE(destroying_a_reducer_that_strands_still_hold_stops_the_program) {
  const tine_tests::death_result d = tine_tests::run_in_child([] {
    tine_test::random_steal_scheduler always(2, 1.0, 4);
    auto* r = new tine::reducer<tine::sum<long>>;
    tine::sync_wait(always, destroy_too_early, r);
  });
  BOOST_TEST(d.aborted);
  BOOST_TEST(d.stderr_text.find("tine::reducer destroyed while other strands still hold views") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
