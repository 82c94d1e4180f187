#ifndef TINE_DISTRIBUTED_GLOBAL_ALGORITHMS_HPP
#define TINE_DISTRIBUTED_GLOBAL_ALGORITHMS_HPP

/// \file global_algorithms.hpp
/// tine's algorithms over data across ranks: the same calls as on one machine, with a
/// `tine::mpi::global_span` (or a `global_vector`) where a range would be, on a `tine::mpi_pool`.
///
/// ```
/// tine::mpi::global_vector<double> v(pool, 100'000'000);                // collective
/// tine::for_each(pool, v, [](double& x) { x = 1.0; });                 // collective
/// double sum = tine::reduce(pool, v, 0.0, std::plus<>{});              // every rank gets it
/// co_await tine::call(&sum, tine::async::reduce, span, 0.0, std::plus<>{});   // in a task
/// ```
///
/// The blocking form is collective: every rank calls it with the same arguments (it is
/// `sync_wait` on the pool), and every rank returns the result. The task form runs inside a task
/// on the pool. The algorithms, with what differs from their form over a range:
///
/// - `for_each(s, f)`: `f(T&)` (`f(const T&)` for a span of const elements);
/// - `fill(s, value)`;
/// - `map(in, out, f)` (`out[i] = f(in[i])`) and `copy(in, out)`: `out` is a global span or
///   vector with at least as many elements as `in` (std::invalid_argument otherwise); they return
///   nothing;
/// - `reduce(s[, init[, op]])`, `transform_reduce(s, init, op, transform)` and
///   `transform_reduce(s1, s2, init, op, transform)` (`s2` as long as `s1` at least): the
///   accumulator type is trivially copyable and default-constructible, since partial results
///   travel between ranks as bytes;
/// - `count_if(s, pred)`, `count(s, value)`: a `std::uint64_t`;
/// - `find_if(s, pred)`: the index in `s` of the first element where `pred` holds, `s.size()` if
///   none (a position in a span is an index); `any_of`, `all_of`, `none_of`;
/// - `min_element(s[, comp[, proj]])`, `max_element(...)`: the index of the first smallest
///   (largest) element, `s.size()` for an empty span;
/// - `inclusive_scan`, `exclusive_scan`: global_scan.hpp;
/// - `sort`, `stable_sort`: global_sort.hpp.
///
/// Element functions (`f`, `op`, `transform`, `pred`, `comp`, `proj`) are copied into the tasks
/// and may run on any rank, so they hold no pointers into a rank's heap; they are plain functions
/// (not tasks: a leaf keeps its elements checked out while it calls them). Search and extremum
/// visit every element (no early exit across ranks). Each leaf checks its elements out for the
/// whole leaf (global_split.hpp): in place where its rank holds them, else copied and, for
/// for_each, fill, map and copy, written back when the leaf ends. An exception from an element
/// function reaches every rank's call (the blocking form) or the task's join (the task form);
/// elements the failed leaf had written before it threw are written back.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include <tine/algorithms/algorithms.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/memory/global_algorithm_defs.hpp>

namespace tine::mpi {

// The entry points, found by argument-dependent lookup from tine's algorithm objects
// (algorithms/detail/entry.hpp). Each checks its arguments at compile time with one sentence.

template <typename In, typename F>
  requires detail::global_input<In>
auto tine_algorithm(tine::detail::for_each_impl, const In& input, F f, grain g = {}) {
  using S = detail::span_for<In>;
  using T = typename S::element_type;
  static_assert(detail::plain_element_function<F, T&>,
                "tine::for_each on a global span: f must be callable as f(element&) and must "
                "not return a task (a leaf keeps its elements checked out while it calls f)");
  if constexpr (detail::plain_element_function<F, T&>) {
    return detail::start(detail::for_each_algo<T, F>{{detail::span_of(input)}, std::move(f)}, g);
  }
}

template <typename In, typename V>
  requires detail::global_input<In>
auto tine_algorithm(tine::detail::fill_impl, const In& input, V value, grain g = {}) {
  using S = detail::span_for<In>;
  using T = typename S::element_type;
  static_assert(
      !std::is_const_v<T> && std::is_assignable_v<T&, const V&> && detail::travels_as_bytes<V>,
      "tine::fill on a global span: the elements must be assignable from the value, "
      "and the value trivially copyable (it travels between ranks as bytes)");
  if constexpr (!std::is_const_v<T> && std::is_assignable_v<T&, const V&> &&
                detail::travels_as_bytes<V>) {
    return detail::start(detail::fill_algo<T, V>{{detail::span_of(input)}, std::move(value)}, g);
  }
}

namespace detail {
template <typename In, typename Out, typename F>
auto start_map(bool is_copy, const In& input, const Out& output, F f, grain g) {
  using T = typename span_for<In>::element_type;
  using U = typename span_for<Out>::element_type;
  return start(map_algo<const T, U, F>{{span_of(input)}, span_of(output), std::move(f), is_copy},
               g);
}

/// What copy applies to each element.
struct copy_element {
  template <typename X>
  const X& operator()(const X& x) const noexcept {
    return x;
  }
};
}  // namespace detail

template <typename In, typename Out, typename F>
  requires(detail::global_input<In> && detail::global_input<Out>)
auto tine_algorithm(tine::detail::map_impl, const In& input, const Out& output, F f, grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  using U = typename detail::span_for<Out>::element_type;
  constexpr bool ok = !std::is_const_v<U> && detail::plain_element_function<F, const T&> &&
                      std::is_assignable_v<U&, std::invoke_result_t<F&, const T&>>;
  static_assert(ok,
                "tine::map on global spans: f must be callable as f(const element&), not return "
                "a task, and give what the output's (non-const) elements can be assigned from");
  if constexpr (ok) {
    return detail::start_map(false, input, output, std::move(f), g);
  }
}

template <typename In, typename Out>
  requires(detail::global_input<In> && detail::global_input<Out>)
auto tine_algorithm(tine::detail::copy_impl, const In& input, const Out& output, grain g = {}) {
  using T = std::remove_const_t<typename detail::span_for<In>::element_type>;
  using U = typename detail::span_for<Out>::element_type;
  static_assert(std::is_same_v<T, U>,
                "tine::copy on global spans: the output's elements must be the input's type, "
                "and not const");
  if constexpr (std::is_same_v<T, U>) {
    return detail::start_map(true, input, output, detail::copy_element{}, g);
  }
}

namespace detail {
template <typename Acc, typename T, typename Second, typename Op, typename Tr, typename... E>
consteval bool check_fold() {
  constexpr bool transform_ok = plain_element_function<Tr, const E&...>;
  static_assert(transform_ok,
                "tine::transform_reduce on global spans: transform must be callable with "
                "const elements and must not return a task");
  if constexpr (!transform_ok) {
    return false;
  } else {
    using X = std::invoke_result_t<Tr&, const E&...>;
    constexpr bool op_ok = plain_element_function<Op, Acc, X> &&
                           plain_element_function<Op, Acc, Acc> &&
                           std::is_convertible_v<std::invoke_result_t<Op&, Acc, Acc>, Acc> &&
                           std::is_constructible_v<Acc, X>;
    static_assert(op_ok,
                  "tine::reduce on global spans: op must combine the accumulator (the type of "
                  "init) with an element and with another accumulator, giving an accumulator, "
                  "and must not return a task");
    static_assert(travels_as_bytes<Acc>,
                  "tine::reduce on global spans: the accumulator (the type of init) must be "
                  "trivially copyable and default-constructible, since partial results travel "
                  "between ranks as bytes");
    return op_ok && travels_as_bytes<Acc>;
  }
}

template <typename Acc, typename In, typename Op, typename Tr>
auto start_fold(const In& input, Acc init, Op op, Tr transform, grain g) {
  using T = typename span_for<In>::element_type;
  if constexpr (check_fold<Acc, T, void, Op, Tr, T>()) {
    return start(
        fold_algo<Acc, const T, void, Op, Tr>{
            {span_of(input)}, {}, std::move(init), std::move(op), std::move(transform)},
        g);
  }
}
}  // namespace detail

template <typename In,
          typename Acc = std::remove_const_t<typename detail::span_for<In>::element_type>,
          typename Op = std::plus<>>
  requires(detail::global_input<In> && !std::same_as<Acc, grain> && !std::same_as<Op, grain>)
auto tine_algorithm(tine::detail::reduce_impl, const In& input, Acc init = Acc{}, Op op = {},
                    grain g = {}) {
  return detail::start_fold<Acc>(input, std::move(init), std::move(op),
                                 tine::detail::pass_through{}, g);
}

template <typename In, typename Acc, typename Op, typename Tr>
  requires(detail::global_input<In> && !detail::global_input<Acc>)
auto tine_algorithm(tine::detail::transform_reduce_impl, const In& input, Acc init, Op op,
                    Tr transform, grain g = {}) {
  return detail::start_fold<Acc>(input, std::move(init), std::move(op), std::move(transform), g);
}

template <typename In, typename In2, typename Acc, typename Op, typename Tr>
  requires(detail::global_input<In> && detail::global_input<In2>)
auto tine_algorithm(tine::detail::transform_reduce_impl, const In& input, const In2& input2,
                    Acc init, Op op, Tr transform, grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  using T2 = typename detail::span_for<In2>::element_type;
  if constexpr (detail::check_fold<Acc, T, T2, Op, Tr, T, T2>()) {
    return detail::start(detail::fold_algo<Acc, const T, const T2, Op, Tr>{{detail::span_of(input)},
                                                                           detail::span_of(input2),
                                                                           std::move(init),
                                                                           std::move(op),
                                                                           std::move(transform)},
                         g);
  }
}

namespace detail {
template <typename P, typename T>
inline constexpr bool predicate_ok =
    plain_element_function<P, const T&> &&
    std::is_constructible_v<bool, std::invoke_result_t<P&, const T&>>;
}  // namespace detail

template <typename In, typename P>
  requires detail::global_input<In>
auto tine_algorithm(tine::detail::count_if_impl, const In& input, P pred, grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  static_assert(detail::predicate_ok<P, T>,
                "tine::count_if on a global span: pred must be callable as pred(const element&), "
                "give something convertible to bool, and not return a task");
  if constexpr (detail::predicate_ok<P, T>) {
    return detail::start(detail::count_algo<const T, P>{{detail::span_of(input)}, std::move(pred)},
                         g);
  }
}

namespace detail {
/// What count compares with.
template <typename V>
struct equal_to_value {
  V value;
  template <typename X>
  bool operator()(const X& x) const {
    return x == value;
  }
};
}  // namespace detail

template <typename In, typename V>
  requires detail::global_input<In>
auto tine_algorithm(tine::detail::count_impl, const In& input, V value, grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  constexpr bool ok =
      detail::travels_as_bytes<V> && std::equality_comparable_with<const T&, const V&>;
  static_assert(ok,
                "tine::count on a global span: the value must be trivially copyable and "
                "comparable with the elements by ==");
  if constexpr (ok) {
    return detail::start(
        detail::count_algo<const T, detail::equal_to_value<V>>{{detail::span_of(input)},
                                                               {std::move(value)}},
        g);
  }
}

template <typename In, typename P>
  requires detail::global_input<In>
auto tine_algorithm(tine::detail::find_if_impl, const In& input, P pred, grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  static_assert(detail::predicate_ok<P, T>,
                "tine::find_if on a global span: pred must be callable as pred(const element&), "
                "give something convertible to bool, and not return a task");
  if constexpr (detail::predicate_ok<P, T>) {
    return detail::start(detail::find_algo<const T, P>{{detail::span_of(input)}, std::move(pred)},
                         g);
  }
}

namespace detail {
/// any_of, all_of and none_of from find_if: whether an element where pred is `Wanted` exists,
/// answered as `AnswerIfFound`.
template <bool Wanted, typename P>
struct holds_as {
  P pred;
  template <typename X>
  bool operator()(const X& x) {
    return static_cast<bool>(std::invoke(pred, x)) == Wanted;
  }
};

/// find_algo answering whether it found.
template <bool AnswerIfFound, typename T, typename P>
struct quantifier_algo : find_algo<T, P> {
  using output = bool;
  output finish(std::uint64_t all) const noexcept {
    return (all != find_algo<T, P>::none) == AnswerIfFound;
  }
  output finish() const noexcept { return !AnswerIfFound; }
};
}  // namespace detail

template <bool Wanted, bool AnswerIfFound, typename In, typename P>
  requires detail::global_input<In>
auto tine_algorithm(tine::detail::quantifier_impl<Wanted, AnswerIfFound>, const In& input, P pred,
                    grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  static_assert(detail::predicate_ok<P, T>,
                "tine::any_of / all_of / none_of on a global span: pred must be callable as "
                "pred(const element&), give something convertible to bool, and not return a "
                "task");
  if constexpr (detail::predicate_ok<P, T>) {
    using algo = detail::quantifier_algo<AnswerIfFound, const T, detail::holds_as<Wanted, P>>;
    return detail::start(algo{{{detail::span_of(input)}, {std::move(pred)}}}, g);
  }
}

template <tine::detail::extremum Kind, typename In, typename Comp = std::ranges::less,
          typename Proj = std::identity>
  requires(detail::global_input<In> && Kind != tine::detail::extremum::minmax &&
           !std::same_as<Comp, grain> && !std::same_as<Proj, grain>)
auto tine_algorithm(tine::detail::extremum_impl<Kind>, const In& input, Comp comp = {},
                    Proj proj = {}, grain g = {}) {
  using T = typename detail::span_for<In>::element_type;
  using V = std::remove_const_t<T>;
  using Key = std::invoke_result_t<Proj&, const V&>;
  constexpr bool ok = detail::plain_element_function<Proj, const V&> &&
                      detail::plain_element_function<Comp, Key, Key>;
  static_assert(ok,
                "tine::min_element / max_element on a global span: proj must be callable "
                "with a const element, comp with two projected elements, neither a task");
  if constexpr (ok) {
    constexpr bool max = Kind == tine::detail::extremum::max;
    return detail::start(
        detail::extremum_algo<max, const T, Comp, Proj>{
            {detail::span_of(input)}, std::move(comp), std::move(proj)},
        g);
  }
}

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_GLOBAL_ALGORITHMS_HPP
