#ifndef TINE_ALGORITHMS_DETAIL_ENTRY_HPP
#define TINE_ALGORITHMS_DETAIL_ENTRY_HPP

/// \file entry.hpp
/// The two generic adapters that make every algorithm's public entry points out of its one
/// definition, so that no algorithm writes an entry point of its own:
///
/// - `async_algorithm<Impl>`, the task form (`tine::async::reduce`): takes a range or an iterator
///   pair, prepares the input (input.hpp), keeps a temporary range alive in its frame, calls
///   `Impl` and maps the positions it returns back to the caller's iterators;
/// - `blocking_algorithm<Impl>`, the blocking form (`tine::reduce`): `sync_wait` of the task form,
///   refused on a worker thread with an error that names the algorithm and its task form.
///
/// `Impl` is the algorithm: a stateless function object whose `operator()(V& range, args...)`
/// returns a `task<X>` for a standard random-access sized range `V` that outlives the task. If
/// its result holds positions in the range (an iterator, or the `in1` of a
/// `std::ranges::in_in_result`, or both ends of a `std::ranges::min_max_result`), it says so with
/// `static constexpr bool returns_positions = true`. Core hands results over by assignment to a
/// variable of the caller's, so `X` is default-constructible and move-assignable; an algorithm
/// whose result is a user's type (reduce's accumulator) returns `result_for<T>`, which boxes a
/// `T` that is not, and the adapters take it out of the box.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <concepts>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/input.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_context.hpp>

namespace tine::detail {

template <typename Impl>
concept returns_positions = requires { requires Impl::returns_positions; };

/// Maps an algorithm's result on a prepared input back to the caller's input. `Dangling`: the
/// input was a temporary that owned its elements, so positions become std::ranges::dangling.
template <bool Dangling, typename Prepared, typename X>
auto rebase_position(const Prepared& in, X x) {
  if constexpr (Dangling) {
    return std::ranges::dangling{};
  } else {
    return in.position(std::move(x));
  }
}

template <typename Impl, bool Dangling, typename Prepared, typename X>
auto rebase(const Prepared& in, X x) {
  if constexpr (!returns_positions<Impl>) {
    return x;
  } else if constexpr (requires {
                         x.in1;
                         x.in2;
                       }) {
    using in1 = decltype(rebase_position<Dangling>(in, std::move(x.in1)));
    return std::ranges::in_in_result<in1, decltype(x.in2)>{
        rebase_position<Dangling>(in, std::move(x.in1)), std::move(x.in2)};
  } else if constexpr (requires {
                         x.min;
                         x.max;
                       }) {
    using pos = decltype(rebase_position<Dangling>(in, std::move(x.min)));
    return std::ranges::min_max_result<pos>{rebase_position<Dangling>(in, std::move(x.min)),
                                            rebase_position<Dangling>(in, std::move(x.max))};
  } else {
    return rebase_position<Dangling>(in, std::move(x));
  }
}

/// Whether positions in `R` outlive `R` itself: an lvalue does (the caller keeps it), a borrowed
/// range does (its iterators do not point into it), a temporary container does not.
template <typename R>
inline constexpr bool positions_dangle =
    !std::is_lvalue_reference_v<R> && !std::ranges::borrowed_range<R>;

template <typename Impl, typename V, typename... A>
using impl_value_t = typename task_value<std::invoke_result_t<const Impl&, V&, A...>>::type;

/// The range an algorithm runs on for an input of type `R` (input.hpp).
template <typename R>
using prepared_view_t =
    std::remove_reference_t<decltype(std::declval<prepared_input<R>&>().view())>;

/// Whether core can hand a task's result over: it assigns the result to a variable of the
/// caller's, which must exist first (`sync_wait` and `call(&x, ...)` alike).
template <typename X>
concept storable_result =
    std::is_void_v<X> || (std::default_initializable<X> && std::is_move_assignable_v<X>);

/// A result that is not storable (a reduce over an accumulator without a default constructor)
/// travels in a box, which is; the adapters take it out.
template <typename T>
class boxed {
 public:
  boxed() = default;
  explicit boxed(T&& value) : m_value(std::move(value)) {}
  boxed(boxed&&) noexcept(std::is_nothrow_move_constructible_v<T>) = default;
  // By construction: T itself need not be assignable.
  boxed& operator=(boxed&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    m_value.reset();
    if (other.m_value) {
      m_value.emplace(std::move(*other.m_value));
    }
    return *this;
  }
  T take() && {
    // Never empty here: the adapters take a box only after core has assigned the algorithm's
    // result to it. Said to the compiler too: without the test, GCC at -O2 and above may warn
    // that the optional's value "may be used uninitialized" where it cannot see that assignment.
    if (TINE_UNLIKELY(!m_value)) {
      fatal("internal: an algorithm's result was taken from an empty box");
    }
    return std::move(*m_value);
  }

 private:
  std::optional<T> m_value;
};

/// What an algorithm whose result is a `T` returns: `T`, or `boxed<T>` if `T` is not storable.
template <typename T>
using result_for = std::conditional_t<storable_result<T>, T, boxed<T>>;

template <typename X>
inline constexpr bool is_boxed = false;
template <typename T>
inline constexpr bool is_boxed<boxed<T>> = true;

/// What the prepared path hands over: the result rebased (rebase), and for the public task form
/// (`Unbox`) taken out of its box; the blocking form keeps boxes, which `sync_wait` can store.
template <typename Impl, bool Dangling, bool Unbox, typename Prepared, typename X>
auto deliver(const Prepared& in, X x) {
  if constexpr (!is_boxed<X>) {
    return rebase<Impl, Dangling>(in, std::move(x));
  } else if constexpr (Unbox) {
    return std::move(x).take();
  } else {
    return x;
  }
}

/// What the task form returns for an input stored as `Stored`.
template <typename Impl, bool Unbox, typename Stored, typename... A>
consteval auto prepared_result() {
  using R = std::remove_reference_t<Stored>;
  using X = impl_value_t<Impl, prepared_view_t<R>, A...>;
  if constexpr (std::is_void_v<X>) {
    return std::type_identity<void>{};
  } else {
    return std::type_identity<decltype(deliver<Impl, positions_dangle<Stored>, Unbox>(
        std::declval<const prepared_input<R>&>(), std::declval<X>()))>{};
  }
}

/// The task form for every input but a referable standard random-access sized range (and for
/// boxed results): `Stored` is `R&` for an lvalue, `R` for a temporary (moved into this frame).
template <typename Impl, bool Unbox, typename Stored, typename... A>
task<typename decltype(prepared_result<Impl, Unbox, Stored, A...>())::type> run_prepared(
    param<Stored> r_in, param<A>... args_in) {
  using R = std::remove_reference_t<Stored>;
  prepared_input<R> in(arg(r_in));
  prepared_view_t<R>& view = in.view();
  using X = impl_value_t<Impl, prepared_view_t<R>, A...>;
  static_assert(storable_result<X>,
                "tine algorithm implementation: return result_for<T>, not a T that core cannot "
                "store (entry.hpp)");
  if constexpr (std::is_void_v<X>) {
    co_await call(Impl{}, view, std::move(arg(args_in))...);
    co_await join();
  } else {
    X out{};
    co_await call(&out, Impl{}, view, std::move(arg(args_in))...);
    co_await join();
    co_return deliver<Impl, positions_dangle<Stored>, Unbox>(in, std::move(out));
  }
}

/// Whether `A0, A1` are an iterator and its sentinel: the call is over `[a0, a1)`.
template <typename... A>
struct starts_with_iterator_pair : std::false_type {};
template <typename A0, typename A1, typename... A>
struct starts_with_iterator_pair<A0, A1, A...>
    : std::bool_constant<std::input_or_output_iterator<std::remove_cvref_t<A0>> &&
                         std::sentinel_for<std::remove_cvref_t<A1>, std::remove_cvref_t<A0>>> {};

/// Whether the algorithm accepts the arguments: its definition returns a task for them, or it
/// refused them with a static_assert and returns nothing (the adapters then add no error).
template <typename Impl, typename R, typename... A>
concept impl_accepts =
    task_type<std::invoke_result_t<const Impl&, prepared_view_t<std::remove_reference_t<R>>&,
                                   std::decay_t<A>...>>;

/// Whether the task form calls the algorithm on the caller's range itself, at no cost: a
/// referable standard random-access sized range, and a result to hand over as it is.
template <typename Impl, bool Unbox, typename R, typename... A>
consteval bool runs_directly() {
  if constexpr (!direct_input<R> || positions_dangle<R&&>) {
    return false;
  } else {
    using X = impl_value_t<Impl, std::remove_reference_t<R>, std::decay_t<A>...>;
    return !(Unbox && is_boxed<X>);
  }
}

/// The task form stores every argument by value: an lvalue is copied, a temporary moved. Said as a
/// constraint, so that core's check of `fork` (a trial call with an argument that cannot be
/// copied, see core/argument_check.hpp) sees by-value parameters and instantiates nothing.
template <typename... A>
concept taken_by_value =
    ((std::is_lvalue_reference_v<A> || std::constructible_from<std::remove_cvref_t<A>, A>)&&...);

/// An input that brings its own implementation of the algorithms (`tine::mpi::global_span`, whose
/// elements are spread over processes): it declares `using tine_algorithm_input = void;`, and the
/// task form calls `tine_algorithm(Impl{}, input, args...)`, found by argument-dependent lookup in
/// the input's namespace, instead of running on iterators.
template <typename R>
concept own_algorithm_input = requires { typename std::remove_cvref_t<R>::tine_algorithm_input; };

template <typename Impl, typename R, typename... A>
concept has_own_algorithm = requires(R&& r, A&&... a) {
  tine_algorithm(Impl{}, std::forward<R>(r), std::forward<A>(a)...);
};

/// A pool that runs over several processes and takes work only through its own collective
/// `sync_wait` (`tine::mpi_pool`) says so with `using tine_collective_pool = void;`. Its blocking
/// algorithms accept only inputs that bring their own implementation: a standard range is one
/// process's memory.
template <typename S>
concept collective_pool = requires { typename S::tine_collective_pool; };

/// An input may also bring its own blocking form, for an algorithm that must do collective work
/// around its task (a sort over global spans makes its scratch vector on every rank):
/// `tine_blocking_algorithm(Impl{}, pool, input, args...)`, found by argument-dependent lookup.
template <typename Impl, typename Sch, typename... A>
concept has_own_blocking_algorithm = requires(Sch& sched, A&&... a) {
  tine_blocking_algorithm(Impl{}, sched, std::forward<A>(a)...);
};

template <typename... A>
struct first_is_own_input : std::false_type {};
template <typename A0, typename... A>
struct first_is_own_input<A0, A...> : std::bool_constant<own_algorithm_input<A0>> {};

/// The task form of an algorithm (see the file comment). `Unbox`: a boxed result is taken out
/// (the public form); the blocking form keeps boxes (see deliver).
template <typename Impl, bool Unbox = true>
struct async_algorithm {
  /// Over `[first, last)`.
  template <std::input_or_output_iterator I, std::sentinel_for<I> S, typename... A>
    requires taken_by_value<A...>
  auto operator()(I first, S last, A&&... args) const {
    return (*this)(std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::forward<A>(args)...);
  }

  /// Over a range.
  template <typename R, typename... A>
    requires(!starts_with_iterator_pair<R, A...>::value && taken_by_value<R, A...>)
  auto operator()(R&& r, A&&... args) const {
    if constexpr (own_algorithm_input<R>) {
      if constexpr (has_own_algorithm<Impl, R, A...>) {
        return tine_algorithm(Impl{}, std::forward<R>(r), std::forward<A>(args)...);
      } else {
        static_assert(dependent_false<R>,
                      "tine algorithm: this input brings its own implementation of the "
                      "algorithms (a tine::mpi::global_span), and this algorithm, or this form of "
                      "its arguments, is not among them (docs/distributed.md lists them)");
      }
    } else if constexpr (check_input_range<R>()) {
      if constexpr (!impl_accepts<Impl, R, A...>) {
        return;  // the algorithm's check has said why in one sentence: add nothing to it
      } else if constexpr (runs_directly<Impl, Unbox, R, A...>()) {
        // The common case costs nothing: the algorithm runs on the caller's range.
        return Impl{}(r, std::forward<A>(args)...);
      } else {
        using stored = std::conditional_t<std::is_lvalue_reference_v<R>, R, std::remove_cvref_t<R>>;
        return run_prepared<Impl, Unbox, stored, std::decay_t<A>...>(std::forward<R>(r),
                                                                     std::forward<A>(args)...);
      }
    }
  }
};

/// The error of a blocking algorithm called on a worker thread: it names the algorithm the user
/// called (`tine::NAME`) and the task form to use instead. Out of line: a cold path.
[[noreturn]] TINE_NOINLINE inline void refuse_blocking_on_worker(const char* name,
                                                                 bool has_result) {
  const std::string n(name);
  throw std::logic_error("tine::" + n +
                         ": called on a worker thread (inside a task or an algorithm's body), "
                         "where waiting would block the worker; inside a task use co_await "
                         "tine::call(" +
                         (has_result ? "&result, " : "") + "tine::async::" + n +
                         ", args...) instead");
}

/// The blocking form of an algorithm: `sync_wait(sched, async form, args...)`, on a scheduler or
/// on a collective pool (then collectively, over an input that brings its own implementation).
/// Call it from a thread that is not a worker of any scheduler (inside a task, or an algorithm's
/// body, use the task form): there it throws std::logic_error naming the algorithm and its task
/// form. `Impl` names the algorithm in `Impl::name` ("reduce").
template <typename Impl>
struct blocking_algorithm {
  template <typename Sch, typename... A>
    requires(scheduler<Sch> || collective_pool<Sch>)
  auto operator()(Sch& sched, A&&... args) const {
    if constexpr (collective_pool<Sch> && !first_is_own_input<A...>::value) {
      static_assert(dependent_false<Sch>,
                    "tine algorithm on a tine::mpi_pool: the input must be a "
                    "tine::mpi::global_span or global_vector; a standard range is one rank's "
                    "memory, which the pool's other ranks cannot reach");
    } else if constexpr (collective_pool<Sch> && has_own_blocking_algorithm<Impl, Sch, A...>) {
      if (current_worker() != nullptr) {
        refuse_blocking_on_worker(Impl::name, false);
      }
      return tine_blocking_algorithm(Impl{}, sched, std::forward<A>(args)...);
    } else {
      using async_type = async_algorithm<Impl, false>;
      constexpr async_type async{};
      using started = std::invoke_result_t<const async_type&, A...>;
      if constexpr (task_type<started>) {
        if (current_worker() != nullptr) {
          refuse_blocking_on_worker(Impl::name,
                                    !std::is_void_v<typename task_value<started>::type>);
        }
      }
      if constexpr (!task_type<started>) {
        return;  // the task form has refused the arguments with a static_assert: say no more
      } else if constexpr (is_boxed<typename task_value<started>::type>) {
        return sync_wait(sched, async, std::forward<A>(args)...).take();
      } else {
        return sync_wait(sched, async, std::forward<A>(args)...);
      }
    }
  }
};

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_ENTRY_HPP
