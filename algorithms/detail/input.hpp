#ifndef TINE_ALGORITHMS_DETAIL_INPUT_HPP
#define TINE_ALGORITHMS_DETAIL_INPUT_HPP

/// \file input.hpp
/// Turning the caller's input (a range, or an iterator and a sentinel) into what the algorithms
/// work on: a first iterator and a size_t count; and keeping a temporary range alive in the task
/// forms.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <utility>

#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/task.hpp>

namespace tine::detail {

template <typename R>
std::size_t range_size(R& r) {
  return static_cast<std::size_t>(std::ranges::size(r));
}

template <typename I, typename S>
std::size_t input_size(const I& first, const S& last) {
  return static_cast<std::size_t>(last - first);
}

/// A range the task forms may refer to by iterators without owning it: an lvalue (the caller's
/// object outlives the task, as for any by-reference argument of a task) or a borrowed range (a
/// span or a string_view, whose iterators outlive the range object).
template <typename R>
concept referable_range = std::is_lvalue_reference_v<R> || std::ranges::borrowed_range<R>;

/// For task forms that do not take ownership of a temporary range (the scans, find_if).
template <typename R>
consteval bool check_referable() {
  static_assert(
      referable_range<R>,
      "tine::async: this algorithm refers to its input range, which must outlive the task; "
      "a temporary range would be destroyed first. Name the range (auto r = ...; then pass r) "
      "or pass iterators");
  return referable_range<R>;
}

/// The task forms' answer to a temporary range (`async::reduce(ranges::views::iota(0, n), ...)`):
/// move it into this task's frame, which lives on the worker's stack until the algorithm is
/// done, and run the algorithm on it as an lvalue. `Ret` is what the algorithm returns.
/// `Fn` is the (stateless) function object of the algorithm's task form.
template <typename Ret, typename Fn, typename R, typename... A>
requires(!std::is_reference_v<R>) task<Ret> with_owned_range(R r, A... args) {
  const Fn fn{};
  Ret result{};
  co_await call(&result, fn, r, std::move(args)...);
  co_await join();
  co_return result;
}

template <typename Fn, typename R, typename... A>
requires(!std::is_reference_v<R>) task<void> with_owned_range_void(R r, A... args) {
  const Fn fn{};
  co_await call(fn, r, std::move(args)...);
  co_await join();
}

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_INPUT_HPP
