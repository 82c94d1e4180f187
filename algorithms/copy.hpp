#ifndef TINE_ALGORITHMS_COPY_HPP
#define TINE_ALGORITHMS_COPY_HPP

/// \file copy.hpp
/// `tine::copy`: `out[i] = in[i]` for every element, in parallel (`std::ranges::copy`).
///
/// ```
/// auto end = tine::copy(pool, in, out.begin());                          // blocking
/// co_await tine::call(&end, tine::async::copy, in, out.begin());         // in a task
/// ```
///
/// Returns the end of the output written, `out + size(input)`. The output is a random-access
/// iterator to at least as many elements as the input (it is not grown: use a sized vector, not
/// a back_inserter); it must not overlap the input (pieces are copied in no particular order).
/// copy is `tine::map` with `std::identity` (one body for both), with its own checks and
/// messages; if an assignment throws, the first exception reaches the caller after every piece
/// already started has finished, the output partly written.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>
#include <utility>

#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/algorithms/map.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

template <typename I, typename O>
consteval bool check_copy() {
  // Named, so that a failure prints one line about it rather than the concept's whole tree.
  constexpr bool random_access = std::random_access_iterator<O>;
  static_assert(random_access,
                "tine::copy(..., out): the output must be a random-access iterator to as many "
                "elements as the input (for example v.begin() of a vector already sized; a "
                "back_inserter cannot be written in parallel)");
  if constexpr (!random_access) {
    return false;
  } else {
    constexpr bool copyable = std::indirectly_copyable<I, O>;
    static_assert(copyable,
                  "tine::copy(..., out): an element of the input cannot be assigned to *out");
    return copyable;
  }
}

/// The definition of copy; the entry points are made from it (entry.hpp). The output iterator
/// it returns is not a position in the input: it is returned as it is.
struct copy_impl {
  static constexpr const char* name = "copy";

  template <typename R, typename O>
  task<result_for<O>> operator()(R& r, O out, grain g = {}) const {
    if constexpr (check_copy<std::ranges::iterator_t<R>, O>()) {
      // The grain is settled here, by the rule every algorithm follows, and handed to map as is.
      const std::size_t n = range_size(r);
      return tine::async::map(r, std::move(out), std::identity{},
                              grain{leaf_size(n, g, workers_here())});
    }
  }
};

}  // namespace detail

/// Blocking copy: `tine::copy(sched, range, out [, grain])` or
/// `tine::copy(sched, first, last, out [, grain])`; returns `out + size(input)`.
inline constexpr detail::blocking_algorithm<detail::copy_impl> copy{};

namespace async {

/// Task form of copy: `co_await tine::call(&end, tine::async::copy, range, out)`.
inline constexpr detail::async_algorithm<detail::copy_impl> copy{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_COPY_HPP
