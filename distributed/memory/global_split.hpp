#ifndef TINE_DISTRIBUTED_MEMORY_GLOBAL_SPLIT_HPP
#define TINE_DISTRIBUTED_MEMORY_GLOBAL_SPLIT_HPP

/// \file global_split.hpp
/// How tine's algorithms run over global spans (internal to global_algorithms.hpp): the index
/// range is halved recursively (fork the left part, call the right, join) down to leaves of at
/// most `grain` elements, as on one machine, with one difference: a piece that crosses the
/// boundary between two ranks' blocks is cut at that boundary (the one nearest its middle)
/// rather than at its middle. So every leaf's elements are held by one rank, and the first cuts
/// of a large span give each rank's block its own subtree: a thief that takes such a subtree's
/// continuation on the rank that holds it checks its leaves out in place. A leaf is a plain
/// function of its task: it checks its elements out (global_vector.hpp), works on them as
/// ordinary memory and checks them in before returning, so no checkout outlives a leaf.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <type_traits>
#include <utility>

#include <tine/algorithms/extension.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>
#include <tine/distributed/memory/global_store.hpp>

namespace tine::mpi::detail {

/// How the pieces of one algorithm call are cut.
struct split_plan {
  std::uint64_t block = 1;  ///< elements per rank, in the vector whose blocks the cuts follow
  std::uint64_t leaf = 1;   ///< the most elements a leaf processes
};

/// Where to cut elements [first, first + n) of a vector with `block` elements per rank (n >= 2):
/// at the block boundary nearest the middle if one is inside, else at the middle. The size of
/// the left part, in [1, n).
constexpr std::uint64_t cut_at(std::uint64_t first, std::uint64_t n, std::uint64_t block) noexcept {
  const std::uint64_t middle = first + n / 2;
  const std::uint64_t below = middle / block * block;  // the boundary at or below the middle
  std::uint64_t cut = n / 2;
  std::uint64_t distance = ~std::uint64_t{0};
  if (below > first) {
    cut = below - first;
    distance = middle - below;
  }
  // The boundary above the middle, if inside (written without forming below + block, which
  // could wrap for a huge block).
  if (first + n - below > block && below + block - middle < distance) {
    cut = below + block - first;
  }
  return cut;
}

/// Runs `algo` over elements [lo, lo + n) of its spans, cut as the file comment says. `Algo`
/// has `result` (void, or a default-constructible trivially copyable type: it travels between
/// ranks as bytes), `offset()` (where the span whose blocks the cuts follow begins in its
/// vector), `leaf(lo, n)` and, with a result, `combine(left, right)`.
template <typename Algo>
task<typename Algo::result> split_run(tine::detail::param<Algo> algo_in, std::uint64_t lo,
                                      std::uint64_t n, split_plan plan) {
  Algo& algo = tine::detail::arg(algo_in);
  using R = typename Algo::result;
  if (n <= plan.leaf) {
    if constexpr (std::is_void_v<R>) {
      algo.leaf(lo, n);
      co_return;
    } else {
      co_return algo.leaf(lo, n);
    }
  }
  const std::uint64_t left = cut_at(algo.offset() + lo, n, plan.block);
  if constexpr (std::is_void_v<R>) {
    co_await fork(split_run<Algo>, algo, lo, left, plan);
    co_await call(split_run<Algo>, algo, lo + left, n - left, plan);
    co_await join();
  } else {
    R a{};
    R b{};
    co_await fork(&a, split_run<Algo>, algo, lo, left, plan);
    co_await call(&b, split_run<Algo>, algo, lo + left, n - left, plan);
    co_await join();
    co_return algo.combine(std::move(a), std::move(b));
  }
}

/// One algorithm call over global spans: `algo.check()` (throws on bad arguments), then, for a
/// non-empty input, split_run over its `size()` elements with leaves of `grain` (the automatic
/// rule counts every rank's workers), and `algo.finish(result)`; `algo.finish()` for an empty
/// input. `Algo::output` is what the call returns.
template <typename Algo>
task<typename Algo::output> run_on_global(tine::detail::param<Algo> algo_in, grain g) {
  Algo& algo = tine::detail::arg(algo_in);
  algo.check();
  const std::uint64_t n = algo.size();
  using R = typename Algo::result;
  if (n == 0) {
    if constexpr (std::is_void_v<typename Algo::output>) {
      co_return;
    } else {
      co_return algo.finish();
    }
  }
  const split_plan plan{global_store::find(algo.store_id()).block(),
                        tine::detail::leaf_size(n, g, tine::detail::workers_here())};
  if constexpr (std::is_void_v<R>) {
    co_await call(split_run<Algo>, algo, std::uint64_t{0}, n, plan);
    co_await join();
  } else {
    R all{};
    co_await call(&all, split_run<Algo>, algo, std::uint64_t{0}, n, plan);
    co_await join();
    co_return algo.finish(std::move(all));
  }
}

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_MEMORY_GLOBAL_SPLIT_HPP
