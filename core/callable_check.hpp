#ifndef TINE_CORE_CALLABLE_CHECK_HPP
#define TINE_CORE_CALLABLE_CHECK_HPP

/// \file callable_check.hpp
/// Compile-time checks of what `tine::fork`, `tine::call`, `tine::sync_wait` and `tine::spawn` are
/// given, run in
/// the order a reader needs them: `fn` can be called with `args...`, the call returns a
/// `tine::task<T>`, the result variable has type T (or a root's can be stored), the callable
/// outlives the child, and the arguments outlive it (core/argument_check.hpp). Each check runs only
/// when the ones before it passed, and the function templates take any argument types (no
/// constraint), so a mistake is reported by one `static_assert` in one sentence instead of a list
/// of rejected candidates.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <type_traits>

#include <tine/core/argument_check.hpp>
#include <tine/core/task.hpp>

namespace tine::detail {

template <typename X>
struct task_value;
template <typename T>
struct task_value<task<T>> {
  using type = T;
};

/// Which public function is checked: the messages name it.
enum class entry { fork, call, sync_wait, spawn };

/// A stateful temporary callable would dangle: the child refers to the callable.
template <typename F>
inline constexpr bool safe_callable =
    !(std::is_rvalue_reference_v<F&&> && std::is_class_v<std::remove_cvref_t<F>> &&
      !std::is_empty_v<std::remove_cvref_t<F>>);

/// Whether the first argument of fork or call is where the result goes (an object pointer, or an
/// array that decays to one) rather than the callable; it tells the two overloads apart.
template <typename X>
concept result_pointer = std::is_pointer_v<std::decay_t<X>> &&
                         !std::is_function_v<std::remove_pointer_t<std::decay_t<X>>>;

/// The first argument of fork or call is the callable: the form without a result.
template <typename X>
concept callable_first = !result_pointer<X>;

/// The checks after the call's type is known to be `task<T>`; false if one failed.
template <entry Entry, typename R, typename F, typename... Args>
consteval bool check_task_call() {
  using T = typename task_value<std::invoke_result_t<F, Args...>>::type;
  if constexpr (Entry == entry::sync_wait || Entry == entry::spawn) {
    constexpr bool storable =
        std::is_void_v<T> || (std::is_default_constructible_v<T> && std::is_move_assignable_v<T>);
    if constexpr (Entry == entry::sync_wait) {
      static_assert(storable,
                    "tine::sync_wait: the root task's return type must be default-constructible "
                    "and move-assignable");
      // The root task is created inside the worker from references to `args`: a conversion
      // temporary made there would die before the task runs. (spawn's arguments are copies
      // in its state, which outlive the root.)
      check_arguments<false, F, Args...>();
    } else {
      static_assert(storable,
                    "tine::spawn: the root task's return type must be default-constructible and "
                    "move-assignable (the future holds one that the task assigns)");
    }
    return storable;
  } else {
    constexpr bool same_result = std::is_void_v<R> || std::is_same_v<R, T>;
    static_assert(
        safe_callable<F>,
        "tine::fork/call: the callable is a temporary with state (for example a lambda with "
        "captures); the child refers to it after this statement ends. Name it first: "
        "auto f = [..](..) -> tine::task<T> {..}; co_await tine::fork(&r, f, args...);");
    static_assert(same_result,
                  "tine::fork/call(&r, fn, args...): r must have exactly the type the task returns "
                  "(fn returns tine::task<T>, so r must be a T)");
    check_arguments<Entry == entry::fork, F, Args...>();
    return safe_callable<F> && same_result;
  }
}

/// Checks `fn(args...)` for `Entry` (the result goes to an `R`, void when discarded); true when
/// it may be started.
template <entry Entry, typename R, typename F, typename... Args>
consteval bool check_task_function() {
  constexpr bool invocable = std::is_invocable_v<F, Args...>;
  if constexpr (Entry == entry::fork) {
    static_assert(invocable,
                  "tine::fork: fn cannot be called with these arguments (compare their number and "
                  "types with fn's parameters)");
  } else if constexpr (Entry == entry::call) {
    static_assert(invocable,
                  "tine::call: fn cannot be called with these arguments (compare their number and "
                  "types with fn's parameters)");
  } else if constexpr (Entry == entry::sync_wait) {
    static_assert(invocable,
                  "tine::sync_wait(sched, fn, args...): fn cannot be called with these arguments "
                  "(compare their number and types with fn's parameters)");
  } else {
    static_assert(invocable,
                  "tine::spawn(sched, fn, args...): fn cannot be called with these arguments "
                  "(compare their number and types with fn's parameters; spawn passes copies of "
                  "the arguments, as lvalues)");
  }
  if constexpr (!invocable) {
    return false;
  } else {
    constexpr bool returns_task = task_type<std::invoke_result_t<F, Args...>>;
    if constexpr (Entry == entry::fork) {
      static_assert(returns_task,
                    "tine::fork: fn(args...) must return tine::task<T>: only a coroutine "
                    "returning tine::task<T> can be forked");
    } else if constexpr (Entry == entry::call) {
      static_assert(returns_task,
                    "tine::call: fn(args...) must return tine::task<T>: only a coroutine "
                    "returning tine::task<T> can be called as a child task (call a plain "
                    "function directly)");
    } else if constexpr (Entry == entry::sync_wait) {
      static_assert(returns_task,
                    "tine::sync_wait(sched, fn, args...): fn(args...) must return "
                    "tine::task<T>: only a coroutine returning tine::task<T> can run on a "
                    "scheduler");
    } else {
      static_assert(returns_task,
                    "tine::spawn(sched, fn, args...): fn(args...) must return tine::task<T>: only "
                    "a coroutine returning tine::task<T> can run on a scheduler");
    }
    // Each branch keeps the next one from being instantiated: the repeated bodies are the point.
    // NOLINTNEXTLINE(bugprone-branch-clone)
    if constexpr (!returns_task) {
      return false;
    } else if constexpr (refused_result<
                             typename task_value<std::invoke_result_t<F, Args...>>::type>) {
      return false;  // class task says why (explain_refusal): add nothing to it
    } else {
      return check_task_call<Entry, R, F, Args...>();
    }
  }
}

/// Called by fork, call, sync_wait and spawn where the checks above refused `fn(args...)`: if the
/// reason is the task's result type (a reference, const), completing the task type makes class
/// task give its one sentence, also when fn was only declared. Outside the checks, which run in
/// constant evaluation: Clang does not evaluate a consteval function that completed a class whose
/// static_assert failed, which would add errors of its own.
template <typename F, typename... Args>
void explain_refusal() noexcept {
  if constexpr (std::is_invocable_v<F, Args...>) {
    using X = std::invoke_result_t<F, Args...>;
    if constexpr (task_type<X>) {
      static_cast<void>(sizeof(X));
    }
  }
}

}  // namespace tine::detail

#endif  // TINE_CORE_CALLABLE_CHECK_HPP
