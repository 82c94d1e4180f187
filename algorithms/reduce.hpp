#ifndef TINE_ALGORITHMS_REDUCE_HPP
#define TINE_ALGORITHMS_REDUCE_HPP

/// \file reduce.hpp
/// `tine::reduce` and `tine::transform_reduce`: fold a range with an associative operation.
///
/// ```
/// long sum = tine::reduce(pool, v, 0L, std::plus<>{});
/// double dot = tine::transform_reduce(pool, a, b.begin(), 0.0, std::plus<>{},
/// std::multiplies<>{}); co_await tine::call(&sum, tine::async::reduce, v.begin(), v.end(), 0L,
/// std::plus<>{});
/// ```
///
/// The result is `init op x0 op x1 op ... op xn-1` with the elements in their order, grouped in
/// some way: equal to `std::accumulate`'s for any associative `op`, commutative or not (string
/// concatenation works). Partial results live on the workers' segmented stacks (`stack_alloc`),
/// never on the heap. `op` and the transform are called concurrently; if one throws, the first
/// exception reaches the caller after every piece already started has finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>

#include <tine/algorithms/concepts.hpp>
#include <tine/algorithms/detail/input.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/stack_alloc.hpp>
#include <tine/core/sync_wait.hpp>
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

/// Element `i` of one input, transformed.
template <typename I, typename Tr>
struct unary_source {
  I first;
  Tr* tr;
  decltype(auto) operator()(std::size_t i) const { return std::invoke(*tr, *at(first, i)); }
};

/// Element `i` of two inputs, transformed together.
template <typename I1, typename I2, typename Tr>
struct binary_source {
  I1 first1;
  I2 first2;
  Tr* tr;
  decltype(auto) operator()(std::size_t i) const {
    return std::invoke(*tr, *at(first1, i), *at(first2, i));
  }
};

/// A leaf of the fold: `[lo, hi)` folded left to right, starting from its first element.
template <typename T, typename Source, typename Op>
struct fold_leaf {
  Source source;
  Op* op;

  T operator()(std::size_t lo, std::size_t hi) const {
    T acc(source(lo));
    for (std::size_t i = lo + 1; i < hi; ++i) {
      acc = std::invoke(*op, std::move(acc), source(i));
    }
    return acc;
  }
};

/// The algorithm, writing `init op fold(elements)` into `*out`. `op` lives in this frame; the
/// source refers to the transform, which lives in the caller's frame.
template <typename T, typename Source, typename Op>
task<void> fold_run(std::optional<T>* out, Source source, std::size_t n, T init, Op op,
                    std::size_t leaf) {
  if (n == 0) {
    out->emplace(std::move(init));
    co_return;
  }
  using leaf_type = fold_leaf<T, Source, Op>;
  const leaf_type leaves{std::move(source), &op};
  stack_array<std::optional<T>> total = co_await stack_alloc<std::optional<T>>(1);
  co_await call(split_fold<T, leaf_type, Op>, &total[0], &leaves, &op, std::size_t{0}, n, leaf);
  co_await join();
  out->emplace(std::invoke(op, std::move(init), std::move(*total[0])));
}

/// Blocking entry: one sync_wait, the result in a local optional (T need not be
/// default-constructible).
template <typename Sch, typename T, typename Source, typename Op>
T blocking_fold(Sch& sched, Source source, std::size_t n, T init, Op op, grain g) {
  std::optional<T> out;
  sync_wait(sched, fold_run<T, Source, Op>, &out, std::move(source), n, std::move(init),
            std::move(op), leaf_size(n, g, worker_count(sched)));
  return std::move(*out);
}

/// Task entry. `tr` is the transform, kept in this frame for the source to refer to.
template <typename T, typename Tr, typename MakeSource, typename Op>
task<T> fold_task(MakeSource make, std::size_t n, T init, Op op, Tr tr, grain g) {
  std::optional<T> out;
  co_await call(fold_run<T, decltype(make(&tr)), Op>, &out, make(&tr), n, std::move(init),
                std::move(op), leaf_size(n, g, hardware_workers()));
  co_await join();
  co_return std::move(*out);
}

/// Builds a unary_source once the transform's address is known.
template <typename I>
struct make_unary {
  I first;
  template <typename Tr>
  unary_source<I, Tr> operator()(Tr* tr) const {
    return {first, tr};
  }
};

template <typename I1, typename I2>
struct make_binary {
  I1 first1;
  I2 first2;
  template <typename Tr>
  binary_source<I1, I2, Tr> operator()(Tr* tr) const {
    return {first1, first2, tr};
  }
};

template <typename I, typename T, typename Op>
consteval bool check_reduce() {
  static_assert(
      fold_operation<Op, T, std::iter_reference_t<I>>,
      "tine::reduce(..., init, op): op must combine the accumulator (the type of init) "
      "with an element and with another accumulator: op(T, *it) and op(T, T) must be valid "
      "and convertible to T, and T must be constructible from an element");
  return fold_operation<Op, T, std::iter_reference_t<I>>;
}

template <typename I, typename T, typename Op, typename Tr>
consteval bool check_transform_reduce() {
  if constexpr (!element_function<Tr, I>) {
    static_assert(
        element_function<Tr, I>,
        "tine::transform_reduce(..., init, op, transform): transform must be copyable and "
        "callable as transform(*it)");
    return false;
  } else {
    using E = std::invoke_result_t<Tr&, std::iter_reference_t<I>>;
    static_assert(
        fold_operation<Op, T, E>,
        "tine::transform_reduce(..., init, op, transform): op must combine the accumulator "
        "(the type of init) with a transformed element and with another accumulator: "
        "op(T, transform(*it)) and op(T, T) must be valid and convertible to T");
    return fold_operation<Op, T, E>;
  }
}

template <typename I1, typename I2, typename T, typename Op, typename Tr>
consteval bool check_transform_reduce2() {
  static_assert(splittable_iterator<I2>,
                "tine::transform_reduce: the second input must be random access");
  if constexpr (!element_pair_function<Tr, I1, I2>) {
    static_assert(element_pair_function<Tr, I1, I2>,
                  "tine::transform_reduce(..., first2, init, op, transform): transform must be "
                  "copyable and callable as transform(*it1, *it2)");
    return false;
  } else {
    using E = std::invoke_result_t<Tr&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;
    static_assert(fold_operation<Op, T, E>,
                  "tine::transform_reduce(..., first2, init, op, transform): op must combine the "
                  "accumulator (the type of init) with transform(*it1, *it2) and with another "
                  "accumulator, giving something convertible to T");
    return splittable_iterator<I2> && fold_operation<Op, T, E>;
  }
}

}  // namespace detail

/// Blocking reduce. Without `op` it sums (`std::plus<>`); without `init` it starts from a
/// value-initialised element type.
struct reduce_fn {
  template <scheduler Sch, std::ranges::range R, typename T, typename Op>
  requires(!std::same_as<T, grain>) T operator()(Sch& sched, R&& r, T init, Op op,
                                                 grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_reduce<I, T, Op>()) {
      static const detail::pass_through tr{};
      return detail::blocking_fold(
          sched, detail::unary_source<I, const detail::pass_through>{std::ranges::begin(r), &tr},
          detail::range_size(r), std::move(init), std::move(op), g);
    }
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S, typename T,
            typename Op>
  T operator()(Sch& sched, I first, S last, T init, Op op, grain g = {}) const {
    return (*this)(sched, std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::move(init), std::move(op), g);
  }

  template <scheduler Sch, std::ranges::range R, typename T>
  T operator()(Sch& sched, R&& r, T init) const {
    return (*this)(sched, r, std::move(init), std::plus<>{});
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S, typename T>
  T operator()(Sch& sched, I first, S last, T init) const {
    return (*this)(sched, std::move(first), std::move(last), std::move(init), std::plus<>{});
  }

  template <scheduler Sch, std::ranges::range R>
  std::ranges::range_value_t<R> operator()(Sch& sched, R&& r) const {
    return (*this)(sched, r, std::ranges::range_value_t<R>{}, std::plus<>{});
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S>
  std::iter_value_t<I> operator()(Sch& sched, I first, S last) const {
    return (*this)(sched, std::move(first), std::move(last), std::iter_value_t<I>{}, std::plus<>{});
  }
};

/// The blocking reduce: see reduce_fn.
inline constexpr reduce_fn reduce{};

/// Blocking transform_reduce: `init op transform(x0) op transform(x1) ...`, or with two inputs
/// `init op transform(x0, y0) op transform(x1, y1) ...` (the second input is as long as the first).
struct transform_reduce_fn {
  template <scheduler Sch, std::ranges::range R, typename T, typename Op, typename Tr>
  T operator()(Sch& sched, R&& r, T init, Op op, Tr tr, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_transform_reduce<I, T, Op, Tr>()) {
      return detail::blocking_fold(sched, detail::unary_source<I, Tr>{std::ranges::begin(r), &tr},
                                   detail::range_size(r), std::move(init), std::move(op), g);
    }
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S, typename T,
            typename Op, typename Tr>
  T operator()(Sch& sched, I first, S last, T init, Op op, Tr tr, grain g = {}) const {
    return (*this)(sched, std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::move(init), std::move(op), std::move(tr), g);
  }

  template <scheduler Sch, std::ranges::range R, std::input_or_output_iterator I2, typename T,
            typename Op, typename Tr>
  T operator()(Sch& sched, R&& r, I2 first2, T init, Op op, Tr tr, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_transform_reduce2<I, I2, T, Op, Tr>()) {
      return detail::blocking_fold(
          sched, detail::binary_source<I, I2, Tr>{std::ranges::begin(r), first2, &tr},
          detail::range_size(r), std::move(init), std::move(op), g);
    }
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S,
            std::input_or_output_iterator I2, typename T, typename Op, typename Tr>
  T operator()(Sch& sched, I first, S last, I2 first2, T init, Op op, Tr tr, grain g = {}) const {
    return (*this)(sched, std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::move(first2), std::move(init), std::move(op), std::move(tr), g);
  }
};

/// The blocking transform_reduce: see transform_reduce_fn.
inline constexpr transform_reduce_fn transform_reduce{};

namespace async {

/// Task form of reduce: `co_await tine::call(&sum, tine::async::reduce, range, init, op)`.
/// An lvalue range is referred to; a temporary range is moved into the task.
struct reduce_fn {
  template <std::ranges::range R, typename T, typename Op>
  requires(!std::same_as<T, grain>) task<T>
  operator()(R&& r, T init, Op op, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_reduce<I, T, Op>()) {
      if constexpr (detail::referable_range<R>) {
        return detail::fold_task<T, detail::pass_through>(
            detail::make_unary<I>{std::ranges::begin(r)}, detail::range_size(r), std::move(init),
            std::move(op), detail::pass_through{}, g);
      } else {
        return detail::with_owned_range<T, reduce_fn>(std::move(r), std::move(init), std::move(op),
                                                      g);
      }
    }
  }

  template <std::input_or_output_iterator I, std::sentinel_for<I> S, typename T, typename Op>
  task<T> operator()(I first, S last, T init, Op op, grain g = {}) const {
    return (*this)(std::ranges::subrange<I, S>(std::move(first), std::move(last)), std::move(init),
                   std::move(op), g);
  }

  template <std::ranges::range R, typename T>
  task<T> operator()(R&& r, T init) const {
    return (*this)(std::forward<R>(r), std::move(init), std::plus<>{});
  }

  template <std::input_or_output_iterator I, std::sentinel_for<I> S, typename T>
  task<T> operator()(I first, S last, T init) const {
    return (*this)(std::move(first), std::move(last), std::move(init), std::plus<>{});
  }
};

/// The task form of reduce: see async::reduce_fn.
inline constexpr reduce_fn reduce{};

/// Task form of transform_reduce (one or two inputs), as `tine::transform_reduce` without the
/// scheduler.
struct transform_reduce_fn {
  template <std::ranges::range R, typename T, typename Op, typename Tr>
  task<T> operator()(R&& r, T init, Op op, Tr tr, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_transform_reduce<I, T, Op, Tr>()) {
      if constexpr (detail::referable_range<R>) {
        return detail::fold_task<T, Tr>(detail::make_unary<I>{std::ranges::begin(r)},
                                        detail::range_size(r), std::move(init), std::move(op),
                                        std::move(tr), g);
      } else {
        return detail::with_owned_range<T, transform_reduce_fn>(std::move(r), std::move(init),
                                                                std::move(op), std::move(tr), g);
      }
    }
  }

  template <std::input_or_output_iterator I, std::sentinel_for<I> S, typename T, typename Op,
            typename Tr>
  task<T> operator()(I first, S last, T init, Op op, Tr tr, grain g = {}) const {
    return (*this)(std::ranges::subrange<I, S>(std::move(first), std::move(last)), std::move(init),
                   std::move(op), std::move(tr), g);
  }

  template <std::ranges::range R, std::input_or_output_iterator I2, typename T, typename Op,
            typename Tr>
  task<T> operator()(R&& r, I2 first2, T init, Op op, Tr tr, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_transform_reduce2<I, I2, T, Op, Tr>()) {
      if constexpr (detail::referable_range<R>) {
        return detail::fold_task<T, Tr>(
            detail::make_binary<I, I2>{std::ranges::begin(r), std::move(first2)},
            detail::range_size(r), std::move(init), std::move(op), std::move(tr), g);
      } else {
        return detail::with_owned_range<T, transform_reduce_fn>(
            std::move(r), std::move(first2), std::move(init), std::move(op), std::move(tr), g);
      }
    }
  }

  template <std::input_or_output_iterator I, std::sentinel_for<I> S,
            std::input_or_output_iterator I2, typename T, typename Op, typename Tr>
  task<T> operator()(I first, S last, I2 first2, T init, Op op, Tr tr, grain g = {}) const {
    return (*this)(std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::move(first2), std::move(init), std::move(op), std::move(tr), g);
  }
};

/// The task form of transform_reduce: see async::transform_reduce_fn.
inline constexpr transform_reduce_fn transform_reduce{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_REDUCE_HPP
