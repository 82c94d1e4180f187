#ifndef TINE_BENCH_DISTRIBUTED_TASKS_HPP
#define TINE_BENCH_DISTRIBUTED_TASKS_HPP

/// \file distributed_tasks.hpp
/// The tasks that the distributed pool's tests and benchmark run, written as a task on
/// `tine::mpi_pool` must be (docs/distributed.md, "What a task may touch"): what a child reads is
/// passed by value, and what it produces comes back through its result.

#include <tine/core/core.hpp>

#include <cstddef>
#include <cstdint>

#include "bench/suite/uts.hpp"

namespace distributed_tasks {

inline tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

inline long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

/// The placements of n queens below row `row`, the children's counts in a stack allocation.
inline tine::task<long> queens(int n, int row, std::uint32_t cols, std::uint32_t d1,
                               std::uint32_t d2) {
  if (row == n) {
    co_return 1;
  }
  tine::stack_array<long> counts = co_await tine::stack_alloc<long>(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    counts[static_cast<std::size_t>(c)] = 0;
    const std::uint32_t bit = 1u << c;
    if ((cols & bit) != 0 || (d1 & (bit << row)) != 0 || (d2 & (bit << (n - row))) != 0) {
      continue;
    }
    co_await tine::fork(&counts[static_cast<std::size_t>(c)], queens, n, row + 1, cols | bit,
                        d1 | (bit << row), d2 | (bit << (n - row)));
  }
  co_await tine::join();
  long total = 0;
  for (int c = 0; c < n; ++c) {
    total += counts[static_cast<std::size_t>(c)];
  }
  co_return total;
}

/// UTS: a node is passed by value (it travels in the child's frame); the children's nodes and
/// results are in a stack allocation of the parent. `p` points to a constant tree description,
/// at the same address in every process.
struct uts_slot {
  uts::node node;
  uts::result res;
};

inline tine::task<uts::result> uts_search(const uts::params* p, uts::node n) {
  const int k = uts::num_children(*p, n);
  uts::result r{1, k == 0 ? 1u : 0u, n.depth};
  if (k == 0) {
    co_return r;
  }
  tine::stack_array<uts_slot> cs =
      co_await tine::stack_alloc<uts_slot>(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(n, i, cs[static_cast<std::size_t>(i)].node);
    co_await tine::fork(&cs[static_cast<std::size_t>(i)].res, uts_search, p,
                        cs[static_cast<std::size_t>(i)].node);
  }
  co_await tine::join();
  for (int i = 0; i < k; ++i) {
    r += cs[static_cast<std::size_t>(i)].res;
  }
  co_return r;
}

}  // namespace distributed_tasks

#endif  // TINE_BENCH_DISTRIBUTED_TASKS_HPP
