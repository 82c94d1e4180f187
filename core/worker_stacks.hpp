#ifndef TINE_CORE_WORKER_STACKS_HPP
#define TINE_CORE_WORKER_STACKS_HPP

/// \file worker_stacks.hpp
/// The stacks a worker holds: the one it runs on, and a few empty spares.
///
/// The rule that keeps every stack FILO: outside a fork-join scope, the worker running a task
/// owns the stack the task's frame lives on. So stacks change hands at joins:
/// - a strand that reaches a join and is not the last leaves the stack it runs on with the
///   suspended task if that is the task's stack (`park`), and continues on a spare;
/// - the last strand to arrive takes the task's stack (`adopt`); its own, empty, becomes a spare.
///
/// `park` runs on paths that cannot report an error (the completion of a task, a join). So it
/// never allocates: the worker keeps at least one spare in reserve, refilled by `reserve()`
/// before it takes any work (a steal or a submission). One run of work parks at most once (after
/// parking, the strand has nothing left to do and returns to its scheduler), so one spare is
/// enough.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <new>

#include <tine/core/stacklet.hpp>

namespace tine::detail {

class worker_stacks {
 public:
  /// Allocates the first stack and one spare; throws std::bad_alloc.
  worker_stacks() : m_top(make_first_stacklet()) {
    const muted_hooks muted;
    try {
      m_spare[0] = make_stacklet(initial_stacklet_bytes, nullptr);
    } catch (...) {
      free_stack(m_top);
      throw;
    }
    m_spares = 1;
  }

  worker_stacks(const worker_stacks&) = delete;
  worker_stacks& operator=(const worker_stacks&) = delete;

  ~worker_stacks() {
    const muted_hooks muted;  // see muted_hooks
    free_stack(m_top);
    for (std::size_t i = 0; i < m_spares; ++i) {
      free_stack(m_spare[i]);
    }
  }

  /// Top stacklet of the stack this worker runs on.
  stacklet*& top() noexcept { return m_top; }

  /// Makes sure a spare is in reserve for the next `park`; false if memory is short (then the
  /// worker must not take work now).
  bool reserve() noexcept {
    if (m_spares != 0) {
      return true;
    }
    stacklet* s = try_make_stacklet(initial_stacklet_bytes, nullptr);
    if (s == nullptr) {
      return false;
    }
    m_spare[m_spares++] = s;
    return true;
  }

  /// Called while the worker still owns `stack`, just before leaving it parked with a suspended
  /// task: a parked stack keeps no cached stacklet, so idle stacks do not pin memory.
  static void prepare_to_park(stacklet* stack) noexcept { trim_cache(stack); }

  /// Leaves the current stack (now owned by a suspended task) and continues on a spare.
  void park() noexcept {
    TINE_ASSERT(m_spares != 0, "a worker parks a stack only with a spare in reserve");
    m_top = m_spare[--m_spares];
  }

  /// The worker is idle, its stack empty: if its stacks did not come from the calling thread's
  /// stacklet source, makes its stack and its spare anew from it and frees the old ones (each to
  /// where it came from), so that every stacklet the worker runs on comes from there. Throws
  /// std::bad_alloc, leaving the stacks as they were.
  void renew_from_current_source() {
    const stacklet_source* source = read_tls_stacklet_source();
    if (m_top->source == source && m_top->next == nullptr && m_top->prev == nullptr) {
      bool same = true;
      for (std::size_t i = 0; i < m_spares; ++i) {
        same = same && m_spare[i]->source == source;
      }
      if (same) {
        return;
      }
    }
    stacklet* top = make_stacklet(initial_stacklet_bytes, nullptr);
    stacklet* spare = try_make_stacklet(initial_stacklet_bytes, nullptr);
    if (spare == nullptr) {
      free_stack(top);
      throw std::bad_alloc();
    }
    free_stack(m_top);
    for (std::size_t i = 0; i < m_spares; ++i) {
      free_stack(m_spare[i]);
    }
    m_top = top;
    m_spare[0] = spare;
    m_spares = 1;
  }

  /// Takes ownership of the stack whose top is `stack`; the current stack must be empty.
  void adopt(stacklet* stack) noexcept {
    if (m_top == stack) {
      return;
    }
    TINE_ASSERT(stack_is_empty(m_top), "a worker adopts a stack only when its own is empty");
    // Keep a few empty stacks: a worker that steals often parks and adopts stacks in turn, and
    // should not go to the heap for each.
    trim_cache(m_top);
    if (m_spares < max_spares) {
      m_spare[m_spares++] = m_top;
    } else {
      free_stack(m_top);
    }
    m_top = stack;
  }

 private:
  static constexpr std::size_t max_spares = 4;

  static stacklet* make_first_stacklet() {
    const muted_hooks muted;  // see muted_hooks
    return make_stacklet(initial_stacklet_bytes, nullptr);
  }

  stacklet* m_top;
  stacklet* m_spare[max_spares] = {};  ///< Empty stacks (one stacklet each) to continue on.
  std::size_t m_spares = 0;
};

}  // namespace tine::detail

#endif  // TINE_CORE_WORKER_STACKS_HPP
