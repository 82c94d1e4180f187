#ifndef TINE_ALGORITHMS_CONCEPTS_HPP
#define TINE_ALGORITHMS_CONCEPTS_HPP

/// \file concepts.hpp
/// What the parallel algorithms ask of their arguments.
///
/// The algorithms split their input in halves, so it must be random access with an O(1) size;
/// they call the user's functions from several threads at once, on elements in no particular
/// order (reductions and scans still *combine* results in order: the operation need not be
/// commutative, only associative).
///
/// The entry points accept anything iterator- or range-shaped and then check these concepts with
/// `static_assert`s whose messages are sentences (a failed constraint in an overload set would
/// print "no matching function" and a list of candidates instead).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <functional>
#include <iterator>
#include <ranges>
#include <type_traits>

namespace tine {

/// An iterator the algorithms can split: random access, so a chunk boundary costs O(1).
template <typename I>
concept splittable_iterator = std::random_access_iterator<I>;

/// A range the algorithms can split: random access, with its size known in O(1). Standard
/// containers (vector, deque, array), spans, std and range-v3 views over them and
/// `views::iota` qualify; std::list, std::set and filter views do not.
template <typename R>
concept splittable_range = std::ranges::random_access_range<R> && std::ranges::sized_range<R>;

/// `f` can be called with one element of `I` (its reference type); it is called concurrently.
template <typename F, typename I>
concept element_function =
    std::copy_constructible<F> && std::invocable<F&, std::iter_reference_t<I>>;

/// `f` can be called with one element of `I1` and the matching element of `I2`.
template <typename F, typename I1, typename I2>
concept element_pair_function = std::copy_constructible<F> &&
    std::invocable<F&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

/// `p` answers a yes/no question about one element of `I`.
template <typename P, typename I>
concept element_predicate =
    std::copy_constructible<P> && std::predicate<P&, std::iter_reference_t<I>>;

/// `op` folds values of type `E` (an element, or a transformed element) into an accumulator of
/// type `T`: `T` can start from an `E`, and `op(T, E)` and `op(T, T)` give something convertible
/// to `T`. The algorithms assume `op` is associative, never that it is commutative.
template <typename Op, typename T, typename E>
concept fold_operation =
    std::copy_constructible<Op> && std::movable<T> && std::constructible_from<T, E> &&
    std::invocable<Op&, T, E> && std::convertible_to<std::invoke_result_t<Op&, T, E>, T> &&
    std::invocable<Op&, T, T> && std::convertible_to<std::invoke_result_t<Op&, T, T>, T>;

namespace detail {

/// Checks shared by every entry point over `[first, last)`. Returns whether the algorithm may be
/// instantiated, so that a failed check does not bury its message under follow-on errors.
template <typename I, typename S>
consteval bool check_input() {
  static_assert(
      splittable_iterator<I>,
      "tine algorithms split their input in halves and need random-access iterators "
      "(std::vector, std::deque, std::array, std::span, iota/transform views); this "
      "iterator is not random access (std::list, std::set, a filter view, an input stream...)");
  static_assert(std::sized_sentinel_for<S, I>,
                "tine algorithms need the end of the input in O(1): last - first must be valid");
  return splittable_iterator<I> && std::sized_sentinel_for<S, I>;
}

template <typename R>
consteval bool check_range() {
  static_assert(
      std::ranges::random_access_range<R>,
      "tine algorithms split their input in halves and need a random-access range "
      "(std::vector, std::deque, std::array, std::span, iota/transform views); this "
      "range is not random access (std::list, std::set, a filter view, an input stream...)");
  static_assert(std::ranges::sized_range<R>,
                "tine algorithms need a range whose size is known in O(1)");
  return splittable_range<R>;
}

}  // namespace detail
}  // namespace tine

#endif  // TINE_ALGORITHMS_CONCEPTS_HPP
