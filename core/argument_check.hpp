#ifndef TINE_CORE_ARGUMENT_CHECK_HPP
#define TINE_CORE_ARGUMENT_CHECK_HPP

/// \file argument_check.hpp
/// Compile-time check that the arguments `tine::fork` and `tine::call` pass by reference outlive
/// the child task.
///
/// The child `fn(args...)` is created in the awaitable's `await_suspend` from references to the
/// caller's arguments, and its reference parameters stay references in its frame. Two bindings
/// leave one dangling, and both are rejected:
///
/// 1. *In `fork`, a temporary argument bound to a reference parameter.* The temporary lives until
///    the end of the parent's `co_await` statement, which ends when the parent resumes: on a
///    thief, possibly while the child still runs. Name the argument first. `call` accepts it:
///    nothing is stolen before the child returns.
/// 2. *In `fork` and `call`, an argument that must be converted to bind to a reference parameter*
///    (a `const char*` for a `const std::string&`, an `int` for a `const long&`). The converted
///    temporary is made inside `await_suspend` and destroyed as soon as the child is created,
///    before it even starts. Name a variable of the parameter's type first.
///
/// "Without conversion" means what the standard calls reference-compatible (the same type up to
/// cv-qualifiers, a base class, a similar pointer type), or a conversion function returning an
/// lvalue reference (`std::reference_wrapper`: the parameter then refers to the wrapped object,
/// and a temporary wrapper is fine). Parameters taken by value are always safe: the argument is
/// copied or converted into the child's frame.
///
/// The parameter types are read exactly from the signature of functions, function pointers and
/// references, member function pointers (an object argument of the class, or derived from it,
/// binds to the implicit object parameter; a pointer to it is passed by value), and class types
/// with a single non-template `operator()` (named lambdas, functors, std::function). Exact, except
/// that a conversion function returning an rvalue reference is taken for a conversion.
///
/// Generic callables (an `operator()` template, several overloads, a function with a C ellipsis)
/// have no signature before deduction. For them rule 1 alone is checked, by a trial call
/// (`std::is_invocable`) in which the rvalue argument is replaced by a `const rvalue_probe<T>&&`.
/// The probe binds to a reference to T (or to a base of T) and to deduced references, but
/// initializes no by-value parameter, of type T or deduced: a trial that compiles means a
/// reference parameter. Decided this way (GCC 12 and Clang 16 agree on each case):
/// - unconstrained deduced parameters: `auto` and `X` are accepted; `const auto&`, `auto&&`,
///   `const X&`, `X&&` are rejected, and `auto&` or `X&` when the argument is a const rvalue;
/// - parameters of a non-template type in a generic callable: `T` accepted, `const T&`,
///   `const Base&` rejected.
/// Accepted without being decided:
/// - deduced parameters whose constraint the probe does not meet (`std::integral auto`,
///   `std::ranges::range auto&&`, `template <std::ranges::range R> ... (R&& r)`), or whose type is
///   a pattern (`const std::vector<X>&`);
/// - reference parameters of a type the argument converts to (`const long&` for an `int`), and
///   rvalue references to a non-template type (`Big&&`; a task coroutine rejects those itself);
/// - rule 2 altogether.
/// Misread (rejected although safe): a by-value parameter of a class type with an unconstrained
/// converting constructor template, which takes the probe; and in an overload set, a call the
/// real argument resolves to a by-value overload while the probe picks a reference one
/// (`f(Big)` next to `template <class X> f(const X&)`).
///
/// A generic callable with a deduced return type, such as the wrapper `[](auto x) { return g(x); }`
/// (not a coroutine), has its body instantiated for the trial. There the probe is an lvalue, or a
/// moved parameter, that copies and converts to T; a body that needs more (member access,
/// forwarding a `const auto&` or `auto&&` parameter as an rvalue) fails to compile inside the
/// wrapper. Give such a wrapper its return type: `-> tine::task<T>`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tine::detail {

template <typename... Ts>
struct type_list {};

/// The parameters of a function type, with the qualifiers a member function may carry; `object`
/// is the implicit object parameter for class `C`.
template <typename Fn>
struct function_parameters {
  static constexpr bool known = false;
};

// QUALIFIERS and OBJECT are qualifiers, which parentheses would not parse.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TINE_DETAIL_FUNCTION_PARAMETERS(QUALIFIERS, OBJECT) \
  template <typename R, typename... Ps>                     \
  struct function_parameters<R(Ps...) QUALIFIERS> {         \
    static constexpr bool known = true;                     \
    using list = type_list<Ps...>;                          \
    template <typename C>                                   \
    using object = C OBJECT;                                \
  };                                                        \
  template <typename R, typename... Ps>                     \
  struct function_parameters<R(Ps...) QUALIFIERS noexcept>  \
      : function_parameters<R(Ps...) QUALIFIERS> {};
// NOLINTEND(bugprone-macro-parentheses)
TINE_DETAIL_FUNCTION_PARAMETERS(, &)
TINE_DETAIL_FUNCTION_PARAMETERS(const, const&)
TINE_DETAIL_FUNCTION_PARAMETERS(volatile, volatile&)
TINE_DETAIL_FUNCTION_PARAMETERS(const volatile, const volatile&)
TINE_DETAIL_FUNCTION_PARAMETERS(&, &)
TINE_DETAIL_FUNCTION_PARAMETERS(const&, const&)
TINE_DETAIL_FUNCTION_PARAMETERS(volatile&, volatile&)
TINE_DETAIL_FUNCTION_PARAMETERS(const volatile&, const volatile&)
TINE_DETAIL_FUNCTION_PARAMETERS(&&, &&)
TINE_DETAIL_FUNCTION_PARAMETERS(const&&, const&&)
TINE_DETAIL_FUNCTION_PARAMETERS(volatile&&, volatile&&)
TINE_DETAIL_FUNCTION_PARAMETERS(const volatile&&, const volatile&&)
#undef TINE_DETAIL_FUNCTION_PARAMETERS

template <typename M>
concept known_function = std::is_function_v<M> && function_parameters<M>::known;

template <typename D>
concept single_call_operator = std::is_class_v<D> && requires { &D::operator(); };

/// The parameter list of callable type `D` (no cv, no reference) when its signature is known
/// exactly; `Object` is the first argument, used for member function pointers only.
template <typename D, typename Object>
struct callee_parameters : function_parameters<void> {};

template <typename D, typename Object>
  requires std::is_function_v<D>
struct callee_parameters<D, Object> : function_parameters<D> {};

template <typename D, typename Object>
  requires std::is_function_v<D>
struct callee_parameters<D*, Object> : function_parameters<D> {};

template <typename M, typename C, typename Object>
  requires known_function<M>
struct callee_parameters<M C::*, Object> {
  static constexpr bool known = true;
  // std::invoke binds an object of the class (or derived) to the implicit object parameter, and
  // dereferences anything else (a pointer, a smart pointer, a reference_wrapper).
  using object = std::conditional_t<std::is_base_of_v<C, std::remove_cvref_t<Object>>,
                                    typename function_parameters<M>::template object<C>,
                                    std::remove_cvref_t<Object>>;
  template <typename... Ps>
  static type_list<object, Ps...> prepend(type_list<Ps...>);
  using list = decltype(prepend(typename function_parameters<M>::list{}));
};

template <typename D, typename Object>
  requires single_call_operator<D>
struct callee_parameters<D, Object> {
  template <typename M, typename C>
  static function_parameters<M> parameters_of(M C::*);
  using member = decltype(parameters_of(&D::operator()));
  static constexpr bool known = member::known;
  using list = typename member::list;
};

template <std::size_t I, typename... Ts>
using nth_type = std::tuple_element_t<I, std::tuple<Ts...>>;

template <std::size_t I, typename... Ps>
nth_type<I, Ps...> nth_of(type_list<Ps...>);

/// Referent and source are reference-compatible: a reference to `Referent` binds to an object of
/// type `Source` directly.
template <typename Referent, typename Source>
inline constexpr bool reference_compatible = std::is_convertible_v<Source*, Referent*>;

/// A reference parameter binds to the argument expression (of type `Argument&&`) without creating
/// a temporary. Besides reference-compatible types, a class argument may have a conversion
/// function returning an lvalue reference: a `const volatile` lvalue reference binds to nothing
/// else, since it cannot bind to a temporary.
template <typename Parameter, typename Argument>
consteval bool binds_without_temporary() {
  using Referent = std::remove_reference_t<Parameter>;
  using Source = std::remove_reference_t<Argument>;
  if constexpr (reference_compatible<Referent, Source>) {
    return true;
  } else if constexpr (std::is_lvalue_reference_v<Parameter> && std::is_class_v<Source> &&
                       !std::is_function_v<Referent>) {
    return std::is_convertible_v<Argument, const volatile Referent&>;
  } else {
    return false;
  }
}

/// How argument `Argument` binds to parameter `Parameter`, when the signature is known.
template <typename Parameter, typename Argument>
struct exact_binding {
  static constexpr bool temporary_to_reference =
      std::is_reference_v<Parameter> && !std::is_lvalue_reference_v<Argument> &&
      reference_compatible<std::remove_reference_t<Parameter>, std::remove_reference_t<Argument>>;
  static constexpr bool converted_to_reference =
      std::is_reference_v<Parameter> && !binds_without_temporary<Parameter, Argument>();
};

template <typename B, typename D>
concept proper_base_of = std::is_base_of_v<B, D> && !std::is_same_v<B, D>;

/// Stands for an rvalue argument of type `T` in a trial call of a generic callable; the trial
/// passes it as `const rvalue_probe<T>&&`. Nothing of it ever runs; the members a deduced return
/// type's body may use are defined (to abort) because Clang rejects an undefined member used
/// there when T has no linkage.
template <typename T>
struct rvalue_probe {
  using value_type = std::remove_cv_t<T>;

  // A deduced by-value parameter (`auto x`) cannot be initialized from it...
  rvalue_probe(const rvalue_probe&&) = delete;
  // ...nor a by-value parameter of type T or of a base of T: for an rvalue probe these deleted
  // conversions win (or tie) against the one below...
  operator value_type() const&& = delete;
  template <typename U>
    requires proper_base_of<U, value_type>
  operator U() const&& = delete;
  // ...while a reference to T, or to a base of T, binds to the lvalue this one returns.
  template <typename U>
    requires std::is_convertible_v<T*, U*>
  [[noreturn]] operator U&() const {
    std::abort();
  }

  // A generic callable with a deduced return type is instantiated for the trial; in its body the
  // probe is an lvalue (or a moved parameter), which copies and converts to T like the argument.
  [[noreturn]] rvalue_probe(const rvalue_probe&) { std::abort(); }
  // Not noexcept: the probe stands in for T, whose move may throw (and is never run).
  // NOLINTNEXTLINE(performance-noexcept-move-constructor)
  [[noreturn]] rvalue_probe(rvalue_probe&&) { std::abort(); }
  [[noreturn]] operator value_type() const& { std::abort(); }
  [[noreturn]] operator value_type() && { std::abort(); }
};

/// A probe can stand for `T`: an object type that a conversion function can return.
template <typename T>
concept probe_for = std::is_object_v<T> && !std::is_array_v<T> && !std::is_abstract_v<T>;

/// The trial call: `f(args...)` with argument `Index` replaced by a `const rvalue_probe&&`.
template <typename F, std::size_t Index, typename... Args, std::size_t... J>
consteval bool reference_takes_probe(std::index_sequence<J...>) {
  return std::is_invocable_v<F,
                             std::conditional_t<J == Index, const rvalue_probe<Args>&&, Args>...>;
}

/// How argument `Argument` binds in a generic callable: `ReferenceTakesProbe` is the trial call's
/// answer. Only rule 1 is decided.
template <typename Argument, bool ReferenceTakesProbe>
struct probed_binding {
  static constexpr bool temporary_to_reference = ReferenceTakesProbe;
  static constexpr bool converted_to_reference = false;
};

/// The binding of argument `Index` of `std::invoke(f, args...)`, counted from 0 after `f`.
template <bool Fork, typename F, std::size_t Index, typename... Args>
auto binding_of() {
  using Argument = nth_type<Index, Args...>;
  using Callee = callee_parameters<std::remove_cvref_t<F>, nth_type<0, Args..., void>>;
  if constexpr (Callee::known) {
    using Parameter = decltype(nth_of<Index>(typename Callee::list{}));
    return exact_binding<Parameter, Argument>{};
  } else if constexpr (Fork && !std::is_reference_v<Argument> && probe_for<Argument>) {
    constexpr bool reference =
        reference_takes_probe<F, Index, Args...>(std::index_sequence_for<Args...>{});
    return probed_binding<Argument, reference>{};
  } else {
    return probed_binding<Argument, false>{};
  }
}

/// The instantiation context of a failure names the argument's index and its binding.
template <bool Fork, std::size_t Index, typename Binding>
consteval void check_argument() {
  static_assert(
      !Binding::converted_to_reference,
      "tine::fork/call/sync_wait: an argument must be converted to bind to a reference parameter "
      "of the task, and the converted temporary is destroyed before the child even "
      "starts. Name a variable of the parameter's type first (const std::string s = "
      "text; co_await tine::call(&r, fn, s);) or take the parameter by value.");
  static_assert(!(Fork && Binding::temporary_to_reference),
                "tine::fork: a temporary argument is bound to a reference parameter of the "
                "forked task, and it is destroyed when this co_await statement ends, which may "
                "be while the child still runs (a thief can resume the parent). Name it first "
                "(Big b{42}; co_await tine::fork(&r, fn, b);) or take the parameter by value.");
}

template <bool Fork, typename F, typename... Args, std::size_t... I>
consteval void check_each_argument(type_list<Args...>, std::index_sequence<I...>) {
  (check_argument<Fork, I, decltype(binding_of<Fork, F, I, Args...>())>(), ...);
}

/// Checks every argument of `fork(fn, args...)` (`Fork`) or `call(fn, args...)` for the two rules
/// of this file.
template <bool Fork, typename F, typename... Args>
consteval void check_arguments() {
  check_each_argument<Fork, F>(type_list<Args...>{}, std::index_sequence_for<Args...>{});
}

}  // namespace tine::detail

#endif  // TINE_CORE_ARGUMENT_CHECK_HPP
