#ifndef TINE_ALGORITHMS_CONCEPTS_HPP
#define TINE_ALGORITHMS_CONCEPTS_HPP

/// \file concepts.hpp
/// What the parallel algorithms ask of the callables they are given.
///
/// What they take as input is input.hpp's matter (every range that can be traversed more than
/// once). They call the user's functions from several threads at once, on elements in no
/// particular order (reductions and scans still *combine* results in order: the operation need
/// not be commutative, only associative).
///
/// The algorithms accept any arguments and then check these concepts with `static_assert`s whose
/// messages are sentences (a failed constraint in an overload set would print "no matching
/// function" and a list of candidates instead).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <functional>
#include <iterator>
#include <ranges>
#include <type_traits>

namespace tine {

/// `f` can be called with one element of `I` (its reference type); it is called concurrently.
template <typename F, typename I>
concept element_function =
    std::copy_constructible<F> && std::invocable<F&, std::iter_reference_t<I>>;

/// `f` can be called with one element of `I1` and the matching element of `I2`.
template <typename F, typename I1, typename I2>
concept element_pair_function = std::copy_constructible<F> &&
    std::invocable<F&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

/// `p` answers a yes/no question about an element of `I1` and the matching element of `I2`.
template <typename P, typename I1, typename I2>
concept element_pair_predicate = std::copy_constructible<P> &&
    std::predicate<P&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

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

}  // namespace tine

#endif  // TINE_ALGORITHMS_CONCEPTS_HPP
