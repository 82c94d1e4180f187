#ifndef TINE_DISTRIBUTED_MEMORY_GLOBAL_SORT_DEFS_HPP
#define TINE_DISTRIBUTED_MEMORY_GLOBAL_SORT_DEFS_HPP

/// \file global_sort_defs.hpp
/// How the sorts of global_sort.hpp run (internal): a parallel merge sort whose merges are
/// themselves parallel and work on global memory (cilksort's scheme, as the distributed paper's
/// runtime sorts). A piece sorts its two halves in parallel into one of two buffers, the input
/// and a scratch vector, and merges them into the other: the levels alternate between the
/// buffers, as the sort on one machine does, so that each level moves every element once; a
/// piece whose result must be in the scratch sorts a leaf there:
///
/// - halves are cut at the rank block boundary nearest the middle, as the other algorithms cut
///   (global_split.hpp), so the first levels give each rank its own block to sort;
/// - an input already in order is left as it is, one in strictly reverse order is reversed (a
///   read of every element first tells);
/// - a piece of at most `leaf` elements checks itself out and sorts with std::sort
///   (std::stable_sort), in place or, when its result goes to the scratch, copied there first;
/// - a merge of two sorted runs A and B splits the longer one at its middle element x and the
///   other where x would go (binary search, one element read per probe), then merges the two
///   pairs in parallel; pairs of at most `leaf` elements in all check out both runs and their
///   output and merge with std::merge. Ties keep A before B, so stable_sort is stable.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tine/algorithms/grain.hpp>
#include <tine/algorithms/sort.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/memory/global_algorithm_defs.hpp>
#include <tine/distributed/memory/global_split.hpp>

namespace tine::mpi {
namespace detail {

/// What a sort call's root does (sort_all).
enum class sort_step : std::uint8_t { all, check_or_reverse, merge_sort };

/// One sort call: the input, its scratch (the same indices), the order, and how pieces are cut.
template <typename T, typename Comp, typename Proj>
struct sort_job {
  using element = T;
  global_span<T> data;
  global_span<T> scratch;
  Comp comp;
  Proj proj;
  std::uint64_t leaf;   ///< the most elements a leaf sorts or merges (at least 2)
  std::uint64_t block;  ///< elements per rank in the input's vector
  bool stable;
  sort_step step;

  bool less(const T& a, const T& b) {
    return std::invoke(comp, std::invoke(proj, a), std::invoke(proj, b));
  }
  /// The input, or the scratch (the same indices).
  global_span<T> buffer(bool in_scratch) const { return in_scratch ? scratch : data; }
  /// Element `i` of a buffer, read through a checkout of one element.
  static T read(global_span<T> from, std::uint64_t i) {
    return checkout_here(from.subspan(i, 1), access::read)[0];
  }
  /// Element `i` of the input.
  T read(std::uint64_t i) const { return read(data, i); }
  /// The first index in [lo, lo + n) of a sorted run of `from` whose element is not less than
  /// `x` (`upper`: greater than `x`).
  std::uint64_t bound(global_span<T> from, std::uint64_t lo, std::uint64_t n, const T& x,
                      bool upper) {
    while (n > 0) {
      const std::uint64_t half = n / 2;
      const T probe = read(from, lo + half);
      if (upper ? !less(x, probe) : less(probe, x)) {
        lo += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    return lo;
  }
};

/// Merges the sorted runs [a, a + an) and [b, b + bn) of one buffer (the scratch when
/// `from_scratch`, else the input) into the other from `out` on.
template <typename Job>
task<void> merge_into(tine::detail::param<Job> job_in, bool from_scratch, std::uint64_t a,
                      std::uint64_t an, std::uint64_t b, std::uint64_t bn, std::uint64_t out) {
  Job& job = tine::detail::arg(job_in);
  const auto from = job.buffer(from_scratch);
  if (an + bn <= job.leaf) {
    if (an + bn == 0) {
      co_return;
    }
    auto to = checkout_here(job.buffer(!from_scratch).subspan(out, an + bn), access::write);
    auto first = checkout_here(from.subspan(a, an), access::read);
    auto second = checkout_here(from.subspan(b, bn), access::read);
    std::merge(first.begin(), first.end(), second.begin(), second.end(), to.begin(),
               [&job](const auto& x, const auto& y) { return job.less(x, y); });
    co_return;
  }
  // an + bn > leaf >= 2, so the longer run has at least 2 elements and both halves below get
  // at least one: the recursion ends.
  std::uint64_t am = 0;
  std::uint64_t bm = 0;
  if (an >= bn) {
    am = an / 2;
    bm = job.bound(from, b, bn, Job::read(from, a + am), /*upper=*/false) - b;  // B's equals right
  } else {
    bm = bn / 2;
    am = job.bound(from, a, an, Job::read(from, b + bm), /*upper=*/true) - a;  // A's equals left
  }
  co_await fork(merge_into<Job>, job, from_scratch, a, am, b, bm, out);
  co_await call(merge_into<Job>, job, from_scratch, a + am, an - am, b + bm, bn - bm,
                out + am + bm);
  co_await join();
}

/// Sorts input [lo, lo + n) into the same indices of the scratch when `into_scratch`, else in
/// place.
template <typename Job>
task<void> sort_piece(tine::detail::param<Job> job_in, std::uint64_t lo, std::uint64_t n,
                      bool into_scratch) {
  Job& job = tine::detail::arg(job_in);
  if (n <= job.leaf) {
    auto less = [&job](const auto& x, const auto& y) { return job.less(x, y); };
    const auto sort = [&](auto& mine) {
      if (job.stable) {
        std::stable_sort(mine.begin(), mine.end(), less);
      } else {
        std::sort(mine.begin(), mine.end(), less);
      }
    };
    if (into_scratch) {
      auto from = checkout_here(job.data.subspan(lo, n), access::read);
      auto mine = checkout_here(job.scratch.subspan(lo, n), access::write);
      std::copy(from.begin(), from.end(), mine.begin());
      sort(mine);
    } else {
      auto mine = checkout_here(job.data.subspan(lo, n), access::read_write);
      sort(mine);
    }
    co_return;
  }
  // The halves go to the other buffer, and their merge comes back to this piece's.
  const std::uint64_t left = cut_at(job.data.offset() + lo, n, job.block);
  co_await fork(sort_piece<Job>, job, lo, left, !into_scratch);
  co_await call(sort_piece<Job>, job, lo + left, n - left, !into_scratch);
  co_await join();
  co_await call(merge_into<Job>, job, !into_scratch, lo, left, lo + left, n - left, lo);
}

/// Whether no element of [first, first + n) is `less` than the one before it. In chunks whose
/// comparisons do not branch, which the compiler can vectorize (std::is_sorted stops at each
/// one), stopping after the chunk that finds a descent.
template <typename It, typename Less>
bool no_descent(It first, std::size_t n, Less less) {
  constexpr std::size_t chunk = 512;
  for (std::size_t lo = 1; lo < n; lo += chunk) {
    const std::size_t hi = std::min(n, lo + chunk);
    bool descent = false;
    for (std::size_t i = lo; i < hi; ++i) {
      descent |= static_cast<bool>(less(first[i], first[i - 1]));
    }
    if (descent) {
      return false;
    }
  }
  return true;
}

/// Whether the input is already in order, or in strictly reverse order: read once, in leaves
/// as the other algorithms (global_split.hpp), each also comparing its last element with the
/// next leaf's first.
template <typename Job>
struct order_algo : over_span<typename Job::element> {
  struct result {
    bool ascending = true;
    bool descending = true;  ///< strictly: reversing it keeps stable_sort stable
  };
  using output = result;
  Job job;
  result leaf(std::uint64_t lo, std::uint64_t n) {
    auto mine = checkout_here(this->in.subspan(lo, n), access::read);
    const auto less = [this](const auto& x, const auto& y) { return job.less(x, y); };
    // One comparison per element: with two elements or more, at most one of the orders holds.
    result r;
    r.ascending = no_descent(mine.begin(), mine.size(), less);
    r.descending = r.ascending
                       ? mine.size() < 2
                       : no_descent(mine.begin(), mine.size(), [&](const auto& x, const auto& y) {
                           return !less(x, y);  // x after y: a step that does not go strictly down
                         });
    if (lo + n < this->in.size() && (r.ascending || r.descending)) {
      const auto next = job.read(lo + n);
      const bool down = less(next, mine[mine.size() - 1]);
      r.ascending = r.ascending && !down;
      r.descending = r.descending && down;
    }
    return r;
  }
  result combine(result l, result r) const noexcept {
    return {l.ascending && r.ascending, l.descending && r.descending};
  }
  output finish(result all) const noexcept { return all; }
  output finish() const noexcept { return {}; }
};

/// Swaps input [lo, lo + n) with its mirror image at the end, element by element (reverses the
/// input when run over its first half).
template <typename Job>
task<void> reverse_pairs(tine::detail::param<Job> job_in, std::uint64_t lo, std::uint64_t n) {
  Job& job = tine::detail::arg(job_in);
  if (n <= job.leaf) {
    const std::uint64_t size = job.data.size();
    auto front = checkout_here(job.data.subspan(lo, n), access::read_write);
    auto back = checkout_here(job.data.subspan(size - lo - n, n), access::read_write);
    for (std::size_t i = 0; i < front.size(); ++i) {
      std::swap(front[i], back[front.size() - 1 - i]);
    }
    co_return;
  }
  const std::uint64_t left = cut_at(job.data.offset() + lo, n, job.block);
  co_await fork(reverse_pairs<Job>, job, lo, left);
  co_await call(reverse_pairs<Job>, job, lo + left, n - left);
  co_await join();
}

/// What one sort call found its input to be.
enum class sort_found : std::uint8_t { in_order, reversed, unordered };

/// The root of one sort: checks the scratch, picks the leaf size, then, as `job.step` says: all
/// of it (the task form); only the check, and the reversal of an input in reverse order (the
/// blocking form's first call, with no scratch yet); or only the merge sort (its second call).
template <typename Job>
task<sort_found> sort_all(tine::detail::param<Job> job_in, grain g) {
  Job& job = tine::detail::arg(job_in);
  const std::uint64_t n = job.data.size();
  if (job.step != sort_step::check_or_reverse) {
    if (job.scratch.size() < n) {
      throw std::invalid_argument(std::string("tine::") + (job.stable ? "stable_sort" : "sort") +
                                  " on a global span: the scratch span has " +
                                  std::to_string(job.scratch.size()) +
                                  " elements, fewer than the input's " + std::to_string(n));
    }
    if (job.scratch.store_id() == job.data.store_id()) {
      throw std::invalid_argument(std::string("tine::") + (job.stable ? "stable_sort" : "sort") +
                                  " on a global span: the scratch span is in the input's own "
                                  "vector; it must be another vector's");
    }
  }
  if (n < 2) {
    co_return sort_found::in_order;
  }
  const std::uint64_t leaf = tine::detail::comparison_leaf_size(n, g, tine::detail::workers_here());
  job.leaf = leaf < 2 ? 2 : leaf;
  job.block = global_store::find(job.data.store_id()).block();
  if (job.step != sort_step::merge_sort) {
    // Input already in order, or in reverse order, costs a read (and a reversal), as on one
    // machine.
    typename order_algo<Job>::result order;
    co_await call(&order, run_on_global<order_algo<Job>>, order_algo<Job>{{job.data}, job}, g);
    if (order.ascending) {
      co_return sort_found::in_order;
    }
    if (order.descending) {
      co_await call(reverse_pairs<Job>, job, std::uint64_t{0}, n / 2);
      co_return sort_found::reversed;
    }
    if (job.step == sort_step::check_or_reverse) {
      co_return sort_found::unordered;
    }
  }
  co_await call(sort_piece<Job>, job, std::uint64_t{0}, n, /*into_scratch=*/false);
  co_return sort_found::unordered;
}

/// The task form's root: the whole sort, returning nothing.
template <typename Job>
task<void> sort_task(tine::detail::param<Job> job_in, grain g) {
  co_await call(sort_all<Job>, tine::detail::arg(job_in), g);
}

template <typename T, typename Comp, typename Proj>
inline constexpr bool sortable_global = [] {
  if constexpr (std::is_invocable_v<Proj&, const T&>) {
    using P = std::invoke_result_t<Proj&, const T&>;
    return std::is_copy_constructible_v<Comp> && std::is_copy_constructible_v<Proj> &&
           std::predicate<Comp&, P, P> && !tine::detail::task_body<Comp&, P, P>;
  } else {
    return false;
  }
}();

template <bool Stable, sort_step Step, typename T, typename Comp, typename Proj>
auto start_sort(global_span<T> data, global_span<T> scratch, Comp comp, Proj proj, grain g) {
  static_assert(sortable_global<T, Comp, Proj>,
                "tine::sort on a global span: comp must be a copyable plain function that "
                "compares two (projected) elements, comp(a, b) -> bool, and must not return a "
                "task (a leaf keeps its elements checked out while it calls comp)");
  if constexpr (sortable_global<T, Comp, Proj>) {
    using job_t = sort_job<T, Comp, Proj>;
    job_t job{data, scratch, std::move(comp), std::move(proj), 2, 1, Stable, Step};
    if constexpr (Step == sort_step::all) {
      return sort_task<job_t>(std::move(job), g);
    } else {
      return sort_all<job_t>(std::move(job), g);
    }
  }
}

/// The arguments after the scratch span: [comp [, proj]] [, grain], as on one machine.
template <bool Stable, sort_step Step, typename T>
auto sort_args(global_span<T> d, global_span<T> s) {
  return start_sort<Stable, Step>(d, s, std::ranges::less{}, std::identity{}, grain{});
}
template <bool Stable, sort_step Step, typename T>
auto sort_args(global_span<T> d, global_span<T> s, grain g) {
  return start_sort<Stable, Step>(d, s, std::ranges::less{}, std::identity{}, g);
}
template <bool Stable, sort_step Step, typename T, typename Comp>
  requires(!tine::detail::grain_type<Comp>)
auto sort_args(global_span<T> d, global_span<T> s, Comp c, grain g = {}) {
  return start_sort<Stable, Step>(d, s, std::move(c), std::identity{}, g);
}
template <bool Stable, sort_step Step, typename T, typename Comp, typename Proj>
  requires(!tine::detail::grain_type<Comp> && !tine::detail::grain_type<Proj>)
auto sort_args(global_span<T> d, global_span<T> s, Comp c, Proj p, grain g = {}) {
  return start_sort<Stable, Step>(d, s, std::move(c), std::move(p), g);
}

/// One step of the blocking form, as a function object for the pool's sync_wait.
template <bool Stable, sort_step Step>
struct blocking_step {
  template <typename T, typename... A>
  auto operator()(global_span<T> d, global_span<T> s, A... args) const {
    return sort_args<Stable, Step>(d, s, std::move(args)...);
  }
};

template <typename X, typename T>
inline constexpr bool is_scratch_for = std::is_same_v<std::remove_cvref_t<X>, global_span<T>>;

template <typename In, typename... A>
inline constexpr bool starts_with_scratch = [] {
  if constexpr (sizeof...(A) == 0) {
    return false;
  } else {
    return is_scratch_for<std::tuple_element_t<0, std::tuple<A...>>,
                          typename span_for<In>::element_type>;
  }
}();

}  // namespace detail
}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_MEMORY_GLOBAL_SORT_DEFS_HPP
