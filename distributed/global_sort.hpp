#ifndef TINE_DISTRIBUTED_GLOBAL_SORT_HPP
#define TINE_DISTRIBUTED_GLOBAL_SORT_HPP

/// \file global_sort.hpp
/// `tine::sort` and `tine::stable_sort` over a global span on an `mpi_pool`: a parallel merge
/// sort whose merges are themselves parallel and work on global memory (cilksort's scheme; its
/// halves are cut at the ranks' block boundaries, so the first levels give each rank its own
/// block to sort; memory/global_sort_defs.hpp says how). An input already in order is left as it
/// is, one in strictly reverse order is reversed.
///
/// ```
/// tine::sort(pool, span);                                  // collective, every rank
/// tine::stable_sort(pool, span, [](const item& a, const item& b) { return a.key < b.key; });
/// co_await tine::call(tine::async::sort, span, scratch);   // in a task, with scratch space
/// ```
///
/// The blocking form first checks the order (every rank learns the outcome); only an input that
/// needs sorting makes the scratch vector (collectively, as large as the span), freed before
/// returning. The task form cannot make one (a global vector is made by every rank at
/// once, outside tasks): it takes the scratch span as its second argument, at least as long as
/// the input (std::invalid_argument otherwise) and not overlapping it. Both return nothing. The
/// comparator (and projection) are plain functions copied into tasks, like the other algorithms'
/// element functions.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <type_traits>
#include <utility>

#include <tine/algorithms/sort.hpp>
#include <tine/core/sync_wait.hpp>
#include <tine/core/task.hpp>
#include <tine/distributed/global_algorithms.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/memory/global_sort_defs.hpp>

namespace tine::mpi {

// The entry points, found by argument-dependent lookup from tine's algorithm objects
// (algorithms/detail/entry.hpp).

/// The task form: `sort(input, scratch [, comp [, proj]] [, grain])`, `scratch` another vector's
/// span at least as long as `input`.
template <bool Stable, typename In, typename Scratch, typename... A>
  requires detail::global_input<In> &&
           detail::is_scratch_for<Scratch, typename detail::span_for<In>::element_type>
auto tine_algorithm(tine::detail::sort_impl<Stable>, const In& input, Scratch scratch, A... args) {
  return detail::sort_args<Stable, detail::sort_step::all>(detail::span_of(input), scratch,
                                                           std::move(args)...);
}

/// The task form without a scratch span: refused with a message. (Its declared type keeps the
/// compiler from adding errors of its own after the message.)
template <bool Stable, typename In, typename... A>
  requires detail::global_input<In> && (!detail::starts_with_scratch<In, A...>)
task<void> tine_algorithm(tine::detail::sort_impl<Stable>, const In&, A...) {
  using T = typename detail::span_for<In>::element_type;
  static_assert(!std::is_const_v<T>,
                "tine::sort on a global span: the span's elements are const; sort a "
                "global_span<T> of non-const elements");
  static_assert(std::is_const_v<T> || tine::detail::dependent_false<In>,
                "tine::async::sort on a global span takes a scratch span as its second argument "
                "(another global vector's, as long as the input): a task cannot make one, global "
                "vectors are made by every rank at once; or call the blocking tine::sort(pool, "
                "span) on every rank, which makes it");
  __builtin_unreachable();
}

/// The blocking form: collective; makes the scratch vector, sorts with it, frees it.
template <bool Stable, typename Pool, typename In, typename... A>
  requires detail::global_input<In>
void tine_blocking_algorithm(tine::detail::sort_impl<Stable>, Pool& pool, const In& input,
                             A... args) {
  using T = typename detail::span_for<In>::element_type;
  static_assert(!std::is_const_v<T>,
                "tine::sort on a global span: the span's elements are const; sort a "
                "global_span<T> of non-const elements");
  if constexpr (!std::is_const_v<T>) {
    // First the check (and the reversal of an input in reverse order), whose outcome every
    // rank gets; only an input that needs sorting costs the scratch vector and the sort.
    const global_span<T> data = detail::span_of(input);
    constexpr detail::blocking_step<Stable, detail::sort_step::check_or_reverse> check{};
    if (tine::sync_wait(pool, check, data, global_span<T>{}, args...) !=
        detail::sort_found::unordered) {
      return;
    }
    global_vector<T> scratch(pool, data.size());  // collective
    constexpr detail::blocking_step<Stable, detail::sort_step::merge_sort> sort{};
    tine::sync_wait(pool, sort, data, scratch.span(), std::move(args)...);
  }
}

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_GLOBAL_SORT_HPP
