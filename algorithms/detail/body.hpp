#ifndef TINE_ALGORITHMS_DETAIL_BODY_HPP
#define TINE_ALGORITHMS_DETAIL_BODY_HPP

/// \file body.hpp
/// Callables that the algorithms apply per element (or per pair) and that may be tasks.
///
/// A user's callable either gives its answer at once (`f(x)` returns a value, or void) or returns
/// a `tine::task<X>`: the algorithm then runs that task as a child (`co_await tine::call(&x, f,
/// element)`) and uses its value `x` once it has returned, so a body can fork, call and join, or
/// run another algorithm's task form. The leaves of an algorithm whose callable is a task are
/// coroutines themselves; the others keep their plain loops, so nothing changes for them.
///
/// The value of a task reaches the algorithm the way core delivers every result: assigned to a
/// variable the algorithm declares first. So `X` must be default-constructible and
/// move-assignable (`check_task_value` says so in one sentence), or void where the value is
/// ignored (for_each).
///
/// Orderings (the comparisons and projections of sort, stable_sort, merge and the extrema) are
/// refused as tasks (`ordering_returns_task`, with a sentence in each algorithm's check): they
/// are called many times per element inside serial sorting and merging steps, where a child task
/// per comparison would cost more than the comparison, and the standard algorithms the leaves
/// run take only plain callables.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <type_traits>

#include <tine/core/callable_check.hpp>
#include <tine/core/task.hpp>

namespace tine::detail {

/// `f(args...)` returns a `tine::task`: an algorithm runs it as a child task.
template <typename F, typename... A>
concept task_body = std::invocable<F, A...> && task_type<std::invoke_result_t<F, A...>>;

template <typename F, typename... A>
struct body_value {
  using type = std::invoke_result_t<F, A...>;
};
template <typename F, typename... A>
  requires task_body<F, A...>
struct body_value<F, A...> {
  using type = typename task_value<std::invoke_result_t<F, A...>>::type;
};

/// What `f(args...)` gives an algorithm: its result, or the value of the task it returns.
template <typename F, typename... A>
using body_value_t = typename body_value<F, A...>::type;

/// Whether an algorithm can receive the value of `f(args...)`: a plain result always; a task's
/// value `X` when it is void or can be assigned to a variable declared first.
template <typename F, typename... A>
concept receivable_body = !task_body<F, A...> || std::is_void_v<body_value_t<F, A...>> ||
                          (std::default_initializable<body_value_t<F, A...>> &&
                           std::is_move_assignable_v<body_value_t<F, A...>>);

/// The check every algorithm makes of a callable that may be a task, after its own checks of
/// the call passed: the task's value can be received.
template <typename F, typename... A>
consteval bool check_task_value() {
  // Named, so that a failure prints the sentence rather than the concept's tree.
  constexpr bool receivable = receivable_body<F, A...>;
  static_assert(receivable,
                "tine algorithms: a callable that returns tine::task<X> must have an X that is "
                "default-constructible and move-assignable (or void where the value is not "
                "used): the algorithm receives the task's value in a variable declared first");
  return receivable;
}

/// A yes/no answer an algorithm can read: convertible to bool (a predicate's result, or the value
/// of the task a predicate returns).
template <typename X>
concept boolean_value = std::convertible_to<X, bool>;

/// Whether an ordering returns a task: `proj(*it)` for an element of `I`, or `comp(a, b)` on two
/// projected elements.
template <typename Comp, typename Proj, typename I>
consteval bool ordering_returns_task() {
  using ref = std::iter_reference_t<I>;
  if constexpr (task_body<Proj&, ref>) {
    return true;
  } else if constexpr (std::invocable<Proj&, ref>) {
    using key = std::invoke_result_t<Proj&, ref>;
    return task_body<Comp&, key, key>;
  } else {
    return false;
  }
}

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_BODY_HPP
