// Over-aligned objects in task frames: parameters, locals and results aligned to 32 and 64 bytes
// are aligned, in forked children, in stolen continuations and on every stacklet.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

namespace {

template <std::size_t Align>
struct alignas(Align) block {
  double v[Align / sizeof(double)];
};

std::atomic<long> misaligned{0};

template <typename T>
void check(const T* p) {
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0) {
    misaligned.fetch_add(1, std::memory_order_relaxed);
  }
}

// The parameter, a local that lives across suspension points, and the results written by the
// children all have alignof(block<Align>).
template <std::size_t Align>
tine::task<block<Align>> tree(block<Align> param, int depth) {
  check(&param);
  block<Align> local{};
  check(&local);
  local.v[0] = param.v[0];
  if (depth == 0) {
    co_return local;
  }
  block<Align> left{};
  block<Align> right{};
  check(&left);
  check(&right);
  block<Align> arg = param;
  arg.v[0] += 1;
  co_await tine::fork(&left, tree<Align>, arg, depth - 1);
  co_await tine::fork(&right, tree<Align>, arg, depth - 1);
  co_await tine::join();
  check(&local);  // after a join, possibly on another worker
  check(&left);
  local.v[0] = left.v[0] + right.v[0];
  co_return local;
}

template <std::size_t Align, typename Sched>
void run(Sched& sched, int depth) {
  misaligned = 0;
  block<Align> root{};
  root.v[0] = 1;
  const block<Align> r = tine::sync_wait(sched, tree<Align>, root, depth);
  // Each leaf holds depth + 1; there are 2^depth leaves.
  BOOST_TEST(r.v[0] == static_cast<double>((depth + 1) * (1 << depth)));
  BOOST_TEST(misaligned.load() == 0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(alignment)

BOOST_AUTO_TEST_CASE(on_the_inline_scheduler) {
  tine::inline_scheduler sched;
  run<32>(sched, 10);
  run<64>(sched, 10);
}

BOOST_AUTO_TEST_CASE(with_stealing, *boost::unit_test::timeout(120)) {
  tine::busy_pool<> pool(2);
  // Twenty rounds, then more until a steal has happened (a loaded machine may keep the second
  // worker off its core through many of them), with a bound.
  for (int i = 0; i < 20 || (i < 5000 && pool.stats().steals_succeeded == 0); ++i) {
    run<32>(pool, 12);
    run<64>(pool, 12);
  }
  BOOST_TEST(pool.stats().steals_succeeded > 0U);
}

// Stack allocations honour the same alignment.
BOOST_AUTO_TEST_CASE(stack_arrays_of_over_aligned_elements) {
  tine::inline_scheduler sched;
  auto fn = []() -> tine::task<long> {
    auto a = co_await tine::stack_alloc<char>(3);
    auto b = co_await tine::stack_alloc<block<64>>(5);
    long bad = 0;
    for (auto& x : b) {
      bad += reinterpret_cast<std::uintptr_t>(&x) % 64 != 0;
    }
    co_return bad + static_cast<long>(a.size()) - 3;
  };
  BOOST_TEST(tine::sync_wait(sched, fn) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
