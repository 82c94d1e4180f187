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
/// The searching itself is over indices (`search_run`: the first or any index where a test holds),
/// so the comparisons of two inputs (compare.hpp: equal, mismatch) are made of it too.
///
/// The pieces share an atomic bound: the smallest index found so far (find_if) or "found" (the
/// others). A piece that starts at or after the bound is not forked, and a leaf stops at the
/// bound, so once the answer is known no new work starts and running leaves stop at their next
/// element. find_if still returns the *first* element that satisfies the predicate. The
/// predicate is called concurrently; it may return a `tine::task` of something convertible to
/// bool, which then runs as a child task (a leaf stops at the bound between two of them). If it
/// throws, the first exception reaches the caller after every piece already started has
/// finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

#include <tine/algorithms/concepts.hpp>
#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/index_keys.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

/// A test of search_state that is a coroutine: `test(i)` returns a `task<bool>`.
template <typename Test>
concept task_test = task_body<Test&, std::size_t>;

/// A search for an index `i` where `(*test)(i)` holds.
template <typename Test>
struct search_state {
  Test* test;
  std::size_t leaf;
  bool leftmost;  ///< the first hit counts (find_if, mismatch); otherwise any hit ends the search
  /// Hits at or after this index cannot change the answer. Relaxed accesses: it is only a hint
  /// to stop early; the final value is read after the join, which orders every write before it.
  std::atomic<std::size_t> bound;

  void hit(std::size_t i) noexcept {
    const std::size_t v = leftmost ? i : 0;  // any hit: bound 0 stops every piece
    std::size_t cur = bound.load(std::memory_order_relaxed);
    while (v < cur && !bound.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }

  void search(std::size_t lo, std::size_t hi)
    requires(!task_test<Test>)
  {
    for (std::size_t i = lo; i < hi; ++i) {
      if (i >= bound.load(std::memory_order_relaxed)) {
        return;
      }
      if ((*test)(i)) {
        hit(i);
        return;
      }
    }
  }

  /// The same when the test is a task: one child task per index, in turn, keyed by the index
  /// (detail/index_keys.hpp; the test calls the predicate as its first child).
  task<void> search_tasks(std::size_t lo, std::size_t hi, pedigree_pass pass)
    requires task_test<Test>
  {
    for (std::uint64_t& i = pass.index_from(lo); i < hi; ++i) {
      if (i >= bound.load(std::memory_order_relaxed)) {
        co_return;
      }
      bool holds = false;
      co_await call(&holds, *test, i);
      if (holds) {
        hit(i);
        co_return;
      }
    }
  }
};

template <typename Test>
task<void> search_split(search_state<Test>* s, std::size_t lo, std::size_t hi) {
  if constexpr (task_test<Test>) {
    co_await pass_pedigree_through();
  }
  if (lo >= s->bound.load(std::memory_order_relaxed)) {
    co_return;  // the answer lies before this piece: do not look, do not fork
  }
  if (hi - lo <= s->leaf) {
    if constexpr (task_test<Test>) {
      co_await call(&search_state<Test>::search_tasks, s, lo, hi, pedigree_pass{element_role});
    } else {
      s->search(lo, hi);
    }
    co_return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  co_await fork(search_split<Test>, s, lo, mid);
  co_await call(search_split<Test>, s, mid, hi);
  co_await join();
}

/// The algorithm: searches `[0, n)` for the first index (`leftmost`) or any index where `test`
/// holds, and returns `answer(index)`, `answer(n)` when there is none. `test` lives in this
/// frame, the leaves refer to it.
template <typename Test, typename Answer>
task<std::invoke_result_t<Answer&, std::size_t>> search_task(param<Test> test_in, std::size_t n,
                                                             bool leftmost, std::size_t leaf,
                                                             param<Answer> answer_in) {
  Test& test = arg(test_in);
  Answer& answer = arg(answer_in);
  search_state<Test> s{&test, leaf, leftmost, {n}};
  if (n != 0) {
    co_await call(search_split<Test>, &s, std::size_t{0}, n);
    co_await join();
  }
  co_return answer(s.bound.load(std::memory_order_relaxed));
}

/// search_task with its types deduced.
template <typename Test, typename Answer>
task<std::invoke_result_t<Answer&, std::size_t>> search_run(Test test, std::size_t n, bool leftmost,
                                                            std::size_t leaf, Answer answer) {
  return search_task<Test, Answer>(std::move(test), n, leftmost, leaf, std::move(answer));
}

/// Holds at `i` when `pred(first[i])` is `Wanted` (a coroutine when `pred` returns a task).
template <typename I, typename P, bool Wanted>
struct element_test {
  I first;
  P pred;
  bool operator()(std::size_t i)
    requires(!task_body<P&, std::iter_reference_t<I>>)
  {
    return static_cast<bool>(std::invoke(pred, *at(first, i))) == Wanted;
  }
  task<bool> operator()(std::size_t i)
    requires task_body<P&, std::iter_reference_t<I>>
  {
    body_value_t<P&, std::iter_reference_t<I>> answer{};
    co_await call(&answer, pred, *at(first, i));
    co_return static_cast<bool>(answer) == Wanted;
  }
};

/// find_if's answer: the position of the hit.
template <typename I>
struct position_at {
  I first;
  I operator()(std::size_t i) const { return at(first, i); }
};

/// any_of's, all_of's and none_of's answer: whether there was a hit, or the opposite.
template <bool AnswerIfFound>
struct found {
  std::size_t n;
  bool operator()(std::size_t i) const { return (i < n) == AnswerIfFound; }
};

template <typename P, typename I>
consteval bool check_predicate() {
  static_assert(
      element_predicate<P, I>,
      "tine searches (find_if, any_of, all_of, none_of): pred must be copyable and callable "
      "as pred(*it) with an element of the input, returning something convertible to bool (or "
      "a tine::task of it)");
  if constexpr (!element_predicate<P, I>) {
    return false;
  } else {
    return check_task_value<P&, std::iter_reference_t<I>>();
  }
}

/// The definition of find_if; the entry points are made from it (entry.hpp).
struct find_if_impl {
  static constexpr const char* name = "find_if";
  static constexpr bool returns_positions = true;

  template <typename R, typename P>
  task<std::ranges::iterator_t<R>> operator()(R& r, P pred, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_predicate<P, I>()) {
      const std::size_t n = range_size(r);
      const I first = std::ranges::begin(r);
      return search_run(element_test<I, P, true>{first, std::move(pred)}, n, true,
                        leaf_size(n, g, workers_here()), position_at<I>{first});
    }
  }
};

/// any_of, all_of and none_of: a search for an element where `pred` is `Wanted`, answering
/// `AnswerIfFound` if there is one.
template <bool Wanted, bool AnswerIfFound>
struct quantifier_impl {
  static constexpr const char* name = !Wanted ? "all_of" : AnswerIfFound ? "any_of" : "none_of";

  template <typename R, typename P>
  task<bool> operator()(R& r, P pred, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_predicate<P, I>()) {
      const std::size_t n = range_size(r);
      return search_run(element_test<I, P, Wanted>{std::ranges::begin(r), std::move(pred)}, n,
                        false, leaf_size(n, g, workers_here()), found<AnswerIfFound>{n});
    }
  }
};

using any_of_impl = quantifier_impl<true, true>;
using all_of_impl = quantifier_impl<false, false>;
using none_of_impl = quantifier_impl<true, false>;

}  // namespace detail

/// Blocking find_if: the first element for which `pred` is true, or the end. For a temporary
/// range that owns its elements (not a borrowed range, such as a temporary std::vector), returns
/// `std::ranges::dangling`, as `std::ranges::find_if` does: the iterator would outlive them.
inline constexpr detail::blocking_algorithm<detail::find_if_impl> find_if{};

/// Blocking any_of: whether `pred` is true for some element (false for an empty input).
inline constexpr detail::blocking_algorithm<detail::any_of_impl> any_of{};
/// Blocking all_of: whether `pred` is true for every element (true for an empty input).
inline constexpr detail::blocking_algorithm<detail::all_of_impl> all_of{};
/// Blocking none_of: whether `pred` is false for every element (true for an empty input).
inline constexpr detail::blocking_algorithm<detail::none_of_impl> none_of{};

namespace async {

/// Task form of find_if: `co_await tine::call(&it, tine::async::find_if, range, pred)`.
inline constexpr detail::async_algorithm<detail::find_if_impl> find_if{};

/// Task form of any_of: `co_await tine::call(&ok, tine::async::any_of, range, pred)`.
inline constexpr detail::async_algorithm<detail::any_of_impl> any_of{};
/// Task form of all_of: `co_await tine::call(&ok, tine::async::all_of, range, pred)`.
inline constexpr detail::async_algorithm<detail::all_of_impl> all_of{};
/// Task form of none_of: `co_await tine::call(&ok, tine::async::none_of, range, pred)`.
inline constexpr detail::async_algorithm<detail::none_of_impl> none_of{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_SEARCH_HPP
