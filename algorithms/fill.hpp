#ifndef TINE_ALGORITHMS_FILL_HPP
#define TINE_ALGORITHMS_FILL_HPP

/// \file fill.hpp
/// `tine::fill`: assigns one value to every element of a range, in parallel
/// (`std::ranges::fill`).
///
/// ```
/// auto end = tine::fill(pool, v, 0.0);                                      // blocking
/// co_await tine::call(&end, tine::async::fill, v.begin(), v.end(), 1.0);   // in a task
/// ```
///
/// Returns the end of the range (`std::ranges::dangling` for a temporary container, as
/// std::ranges::fill). The value is copied once into the task and assigned from there, as
/// `*it = value` with `value` a const lvalue; if an assignment throws, the first exception
/// reaches the caller after every piece already started has finished, the range partly filled.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <utility>

#include <tine/algorithms/detail/coroutine_param.hpp>
#include <tine/algorithms/detail/entry.hpp>
#include <tine/algorithms/detail/split.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>

namespace tine {
namespace detail {

template <typename I, typename T>
struct fill_body {
  I first;
  const T* value;

  void operator()(std::size_t lo, std::size_t hi) const {
    I it = at(first, lo);
    for (std::size_t i = lo; i < hi; ++i, ++it) {
      *it = *value;
    }
  }
};

/// The algorithm: the value lives in this frame, the leaves refer to it.
template <typename I, typename T>
task<I> fill_run(param<I> first_in, std::size_t n, param<T> value_in, std::size_t leaf) {
  I& first = arg(first_in);
  T& value = arg(value_in);
  if (n != 0) {
    const fill_body<I, T> body{first, &value};
    co_await call(split_for<fill_body<I, T>>, &body, std::size_t{0}, n, leaf);
    co_await join();
  }
  co_return at(first, n);
}

template <typename I, typename T>
consteval bool check_fill() {
  static_assert(std::copy_constructible<T>,
                "tine::fill(..., value): value must be copyable (it is copied into the task)");
  static_assert(std::indirectly_writable<I, const T&>,
                "tine::fill(..., value): value cannot be assigned to the elements of the range "
                "(a const range, a view of computed values, or an unrelated type)");
  return std::copy_constructible<T> && std::indirectly_writable<I, const T&>;
}

/// The definition of fill; the entry points are made from it (entry.hpp). It returns the end of
/// the range, a position mapped back by the adapters.
struct fill_impl {
  static constexpr const char* name = "fill";
  static constexpr bool returns_positions = true;

  template <typename R, typename T>
  auto operator()(R& r, T value, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_fill<I, T>()) {
      const std::size_t n = range_size(r);
      return fill_run<I, T>(std::ranges::begin(r), n, std::move(value),
                            leaf_size(n, g, workers_here()));
    }
  }
};

}  // namespace detail

/// Blocking fill: `tine::fill(sched, range, value [, grain])` or
/// `tine::fill(sched, first, last, value [, grain])`; returns the end of the range.
inline constexpr detail::blocking_algorithm<detail::fill_impl> fill{};

namespace async {

/// Task form of fill: `co_await tine::call(&end, tine::async::fill, range, value)`.
inline constexpr detail::async_algorithm<detail::fill_impl> fill{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_FILL_HPP
