#ifndef TINE_ALGORITHMS_SCAN_HPP
#define TINE_ALGORITHMS_SCAN_HPP

/// \file scan.hpp
/// `tine::inclusive_scan` and `tine::exclusive_scan`: running folds (prefix sums), in parallel.
///
/// ```
/// tine::inclusive_scan(pool, v, out.begin());                      // out[i] = v[0] + ... + v[i]
/// tine::exclusive_scan(pool, v, out.begin(), 0L, std::plus<>{});  // out[i] = 0 + ... + v[i-1]
/// ```
///
/// A blocked two-pass scan: the input is cut into blocks (one per leaf, at most
/// `max_scan_blocks`); pass 1 folds every block but the last in parallel; a serial pass over the
/// block sums turns them into each block's prefix; pass 2 scans every block in parallel starting
/// from its prefix. About 2n applications of `op`, which must be associative (not necessarily
/// commutative): the results equal `std::inclusive_scan`'s / `std::exclusive_scan`'s. The block
/// sums live in one `stack_alloc` array. The output may be the input (in-place scan). `op` may
/// return a `tine::task` (of something convertible to the accumulator), which then runs as a
/// child task. If `op` throws, the first exception reaches the caller after every piece already
/// started has finished, and the output is partly written.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <utility>

#include <tine/algorithms/concepts.hpp>
#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/index_keys.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/task.hpp>

namespace tine {

/// The most blocks a scan cuts its input into (the grain is raised to respect it): bounds the
/// block-sum array on the stack and the serial pass over it.
inline constexpr std::size_t max_scan_blocks = 4096;

namespace detail {

/// Whether the passes over the elements run tasks: `op(T, *it)` returns one.
template <typename I, typename T, typename Op>
concept element_op_task = task_body<Op&, T, std::iter_reference_t<I>>;

template <typename I, typename O, typename T, typename Op>
struct scan_state {
  I first;
  O out;
  Op* op;
  std::optional<T>* sums;  ///< pass 1: block sums; pass 2: block prefixes (empty: none)
  std::size_t n;
  std::size_t blocks;
};

/// Pass 1: the fold of each block.
template <typename I, typename O, typename T, typename Op>
struct scan_sum_body {
  const scan_state<I, O, T, Op>* s;

  void operator()(std::size_t jlo, std::size_t jhi) const
    requires(!element_op_task<I, T, Op>)
  {
    for (std::size_t j = jlo; j < jhi; ++j) {
      const std::size_t lo = block_start(j, s->n, s->blocks);
      const std::size_t hi = block_start(j + 1, s->n, s->blocks);
      I it = at(s->first, lo);
      T acc(*it);
      for (std::size_t i = lo + 1; i < hi; ++i) {
        ++it;
        acc = std::invoke(*s->op, std::move(acc), *it);
      }
      s->sums[j].emplace(std::move(acc));
    }
  }

  /// The same when `op` returns a task: one child task per element, in turn, keyed by the
  /// element's index (detail/index_keys.hpp), as in pass 2.
  task<void> operator()(std::size_t jlo, std::size_t jhi, pedigree_pass pass = {op_role}) const
    requires element_op_task<I, T, Op>
  {
    for (std::size_t j = jlo; j < jhi; ++j) {
      const std::size_t lo = block_start(j, s->n, s->blocks);
      const std::size_t hi = block_start(j + 1, s->n, s->blocks);
      I it = at(s->first, lo);
      T acc(*it);
      for (std::uint64_t& i = pass.index_from(lo + 1); i < hi; ++i) {
        ++it;
        body_value_t<Op&, T, std::iter_reference_t<I>> next{};
        co_await call(&next, *s->op, std::move(acc), *it);
        acc = T(std::move(next));
      }
      s->sums[j].emplace(std::move(acc));
    }
  }
};

/// Pass 2: scan each block from its prefix. Each element is read before its output is written,
/// so the output may be the input.
template <bool Inclusive, typename I, typename O, typename T, typename Op>
struct scan_write_body {
  const scan_state<I, O, T, Op>* s;

  void operator()(std::size_t jlo, std::size_t jhi) const
    requires(!element_op_task<I, T, Op>)
  {
    for (std::size_t j = jlo; j < jhi; ++j) {
      const std::size_t lo = block_start(j, s->n, s->blocks);
      const std::size_t hi = block_start(j + 1, s->n, s->blocks);
      const std::optional<T>& prefix = s->sums[j];
      I in = at(s->first, lo);
      O to = at(s->out, lo);
      if constexpr (Inclusive) {
        T acc = prefix ? T(std::invoke(*s->op, T(*prefix), *in)) : T(*in);
        *to = acc;
        for (std::size_t i = lo + 1; i < hi; ++i) {
          ++in;
          ++to;
          acc = std::invoke(*s->op, std::move(acc), *in);
          *to = acc;
        }
      } else {
        T acc(*prefix);
        for (std::size_t i = lo; i < hi; ++i, ++in, ++to) {
          T next = std::invoke(*s->op, T(acc), *in);
          *to = std::move(acc);
          acc = std::move(next);
        }
      }
    }
  }

  /// The same when `op` returns a task: one child task per element, in turn, keyed by the
  /// element's index (detail/index_keys.hpp). The running value is an optional: it starts as the
  /// first element when there is no prefix.
  task<void> operator()(std::size_t jlo, std::size_t jhi, pedigree_pass pass = {op_role}) const
    requires element_op_task<I, T, Op>
  {
    using value = body_value_t<Op&, T, std::iter_reference_t<I>>;
    for (std::size_t j = jlo; j < jhi; ++j) {
      const std::size_t lo = block_start(j, s->n, s->blocks);
      const std::size_t hi = block_start(j + 1, s->n, s->blocks);
      std::optional<T> acc = s->sums[j];
      I in = at(s->first, lo);
      O to = at(s->out, lo);
      for (std::uint64_t& i = pass.index_from(lo); i < hi; ++i, ++in, ++to) {
        if (!acc) {  // inclusive, first block without init: out[0] = in[0]
          acc.emplace(*in);
          *to = *acc;
          continue;
        }
        value next{};
        co_await call(&next, *s->op, T(*acc), *in);
        if constexpr (Inclusive) {
          acc.emplace(std::move(next));
          *to = *acc;
        } else {
          *to = std::move(*acc);
          acc.emplace(std::move(next));
        }
      }
    }
  }
};

/// Turns the block sums into block prefixes: prefix[0] = init (maybe none), prefix[j + 1] =
/// prefix[j] op sum[j]. Serial: there are few blocks.
template <typename T, typename Op>
void sums_to_prefixes(std::optional<T>* sums, std::size_t blocks, std::optional<T> init, Op& op) {
  std::optional<T> run = std::move(init);
  for (std::size_t j = 0; j < blocks; ++j) {
    std::optional<T> sum = std::move(sums[j]);
    sums[j] = run;
    if (j + 1 < blocks) {
      if (run) {
        run.emplace(std::invoke(op, std::move(*run), std::move(*sum)));
      } else {
        run = std::move(sum);
      }
    }
  }
}

/// sums_to_prefixes when `op(T, T)` returns a task: each combination runs as a child task, keyed
/// by the first index of its right operand, block j of the `n` elements (detail/index_keys.hpp).
template <typename T, typename Op>
task<void> sums_to_prefixes_tasks(std::optional<T>* sums, std::size_t blocks, std::size_t n,
                                  std::optional<T>* init, Op* op, pedigree_pass pass) {
  std::optional<T> run = std::move(*init);
  for (std::size_t j = 0; j < blocks; ++j) {
    std::optional<T> sum = std::move(sums[j]);
    sums[j] = run;
    if (j + 1 < blocks) {
      if (run) {
        body_value_t<Op&, T, T> next{};
        pass.at(block_start(j, n, blocks));
        co_await call(&next, *op, std::move(*run), std::move(*sum));
        run.emplace(std::move(next));
      } else {
        run = std::move(sum);
      }
    }
  }
}

template <bool Inclusive, typename I, typename O, typename T, typename Op>
task<O> scan_run(param<I> first_in, std::size_t n, param<O> out_in, param<std::optional<T>> init_in,
                 param<Op> op_in, std::size_t leaf) {
  I& first = arg(first_in);
  O& out = arg(out_in);
  std::optional<T>& init = arg(init_in);
  Op& op = arg(op_in);
  if (n == 0) {
    co_return out;
  }
  const std::size_t blocks = std::min(ceil_div(n, leaf), max_scan_blocks);
  using state = scan_state<I, O, T, Op>;
  using write_body = scan_write_body<Inclusive, I, O, T, Op>;
  stack_array<std::optional<T>> sums = co_await stack_alloc<std::optional<T>>(blocks);
  const state s{first, out, &op, sums.data(), n, blocks};
  if (blocks > 1) {
    const scan_sum_body<I, O, T, Op> pass1{&s};
    co_await call(split_for<scan_sum_body<I, O, T, Op>>, &pass1, std::size_t{0}, blocks - 1,
                  std::size_t{1});
    co_await join();
  }
  if constexpr (task_body<Op&, T, T>) {
    co_await call(sums_to_prefixes_tasks<T, Op>, sums.data(), blocks, n, &init, &op,
                  pedigree_pass{op_role});
  } else {
    sums_to_prefixes(sums.data(), blocks, std::move(init), op);
  }
  const write_body pass2{&s};
  co_await call(split_for<write_body>, &pass2, std::size_t{0}, blocks, std::size_t{1});
  co_await join();
  co_return at(out, n);
}

template <typename I, typename O, typename T, typename Op>
consteval bool check_scan() {
  static_assert(
      std::random_access_iterator<O>,
      "tine scans: the output must be a random-access iterator to as many elements as the "
      "input (for example v.begin() of a vector already sized; a back_inserter cannot be "
      "written in parallel)");
  static_assert(std::copyable<T>,
                "tine scans: the accumulator type must be copyable (each output is a copy of it)");
  static_assert(fold_operation<Op, T, std::iter_reference_t<I>>,
                "tine scans: op must combine the accumulator with an element and with another "
                "accumulator: op(T, *it) and op(T, T) must be valid and convertible to T (T is the "
                "type of init, or the input's value type when there is no init)");
  static_assert(std::indirectly_writable<O, const T&>,
                "tine scans: the accumulator cannot be assigned to *out");
  constexpr bool ok = std::random_access_iterator<O> && std::copyable<T> &&
                      fold_operation<Op, T, std::iter_reference_t<I>> &&
                      std::indirectly_writable<O, const T&>;
  // Each branch keeps the next one from being instantiated: the repeated bodies are the point.
  // NOLINTNEXTLINE(bugprone-branch-clone)
  if constexpr (!ok) {
    return false;
  } else if constexpr (!check_task_value<Op&, T, std::iter_reference_t<I>>()) {
    return false;
  } else {
    return check_task_value<Op&, T, T>();
  }
}

/// The definition of both scans; the entry points are made from it (entry.hpp). `result_for<O>`:
/// see map_impl.
template <bool Inclusive>
struct scan_impl {
  template <typename R, typename O, typename T, typename Op>
  static task<result_for<O>> run(R& r, O out, std::optional<T> init, Op op, grain g) {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_scan<I, O, T, Op>()) {
      const std::size_t n = range_size(r);
      return scan_run<Inclusive, I, O, T, Op>(std::ranges::begin(r), n, std::move(out),
                                              std::move(init), std::move(op),
                                              leaf_size(n, g, workers_here()));
    }
  }
};

/// inclusive_scan: `(range, out [, op [, grain]])` or `(range, out, op, init [, grain])`.
struct inclusive_scan_impl : scan_impl<true> {
  static constexpr const char* name = "inclusive_scan";

  template <typename R, typename O, typename Op = std::plus<>>
    requires(!std::same_as<Op, grain>)
  task<result_for<O>> operator()(R& r, O out, Op op = {}, grain g = {}) const {
    return run(r, std::move(out), std::optional<std::ranges::range_value_t<R>>{}, std::move(op), g);
  }

  template <typename R, typename O, typename Op, typename T>
    requires(!std::same_as<T, grain>)
  task<result_for<O>> operator()(R& r, O out, Op op, T init, grain g = {}) const {
    return run(r, std::move(out), std::optional<T>(std::move(init)), std::move(op), g);
  }
};

/// exclusive_scan: `(range, out, init [, op [, grain]])`.
struct exclusive_scan_impl : scan_impl<false> {
  static constexpr const char* name = "exclusive_scan";

  template <typename R, typename O, typename T, typename Op = std::plus<>>
    requires(!std::same_as<Op, grain>)
  task<result_for<O>> operator()(R& r, O out, T init, Op op = {}, grain g = {}) const {
    return run(r, std::move(out), std::optional<T>(std::move(init)), std::move(op), g);
  }
};

}  // namespace detail

/// Blocking inclusive scan: `out[i] = [init op] in[0] op ... op in[i]`; returns `out + n`.
/// Without `op` it sums. Note the argument order of the std algorithm: op before init.
inline constexpr detail::blocking_algorithm<detail::inclusive_scan_impl> inclusive_scan{};

/// Blocking exclusive scan: `out[i] = init op in[0] op ... op in[i-1]`; returns `out + n`.
inline constexpr detail::blocking_algorithm<detail::exclusive_scan_impl> exclusive_scan{};

namespace async {

/// Task form of inclusive_scan: `co_await tine::call(&end, tine::async::inclusive_scan, range,
/// out, op)`.
inline constexpr detail::async_algorithm<detail::inclusive_scan_impl> inclusive_scan{};

/// Task form of exclusive_scan, as `tine::exclusive_scan` without the scheduler.
inline constexpr detail::async_algorithm<detail::exclusive_scan_impl> exclusive_scan{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_SCAN_HPP
