#ifndef TINE_CORE_HELD_VIEWS_HPP
#define TINE_CORE_HELD_VIEWS_HPP

/// \file held_views.hpp
/// Views that a task may not keep across a fork, call, join or resume_on: memory that is valid
/// only where and while the task runs without suspending (`tine::mpi::checkout`'s, which a steal
/// to another process would leave behind). Checked builds count the live ones per thread and stop
/// the program when a task awaits one of those requests with a view still live; other builds
/// count nothing.
///
/// A per-thread count says which task holds a view: a task that forks or calls is suspended with
/// none live (or the program has stopped), so every view live on a thread belongs to the task
/// running there, and a thief resumes a continuation on a thread with none.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

namespace tine::detail {

#if TINE_CHECKED
inline thread_local int held_views_on_thread = 0;

/// A view begins (+1) or ends (-1) on this thread. Through an accessor: see TINE_TLS_ACCESSOR.
TINE_TLS_ACCESSOR void count_held_view(int delta) noexcept { held_views_on_thread += delta; }

/// Stops the program if the awaiting task holds a view (called as it awaits a fork, call, join
/// or resume_on).
TINE_TLS_ACCESSOR void check_no_held_view() noexcept {
  if (held_views_on_thread != 0) {
    fatal(
        "a task awaited tine::fork, tine::call, tine::join or tine::resume_on while it holds a "
        "view (a tine::mpi::checkout): end the view first (close its scope), since the task may "
        "go on in another process, where the view's memory is not");
  }
}
#else
inline void count_held_view(int) noexcept {}
inline void check_no_held_view() noexcept {}
#endif

}  // namespace tine::detail

#endif  // TINE_CORE_HELD_VIEWS_HPP
