#ifndef TINE_ALGORITHMS_FOR_EACH_HPP
#define TINE_ALGORITHMS_FOR_EACH_HPP

/// \file for_each.hpp
/// `tine::for_each`: calls `f(element)` for every element, in parallel.
///
/// ```
/// tine::for_each(pool, v, [](double& x) { x = std::sqrt(x); });                 // blocking
/// co_await tine::call(tine::async::for_each, v.begin(), v.end(), f);           // in a task
/// ```
///
/// `f` is copied once per call and that copy is invoked concurrently from several workers, on
/// elements in no particular order. `f` may return a `tine::task<X>`: each element's task then
/// runs as a child task (its value, if any, is discarded), so a body can be parallel itself:
///
/// ```
/// tine::for_each(pool, rows, [](row& r) -> tine::task<void> {
///   co_await tine::call(tine::async::sort, r.cells);
/// });
/// ```
///
/// If `f` (or its task) throws, the first exception is rethrown to the caller after every piece
/// already started has finished; pieces not yet started may be skipped.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

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

template <typename I, typename F>
struct for_each_body {
  I first;
  F* f;

  void operator()(std::size_t lo, std::size_t hi) const
    requires(!task_body<F&, std::iter_reference_t<I>>)
  {
    I it = at(first, lo);
    for (std::size_t i = lo; i < hi; ++i, ++it) {
      std::invoke(*f, *it);
    }
  }

  /// `f` returns a task: one child task per element, in turn (the body's own forks are what runs
  /// in parallel within a piece), each keyed by its index (detail/index_keys.hpp).
  task<void> operator()(std::size_t lo, std::size_t hi, pedigree_pass pass = {element_role}) const
    requires task_body<F&, std::iter_reference_t<I>>
  {
    I it = at(first, lo);
    for (std::uint64_t& i = pass.index_from(lo); i < hi; ++i, ++it) {
      co_await call(*f, *it);
    }
  }
};

/// The algorithm: `f` lives in this frame, the leaves refer to it.
template <typename I, typename F>
task<void> for_each_run(param<I> first_in, std::size_t n, param<F> f_in, std::size_t leaf) {
  I& first = arg(first_in);
  F& f = arg(f_in);
  if (n == 0) {
    co_return;
  }
  const for_each_body<I, F> body{first, &f};
  co_await call(split_for<for_each_body<I, F>>, &body, std::size_t{0}, n, leaf);
  co_await join();
}

template <typename F, typename I>
consteval bool check_for_each() {
  static_assert(element_function<F, I>,
                "tine::for_each(..., f): f must be copyable and callable as f(*it) with an element "
                "of the input (check the parameter type of f: a non-const reference cannot bind to "
                "the elements of a const range or of a transform view)");
  return element_function<F, I>;
}

/// The definition of for_each; the entry points are made from it (entry.hpp).
struct for_each_impl {
  static constexpr const char* name = "for_each";

  template <typename R, typename F>
  task<void> operator()(R& r, F f, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_for_each<F, I>()) {
      const std::size_t n = range_size(r);
      return for_each_run<I, F>(std::ranges::begin(r), n, std::move(f),
                                leaf_size(n, g, workers_here()));
    }
  }
};

}  // namespace detail

/// Blocking for_each: `tine::for_each(sched, range, f [, grain])` or
/// `tine::for_each(sched, first, last, f [, grain])` runs on `sched` and returns when every
/// element has been visited.
inline constexpr detail::blocking_algorithm<detail::for_each_impl> for_each{};

namespace async {

/// Task form of for_each: `co_await tine::call(tine::async::for_each, range, f)`.
inline constexpr detail::async_algorithm<detail::for_each_impl> for_each{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_FOR_EACH_HPP
