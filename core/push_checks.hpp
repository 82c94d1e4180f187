#ifndef TINE_CORE_PUSH_CHECKS_HPP
#define TINE_CORE_PUSH_CHECKS_HPP

/// \file push_checks.hpp
/// How a fork learns that it should not start its child, at no cost to forks that should.
///
/// Two things stop a fork from starting its child: the task's root (or stop scope) was asked to
/// stop, or a sibling already threw (the exception waits for the join; the children forked after
/// it would only be wasted work). Testing for either on every fork would cost each task a few
/// instructions. Instead, every fork tests one per-worker pointer; whoever requests a stop, or
/// stores an exception in a task that may be running on another worker, sets that pointer to a
/// *check marker* on the workers concerned. A worker that finds the marker on its next fork
/// clears it and then looks: if the fork's parent was stopped or holds an exception, the child
/// is not started. So a fork pays nothing until a stop or an exception happens somewhere, and
/// then one cold call. (A worker backend asks for its offers with the same marker.)
///
/// The marker stands for every task of the chain the worker runs: the forking task and those
/// that wait on it (its caller, and the callers and parents it returns to here). A fork whose
/// task needs nothing must therefore not simply use it up: the check may have been for a task
/// above it, say one whose child threw and which then called into a subtree that forks. So that
/// task gets the *relay* bit in its frame's `attention` (frame.hpp), which its end passes on,
/// one frame per end (final.hpp, `completion::finish`): to a parent that resumes here and holds
/// an exception, as the marker set again (the parent's next fork looks); to any other parent as
/// its own relay; at a root, nowhere. Any nonzero `attention` already sends a task's end and its
/// joins to their cold paths, so the relay costs the fast paths nothing. Where a chain leaves
/// the worker (a task suspends at a join, moves with resume_on, awaits a future, or a child
/// arrives at a join whose frame goes on elsewhere), a marker still set goes with it as the
/// relay of the frame where it goes on (worker_runtime::hand_over); where a worker takes up a
/// continuation (a steal), it looks again if that one was stopped or holds an exception
/// (worker_runtime::take_over). On a worker whose backend has a process boundary
/// (process_boundary.hpp) none of this applies: the marker is used up by the backend's offers and
/// by forks that look only when the boundary says stops reach their frame, and nothing relays.
///
/// The registry lists every worker runtime of the process, for the requests that do not know
/// where the tasks concerned run (a stop request reaches tasks on any worker).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <mutex>
#include <new>
#include <vector>

namespace tine::detail {

/// What a push hook holds when a worker should look before its next fork starts a child.
inline void* check_marker() noexcept {
  static char marker;
  return &marker;
}

/// Sets the check marker on `hook` (a worker with a worker backend takes it as a request to
/// call the backend's `offer`, worker_backend.hpp).
inline void request_check(std::atomic<void*>& hook) noexcept {
  void* expected = nullptr;
  // release: the stop flag or the exception the check is for is visible to the worker that
  // sees the marker (it loads the hook with acquire). A failed exchange means the marker is
  // already there: nothing to do.
  hook.compare_exchange_strong(expected, check_marker(), std::memory_order_release,
                               std::memory_order_relaxed);
}

/// Every worker's push hook, for requests that concern tasks wherever they run.
class push_hook_registry {
 public:
  static push_hook_registry& instance() noexcept {
    // Never destroyed: a worker of a static pool may unregister after static destruction began.
    // Made in static storage, not on the heap: the first call may come where an allocation
    // failure could not be reported (this is noexcept).
    alignas(push_hook_registry) static unsigned char storage[sizeof(push_hook_registry)];
    static push_hook_registry* r = ::new (static_cast<void*>(storage)) push_hook_registry;
    return *r;
  }

  /// Throws std::bad_alloc.
  void add(std::atomic<void*>* hook) {
    std::lock_guard lock(m_mutex);
    m_hooks.push_back(hook);
  }

  void remove(std::atomic<void*>* hook) noexcept {
    std::lock_guard lock(m_mutex);
    for (auto& h : m_hooks) {
      if (h == hook) {
        h = m_hooks.back();
        m_hooks.pop_back();
        return;
      }
    }
  }

  /// Asks every worker to look before its next fork starts a child.
  void request_checks() noexcept {
    std::lock_guard lock(m_mutex);
    for (std::atomic<void*>* h : m_hooks) {
      request_check(*h);
    }
  }

 private:
  std::mutex m_mutex;
  std::vector<std::atomic<void*>*> m_hooks;
};

}  // namespace tine::detail

#endif  // TINE_CORE_PUSH_CHECKS_HPP
