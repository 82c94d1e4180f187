// A scheduler used after its destructor ran ends the program with a message instead of hanging:
// the root would wait forever in a queue no worker reads. Each scheduler is built in place in a
// buffer, destroyed there, and used again (as a static scheduler is by a later static's
// destructor); every case runs in a child process.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <new>
#include <string>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/death.hpp"

namespace {

tine::task<int> value(int v) { co_return v; }

// Builds a Sched in a buffer, checks it works, destroys it, then calls `use` on the dead object.
template <typename Sched, typename Make, typename Use>
tine_tests::death_result destroy_then_use(Make make, Use use) {
  return tine_tests::run_in_child([make, use] {
    alignas(Sched) std::byte storage[sizeof(Sched)];
    Sched* sched = make(storage);
    if (tine::sync_wait(*sched, value, 5) != 5) {
      std::_Exit(3);
    }
    sched->~Sched();
    use(*sched);
    std::_Exit(4);  // not reached: the use must stop the program
  });
}

template <typename Pool>
Pool* make_pool(std::byte* storage) {
  return ::new (storage) Pool(2);
}

const std::string pool_message =
    "a tine pool (busy_pool or lazy_pool) was used after it was destroyed";

}  // namespace

BOOST_AUTO_TEST_SUITE(use_after_destroy)

BOOST_AUTO_TEST_CASE(a_pool_reports_sync_wait) {
  const auto busy = destroy_then_use<tine::busy_pool<>>(
      make_pool<tine::busy_pool<>>, [](auto& pool) { (void)tine::sync_wait(pool, value, 1); });
  BOOST_TEST(busy.aborted);
  BOOST_TEST(busy.stderr_text.find(pool_message) != std::string::npos, busy.stderr_text);
  const auto lazy = destroy_then_use<tine::lazy_pool<>>(
      make_pool<tine::lazy_pool<>>, [](auto& pool) { (void)tine::sync_wait(pool, value, 1); });
  BOOST_TEST(lazy.aborted);
  BOOST_TEST(lazy.stderr_text.find(pool_message) != std::string::npos, lazy.stderr_text);
}

BOOST_AUTO_TEST_CASE(a_pool_reports_its_workers_as_schedulers) {
  const auto r = destroy_then_use<tine::lazy_pool<>>(make_pool<tine::lazy_pool<>>,
                                                     [](auto& pool) { (void)pool.worker(0); });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find(pool_message) != std::string::npos, r.stderr_text);
}

BOOST_AUTO_TEST_CASE(the_inline_scheduler_reports_sync_wait) {
  const auto r = destroy_then_use<tine::inline_scheduler>(
      [](std::byte* storage) { return ::new (storage) tine::inline_scheduler(); },
      [](auto& sched) { (void)tine::sync_wait(sched, value, 1); });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("a tine::inline_scheduler was used after it was destroyed") !=
                 std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_CASE(destroying_twice_is_reported) {
  const auto r = destroy_then_use<tine::busy_pool<>>(make_pool<tine::busy_pool<>>,
                                                     [](auto& pool) { pool.~busy_pool(); });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("a tine pool was destroyed twice") != std::string::npos,
             r.stderr_text);
}

BOOST_AUTO_TEST_SUITE_END()
