#ifndef TINE_ALGORITHMS_DETAIL_SPLIT_HPP
#define TINE_ALGORITHMS_DETAIL_SPLIT_HPP

/// \file split.hpp
/// Recursive halving over an index range, the skeleton of every algorithm: fork the left half,
/// keep the right half, stop at pieces of at most `grain` indices. Two shapes:
/// - `split_for` runs a body on each piece (for_each, map, the passes of the scans);
/// - `split_fold` also combines the pieces' results, left before right (reduce, transform_reduce).
///
/// A piece's body, a leaf and the combining operation may each be a task (a coroutine that
/// returns `tine::task`, for the algorithms whose user callables are tasks: detail/body.hpp):
/// the split then runs it as a child with `call`. The splits of such algorithms pass pedigrees
/// through (index_keys.hpp), so that a body's stream does not depend on the split; a fold
/// keys `op` by the first index of its right operand.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <optional>
#include <utility>

#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/index_keys.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/task.hpp>

namespace tine::detail {

// Calls a plain (non-task) piece or leaf `f(lo, hi)` from a split's coroutine. Under clang the
// call stays out of line: in a coroutine's resume function, clang (16 at least) reloads the
// values a loop shares with the coroutine frame (here the piece's bounds) on every iteration,
// since those reloads carry no alias information and a store through the loop's own pointers
// might change them; an inlined leaf loop then neither vectorises nor keeps its bound in a
// register. Out of line, the bounds are plain arguments. GCC keeps them in registers either
// way, and inlining saves it the call.
#if defined(__clang__)
#define TINE_DETAIL_LEAF_LINKAGE [[gnu::noinline]]
#else
#define TINE_DETAIL_LEAF_LINKAGE inline
#endif
template <typename F>
TINE_DETAIL_LEAF_LINKAGE decltype(auto) run_outside_frame(const F& f, std::size_t lo,
                                                          std::size_t hi) {
  return f(lo, hi);
}
#undef TINE_DETAIL_LEAF_LINKAGE

/// A body of split_for that is a coroutine: `body(lo, hi)` returns a task.
template <typename Body>
concept task_piece = task_body<const Body&, std::size_t, std::size_t>;

/// A leaf of split_fold that is a coroutine: `leaf(&out, lo, hi)` returns a task that constructs
/// the piece's result in the empty optional `out`.
template <typename Leaf, typename T>
concept task_leaf = task_body<const Leaf&, std::optional<T>*, std::size_t, std::size_t>;

/// Runs `(*body)(lo, hi)` on pieces of `[lo, hi)` of at most `grain` indices, in parallel.
///
/// Each level forks its left half and goes on with the right half in the same frame, so a range
/// split into k pieces costs k - 1 forks and about log2(k) frames per worker. Thieves take the
/// continuation (the remaining right part), which is the larger piece of work left: the
/// splitting itself is done in parallel.
template <typename Body>
task<void> split_for(const Body* body, std::size_t lo, std::size_t hi, std::size_t grain) {
  if constexpr (task_piece<Body>) {
    co_await pass_pedigree_through();
  }
  // An exception (from the body, or a fork that could not allocate) must not leave this scope
  // while forked pieces still run: catch it, join, then rethrow.
  std::exception_ptr error;
  try {
    while (hi - lo > grain) {
      const std::size_t mid = lo + (hi - lo) / 2;
      co_await fork(split_for<Body>, body, lo, mid, grain);
      lo = mid;
    }
    if constexpr (task_piece<Body>) {
      co_await call(*body, lo, hi);
    } else {
      run_outside_frame(*body, lo, hi);
    }
  } catch (...) {
    error = std::current_exception();
  }
  co_await join();  // rethrows a piece's exception, if one failed
  if (error) {
    std::rethrow_exception(error);
  }
}

/// Folds the non-empty range `[lo, hi)` into `*out`: `(*leaf)(lo, hi)` gives a piece's result,
/// `(*op)(left, right)` combines two neighbours, always in that order, so `op` needs to be
/// associative but not commutative. A leaf may be a coroutine (task_leaf), `op` a callable that
/// returns a task of something `T` can be made from.
///
/// The two halves' results live in a `stack_alloc` array on this task's stack (no heap); the
/// slots are `std::optional` so that `T` need not be default-constructible, and so that a half
/// that threw leaves nothing to destroy.
template <typename T, typename Leaf, typename Op>
task<void> split_fold(std::optional<T>* out, const Leaf* leaf, Op* op, std::size_t lo,
                      std::size_t hi, std::size_t grain) {
  if constexpr (task_leaf<Leaf, T> || task_body<Op&, T, T>) {
    co_await pass_pedigree_through();
  }
  if (hi - lo <= grain) {
    if constexpr (task_leaf<Leaf, T>) {
      co_await call(*leaf, out, lo, hi);
    } else {
      out->emplace(run_outside_frame(*leaf, lo, hi));
    }
    co_return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  stack_array<std::optional<T>> halves = co_await stack_alloc<std::optional<T>>(2);
  co_await fork(split_fold<T, Leaf, Op>, &halves[0], leaf, op, lo, mid, grain);
  co_await call(split_fold<T, Leaf, Op>, &halves[1], leaf, op, mid, hi, grain);
  co_await join();
  if constexpr (task_body<Op&, T, T>) {
    body_value_t<Op&, T, T> both{};
    // op's right operand starts at mid; the role again, since the forks above moved the count.
    co_await at_index(mid, op_role);
    // Both halves are set: the fork and the call above emplaced them, and the join waited.
    // NOLINTNEXTLINE(bugprone-unchecked-optional-access)
    co_await call(&both, *op, std::move(*halves[0]), std::move(*halves[1]));
    out->emplace(std::move(both));
  } else {
    // NOLINTNEXTLINE(bugprone-unchecked-optional-access): set, as above
    out->emplace(std::invoke(*op, std::move(*halves[0]), std::move(*halves[1])));
  }
}

/// `first + i` for an index `i` of the algorithms' size_t arithmetic.
template <typename I>
I at(I first, std::size_t i) {
  return first + static_cast<std::iter_difference_t<I>>(i);
}

/// Start of block `j` when `n` elements are cut into `blocks` blocks whose sizes differ by at
/// most one (no overflow for any n, unlike j * n / blocks).
constexpr std::size_t block_start(std::size_t j, std::size_t n, std::size_t blocks) noexcept {
  const std::size_t base = n / blocks;
  const std::size_t extra = n % blocks;
  return j * base + (j < extra ? j : extra);
}

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_SPLIT_HPP
