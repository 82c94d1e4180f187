#ifndef TINE_ALGORITHMS_REDUCE_HPP
#define TINE_ALGORITHMS_REDUCE_HPP

/// \file reduce.hpp
/// `tine::reduce` and `tine::transform_reduce`: fold a range with an associative operation.
///
/// ```
/// long sum = tine::reduce(pool, v, 0L, std::plus<>{});
/// double dot = tine::transform_reduce(pool, a, b.begin(), 0.0, std::plus<>{}, times);
/// co_await tine::call(&sum, tine::async::reduce, v.begin(), v.end(), 0L, std::plus<>{});
/// ```
///
/// The result is `init op x0 op x1 op ... op xn-1` with the elements in their order, grouped in
/// some way: equal to `std::accumulate`'s for any associative `op`, commutative or not (string
/// concatenation works). Partial results live on the workers' segmented stacks (`stack_alloc`),
/// never on the heap. `op` and the transform are called concurrently. Either may return a
/// `tine::task<X>`, which then runs as a child task (its X default-constructible and
/// move-assignable): a transform that is itself parallel, or an `op` that merges two partial
/// results in parallel. If one throws, the first exception reaches the caller after every piece
/// already started has finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <type_traits>
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
namespace detail {

/// reduce is transform_reduce with this transform. An element that is a prvalue (a transform
/// view's) is returned by value, never as a reference to a temporary that is about to die.
struct pass_through {
  template <typename X>
  X operator()(X&& x) const noexcept(std::is_nothrow_constructible_v<X, X&&>) {
    return std::forward<X>(x);
  }
};

/// Element `i` of one input, transformed. `element_type`: what the fold receives, the transform's
/// result or the value of the task it returns (then `operator()` is a coroutine giving it).
template <typename I, typename Tr>
struct unary_source {
  using element_type = body_value_t<Tr&, std::iter_reference_t<I>>;
  static constexpr bool is_task = task_body<Tr&, std::iter_reference_t<I>>;

  I first;
  Tr transform;
  decltype(auto) operator()(std::size_t i)
    requires(!is_task)
  {
    return std::invoke(transform, *at(first, i));
  }
  task<element_type> operator()(std::size_t i)
    requires is_task
  {
    element_type e{};
    co_await call(&e, transform, *at(first, i));
    co_return std::move(e);
  }
};

/// Element `i` of two inputs, transformed together (as unary_source).
template <typename I1, typename I2, typename Tr>
struct binary_source {
  using element_type = body_value_t<Tr&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;
  static constexpr bool is_task =
      task_body<Tr&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

  I1 first1;
  I2 first2;
  Tr transform;
  decltype(auto) operator()(std::size_t i)
    requires(!is_task)
  {
    return std::invoke(transform, *at(first1, i), *at(first2, i));
  }
  task<element_type> operator()(std::size_t i)
    requires is_task
  {
    element_type e{};
    co_await call(&e, transform, *at(first1, i), *at(first2, i));
    co_return std::move(e);
  }
};

/// Whether a fold over `Source` with `Op` into a `T` runs tasks: the transform or `op` is one.
template <typename T, typename Source, typename Op>
inline constexpr bool fold_runs_tasks =
    Source::is_task || task_body<Op&, T, typename Source::element_type>;

/// A leaf of the fold: `[lo, hi)` folded left to right, starting from its first element.
template <typename T, typename Source, typename Op>
struct fold_leaf {
  using E = typename Source::element_type;

  Source* source;
  Op* op;

  T operator()(std::size_t lo, std::size_t hi) const
    requires(!fold_runs_tasks<T, Source, Op>)
  {
    T acc((*source)(lo));
    for (std::size_t i = lo + 1; i < hi; ++i) {
      acc = std::invoke(*op, std::move(acc), (*source)(i));
    }
    return acc;
  }

  /// The same when the transform or `op` is a task: each runs as a child task, in turn, keyed by
  /// its index and role (detail/index_keys.hpp; the transform is the source's first child).
  task<void> operator()(std::optional<T>* out, std::size_t lo, std::size_t hi,
                        pedigree_pass pass = {Source::is_task ? element_role : op_role}) const
    requires fold_runs_tasks<T, Source, Op>
  {
    constexpr bool two_roles = Source::is_task && task_body<Op&, T, E>;
    std::optional<T> acc;
    for (std::size_t i = lo; i < hi; ++i) {
      pass.at(i);
      if constexpr (Source::is_task) {
        E e{};
        if constexpr (two_roles) {
          pass.as(element_role);
        }
        co_await call(&e, *source, i);
        if (!acc) {
          acc.emplace(std::move(e));
        } else if constexpr (task_body<Op&, T, E>) {
          body_value_t<Op&, T, E> next{};
          pass.as(op_role);
          co_await call(&next, *op, std::move(*acc), std::move(e));
          acc.emplace(std::move(next));
        } else {
          acc.emplace(std::invoke(*op, std::move(*acc), std::move(e)));
        }
      } else if (!acc) {
        acc.emplace((*source)(i));
      } else {
        body_value_t<Op&, T, E> next{};
        co_await call(&next, *op, std::move(*acc), (*source)(i));
        acc.emplace(std::move(next));
      }
    }
    out->emplace(std::move(*acc));
  }
};

/// `op(init, all)` where `op` is a task: keyed at index 0 (the first index of its right operand),
/// from a task that pedigrees pass through, since fold_run is the algorithm's own place.
template <typename X, typename Op, typename T>
task<void> apply_op_first(X* out, Op* op, T* init, T* all, pedigree_pass pass) {
  pass.at(0);
  co_await call(out, *op, std::move(*init), std::move(*all));
}

/// The algorithm: `init op fold(elements)`. The source (with its transform) and `op` live in
/// this frame; the leaves refer to them.
template <typename T, typename Source, typename Op>
task<result_for<T>> fold_run(param<Source> source_in, std::size_t n, param<T> init_in,
                             param<Op> op_in, std::size_t leaf) {
  Source& source = arg(source_in);
  T& init = arg(init_in);
  Op& op = arg(op_in);
  if (n == 0) {
    co_return result_for<T>(std::move(init));
  }
  using leaf_type = fold_leaf<T, Source, Op>;
  const leaf_type leaves{&source, &op};
  stack_array<std::optional<T>> total = co_await stack_alloc<std::optional<T>>(1);
  co_await call(split_fold<T, leaf_type, Op>, &total[0], &leaves, &op, std::size_t{0}, n, leaf);
  co_await join();
  if constexpr (task_body<Op&, T, T>) {
    body_value_t<Op&, T, T> all{};
    co_await call(apply_op_first<body_value_t<Op&, T, T>, Op, T>, &all, &op, &init, &*total[0],
                  pedigree_pass{op_role});
    co_await join();
    co_return result_for<T>(T(std::move(all)));
  } else {
    // Set: the call to split_fold above emplaced total[0].
    // NOLINTNEXTLINE(bugprone-unchecked-optional-access)
    co_return result_for<T>(T(std::invoke(op, std::move(init), std::move(*total[0]))));
  }
}

/// The task values of a fold's `op` can be received (check_task_value), for an element type E.
template <typename Op, typename T, typename E>
consteval bool check_fold_task_values() {
  if constexpr (!check_task_value<Op&, T, E>()) {
    return false;
  } else {
    return check_task_value<Op&, T, T>();
  }
}

template <typename I, typename T, typename Op>
consteval bool check_reduce() {
  static_assert(
      fold_operation<Op, T, std::iter_reference_t<I>>,
      "tine::reduce(..., init, op): op must combine the accumulator (the type of init) "
      "with an element and with another accumulator: op(T, *it) and op(T, T) must be valid "
      "and convertible to T, and T must be constructible from an element");
  if constexpr (!fold_operation<Op, T, std::iter_reference_t<I>>) {
    return false;
  } else {
    return check_fold_task_values<Op, T, std::iter_reference_t<I>>();
  }
}

template <typename I, typename T, typename Op, typename Tr>
consteval bool check_transform_reduce() {
  if constexpr (!element_function<Tr, I>) {
    static_assert(
        element_function<Tr, I>,
        "tine::transform_reduce(..., init, op, transform): transform must be copyable and "
        "callable as transform(*it)");
    return false;
  } else if constexpr (!check_task_value<Tr&, std::iter_reference_t<I>>()) {
    return false;
  } else {
    using E = typename unary_source<I, Tr>::element_type;
    static_assert(
        fold_operation<Op, T, E>,
        "tine::transform_reduce(..., init, op, transform): op must combine the accumulator "
        "(the type of init) with a transformed element and with another accumulator: "
        "op(T, transform(*it)) and op(T, T) must be valid and convertible to T");
    if constexpr (!fold_operation<Op, T, E>) {
      return false;
    } else {
      return check_fold_task_values<Op, T, E>();
    }
  }
}

template <typename I1, typename I2, typename T, typename Op, typename Tr>
consteval bool check_transform_reduce2() {
  static_assert(std::random_access_iterator<I2>,
                "tine::transform_reduce(..., first2, ...): the second input must be a "
                "random-access iterator");
  // Each branch keeps the next one from being instantiated: the repeated bodies are the point.
  // NOLINTNEXTLINE(bugprone-branch-clone)
  if constexpr (!std::random_access_iterator<I2>) {
    return false;
  } else if constexpr (!element_pair_function<Tr, I1, I2>) {
    static_assert(element_pair_function<Tr, I1, I2>,
                  "tine::transform_reduce(..., first2, init, op, transform): transform must be "
                  "copyable and callable as transform(*it1, *it2)");
    return false;
  } else if constexpr (!check_task_value<Tr&, std::iter_reference_t<I1>,
                                         std::iter_reference_t<I2>>()) {
    return false;
  } else {
    using E = typename binary_source<I1, I2, Tr>::element_type;
    static_assert(fold_operation<Op, T, E>,
                  "tine::transform_reduce(..., first2, init, op, transform): op must combine the "
                  "accumulator (the type of init) with transform(*it1, *it2) and with another "
                  "accumulator, giving something convertible to T");
    if constexpr (!fold_operation<Op, T, E>) {
      return false;
    } else {
      return check_fold_task_values<Op, T, E>();
    }
  }
}

/// The definition of reduce; the entry points are made from it (entry.hpp). Without `op` it
/// sums; without `init` it starts from a value-initialised element.
struct reduce_impl {
  static constexpr const char* name = "reduce";

  template <typename R, typename T = std::ranges::range_value_t<R>, typename Op = std::plus<>>
    requires(!std::same_as<T, grain>)
  task<result_for<T>> operator()(R& r, T init = T{}, Op op = {}, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_reduce<I, T, Op>()) {
      const std::size_t n = range_size(r);
      using source = unary_source<I, pass_through>;
      return fold_run<T, source, Op>(source{std::ranges::begin(r), {}}, n, std::move(init),
                                     std::move(op), leaf_size(n, g, workers_here()));
    }
  }
};

/// The definition of transform_reduce, over one input or two (`first2`: as many elements).
struct transform_reduce_impl {
  static constexpr const char* name = "transform_reduce";

  template <typename R, typename T, typename Op, typename Tr>
  task<result_for<T>> operator()(R& r, T init, Op op, Tr transform, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_transform_reduce<I, T, Op, Tr>()) {
      const std::size_t n = range_size(r);
      using source = unary_source<I, Tr>;
      return fold_run<T, source, Op>(source{std::ranges::begin(r), std::move(transform)}, n,
                                     std::move(init), std::move(op),
                                     leaf_size(n, g, workers_here()));
    }
  }

  template <typename R, typename I2, typename T, typename Op, typename Tr>
    requires(!std::same_as<Tr, grain>)
  task<result_for<T>> operator()(R& r, I2 first2, T init, Op op, Tr transform, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_transform_reduce2<I, I2, T, Op, Tr>()) {
      const std::size_t n = range_size(r);
      using source = binary_source<I, I2, Tr>;
      return fold_run<T, source, Op>(
          source{std::ranges::begin(r), std::move(first2), std::move(transform)}, n,
          std::move(init), std::move(op), leaf_size(n, g, workers_here()));
    }
  }
};

}  // namespace detail

/// Blocking reduce: `tine::reduce(sched, range [, init [, op [, grain]]])`, also over
/// `first, last`.
inline constexpr detail::blocking_algorithm<detail::reduce_impl> reduce{};

/// Blocking transform_reduce: `init op transform(x0) op transform(x1) ...`, or with two inputs
/// `init op transform(x0, y0) op transform(x1, y1) ...` (the second input is as long as the first):
/// `tine::transform_reduce(sched, range [, first2], init, op, transform [, grain])`.
inline constexpr detail::blocking_algorithm<detail::transform_reduce_impl> transform_reduce{};

namespace async {

/// Task form of reduce: `co_await tine::call(&sum, tine::async::reduce, range, init, op)`.
inline constexpr detail::async_algorithm<detail::reduce_impl> reduce{};

/// Task form of transform_reduce (one or two inputs).
inline constexpr detail::async_algorithm<detail::transform_reduce_impl> transform_reduce{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_REDUCE_HPP
