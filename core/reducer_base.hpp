#ifndef TINE_CORE_REDUCER_BASE_HPP
#define TINE_CORE_REDUCER_BASE_HPP

/// \file reducer_base.hpp
/// What the runtime knows of a `tine::reducer` (reducer.hpp) without its type: how to combine,
/// fold and destroy its views, and how many of them exist. The runtime keeps each strand's views
/// in a table keyed by the reducer's address (view_table.hpp) and merges them at joins through
/// these functions (strand_views.hpp).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>

namespace tine::detail {

class reducer_base {
 public:
  reducer_base(const reducer_base&) = delete;
  reducer_base& operator=(const reducer_base&) = delete;

  /// `left` := left ⊕ right, `left` being the view of the earlier strand in serial order. May
  /// throw what the monoid's reduce throws; `right` is destroyed by the caller either way.
  virtual void reduce_views(void* left, void* right) const = 0;

  /// The reducer's own value := value ⊕ view: a root task's views at its end, or the calling
  /// strand's view in get(). May throw what the monoid's reduce throws.
  virtual void fold_view(void* view) = 0;

  /// Destroys `view` and frees its memory.
  virtual void destroy_view(void* view) const noexcept = 0;

  /// Counts the views that exist, for the checks of get() and of the destructor. Relaxed: the
  /// count is read only by a strand that has joined every strand that made or merged a view (the
  /// join counter's acquire/release orders their updates before the read), or by a racing one,
  /// which the checks only try to catch.
  void view_made() noexcept { m_views.fetch_add(1, std::memory_order_relaxed); }
  void view_gone() noexcept { m_views.fetch_sub(1, std::memory_order_relaxed); }
  std::size_t views() const noexcept { return m_views.load(std::memory_order_relaxed); }

 protected:
  reducer_base() noexcept = default;
  ~reducer_base() = default;

 private:
  std::atomic<std::size_t> m_views{0};
};

}  // namespace tine::detail

#endif  // TINE_CORE_REDUCER_BASE_HPP
