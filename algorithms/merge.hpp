#ifndef TINE_ALGORITHMS_MERGE_HPP
#define TINE_ALGORITHMS_MERGE_HPP

/// \file merge.hpp
/// `tine::merge`: merges two sorted ranges into `out`, in parallel, as `std::ranges::merge`.
///
/// ```
/// auto end = tine::merge(pool, a, b, out.begin());                     // blocking
/// co_await tine::call(&end, tine::async::merge, a, b, out.begin());     // in a task
/// ```
///
/// The merge splits the larger of the two runs at its middle element, finds by binary search
/// where that element goes in the other run, and merges the two pairs of pieces in parallel (fork
/// one, call the other), down to pieces of at most `grain` elements in all, merged serially. On
/// ties the element of the first range comes first, as in std::merge. Work O(n), span
/// O(log^2 n) plus a leaf. The same recursion merges the runs of tine::sort (sort.hpp).
///
/// The first range is any input the algorithms accept (input.hpp); the second must be a
/// random-access sized range (a vector, deque, array, span...), taken by reference if it is an
/// lvalue or a borrowed range, else moved into the task. `out` must be a random-access iterator
/// with room for both ranges: the pieces write it concurrently. Returns the end of the output.
/// If `comp` or a projection throws, the first exception is rethrown once every started piece has
/// finished; the output is then partly written.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <utility>

#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

/// Where the run `[b, b + nb)` splits around `*a`: its number of elements that go before `*a`
/// (those for which `ops->before(b_k, a)`; they form a prefix since the run is sorted).
template <typename Ops, typename I1, typename I2>
std::size_t count_before(const Ops* ops, I1 a, I2 b, std::size_t nb) {
  std::size_t lo = 0;
  while (nb > 0) {
    const std::size_t half = nb / 2;
    if (ops->before(at(b, lo + half), a)) {
      lo += half + 1;
      nb -= half + 1;
    } else {
      nb = half;
    }
  }
  return lo;
}

/// Where the run `[a, a + na)` splits around `*b`: its number of elements that do not go after
/// `*b` (ties stay before it: the first run wins them).
template <typename Ops, typename I1, typename I2>
std::size_t count_not_after(const Ops* ops, I1 a, std::size_t na, I2 b) {
  std::size_t lo = 0;
  while (na > 0) {
    const std::size_t half = na / 2;
    if (!ops->before(b, at(a, lo + half))) {
      lo += half + 1;
      na -= half + 1;
    } else {
      na = half;
    }
  }
  return lo;
}

/// The parallel merge of the sorted runs `[a, a + na)` and `[b, b + nb)` into `[out, ...)`; sets
/// `*done` when it has succeeded. `Ops` says how to compare and how to merge a piece:
/// - `ops->before(b_it, a_it)`: whether `*b_it` goes strictly before `*a_it`;
/// - `ops->leaf(a, na, b, nb, out)`: merges a piece serially. If it throws, its input runs hold
///   the piece's elements again (the sort's moving merge relies on it; a copy does nothing);
/// - `ops->undo(a, na, b, nb, out)`: puts back into the runs the elements of a finished piece
///   (the inverse of a moving merge; nothing for a copy);
/// - `ops->grain`: the largest piece merged serially.
/// If any piece throws, the pieces that finished are undone, so the runs again hold all their
/// elements (in some order), and the first exception is rethrown.
template <typename Ops, typename I1, typename I2, typename O>
task<void> merge_rec(const Ops* ops, param<I1> a_in, std::size_t na, param<I2> b_in, std::size_t nb,
                     param<O> out_in, bool* done) {
  I1& a = arg(a_in);
  I2& b = arg(b_in);
  O& out = arg(out_in);
  // A piece with at most one element in each run cannot be split into two smaller ones.
  if (na + nb <= ops->grain || (na <= 1 && nb <= 1)) {
    ops->leaf(a, na, b, nb, out);
    *done = true;
    co_return;
  }
  // Split the larger run at its middle element, so both halves are smaller than the whole: the
  // middle element goes right, the elements of the other run that precede it go left.
  std::size_t ma = 0;
  std::size_t mb = 0;
  if (na >= nb) {
    ma = na / 2;
    mb = count_before(ops, at(a, ma), b, nb);
  } else {
    mb = nb / 2;
    ma = count_not_after(ops, a, na, at(b, mb));
  }
  bool finished[2] = {false, false};
  std::exception_ptr error;
  try {
    co_await fork(merge_rec<Ops, I1, I2, O>, ops, a, ma, b, mb, out, &finished[0]);
    co_await call(merge_rec<Ops, I1, I2, O>, ops, at(a, ma), na - ma, at(b, mb), nb - mb,
                  at(out, ma + mb), &finished[1]);
  } catch (...) {
    error = std::current_exception();
  }
  try {
    co_await join();
  } catch (...) {
    if (!error) {
      error = std::current_exception();
    }
  }
  if (error) {
    if (finished[0]) {
      ops->undo(a, ma, b, mb, out);
    }
    if (finished[1]) {
      ops->undo(at(a, ma), na - ma, at(b, mb), nb - mb, at(out, ma + mb));
    }
    std::rethrow_exception(error);
  }
  *done = true;
}

/// tine::merge's operations for merge_rec: a serial std::ranges::merge per piece, nothing to undo.
template <typename Comp, typename P1, typename P2>
struct copy_merge_ops {
  mutable Comp comp;
  mutable P1 proj1;
  mutable P2 proj2;
  std::size_t grain;

  template <typename I1, typename I2>
  bool before(I2 b, I1 a) const {
    return std::invoke(comp, std::invoke(proj2, *b), std::invoke(proj1, *a));
  }
  template <typename I1, typename I2, typename O>
  void leaf(I1 a, std::size_t na, I2 b, std::size_t nb, O out) const {
    std::ranges::merge(a, at(a, na), b, at(b, nb), out, std::ref(comp), std::ref(proj1),
                       std::ref(proj2));
  }
  template <typename I1, typename I2, typename O>
  void undo(I1, std::size_t, I2, std::size_t, O) const noexcept {}
};

/// The algorithm, once both inputs are iterators and sizes.
template <typename I1, typename I2, typename O, typename Comp, typename P1, typename P2>
task<O> merge_run(param<I1> a_in, std::size_t na, param<I2> b_in, std::size_t nb, param<O> out_in,
                  param<Comp> comp_in, param<P1> proj1_in, param<P2> proj2_in, grain g) {
  I1& a = arg(a_in);
  I2& b = arg(b_in);
  O& out = arg(out_in);
  Comp& comp = arg(comp_in);
  P1& proj1 = arg(proj1_in);
  P2& proj2 = arg(proj2_in);
  const copy_merge_ops<Comp, P1, P2> ops{std::move(comp), std::move(proj1), std::move(proj2),
                                         comparison_leaf_size(na + nb, g, workers_here())};
  bool done = false;
  co_await call(merge_rec<copy_merge_ops<Comp, P1, P2>, I1, I2, O>, &ops, a, na, b, nb, out, &done);
  co_await join();
  co_return at(out, na + nb);
}

/// For a second range that is a temporary owning its elements: moved into this task's frame.
template <typename R2, typename I1, typename O, typename Comp, typename P1, typename P2>
task<O> merge_owning(param<R2> r2_in, param<I1> a_in, std::size_t na, param<O> out_in,
                     param<Comp> comp_in, param<P1> proj1_in, param<P2> proj2_in, grain g) {
  R2& r2 = arg(r2_in);
  I1& a = arg(a_in);
  O& out = arg(out_in);
  Comp& comp = arg(comp_in);
  P1& proj1 = arg(proj1_in);
  P2& proj2 = arg(proj2_in);
  using I2 = std::ranges::iterator_t<R2>;
  O end{};  // a random-access iterator is default-constructible
  co_await call(&end, merge_run<I1, I2, O, Comp, P1, P2>, a, na, std::ranges::begin(r2),
                range_size(r2), out, std::move(comp), std::move(proj1), std::move(proj2), g);
  co_await join();
  co_return end;
}

template <typename I1, typename R2, typename O, typename Comp, typename P1, typename P2>
consteval bool check_merge() {
  constexpr bool second_ok = std::ranges::random_access_range<R2> && std::ranges::sized_range<R2>;
  static_assert(second_ok,
                "tine::merge(sched, r1, r2, out): the second range must be a random-access range "
                "whose size is known (a vector, deque, array, span...); copy it into a "
                "std::vector first");
  if constexpr (second_ok) {
    using I2 = std::ranges::iterator_t<R2>;
    static_assert(std::random_access_iterator<O>,
                  "tine::merge(sched, r1, r2, out): the pieces of the merge write the output "
                  "concurrently, so out must be a random-access iterator into storage with room "
                  "for both ranges (v.begin() of a sized vector), not an inserter");
    constexpr bool task_order =
        ordering_returns_task<Comp, P1, I1>() || ordering_returns_task<Comp, P2, I2>();
    static_assert(!task_order,
                  "tine::merge(sched, r1, r2, out, comp, proj1, proj2): comp and the projections "
                  "must answer at once, not return a tine::task: they are called for every "
                  "element inside serial merging steps");
    if constexpr (std::random_access_iterator<O> && !task_order) {
      static_assert(std::mergeable<I1, I2, O, Comp, P1, P2>,
                    "tine::merge(sched, r1, r2, out, comp, proj1, proj2): comp must order the "
                    "projected elements of both ranges (in both argument orders) and the "
                    "elements of both ranges must be copyable into out");
      return std::mergeable<I1, I2, O, Comp, P1, P2>;
    }
  }
  return false;
}

template <typename T>
concept grain_type = std::same_as<std::remove_cvref_t<T>, grain>;

/// The definition of merge; the entry points are made from it (entry.hpp). The adapter
/// prepares the first range only; the second is taken here.
struct merge_impl {
  static constexpr const char* name = "merge";

  template <typename R1, typename R2, typename O, typename Comp = std::ranges::less,
            typename P1 = std::identity, typename P2 = std::identity>
    requires(!grain_type<Comp> && !grain_type<P1> && !grain_type<P2>)
  auto operator()(R1& r1, R2&& r2, O out, Comp comp = {}, P1 proj1 = {}, P2 proj2 = {},
                  grain g = {}) const {
    using I1 = std::ranges::iterator_t<R1>;
    using V2 = std::remove_reference_t<R2>;
    if constexpr (check_merge<I1, V2, O, Comp, P1, P2>()) {
      const std::size_t na = range_size(r1);
      if constexpr (std::is_lvalue_reference_v<R2> || std::ranges::borrowed_range<R2>) {
        using I2 = std::ranges::iterator_t<V2>;
        return merge_run<I1, I2, O, Comp, P1, P2>(
            std::ranges::begin(r1), na, std::ranges::begin(r2), range_size(r2), std::move(out),
            std::move(comp), std::move(proj1), std::move(proj2), g);
      } else {
        return merge_owning<std::remove_cvref_t<R2>, I1, O, Comp, P1, P2>(
            std::forward<R2>(r2), std::ranges::begin(r1), na, std::move(out), std::move(comp),
            std::move(proj1), std::move(proj2), g);
      }
    }
  }
  template <typename R1, typename R2, typename O>
  auto operator()(R1& r1, R2&& r2, O out, grain g) const {
    return (*this)(r1, std::forward<R2>(r2), std::move(out), std::ranges::less{}, std::identity{},
                   std::identity{}, g);
  }
  template <typename R1, typename R2, typename O, typename Comp>
    requires(!grain_type<Comp>)
  auto operator()(R1& r1, R2&& r2, O out, Comp comp, grain g) const {
    return (*this)(r1, std::forward<R2>(r2), std::move(out), std::move(comp), std::identity{},
                   std::identity{}, g);
  }
  template <typename R1, typename R2, typename O, typename Comp, typename P1>
    requires(!grain_type<Comp> && !grain_type<P1>)
  auto operator()(R1& r1, R2&& r2, O out, Comp comp, P1 proj1, grain g) const {
    return (*this)(r1, std::forward<R2>(r2), std::move(out), std::move(comp), std::move(proj1),
                   std::identity{}, g);
  }
};

}  // namespace detail

/// Blocking merge: `tine::merge(sched, r1, r2, out [, comp [, proj1 [, proj2]]] [, grain])`, the
/// first range also as an iterator pair; returns the end of the output.
inline constexpr detail::blocking_algorithm<detail::merge_impl> merge{};

namespace async {

/// Task form of merge: `co_await tine::call(&end, tine::async::merge, r1, r2, out)`.
inline constexpr detail::async_algorithm<detail::merge_impl> merge{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_MERGE_HPP
