#ifndef TINE_REDUCERS_REDUCER_BASE_HPP
#define TINE_REDUCERS_REDUCER_BASE_HPP

/// \file reducer_base.hpp
/// What the runtime knows of a `tine::reducer` (reducer.hpp) without its type: how to combine,
/// fold and destroy its views, how many of them exist, and the lock under which roots fold
/// their views into the reducer's own value. The runtime keeps each strand's views in a table
/// keyed by the reducer's address (view_table.hpp) and merges them at joins through these
/// functions (views_layer.hpp).
///
/// Merges at joins need no lock: the join counter orders the strands that merge. Roots have no
/// such order: several can end at once, on different workers, each folding its views into the
/// same value. A root's end is not on the fork path, so a mutex per reducer serialises those
/// folds (and get(), which folds too); roots are thus folded in the order they take it.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <mutex>

namespace tine::detail {

class reducer_base {
 public:
  reducer_base(const reducer_base&) = delete;
  reducer_base& operator=(const reducer_base&) = delete;

  /// `left` := left ⊕ right, `left` being the view of the earlier strand in serial order. May
  /// throw what the monoid's reduce throws; `right` is destroyed by the caller either way.
  virtual void reduce_views(void* left, void* right) const = 0;

  /// The reducer's own value := value ⊕ view; the caller holds fold_lock(). May throw what the
  /// monoid's reduce throws.
  virtual void fold_view(void* view) = 0;

  /// A root's view at the root's end: fold_view under fold_lock(), since other roots may end
  /// at the same time. May throw what the monoid's reduce throws (the lock is released).
  void fold_root_view(void* view) {
    const std::lock_guard<std::mutex> hold(m_fold);
    fold_view(view);
  }

  /// Destroys `view` and frees its memory.
  virtual void destroy_view(void* view) const noexcept = 0;

  /// Counts the views that exist, for the checks of get(), of view() outside tasks and of the
  /// destructor. view_made is relaxed: a view is made by the strand that will use it, and only
  /// its disappearance publishes anything. view_gone is the last touch of the reducer by the
  /// strand that merged, folded or destroyed the view; release, so that a thread that reads the
  /// count without that view (acquire, in views()) also sees the fold and may read the value or
  /// destroy the reducer. Reads racing with strands that have not made their views yet see
  /// nothing of them: the checks catch a misuse only once a view exists.
  void view_made() noexcept { m_views.fetch_add(1, std::memory_order_relaxed); }
  void view_gone() noexcept { m_views.fetch_sub(1, std::memory_order_release); }
  std::size_t views() const noexcept { return m_views.load(std::memory_order_acquire); }

 protected:
  reducer_base() noexcept = default;
  ~reducer_base() = default;

  /// Held while a view is folded into the reducer's own value (fold_root_view, get()).
  std::mutex& fold_lock() noexcept { return m_fold; }

 private:
  std::atomic<std::size_t> m_views{0};
  std::mutex m_fold;
};

}  // namespace tine::detail

#endif  // TINE_REDUCERS_REDUCER_BASE_HPP
