// The core's strand seam (core/worker_strands.hpp) with the reducers' layer: the layer is the
// process's one, installed before main; a later install is refused; and the events the core
// reports leave every task, after its join, in the record its strand had when the scope opened,
// whatever was stolen in between (the serial order that reducers' merges rely on).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdint>
#include <exception>

#include <tine/core/core.hpp>
#include <tine/core/worker_runtime.hpp>
#include <tine/core/worker_strands.hpp>
#include <tine/reducers/views_layer.hpp>

#include "tests/random_steal_scheduler.hpp"

namespace {

namespace td = tine::detail;

td::strand_views* current_record() { return td::runtime().strands().current(); }

struct tally {
  std::atomic<long> without_record{0};  // a task that ran with no record
  std::atomic<long> moved{0};           // continuations that ran in another record (stolen)
  std::atomic<long> not_restored{0};    // tasks whose join left them in another record
};

tine::task<void> node(tally* t, int depth) {
  if (depth == 0) {
    co_return;
  }
  td::strand_views* const before = current_record();
  if (before == nullptr) {
    t->without_record.fetch_add(1, std::memory_order_relaxed);
  }
  co_await tine::fork(node, t, depth - 1);
  if (current_record() != before) {
    t->moved.fetch_add(1, std::memory_order_relaxed);
  }
  co_await tine::fork(node, t, depth - 1);
  co_await tine::call(node, t, depth - 1);
  co_await tine::join();
  if (current_record() != before) {
    t->not_restored.fetch_add(1, std::memory_order_relaxed);
  }
}

// A layer that would keep nothing; only its address matters here.
class other_layer final : public td::strand_layer {
 public:
  bool reserve(td::worker_strands&) const noexcept override { return true; }
  void begin_root(td::worker_strands&) const noexcept override {}
  void end_root(td::worker_strands&, std::exception_ptr&) const noexcept override {}
  void begin_stolen(td::worker_strands&, td::frame*) const noexcept override {}
  void deposit(td::worker_strands&, td::frame*) const noexcept override {}
  void merge(td::worker_strands&, td::frame*) const noexcept override {}
  void retire(td::worker_strands&) const noexcept override {}
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_reducers_layer_is_installed_before_main_and_stays) {
  BOOST_TEST(td::views_layer_installed);
  BOOST_TEST(td::strand_layer_slot::get() == &td::views_layer::instance());
  static const other_layer other;
  BOOST_TEST(!td::strand_layer_slot::install(&other));
  BOOST_TEST(td::strand_layer_slot::install(&td::views_layer::instance()));  // already the one
  BOOST_TEST(td::strand_layer_slot::get() == &td::views_layer::instance());
}

BOOST_AUTO_TEST_CASE(a_join_leaves_the_task_in_the_record_its_scope_began_in) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    tally t;
    tine_test::random_steal_scheduler sched(3, 0.5, seed);
    tine::sync_wait(sched, node, &t, 7);
    BOOST_TEST(t.without_record.load() == 0);
    BOOST_TEST(t.moved.load() > 0);  // steals happened: the test is not vacuous
    BOOST_TEST(t.not_restored.load() == 0);
  }
}
