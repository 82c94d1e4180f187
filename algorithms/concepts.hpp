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
/// The callables applied per element or per pair may return a `tine::task<X>` instead of a value:
/// the algorithm then runs the task as a child task and uses its value (detail/body.hpp), so a
/// body can itself fork, call, join or run another algorithm's task form. The concepts below
/// accept both kinds; what they say about a result is said about the task's value `X`.
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

#include <tine/algorithms/detail/body.hpp>

namespace tine {
namespace detail {

/// `p(args...)` answers yes or no: at once, or as the value of the task it returns.
template <typename P, typename... A>
concept yes_no_callable =
    std::predicate<P&, A...> || (task_body<P&, A...> && boolean_value<body_value_t<P&, A...>>);

}  // namespace detail

/// `f` can be called with one element of `I` (its reference type); it is called concurrently. It
/// may return a `tine::task`.
template <typename F, typename I>
concept element_function =
    std::copy_constructible<F> && std::invocable<F&, std::iter_reference_t<I>>;

/// `f` can be called with one element of `I1` and the matching element of `I2`.
template <typename F, typename I1, typename I2>
concept element_pair_function =
    std::copy_constructible<F> &&
    std::invocable<F&, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

/// `p` answers a yes/no question about an element of `I1` and the matching element of `I2`.
template <typename P, typename I1, typename I2>
concept element_pair_predicate =
    std::copy_constructible<P> &&
    detail::yes_no_callable<P, std::iter_reference_t<I1>, std::iter_reference_t<I2>>;

/// `p` answers a yes/no question about one element of `I`.
template <typename P, typename I>
concept element_predicate =
    std::copy_constructible<P> && detail::yes_no_callable<P, std::iter_reference_t<I>>;

/// `op` folds values of type `E` (an element, or a transformed element) into an accumulator of
/// type `T`: `T` can start from an `E`, and `op(T, E)` and `op(T, T)` give something convertible
/// to `T` (`op` may return a `tine::task` of such a value). The algorithms assume `op` is
/// associative, never that it is commutative.
template <typename Op, typename T, typename E>
concept fold_operation =
    std::copy_constructible<Op> && std::movable<T> && std::constructible_from<T, E> &&
    std::invocable<Op&, T, E> && std::convertible_to<detail::body_value_t<Op&, T, E>, T> &&
    std::invocable<Op&, T, T> && std::convertible_to<detail::body_value_t<Op&, T, T>, T>;

}  // namespace tine

#endif  // TINE_ALGORITHMS_CONCEPTS_HPP
