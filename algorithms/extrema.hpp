#ifndef TINE_ALGORITHMS_EXTREMA_HPP
#define TINE_ALGORITHMS_EXTREMA_HPP

/// \file extrema.hpp
/// `tine::min_element`, `tine::max_element`, `tine::minmax_element`: the position of the
/// smallest and/or largest element, found in parallel, the very element `std::ranges` names:
///
/// - min_element: the first smallest; max_element: the first largest;
/// - minmax_element: the first smallest and the *last* largest (as `std::minmax_element`);
/// - the end (both ends for minmax_element) for an empty input.
///
/// ```
/// auto it = tine::min_element(pool, v);                                   // blocking
/// auto [lo, hi] = tine::minmax_element(pool, v.begin(), v.end());
/// auto longest = tine::max_element(pool, words, std::ranges::less{}, &std::string::size);
/// co_await tine::call(&it, tine::async::max_element, v);                  // in a task
/// ```
///
/// Optional arguments after the input, as in std::ranges: `comp` (`std::ranges::less{}`), then
/// `proj` (`std::identity{}`), then the grain; a grain may also follow the input directly. Each
/// leaf runs the `std::ranges` algorithm on its piece; two neighbours' answers, indices into the
/// input, are combined left to right with the tie rule above, in the frame of the task that
/// split them (split_fold: `stack_alloc` slots, no heap). About n comparisons, plus one per
/// combination (minmax_element: 1.5 n, plus two per combination). `comp` and `proj` are called
/// concurrently; if one throws, the first exception reaches the caller after every piece already
/// started has finished. A temporary container gives `std::ranges::dangling`, as in std::ranges.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>

#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

enum class extremum { min, max, minmax };

/// Indices of the smallest and the largest element of a piece.
struct min_max_index {
  std::size_t min;
  std::size_t max;
};

/// What every leaf and combination shares: the input, and the order on its elements.
template <typename I, typename Comp, typename Proj>
struct element_order {
  I first;
  Comp* comp;
  Proj* proj;

  /// Whether element `a` comes strictly before element `b`.
  bool less(std::size_t a, std::size_t b) const {
    return static_cast<bool>(
        std::invoke(*comp, std::invoke(*proj, *at(first, a)), std::invoke(*proj, *at(first, b))));
  }
};

/// A leaf: the std::ranges algorithm on `[lo, hi)`, as indices into the input.
template <extremum Kind, typename I, typename Comp, typename Proj>
struct extremum_leaf {
  const element_order<I, Comp, Proj>* order;

  auto operator()(std::size_t lo, std::size_t hi) const {
    const I first = order->first;
    const I a = at(first, lo);
    const I b = at(first, hi);
    const auto index = [first](const I& it) { return static_cast<std::size_t>(it - first); };
    if constexpr (Kind == extremum::min) {
      return index(std::ranges::min_element(a, b, std::ref(*order->comp), std::ref(*order->proj)));
    } else if constexpr (Kind == extremum::max) {
      return index(std::ranges::max_element(a, b, std::ref(*order->comp), std::ref(*order->proj)));
    } else {
      const auto r =
          std::ranges::minmax_element(a, b, std::ref(*order->comp), std::ref(*order->proj));
      return min_max_index{index(r.min), index(r.max)};
    }
  }
};

/// Combines the answers of two neighbours, `l` left of `r`: the right one wins only if it is
/// strictly better, except for minmax_element's max, where it wins unless it is strictly worse.
template <extremum Kind, typename I, typename Comp, typename Proj>
struct extremum_combine {
  const element_order<I, Comp, Proj>* order;

  std::size_t operator()(std::size_t l, std::size_t r) const
    requires(Kind != extremum::minmax)
  {
    if constexpr (Kind == extremum::min) {
      return order->less(r, l) ? r : l;
    } else {
      return order->less(l, r) ? r : l;
    }
  }

  min_max_index operator()(min_max_index l, min_max_index r) const
    requires(Kind == extremum::minmax)
  {
    return {order->less(r.min, l.min) ? r.min : l.min, order->less(r.max, l.max) ? l.max : r.max};
  }
};

/// What an extremum search returns: a position, or both for minmax_element.
template <extremum Kind, typename I>
using extremum_result =
    std::conditional_t<Kind == extremum::minmax, std::ranges::min_max_result<I>, I>;

/// The algorithm: `comp` and `proj` live in this frame, the leaves refer to them.
template <extremum Kind, typename I, typename Comp, typename Proj>
auto extremum_run(I first, std::size_t n, Comp comp, Proj proj, std::size_t leaf)
    -> task<extremum_result<Kind, I>> {
  using index_type = std::conditional_t<Kind == extremum::minmax, min_max_index, std::size_t>;
  using leaf_type = extremum_leaf<Kind, I, Comp, Proj>;
  using combine_type = extremum_combine<Kind, I, Comp, Proj>;
  std::optional<index_type> found;
  if (n != 0) {
    const element_order<I, Comp, Proj> order{first, &comp, &proj};
    const leaf_type leaves{&order};
    combine_type combine{&order};
    co_await call(split_fold<index_type, leaf_type, combine_type>, &found, &leaves, &combine,
                  std::size_t{0}, n, leaf);
    co_await join();
  }
  if constexpr (Kind == extremum::minmax) {
    if (!found) {
      co_return std::ranges::min_max_result<I>{at(first, n), at(first, n)};
    }
    co_return std::ranges::min_max_result<I>{at(first, found->min), at(first, found->max)};
  } else {
    co_return at(first, found ? *found : n);
  }
}

template <typename I, typename Comp, typename Proj>
consteval bool check_plain_extremum() {
  static_assert(std::copy_constructible<Comp> && std::copy_constructible<Proj>,
                "tine::min_element/max_element/minmax_element(..., comp, proj): comp and proj "
                "must be copyable (they are copied into the task)");
  if constexpr (!std::indirectly_regular_unary_invocable<Proj, I>) {
    static_assert(std::indirectly_regular_unary_invocable<Proj, I>,
                  "tine::min_element/max_element/minmax_element(..., comp, proj): proj must be "
                  "callable as proj(*it) with an element of the input");
    return false;
  } else {
    constexpr bool ordered = std::indirect_strict_weak_order<Comp, std::projected<I, Proj>>;
    static_assert(ordered,
                  "tine::min_element/max_element/minmax_element(..., comp, proj): comp must be "
                  "callable as comp(proj(*a), proj(*b)) on two elements of the input, returning "
                  "something convertible to bool (a strict weak order, such as "
                  "std::ranges::less{})");
    return ordered && std::copy_constructible<Comp> && std::copy_constructible<Proj>;
  }
}

template <typename I, typename Comp, typename Proj>
consteval bool check_extremum() {
  constexpr bool task_order = ordering_returns_task<Comp, Proj, I>();
  static_assert(!task_order,
                "tine::min_element/max_element/minmax_element(..., comp, proj): comp and proj "
                "must answer at once, not return a tine::task: each leaf runs the serial "
                "std::ranges algorithm with them (compute the keys first, for example with "
                "tine::map)");
  if constexpr (task_order) {
    return false;
  } else {
    return check_plain_extremum<I, Comp, Proj>();
  }
}

/// The definition of min_element, max_element and minmax_element; the entry points are made
/// from it (entry.hpp). Its results are positions in the input, mapped back by the adapters.
template <extremum Kind>
struct extremum_impl {
  static constexpr const char* name = Kind == extremum::min   ? "min_element"
                                      : Kind == extremum::max ? "max_element"
                                                              : "minmax_element";
  static constexpr bool returns_positions = true;

  template <typename R, typename Comp = std::ranges::less, typename Proj = std::identity>
    requires(!std::same_as<Comp, grain> && !std::same_as<Proj, grain>)
  task<extremum_result<Kind, std::ranges::iterator_t<R>>> operator()(R& r, Comp comp = {},
                                                                     Proj proj = {},
                                                                     grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_extremum<I, Comp, Proj>()) {
      const std::size_t n = range_size(r);
      return extremum_run<Kind, I, Comp, Proj>(std::ranges::begin(r), n, std::move(comp),
                                               std::move(proj), leaf_size(n, g, workers_here()));
    }
  }

  /// `(range, grain)`: the default order.
  template <typename R>
  task<extremum_result<Kind, std::ranges::iterator_t<R>>> operator()(R& r, grain g) const {
    return (*this)(r, std::ranges::less{}, std::identity{}, g);
  }

  /// `(range, comp, grain)`: no projection.
  template <typename R, typename Comp>
    requires(!std::same_as<Comp, grain>)
  task<extremum_result<Kind, std::ranges::iterator_t<R>>> operator()(R& r, Comp comp,
                                                                     grain g) const {
    return (*this)(r, std::move(comp), std::identity{}, g);
  }
};

}  // namespace detail

/// Blocking min_element: `tine::min_element(sched, range [, comp [, proj]] [, grain])`, also over
/// `first, last`: the first smallest element, or the end for an empty input.
inline constexpr detail::blocking_algorithm<detail::extremum_impl<detail::extremum::min>>
    min_element{};

/// Blocking max_element: as min_element, for the first largest element.
inline constexpr detail::blocking_algorithm<detail::extremum_impl<detail::extremum::max>>
    max_element{};

/// Blocking minmax_element: `std::ranges::min_max_result` of the first smallest and the last
/// largest element, `{end, end}` for an empty input.
inline constexpr detail::blocking_algorithm<detail::extremum_impl<detail::extremum::minmax>>
    minmax_element{};

namespace async {

/// Task form of min_element: `co_await tine::call(&it, tine::async::min_element, range)`.
inline constexpr detail::async_algorithm<detail::extremum_impl<detail::extremum::min>>
    min_element{};

/// Task form of max_element: `co_await tine::call(&it, tine::async::max_element, range)`.
inline constexpr detail::async_algorithm<detail::extremum_impl<detail::extremum::max>>
    max_element{};

/// Task form of minmax_element: `co_await tine::call(&mm, tine::async::minmax_element, range)`.
inline constexpr detail::async_algorithm<detail::extremum_impl<detail::extremum::minmax>>
    minmax_element{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_EXTREMA_HPP
