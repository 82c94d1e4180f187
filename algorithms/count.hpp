#ifndef TINE_ALGORITHMS_COUNT_HPP
#define TINE_ALGORITHMS_COUNT_HPP

/// \file count.hpp
/// `tine::count_if` and `tine::count`: how many elements satisfy a predicate, or equal a value,
/// counted in parallel (`std::ranges::count_if`, `std::ranges::count`).
///
/// ```
/// auto negatives = tine::count_if(pool, v, [](int x) { return x < 0; });   // blocking
/// auto zeros = tine::count(pool, v.begin(), v.end(), 0);
/// co_await tine::call(&negatives, tine::async::count_if, v, pred);         // in a task
/// ```
///
/// The result has the input's difference type (`std::ranges::range_difference_t`; for an input
/// whose iterators tine gathers or bridges, detail/input.hpp, `std::ptrdiff_t`). Each leaf
/// counts its piece serially; the counts of two neighbouring pieces are added in the frame of
/// the task that split them (split_fold: `stack_alloc` slots, no heap). `pred` is called once per
/// element, concurrently, in no particular order; it may return a `tine::task` of something
/// convertible to bool, which then runs as a child task. If it throws, the first exception
/// reaches the caller after every piece already started has finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
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
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

/// A leaf: the number of elements of `[lo, hi)` that satisfy `*pred`.
template <typename I, typename P>
struct count_leaf {
  I first;
  P* pred;

  std::size_t operator()(std::size_t lo, std::size_t hi) const
    requires(!task_body<P&, std::iter_reference_t<I>>)
  {
    std::size_t hits = 0;
    I it = at(first, lo);
    for (std::size_t i = lo; i < hi; ++i, ++it) {
      if (static_cast<bool>(std::invoke(*pred, *it))) {
        ++hits;
      }
    }
    return hits;
  }

  /// `pred` returns a task: one child task per element, in turn, keyed by its index
  /// (detail/index_keys.hpp).
  task<void> operator()(std::optional<std::size_t>* out, std::size_t lo, std::size_t hi,
                        pedigree_pass pass = {element_role}) const
    requires task_body<P&, std::iter_reference_t<I>>
  {
    std::size_t hits = 0;
    I it = at(first, lo);
    for (std::uint64_t& i = pass.index_from(lo); i < hi; ++i, ++it) {
      body_value_t<P&, std::iter_reference_t<I>> yes{};
      co_await call(&yes, *pred, *it);
      if (static_cast<bool>(yes)) {
        ++hits;
      }
    }
    out->emplace(hits);
  }
};

struct add_counts {
  std::size_t operator()(std::size_t a, std::size_t b) const noexcept { return a + b; }
};

/// The algorithm: `pred` lives in this frame, the leaves refer to it.
template <typename D, typename I, typename P>
task<D> count_run(param<I> first_in, std::size_t n, param<P> pred_in, std::size_t leaf) {
  I& first = arg(first_in);
  P& pred = arg(pred_in);
  if (n == 0) {
    co_return D(0);
  }
  const count_leaf<I, P> leaves{first, &pred};
  add_counts add;
  std::optional<std::size_t> total;
  co_await call(split_fold<std::size_t, count_leaf<I, P>, add_counts>, &total, &leaves, &add,
                std::size_t{0}, n, leaf);
  co_await join();
  co_return static_cast<D>(*total);
}

template <typename P, typename I>
consteval bool check_count_if() {
  static_assert(element_predicate<P, I>,
                "tine::count_if(..., pred): pred must be copyable and callable as pred(*it) with "
                "an element of the input, returning something convertible to bool (or a "
                "tine::task of it)");
  if constexpr (!element_predicate<P, I>) {
    return false;
  } else {
    return check_task_value<P&, std::iter_reference_t<I>>();
  }
}

/// count's predicate: `x == value`, with the value kept in the task's frame.
template <typename T>
struct equals_value {
  T value;

  template <typename X>
  bool operator()(const X& x) const {
    return static_cast<bool>(x == value);
  }
};

template <typename T, typename I>
consteval bool check_count() {
  constexpr bool comparable = requires(std::iter_reference_t<I> x, const T& v) {
    { x == v } -> std::convertible_to<bool>;
  };
  static_assert(std::copy_constructible<T>,
                "tine::count(..., value): value must be copyable (it is copied into the task)");
  static_assert(comparable,
                "tine::count(..., value): an element of the input cannot be compared with value "
                "by ==, or the comparison does not give something convertible to bool");
  return comparable && std::copy_constructible<T>;
}

/// The definition of count_if; the entry points are made from it (entry.hpp).
struct count_if_impl {
  static constexpr const char* name = "count_if";

  template <typename R, typename P>
  task<std::ranges::range_difference_t<R>> operator()(R& r, P pred, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    using D = std::ranges::range_difference_t<R>;
    if constexpr (check_count_if<P, I>()) {
      const std::size_t n = range_size(r);
      return count_run<D, I, P>(std::ranges::begin(r), n, std::move(pred),
                                leaf_size(n, g, workers_here()));
    }
  }
};

/// The definition of count: count_if with `x == value`.
struct count_impl {
  static constexpr const char* name = "count";

  template <typename R, typename T>
  task<std::ranges::range_difference_t<R>> operator()(R& r, T value, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    using D = std::ranges::range_difference_t<R>;
    if constexpr (check_count<T, I>()) {
      const std::size_t n = range_size(r);
      return count_run<D, I, equals_value<T>>(std::ranges::begin(r), n,
                                              equals_value<T>{std::move(value)},
                                              leaf_size(n, g, workers_here()));
    }
  }
};

}  // namespace detail

/// Blocking count_if: `tine::count_if(sched, range, pred [, grain])` or
/// `tine::count_if(sched, first, last, pred [, grain])`: the number of elements for which `pred`
/// is true.
inline constexpr detail::blocking_algorithm<detail::count_if_impl> count_if{};

/// Blocking count: `tine::count(sched, range, value [, grain])` or
/// `tine::count(sched, first, last, value [, grain])`: the number of elements `== value`.
inline constexpr detail::blocking_algorithm<detail::count_impl> count{};

namespace async {

/// Task form of count_if: `co_await tine::call(&n, tine::async::count_if, range, pred)`.
inline constexpr detail::async_algorithm<detail::count_if_impl> count_if{};

/// Task form of count: `co_await tine::call(&n, tine::async::count, range, value)`.
inline constexpr detail::async_algorithm<detail::count_impl> count{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_COUNT_HPP
