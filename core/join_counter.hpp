#ifndef TINE_CORE_JOIN_COUNTER_HPP
#define TINE_CORE_JOIN_COUNTER_HPP

/// \file join_counter.hpp
/// Where a join completes: the arithmetic of Nowa's wait-free split counter (the Nowa paper),
/// which lives in every frame (`frame::joins`). A frame's counter starts at I_max. While the
/// frame's continuation is away (stolen), each child that ends elsewhere subtracts 1, and the
/// frame itself, reaching its join, subtracts I_max less the number of steals of its
/// continuation: whichever subtraction brings the counter to zero arrived last, and that strand
/// continues the frame. No strand waits for another. A worker backend's process boundary
/// (process_boundary.hpp) may count a frame's arrivals elsewhere, with the same arithmetic.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstdint>
#include <exception>
#include <utility>

#include <tine/core/frame.hpp>
#include <tine/core/push_checks.hpp>

namespace tine {

/// A strand arriving at the join of a frame whose continuation a thief took.
struct join_arrival {
  /// How many strands it counts for: 1 for a child, or, for the frame itself reaching its join,
  /// I_max less the number of steals of its continuation.
  std::uint32_t strands = 1;
  /// A child's result as it wrote it into this process's copy of the frame (null: none, or the
  /// frame's own arrival), and its size.
  const void* result = nullptr;
  std::uint32_t result_bytes = 0;
  /// The same bytes as the child returned them, kept apart from the frame, when the worker's
  /// frames may leave the process (null otherwise): `result` points into this process's copy of
  /// the frame, which a steal of the frame back from another process may overwrite before the
  /// arrival reads it (frame::returned).
  const void* returned = nullptr;
  /// A child's exception, not yet stored in the frame.
  std::exception_ptr exception;
  /// True when the frame itself arrives at its join (its continuation's arrival), false for a
  /// child.
  bool frame_itself = false;
};

namespace detail {

/// The core's own count: stores a child's exception in `f`, then counts the arrival down on
/// `f`'s counter. True if it was the last.
inline bool count_arrival(frame* f, join_arrival& a) noexcept {
  if (a.exception) {
    f->stash_exception(std::move(a.exception));
    // `f`'s continuation runs elsewhere: whichever worker forks for it next looks first, and
    // does not start children after this one threw (push_checks.hpp).
    push_hook_registry::instance().request_checks();
  }
  // acq_rel: release publishes this strand's writes (results, exception) to whoever resumes `f`;
  // acquire, when we are last, makes every other strand's writes visible to us.
  return f->joins.fetch_sub(a.strands, std::memory_order_acq_rel) == a.strands;
}

/// The task's own arrival at its join: I_max less the steals of its continuation.
inline join_arrival own_arrival(const frame* f) noexcept {
  join_arrival a;
  a.strands = frame::max_joins - f->steals;
  a.frame_itself = true;
  return a;
}

/// Whether every stolen strand of `f`'s scope has already arrived (the task may then pass its
/// join without counting itself). acquire: their writes become visible here.
inline bool all_strands_arrived(const frame* f) noexcept {
  return f->joins.load(std::memory_order_acquire) == frame::max_joins - f->steals;
}

/// The counter back to I_max once the scope is over. relaxed: no other strand touches it until
/// the next fork publishes the frame again through the deque (release/acquire).
inline void reset_join_counter(frame* f) noexcept {
  f->joins.store(frame::max_joins, std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace tine

#endif  // TINE_CORE_JOIN_COUNTER_HPP
