#ifndef TINE_ALGORITHMS_SORT_HPP
#define TINE_ALGORITHMS_SORT_HPP

/// \file sort.hpp
/// `tine::sort` and `tine::stable_sort`: a parallel merge sort, as `std::ranges::sort` and
/// `std::ranges::stable_sort`.
///
/// ```
/// tine::sort(pool, v);                                                    // blocking
/// tine::stable_sort(pool, people, std::ranges::less{}, &person::age);
/// co_await tine::call(&end, tine::async::sort, v);                        // in a task
/// ```
///
/// The shape is Cilk's cilksort: a range larger than the grain is cut into four quarters sorted
/// in parallel; the quarters are merged in pairs into a scratch buffer and the two halves merged
/// back, each merge itself parallel (merge.hpp). Leaves of at most `grain` elements are sorted
/// serially. Work O(n log n), span O(log^3 n) plus a leaf. A leaf already sorted is only scanned,
/// one strictly descending is reversed, and quarters already in order are not merged: a sorted
/// input costs about n comparisons, a reversed one n comparisons per merge pass.
///
/// Memory: one heap allocation per call (unless the range fits in one serial leaf of
/// std::ranges::sort, or has at most 16 elements): a buffer of n elements, obtained from
/// std::allocator and filled by moving one element along it, so it holds n moved-from values
/// while the sort runs; std::bad_alloc from it reaches the caller, the range untouched.
///
/// Elements need only be movable (a std::unique_ptr with a comparator works). `comp` and `proj`
/// are called concurrently. If one of them throws, the first exception is rethrown once every
/// started piece has finished, and the range then holds a permutation of its input (no element
/// lost or duplicated), provided moves do not throw. A throwing move leaves valid but unspecified
/// contents.
///
/// sort's leaves run std::ranges::sort when neither the comparison, the projection nor the moves
/// can throw (noexcept), else the serial form of the same merge sort (std::ranges::sort could
/// lose an element that an insertion step holds aside when the comparison throws). stable_sort
/// always uses the merge sort, whose merges take from the left run on ties: it is stable.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <ranges>
#include <type_traits>
#include <utility>

#include <tine/algorithms/detail/body.hpp>
#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/algorithms/merge.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

/// Pieces of at most this many elements are sorted by insertion.
inline constexpr std::size_t insertion_cutoff = 16;

/// The scratch buffer of one sort: n live objects of type T. They are made by moving `*first`
/// along the buffer and back, so T needs no default constructor; trivial types are left as the
/// allocator returns them (they are written before being read).
template <typename T>
class sort_buffer {
 public:
  /// Throws std::bad_alloc, or what T's move constructor throws (`*first` is then restored).
  template <typename I>
  sort_buffer(I first, std::size_t n) : m_data(std::allocator<T>().allocate(n)), m_n(n) {
    if constexpr (!std::is_trivial_v<T>) {
      std::size_t built = 0;
      try {
        std::construct_at(m_data, std::ranges::iter_move(first));
        for (built = 1; built < n; ++built) {
          std::construct_at(m_data + built, std::move(m_data[built - 1]));
        }
        *first = std::move(m_data[n - 1]);
      } catch (...) {
        if (built > 0) {
          *first = std::move(m_data[built - 1]);
        }
        std::destroy_n(m_data, built);
        std::allocator<T>().deallocate(m_data, n);
        throw;
      }
    }
  }
  ~sort_buffer() {
    if constexpr (!std::is_trivial_v<T>) {
      std::destroy_n(m_data, m_n);
    }
    std::allocator<T>().deallocate(m_data, m_n);
  }
  sort_buffer(const sort_buffer&) = delete;
  sort_buffer& operator=(const sort_buffer&) = delete;

  T* data() const noexcept { return m_data; }

 private:
  T* m_data;
  std::size_t m_n;
};

/// Moves `[from, from + n)` onto `[to, ...)`.
template <typename Src, typename Dst>
void move_n(Src from, std::size_t n, Dst to) {
  for (std::size_t i = 0; i < n; ++i, ++from, ++to) {
    *to = std::ranges::iter_move(from);
  }
}

/// One sort call's shared state: the range (side A), the buffer (side B), the comparison. Its
/// serial parts are here; the parallel recursion is sort_rec. Every part that throws leaves its
/// elements in the side they started in (as a permutation): see merge_rec's contract.
template <typename I, typename Comp, typename Proj, bool Stable>
struct sort_state {
  using value_type = std::iter_value_t<I>;
  using proj_ref = std::indirect_result_t<Proj&, I>;
  /// Whether std::ranges::sort may sort the leaves: nothing it calls can throw.
  static constexpr bool std_leaves = !Stable &&
                                     std::is_nothrow_invocable_v<Comp&, proj_ref, proj_ref> &&
                                     std::is_nothrow_invocable_v<Proj&, std::iter_reference_t<I>> &&
                                     std::is_nothrow_invocable_v<Proj&, value_type&> &&
                                     std::is_nothrow_move_constructible_v<value_type> &&
                                     std::is_nothrow_move_assignable_v<value_type>;

  I first;
  value_type* buf;
  std::size_t grain;
  mutable Comp comp;
  mutable Proj proj;

  template <typename X, typename Y>
  bool less(X x, Y y) const {
    return std::invoke(comp, std::invoke(proj, *x), std::invoke(proj, *y));
  }

  // ---- merge_rec's operations: a moving merge that undoes itself if it throws ----

  template <typename It>
  bool before(It b, It a) const {
    return less(b, a);
  }

  /// Whether merges may pick each element without a branch: small trivially copyable values
  /// under a comparison that cannot throw (doubles, ints), where a mispredicted branch per
  /// element would cost more than the comparison.
  static constexpr bool branchless_merge =
      std_leaves && std::is_trivially_copyable_v<value_type> && sizeof(value_type) <= 16;

  template <typename Src, typename Dst>
  void leaf(Src a, std::size_t na, Src b, std::size_t nb, Dst out) const {
    std::size_t i = 0;
    std::size_t j = 0;
    if constexpr (branchless_merge) {
      while (i < na && j < nb) {
        const value_type x = *at(a, i);
        const value_type y = *at(b, j);
        const bool take_b = std::invoke(comp, std::invoke(proj, y), std::invoke(proj, x));
        *at(out, i + j) = take_b ? y : x;
        j += take_b ? 1 : 0;
        i += take_b ? 0 : 1;
      }
    }
    try {
      while (i < na && j < nb) {
        if (less(at(b, j), at(a, i))) {  // ties take from the left run: stable
          *at(out, i + j) = std::ranges::iter_move(at(b, j));
          ++j;
        } else {
          *at(out, i + j) = std::ranges::iter_move(at(a, i));
          ++i;
        }
      }
    } catch (...) {
      undo(a, i, b, j, out);  // the runs' vacated prefixes take back what was moved out
      throw;
    }
    move_n(at(a, i), na - i, at(out, i + j));
    move_n(at(b, j), nb - j, at(out, na + j));
  }

  template <typename Src, typename Dst>
  void undo(Src a, std::size_t na, Src b, std::size_t nb, Dst out) const {
    move_n(out, na, a);
    move_n(at(out, na), nb, b);
  }

  /// Whether the sorted pieces `[q[j], q[j + 1])` of A are already in order as a whole (each
  /// piece's first element not before the previous one's last): then no merge is needed, which
  /// makes sorted inputs cheap. Ties count as in order, which keeps stable_sort stable.
  bool pieces_in_order(const std::size_t (&q)[5]) const {
    for (std::size_t j = 1; j < 4; ++j) {
      if (q[j] > q[0] && q[j] < q[4] && less(at(first, q[j]), at(first, q[j] - 1))) {
        return false;
      }
    }
    return true;
  }

  // ---- serial sort of A[lo, lo + n) in place ----

  /// Stable insertion sort; the element held aside goes back into the hole if `comp` throws.
  void insertion_sort(std::size_t lo, std::size_t n) const {
    const I base = at(first, lo);
    for (std::size_t i = 1; i < n; ++i) {
      if (!less(at(base, i), at(base, i - 1))) {
        continue;
      }
      value_type held(std::ranges::iter_move(at(base, i)));
      std::size_t hole = i;
      try {
        do {
          *at(base, hole) = std::ranges::iter_move(at(base, hole - 1));
          --hole;
        } while (hole > 0 && less(&held, at(base, hole - 1)));
      } catch (...) {
        *at(base, hole) = std::move(held);
        throw;
      }
      *at(base, hole) = std::move(held);
    }
  }

  /// A leaf of the parallel sort: returns at once if A[lo, lo + n) is already sorted, reverses
  /// it if it is strictly descending (a reversed input; stable, since no two elements are
  /// equivalent), else sorts it. Each test stops at the first element that breaks its order.
  void sort_leaf(std::size_t lo, std::size_t n) const {
    std::size_t i = lo + 1;
    while (i < lo + n && !less(at(first, i), at(first, i - 1))) {
      ++i;
    }
    if (i == lo + n) {
      return;
    }
    if (i == lo + 1) {
      while (i < lo + n && less(at(first, i), at(first, i - 1))) {
        ++i;
      }
      if (i == lo + n) {
        std::ranges::reverse(at(first, lo), at(first, lo + n));
        return;
      }
    }
    sort_serial(lo, n);
  }

  void sort_serial(std::size_t lo, std::size_t n) const {
    if constexpr (std_leaves) {
      std::ranges::sort(at(first, lo), at(first, lo + n), std::ref(comp), std::ref(proj));
    } else {
      if (n <= insertion_cutoff) {
        insertion_sort(lo, n);
        return;
      }
      std::size_t q[5];
      for (std::size_t j = 0; j < 5; ++j) {
        q[j] = lo + block_start(j, n, 4);
      }
      for (std::size_t j = 0; j < 4; ++j) {
        sort_serial(q[j], q[j + 1] - q[j]);
      }
      if (pieces_in_order(q)) {
        return;
      }
      leaf(at(first, q[0]), q[1] - q[0], at(first, q[1]), q[2] - q[1], buf + q[0]);
      try {
        leaf(at(first, q[2]), q[3] - q[2], at(first, q[3]), q[4] - q[3], buf + q[2]);
      } catch (...) {
        undo(at(first, q[0]), q[1] - q[0], at(first, q[1]), q[2] - q[1], buf + q[0]);
        throw;
      }
      try {
        leaf(buf + q[0], q[2] - q[0], buf + q[2], q[4] - q[2], at(first, lo));
      } catch (...) {
        move_n(buf + lo, n, at(first, lo));
        throw;
      }
    }
  }
};

/// If a step failed: `restore()` puts its elements back where the caller expects them, then the
/// first exception is rethrown.
template <typename Restore>
void settle(const std::exception_ptr& error, const Restore& restore) {
  if (error) {
    restore();
    std::rethrow_exception(error);
  }
}

/// The parallel sort of A[lo, lo + n) in place. If it throws, A[lo, lo + n) holds its elements.
template <typename State>
task<void> sort_rec(const State* s, std::size_t lo, std::size_t n) {
  if (n <= s->grain) {
    s->sort_leaf(lo, n);
    co_return;
  }
  using I = decltype(s->first);
  using B = typename State::value_type*;
  std::size_t q[5];
  for (std::size_t j = 0; j < 5; ++j) {
    q[j] = lo + block_start(j, n, 4);
  }
  const I a = s->first;
  B const b = s->buf;
  std::exception_ptr error;

  // 1. The quarters, each sorted in place (one that throws has its elements in place too).
  try {
    for (std::size_t j = 0; j < 3; ++j) {
      co_await fork(sort_rec<State>, s, q[j], q[j + 1] - q[j]);
    }
    co_await call(sort_rec<State>, s, q[3], q[4] - q[3]);
  } catch (...) {
    error = std::current_exception();
  }
  try {
    co_await join();
  } catch (...) {
    error = error ? error : std::current_exception();
  }
  settle(error, [] {});
  if (s->pieces_in_order(q)) {
    co_return;
  }

  // 2. Quarters merged in pairs into the buffer; a pair that was merged goes back if the other
  // pair's merge throws.
  bool merged[2] = {false, false};
  try {
    co_await fork(merge_rec<State, I, I, B>, s, at(a, q[0]), q[1] - q[0], at(a, q[1]), q[2] - q[1],
                  b + q[0], &merged[0]);
    co_await call(merge_rec<State, I, I, B>, s, at(a, q[2]), q[3] - q[2], at(a, q[3]), q[4] - q[3],
                  b + q[2], &merged[1]);
  } catch (...) {
    error = std::current_exception();
  }
  try {
    co_await join();
  } catch (...) {
    error = error ? error : std::current_exception();
  }
  settle(error, [&] {
    for (std::size_t p = 0; p < 2; ++p) {
      if (merged[p]) {
        const std::size_t l = q[2 * p];
        const std::size_t m = q[2 * p + 1];
        s->undo(at(a, l), m - l, at(a, m), q[2 * p + 2] - m, b + l);
      }
    }
  });

  // 3. The halves merged back into the range; if that throws, they are in the buffer again.
  bool done = false;
  try {
    co_await call(merge_rec<State, B, B, I>, s, b + q[0], q[2] - q[0], b + q[2], q[4] - q[2],
                  at(a, lo), &done);
  } catch (...) {
    error = std::current_exception();
  }
  try {
    co_await join();
  } catch (...) {
    error = error ? error : std::current_exception();
  }
  settle(error, [&] { move_n(b + lo, n, at(a, lo)); });
}

/// The algorithm on `[first, first + n)`; returns its end.
template <bool Stable, typename I, typename Comp, typename Proj>
task<I> sort_run(param<I> first_in, std::size_t n, param<Comp> comp_in, param<Proj> proj_in,
                 std::size_t leaf) {
  I& first = arg(first_in);
  Comp& comp = arg(comp_in);
  Proj& proj = arg(proj_in);
  using state = sort_state<I, Comp, Proj, Stable>;
  using T = typename state::value_type;
  const I last = at(first, n);
  if (n < 2) {
    co_return last;
  }
  if (state::std_leaves ? n <= leaf : n <= insertion_cutoff) {
    const state serial{first, nullptr, leaf, std::move(comp), std::move(proj)};
    serial.sort_leaf(0, n);  // needs no buffer
    co_return last;
  }
  sort_buffer<T> buffer(first, n);
  const state s{first, buffer.data(), leaf, std::move(comp), std::move(proj)};
  co_await call(sort_rec<state>, &s, std::size_t{0}, n);
  co_await join();
  co_return last;
}

template <typename I, typename Comp, typename Proj>
consteval bool check_sort() {
  constexpr bool task_order = ordering_returns_task<Comp, Proj, I>();
  static_assert(!task_order,
                "tine::sort / tine::stable_sort(sched, range, comp, proj): comp and proj must "
                "answer at once, not return a tine::task: they are called many times per element "
                "inside serial sorting steps (compute the keys first, for example with tine::map, "
                "then sort by them)");
  if constexpr (task_order) {
    return false;
  } else {
    static_assert(std::sortable<I, Comp, Proj>,
                  "tine::sort / tine::stable_sort(sched, range, comp, proj): the range must be "
                  "writable (not const, not a transform view), its elements movable, and comp "
                  "must order two projected elements (a strict weak order: comp(a, b) like a < b)");
    return std::sortable<I, Comp, Proj>;
  }
}

/// The definition of sort (Stable = false) and stable_sort; the entry points are made from it
/// (entry.hpp).
template <bool Stable>
struct sort_impl {
  static constexpr const char* name = Stable ? "stable_sort" : "sort";
  static constexpr bool returns_positions = true;

  template <typename R, typename Comp = std::ranges::less, typename Proj = std::identity>
    requires(!grain_type<Comp> && !grain_type<Proj>)
  auto operator()(R& r, Comp comp = {}, Proj proj = {}, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_sort<I, Comp, Proj>()) {
      const std::size_t n = range_size(r);
      return sort_run<Stable, I, Comp, Proj>(std::ranges::begin(r), n, std::move(comp),
                                             std::move(proj),
                                             comparison_leaf_size(n, g, workers_here()));
    }
  }
  template <typename R>
  auto operator()(R& r, grain g) const {
    return (*this)(r, std::ranges::less{}, std::identity{}, g);
  }
  template <typename R, typename Comp>
    requires(!grain_type<Comp>)
  auto operator()(R& r, Comp comp, grain g) const {
    return (*this)(r, std::move(comp), std::identity{}, g);
  }
};

}  // namespace detail

/// Blocking sort: `tine::sort(sched, range [, comp [, proj]] [, grain])`, or over
/// `first, last`; returns the end of the range (std::ranges::dangling for a temporary container).
inline constexpr detail::blocking_algorithm<detail::sort_impl<false>> sort{};

/// Blocking stable_sort: as sort, and equivalent elements keep their order.
inline constexpr detail::blocking_algorithm<detail::sort_impl<true>> stable_sort{};

namespace async {

/// Task form of sort: `co_await tine::call(&end, tine::async::sort, range)`.
inline constexpr detail::async_algorithm<detail::sort_impl<false>> sort{};

/// Task form of stable_sort.
inline constexpr detail::async_algorithm<detail::sort_impl<true>> stable_sort{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_SORT_HPP
