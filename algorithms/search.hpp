#ifndef TINE_ALGORITHMS_SEARCH_HPP
#define TINE_ALGORITHMS_SEARCH_HPP

/// \file search.hpp
/// Early-exit searches: `tine::find_if`, `tine::any_of`, `tine::all_of`, `tine::none_of`.
///
/// ```
/// auto it = tine::find_if(pool, v, [](int x) { return x < 0; });   // the first, as std::find_if
/// bool ok = tine::all_of(pool, v, [](int x) { return x >= 0; });
/// ```
///
/// The pieces share an atomic bound: the smallest index found so far (find_if) or "found" (the
/// others). A piece that starts at or after the bound is not forked, and a leaf stops at the
/// bound, so once the answer is known no new work starts and running leaves stop at their next
/// element. find_if still returns the *first* element that satisfies the predicate. The
/// predicate is called concurrently; if it throws, the first exception reaches the caller after
/// every piece already started has finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

#include <tine/algorithms/concepts.hpp>
#include <tine/algorithms/detail/input.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

template <typename I, typename P>
struct search_state {
  I first;
  P* pred;
  std::size_t grain;
  bool wanted;    ///< a hit is an element for which pred gives this
  bool leftmost;  ///< find_if: the first hit counts; otherwise any hit ends the search
  /// Hits at or after this index cannot change the answer. Relaxed accesses: it is only a hint
  /// to stop early; the final value is read after the join, which orders every write before it.
  std::atomic<std::size_t> bound;

  void hit(std::size_t i) noexcept {
    const std::size_t v = leftmost ? i : 0;  // any hit: bound 0 stops every piece
    std::size_t cur = bound.load(std::memory_order_relaxed);
    while (v < cur && !bound.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }

  void leaf(std::size_t lo, std::size_t hi) {
    I it = at(first, lo);
    for (std::size_t i = lo; i < hi; ++i, ++it) {
      if (i >= bound.load(std::memory_order_relaxed)) {
        return;
      }
      if (static_cast<bool>(std::invoke(*pred, *it)) == wanted) {
        hit(i);
        return;
      }
    }
  }
};

template <typename I, typename P>
task<void> search_split(search_state<I, P>* s, std::size_t lo, std::size_t hi) {
  if (lo >= s->bound.load(std::memory_order_relaxed)) {
    co_return;  // the answer lies before this piece: do not look, do not fork
  }
  if (hi - lo <= s->grain) {
    s->leaf(lo, hi);
    co_return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  co_await fork(search_split<I, P>, s, lo, mid);
  co_await call(search_split<I, P>, s, mid, hi);
  co_await join();
}

/// The index of the first hit (leftmost) or 0 (any hit), or `n` when there is none.
template <typename I, typename P>
task<std::size_t> search_run(I first, std::size_t n, P pred, bool wanted, bool leftmost,
                             std::size_t leaf) {
  if (n == 0) {
    co_return 0;
  }
  search_state<I, P> s{first, &pred, leaf, wanted, leftmost, {n}};
  co_await call(search_split<I, P>, &s, std::size_t{0}, n);
  co_await join();
  co_return s.bound.load(std::memory_order_relaxed);
}

template <typename P, typename I>
consteval bool check_predicate() {
  static_assert(
      element_predicate<P, I>,
      "tine searches (find_if, any_of, all_of, none_of): pred must be copyable and callable "
      "as pred(*it) with an element of the input, returning something convertible to bool");
  return element_predicate<P, I>;
}

/// any_of / all_of / none_of share everything but what they look for and how they answer.
template <bool Wanted, bool AnswerIfFound>
struct quantifier_fn {
  template <scheduler Sch, std::ranges::range R, typename P>
  bool operator()(Sch& sched, R&& r, P pred, grain g = {}) const {
    if constexpr (check_range<R>() && check_predicate<P, std::ranges::iterator_t<R>>()) {
      const std::size_t n = range_size(r);
      const std::size_t hit =
          sync_wait(sched, search_run<std::ranges::iterator_t<R>, P>, std::ranges::begin(r), n,
                    std::move(pred), Wanted, false, leaf_size(n, g, worker_count(sched)));
      return (hit < n) == AnswerIfFound;
    }
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S, typename P>
  bool operator()(Sch& sched, I first, S last, P pred, grain g = {}) const {
    return (*this)(sched, std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::move(pred), g);
  }
};

template <bool Wanted, bool AnswerIfFound, typename I, typename P>
task<bool> quantifier_run(I first, std::size_t n, P pred, std::size_t leaf) {
  std::size_t hit = 0;
  co_await call(&hit, search_run<I, P>, first, n, std::move(pred), Wanted, false, leaf);
  co_await join();
  co_return (hit < n) == AnswerIfFound;
}

template <bool Wanted, bool AnswerIfFound>
struct async_quantifier_fn {
  template <std::ranges::range R, typename P>
  task<bool> operator()(R&& r, P pred, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_range<R>() && check_predicate<P, I>()) {
      if constexpr (referable_range<R>) {
        const std::size_t n = range_size(r);
        return quantifier_run<Wanted, AnswerIfFound, I, P>(
            std::ranges::begin(r), n, std::move(pred), leaf_size(n, g, hardware_workers()));
      } else {
        return with_owned_range<bool, async_quantifier_fn>(std::move(r), std::move(pred), g);
      }
    }
  }

  template <std::input_or_output_iterator I, std::sentinel_for<I> S, typename P>
  task<bool> operator()(I first, S last, P pred, grain g = {}) const {
    return (*this)(std::ranges::subrange<I, S>(std::move(first), std::move(last)), std::move(pred),
                   g);
  }
};

template <typename I, typename P>
task<I> find_if_run(I first, std::size_t n, P pred, std::size_t leaf) {
  std::size_t at_index = 0;
  co_await call(&at_index, search_run<I, P>, first, n, std::move(pred), true, true, leaf);
  co_await join();
  co_return at(first, at_index);
}

}  // namespace detail

/// Blocking find_if: the first element for which `pred` is true, or the end. For a temporary
/// range that owns its elements (not a borrowed range, such as a temporary std::vector), returns
/// `std::ranges::dangling`, as `std::ranges::find_if` does: the iterator would outlive them.
struct find_if_fn {
  template <scheduler Sch, std::ranges::range R, typename P>
  std::ranges::borrowed_iterator_t<R> operator()(Sch& sched, R&& r, P pred, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_range<R>() && detail::check_predicate<P, I>()) {
      const std::size_t n = detail::range_size(r);
      const std::size_t i =
          sync_wait(sched, detail::search_run<I, P>, std::ranges::begin(r), n, std::move(pred),
                    true, true, detail::leaf_size(n, g, detail::worker_count(sched)));
      if constexpr (std::same_as<std::ranges::borrowed_iterator_t<R>, std::ranges::dangling>) {
        (void)i;
        return {};
      } else {
        return detail::at(std::ranges::begin(r), i);
      }
    }
  }

  template <scheduler Sch, std::input_or_output_iterator I, std::sentinel_for<I> S, typename P>
  I operator()(Sch& sched, I first, S last, P pred, grain g = {}) const {
    return (*this)(sched, std::ranges::subrange<I, S>(std::move(first), std::move(last)),
                   std::move(pred), g);
  }
};

/// The blocking find_if: see find_if_fn.
inline constexpr find_if_fn find_if{};

/// Blocking any_of: whether `pred` is true for some element (false for an empty input).
inline constexpr detail::quantifier_fn<true, true> any_of{};
/// Blocking all_of: whether `pred` is true for every element (true for an empty input).
inline constexpr detail::quantifier_fn<false, false> all_of{};
/// Blocking none_of: whether `pred` is false for every element (true for an empty input).
inline constexpr detail::quantifier_fn<true, false> none_of{};

namespace async {

/// Task form of find_if: `co_await tine::call(&it, tine::async::find_if, range, pred)`. The
/// range is referred to (it must outlive the task): pass an lvalue, a borrowed range or iterators.
struct find_if_fn {
  template <std::ranges::range R, typename P>
  task<std::ranges::iterator_t<R>> operator()(R&& r, P pred, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (detail::check_referable<R>() && detail::check_range<R>() &&
                  detail::check_predicate<P, I>()) {
      const std::size_t n = detail::range_size(r);
      return detail::find_if_run<I, P>(std::ranges::begin(r), n, std::move(pred),
                                       detail::leaf_size(n, g, detail::hardware_workers()));
    }
  }

  template <std::input_or_output_iterator I, std::sentinel_for<I> S, typename P>
  task<I> operator()(I first, S last, P pred, grain g = {}) const {
    return (*this)(std::ranges::subrange<I, S>(std::move(first), std::move(last)), std::move(pred),
                   g);
  }
};

/// The task form of find_if: see async::find_if_fn.
inline constexpr find_if_fn find_if{};

/// Task form of any_of: `co_await tine::call(&ok, tine::async::any_of, range, pred)`.
inline constexpr detail::async_quantifier_fn<true, true> any_of{};
/// Task form of all_of: `co_await tine::call(&ok, tine::async::all_of, range, pred)`.
inline constexpr detail::async_quantifier_fn<false, false> all_of{};
/// Task form of none_of: `co_await tine::call(&ok, tine::async::none_of, range, pred)`.
inline constexpr detail::async_quantifier_fn<true, false> none_of{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_SEARCH_HPP
