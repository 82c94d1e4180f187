#ifndef TINE_ALGORITHMS_MAP_HPP
#define TINE_ALGORITHMS_MAP_HPP

/// \file map.hpp
/// `tine::map`: `out[i] = f(in[i])` for every element, in parallel (`std::transform`).
///
/// ```
/// auto end = tine::map(pool, in, out.begin(), [](int x) { return x * x; });   // blocking
/// co_await tine::call(&end, tine::async::map, in, out.begin(), f);            // in a task
/// ```
///
/// The output is a random-access iterator to at least as many elements as the input (it is not
/// grown: use a sized vector, not a back_inserter); the output may be the input itself. Returns
/// the end of the output written. `f` is called concurrently, in no particular order. It may
/// return a `tine::task<X>`: each element's task runs as a child task and its value is written
/// (X must then be default-constructible and move-assignable: it is received in a variable
/// first). If `f` (or its task) throws, the first exception reaches the caller after every piece
/// already started has finished, and the output is partly written.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>
#include <type_traits>
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

template <typename I, typename O, typename F>
struct map_body {
  I first;
  O out;
  F* f;

  void operator()(std::size_t lo, std::size_t hi) const
    requires(!task_body<F&, std::iter_reference_t<I>>)
  {
    I in = at(first, lo);
    O to = at(out, lo);
    for (std::size_t i = lo; i < hi; ++i, ++in, ++to) {
      *to = std::invoke(*f, *in);
    }
  }

  /// `f` returns a task: one child task per element, in turn, its value then written; each
  /// keyed by its index (detail/index_keys.hpp).
  task<void> operator()(std::size_t lo, std::size_t hi, pedigree_pass pass = {element_role}) const
    requires task_body<F&, std::iter_reference_t<I>>
  {
    I in = at(first, lo);
    O to = at(out, lo);
    for (std::uint64_t& i = pass.index_from(lo); i < hi; ++i, ++in, ++to) {
      body_value_t<F&, std::iter_reference_t<I>> value{};
      co_await call(&value, *f, *in);
      *to = std::move(value);
    }
  }
};

/// The algorithm: `f` lives in this frame, the leaves refer to it.
template <typename I, typename O, typename F>
task<O> map_run(param<I> first_in, std::size_t n, param<O> out_in, param<F> f_in,
                std::size_t leaf) {
  I& first = arg(first_in);
  O& out = arg(out_in);
  F& f = arg(f_in);
  if (n != 0) {
    const map_body<I, O, F> body{first, out, &f};
    co_await call(split_for<map_body<I, O, F>>, &body, std::size_t{0}, n, leaf);
    co_await join();
  }
  co_return at(out, n);
}

template <typename I, typename O, typename F>
consteval bool check_map() {
  static_assert(std::random_access_iterator<O>,
                "tine::map(..., out, f): the output must be a random-access iterator to as many "
                "elements as the input (for example v.begin() of a vector already sized; a "
                "back_inserter cannot be written in parallel)");
  if constexpr (!element_function<F, I>) {
    static_assert(
        element_function<F, I>,
        "tine::map(..., out, f): f must be copyable and callable as f(*it) with an element "
        "of the input");
    return false;
  } else if constexpr (!check_task_value<F&, std::iter_reference_t<I>>()) {
    return false;
  } else {
    using result = body_value_t<F&, std::iter_reference_t<I>>;
    if constexpr (task_body<F&, std::iter_reference_t<I>>) {
      // The value is received in a variable, then moved to *out.
      constexpr bool writable = std::indirectly_writable<O, std::add_rvalue_reference_t<result>>;
      static_assert(writable,
                    "tine::map(..., out, f): the value of the task f returns cannot be assigned to "
                    "*out");
      return std::random_access_iterator<O> && writable;
    } else {
      static_assert(std::indirectly_writable<O, result>,
                    "tine::map(..., out, f): the result of f cannot be assigned to *out");
      return std::random_access_iterator<O> && std::indirectly_writable<O, result>;
    }
  }
}

/// The definition of map; the entry points are made from it (entry.hpp). `result_for<O>` is `O`
/// for every output the check accepts; for one it refuses (a back_inserter) it keeps the
/// adapters quiet, so that the check's sentence is the only error.
struct map_impl {
  static constexpr const char* name = "map";

  template <typename R, typename O, typename F>
  task<result_for<O>> operator()(R& r, O out, F f, grain g = {}) const {
    using I = std::ranges::iterator_t<R>;
    if constexpr (check_map<I, O, F>()) {
      const std::size_t n = range_size(r);
      return map_run<I, O, F>(std::ranges::begin(r), n, std::move(out), std::move(f),
                              leaf_size(n, g, workers_here()));
    }
  }
};

}  // namespace detail

/// Blocking map: `tine::map(sched, range, out, f [, grain])` or
/// `tine::map(sched, first, last, out, f [, grain])`; returns `out + size(input)`.
inline constexpr detail::blocking_algorithm<detail::map_impl> map{};

namespace async {

/// Task form of map: `co_await tine::call(&end, tine::async::map, range, out, f)`.
inline constexpr detail::async_algorithm<detail::map_impl> map{};

}  // namespace async
}  // namespace tine

#endif  // TINE_ALGORITHMS_MAP_HPP
