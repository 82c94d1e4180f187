#ifndef TINE_ALGORITHMS_DETAIL_INDEX_KEYS_HPP
#define TINE_ALGORITHMS_DETAIL_INDEX_KEYS_HPP

/// \file index_keys.hpp
/// Internal, for the parallel algorithms: tasks that pedigrees pass through, and the user's task
/// bodies they call keyed by element index rather than by the split that reached them, so that
/// tine::dprng draws the same numbers whatever the grain and the worker count
/// (reducers/pedigree.hpp, "Index keys").
///
/// Every task of an algorithm between its entry task (whose place in the fork tree is the
/// algorithm call's) and a user's task body passes pedigrees through (is transparent), in one of
/// two ways, or is keyed at an index itself:
///
/// - a task that is called, never forked, and calls bodies (a leaf looping over elements, or a
///   task that makes one call) takes a `pedigree_pass` parameter by value (frame.hpp), whose
///   default argument or caller names the role of its bodies. Its promise marks it when it is
///   created, at no cost to other tasks; it sets the index before each body, best by making the
///   frame's index its loop variable, and the role too if it calls bodies in two roles:
///
///   ```
///   task<void> operator()(std::size_t lo, std::size_t hi, pedigree_pass pass = {element_role})
///       const {
///     for (std::uint64_t& i = pass.index_from(lo); i < hi; ++i) {
///       co_await call(*f, i);
///     }
///   }
///   ```
///
///   No co_await: on GCC one more suspension point in a coroutine costs every resumption of it
///   (its resume switch turns into a jump table), which a leaf pays per element. A fork writes
///   its child's pedigree after the promise has marked it, hence "never forked";
/// - a task that forks (a split) awaits pass_pedigree_through() at its start, one co_await per
///   split; if it then calls a body itself (split_fold's op), it awaits at_index(i, role) first;
/// - a wrapper that a leaf calls at each index to call the user's callable (the searches' tests,
///   reduce's sources) is an ordinary task, keyed at that index in the leaf's role; the user's
///   callable is its first called child.
///
/// A transparent task calls the bodies it keys, never forks them (checked builds assert it when
/// a key is computed).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <cstddef>
#include <cstdint>

#include <tine/core/frame.hpp>
#include <tine/core/request.hpp>

namespace tine::detail {

/// The roles of a body at an index: the element's callable (f, pred, transform), or `op`.
inline constexpr std::uint32_t element_role = 0;
inline constexpr std::uint32_t op_role = 1;

struct pass_through_request {
  using tine_request = void;
  [[no_unique_address]] await_check check{};

  std::suspend_never bind(frame& f) && noexcept {
    check.awaited();
    make_transparent(f, element_role);
    return {};
  }
};

/// `co_await pass_pedigree_through()`, first in a task of an algorithm's machinery that forks:
/// its key is its parent's.
inline pass_through_request pass_pedigree_through() noexcept { return {}; }

struct at_index_request {
  using tine_request = void;
  std::uint64_t index;
  std::uint32_t role;
  [[no_unique_address]] await_check check{};

  std::suspend_never bind(frame& f) && noexcept {
    check.awaited();
    set_body_index(&f, index, role);
    return {};
  }
};

/// `co_await at_index(i, role)` in a transparent task that forks: the next body it calls is
/// applied at index `i` in `role`.
inline at_index_request at_index(std::size_t index, std::uint32_t role) noexcept {
  return {index, role};
}

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_INDEX_KEYS_HPP
