#ifndef TINE_ALGORITHMS_COMPARE_HPP
#define TINE_ALGORITHMS_COMPARE_HPP

/// \file compare.hpp
/// `tine::equal` and `tine::mismatch`: two inputs compared element by element, in parallel.
///
/// ```
/// bool same = tine::equal(pool, a, b.begin());                    // as std::equal
/// auto [in1, in2] = tine::mismatch(pool, a, b.begin(), pred);     // the first pair that differs
/// ```
///
/// The second input is a random-access iterator to at least as many elements as the first. The
/// predicate (default `std::equal_to<>`) is called as `pred(*it1, *it2)`, concurrently and in
/// no particular order. They are searches (search.hpp) for an index where the predicate fails,
/// and stop early alike; `mismatch` returns the first such pair, as `std::ranges::mismatch`
/// does (`std::ranges::in_in_result`; its `in1` is `std::ranges::dangling` for a temporary range
/// that owns its elements). The predicate may return a `tine::task` of something convertible to
/// bool, which then runs as a child task. If it throws, the first exception reaches the caller
/// after every piece already started has finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

#include <tine/algorithms/concepts.hpp>
#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/algorithms/search.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

/// Holds at `i` when `pred(first1[i], first2[i])` is false: the inputs differ there.
template <typename I1, typename I2, typename P>
struct differs_at {
  static constexpr bool is_task =
      task_body<P&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

  I1 first1;
  I2 first2;
  P pred;
  bool operator()(std::size_t i)
    requires(!is_task)
  {
    return !static_cast<bool>(std::invoke(pred, *at(first1, i), *at(first2, i)));
  }
  task<bool> operator()(std::size_t i)
    requires is_task
  {
    body_value_t<P&, std::iter_reference_t<I1>, std::iter_reference_t<I2>> same{};
    co_await call(&same, pred, *at(first1, i), *at(first2, i));
    co_return !static_cast<bool>(same);
  }
};

/// mismatch's answer: the positions of the first difference in both inputs.
template <typename I1, typename I2>
struct positions_at {
  I1 first1;
  I2 first2;
  std::ranges::in_in_result<I1, I2> operator()(std::size_t i) const {
    return {at(first1, i), at(first2, i)};
  }
};

/// equal's answer: no difference before the end.
struct none_before {
  std::size_t n;
  bool operator()(std::size_t i) const { return i == n; }
};

template <typename P, typename I1, typename I2>
consteval bool check_compare() {
  static_assert(std::random_access_iterator<I2>,
                "tine::equal/mismatch(..., first2 [, pred]): the second input must be a "
                "random-access iterator to at least as many elements as the first input");
  if constexpr (!std::random_access_iterator<I2>) {
    return false;
  } else {
    static_assert(element_pair_predicate<P, I1, I2>,
                  "tine::equal/mismatch(..., first2, pred): pred must be copyable and callable as "
                  "pred(*it1, *it2), returning something convertible to bool (or a tine::task of "
                  "it)");
    if constexpr (!element_pair_predicate<P, I1, I2>) {
      return false;
    } else {
      return check_task_value<P&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>();
    }
  }
}

/// The definition of mismatch; the entry points are made from it (entry.hpp).
struct mismatch_impl {
  static constexpr const char* name = "mismatch";
  static constexpr bool returns_positions = true;

  template <typename R, typename I2, typename P = std::equal_to<>>
    requires(!std::same_as<P, grain>)
  task<std::ranges::in_in_result<std::ranges::iterator_t<R>, I2>> operator()(R& r, I2 first2,
                                                                             P pred = {},
                                                                             grain g = {}) const {
    using I1 = std::ranges::iterator_t<R>;
    if constexpr (check_compare<P, I1, I2>()) {
      const std::size_t n = range_size(r);
      const I1 first1 = std::ranges::begin(r);
      return search_run(differs_at<I1, I2, P>{first1, first2, std::move(pred)}, n, true,
                        leaf_size(n, g, workers_here()), positions_at<I1, I2>{first1, first2});
    }
  }
};

/// The definition of equal.
struct equal_impl {
  static constexpr const char* name = "equal";

  template <typename R, typename I2, typename P = std::equal_to<>>
    requires(!std::same_as<P, grain>)
  task<bool> operator()(R& r, I2 first2, P pred = {}, grain g = {}) const {
    using I1 = std::ranges::iterator_t<R>;
    if constexpr (check_compare<P, I1, I2>()) {
      const std::size_t n = range_size(r);
      return search_run(differs_at<I1, I2, P>{std::ranges::begin(r), first2, std::move(pred)}, n,
                        false, leaf_size(n, g, workers_here()), none_before{n});
    }
  }
};

}  // namespace detail

/// Blocking equal: whether `pred(x, y)` holds for every element `x` of the input and the matching
/// element `y` of the second input: `tine::equal(sched, range, first2 [, pred [, grain]])`, also
/// over `first, last`.
inline constexpr detail::blocking_algorithm<detail::equal_impl> equal{};

/// Blocking mismatch: the first pair where `pred(x, y)` fails, as a
/// `std::ranges::in_in_result{in1, in2}`, or the end of the input and `first2 + size`.
inline constexpr detail::blocking_algorithm<detail::mismatch_impl> mismatch{};

namespace async {

/// Task form of equal: `co_await tine::call(&same, tine::async::equal, range, first2)`.
inline constexpr detail::async_algorithm<detail::equal_impl> equal{};

/// Task form of mismatch: `co_await tine::call(&where, tine::async::mismatch, range, first2)`.
inline constexpr detail::async_algorithm<detail::mismatch_impl> mismatch{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_COMPARE_HPP
