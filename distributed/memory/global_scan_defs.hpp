#ifndef TINE_DISTRIBUTED_MEMORY_GLOBAL_SCAN_DEFS_HPP
#define TINE_DISTRIBUTED_MEMORY_GLOBAL_SCAN_DEFS_HPP

/// \file global_scan_defs.hpp
/// How the scans of global_scan.hpp run (internal). The input is cut into *parts* at the ranks'
/// block boundaries. Pass 1 folds every part but the last (a reduce each, in parallel); a serial
/// pass over their totals gives each part its carry; then every part is scanned in parallel from
/// its carry by the blocked two-pass scan of one machine (chunk sums in parallel, a serial prefix
/// over them, chunks scanned in parallel), whose chunks lie in one rank's block. So each element
/// is read three times and written once, against twice and once on one machine: the price of
/// keeping each rank's chunk sums on the rank's own tasks (a task's children may write only their
/// results into its memory, so sums cannot gather in one array across ranks).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include <tine/algorithms/scan.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/task.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/memory/global_algorithm_defs.hpp>

namespace tine::mpi {
namespace detail {

/// The most chunks one part is cut into: bounds the chunk sums on the part's task stack.
inline constexpr std::uint64_t max_chunks_per_part = 1024;

/// `a op b`, where an empty `a` is nothing (the first element of an inclusive scan without init).
template <typename Acc, typename Op, typename X>
Acc fold_into(const std::optional<Acc>& a, Op& op, X&& b) {
  return a ? Acc(std::invoke(op, *a, std::forward<X>(b))) : Acc(std::forward<X>(b));
}

/// One chunk: its fold.
template <typename Acc, typename T, typename Op>
task<std::optional<Acc>> chunk_total(global_span<const T> in, tine::detail::param<Op> op_in) {
  Op& op = tine::detail::arg(op_in);
  auto a = checkout_here(in, access::read);
  std::optional<Acc> acc;
  for (const T& x : a) {
    acc = fold_into(acc, op, x);
  }
  co_return acc;
}

/// One chunk scanned from `carry` (none: the inclusive scan's first chunk without init).
template <bool Inclusive, typename Acc, typename T, typename U, typename Op>
task<void> chunk_scan(global_span<const T> in, global_span<U> out, std::optional<Acc> carry,
                      tine::detail::param<Op> op_in) {
  Op& op = tine::detail::arg(op_in);
  auto a = checkout_here(in, access::read);
  auto b = checkout_here(out, access::write);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (Inclusive) {
      carry = fold_into(carry, op, a[i]);
      b[i] = *carry;
    } else {
      Acc next = fold_into(carry, op, a[i]);  // a[i] read before b[i] is written: in place
      b[i] = *carry;
      carry = std::move(next);
    }
  }
  co_return;
}

/// One part (within one rank's block): the blocked two-pass scan from `carry`.
template <bool Inclusive, typename Acc, typename T, typename U, typename Op>
task<void> part_scan(global_span<const T> in, global_span<U> out, std::optional<Acc> carry,
                     tine::detail::param<Op> op_in, std::uint64_t leaf) {
  Op& op = tine::detail::arg(op_in);
  const std::uint64_t n = in.size();
  const std::uint64_t size = std::max(leaf, (n + max_chunks_per_part - 1) / max_chunks_per_part);
  const std::uint64_t chunks = (n + size - 1) / size;
  // The prefix before each chunk, computed from the chunk sums in place.
  tine::stack_array<std::optional<Acc>> before =
      co_await tine::stack_alloc<std::optional<Acc>>(static_cast<std::size_t>(chunks));
  for (std::uint64_t k = 0; k + 1 < chunks; ++k) {
    co_await fork(&before[k], chunk_total<Acc, T, Op>, in.subspan(k * size, size), op);
  }
  co_await join();
  for (std::uint64_t k = 0; k < chunks; ++k) {
    std::optional<Acc> sum = std::move(before[k]);
    before[k] = carry;
    if (k + 1 < chunks) {
      carry = carry ? std::optional<Acc>(Acc(std::invoke(op, std::move(*carry), std::move(*sum))))
                    : std::move(sum);
    }
  }
  for (std::uint64_t k = 0; k < chunks; ++k) {
    const std::uint64_t lo = k * size;
    const std::uint64_t count = std::min(size, n - lo);
    co_await fork(chunk_scan<Inclusive, Acc, T, U, Op>, in.subspan(lo, count),
                  out.subspan(lo, count), before[k], op);
  }
  co_await join();
}

/// The whole scan (see the file comment).
template <bool Inclusive, typename Acc, typename T, typename U, typename Op>
task<void> scan_run(global_span<const T> in, global_span<U> out, std::optional<Acc> init,
                    tine::detail::param<Op> op_in, grain g) {
  Op& op = tine::detail::arg(op_in);
  check_output(Inclusive ? "inclusive_scan" : "exclusive_scan", in.size(), out.size());
  const std::uint64_t n = in.size();
  if (n == 0) {
    co_return;
  }
  const std::uint64_t block = global_store::find(in.store_id()).block();
  const std::uint64_t leaf = tine::detail::leaf_size(n, g, tine::detail::workers_here());
  // Parts: [bounds[p], bounds[p + 1]), cut at the block boundaries inside the span.
  const std::uint64_t first_block = in.offset() / block;
  const std::uint64_t parts = (in.offset() + n - 1) / block - first_block + 1;
  tine::stack_array<std::uint64_t> bounds =
      co_await tine::stack_alloc<std::uint64_t>(static_cast<std::size_t>(parts + 1));
  bounds[0] = 0;
  for (std::uint64_t p = 1; p < parts; ++p) {
    bounds[p] = (first_block + p) * block - in.offset();
  }
  bounds[parts] = n;
  using fold = fold_algo<Acc, const T, void, Op, tine::detail::pass_through>;
  tine::stack_array<std::optional<Acc>> carries =
      co_await tine::stack_alloc<std::optional<Acc>>(static_cast<std::size_t>(parts));
  for (std::uint64_t p = 0; p + 1 < parts; ++p) {
    const std::uint64_t count = bounds[p + 1] - bounds[p];
    co_await fork(&carries[p], split_run<fold>,
                  fold{{in.subspan(bounds[p], count)}, {}, Acc{}, op, {}}, std::uint64_t{0}, count,
                  split_plan{block, leaf});
  }
  co_await join();
  std::optional<Acc> carry = std::move(init);
  for (std::uint64_t p = 0; p < parts; ++p) {
    std::optional<Acc> total = std::move(carries[p]);
    carries[p] = carry;
    if (p + 1 < parts) {
      carry = carry ? std::optional<Acc>(Acc(std::invoke(op, std::move(*carry), std::move(*total))))
                    : std::move(total);
    }
  }
  for (std::uint64_t p = 0; p < parts; ++p) {
    const std::uint64_t count = bounds[p + 1] - bounds[p];
    co_await fork(part_scan<Inclusive, Acc, T, U, Op>, in.subspan(bounds[p], count),
                  out.subspan(bounds[p], count), carries[p], op, leaf);
  }
  co_await join();
}

template <bool Inclusive, typename Acc, typename In, typename Out, typename Op>
auto start_scan(const In& input, const Out& output, std::optional<Acc> init, Op op, grain g) {
  using T = std::remove_const_t<typename span_for<In>::element_type>;
  using U = typename span_for<Out>::element_type;
  constexpr bool fold_ok = check_fold<Acc, T, void, Op, tine::detail::pass_through, T>();
  constexpr bool out_ok = !std::is_const_v<U> && std::is_assignable_v<U&, const Acc&>;
  static_assert(out_ok,
                "tine::inclusive_scan / exclusive_scan on global spans: the output's elements "
                "must be non-const and assignable from the accumulator");
  if constexpr (fold_ok && out_ok) {
    return scan_run<Inclusive, Acc, T, U, Op>(span_of(input), span_of(output), std::move(init),
                                              std::move(op), g);
  }
}
}  // namespace detail
}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_MEMORY_GLOBAL_SCAN_DEFS_HPP
