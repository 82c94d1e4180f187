#ifndef TINE_APPLICATION_SPAWN_HPP
#define TINE_APPLICATION_SPAWN_HPP

/// \file spawn.hpp
/// `tine::spawn(scheduler, fn, args...)`: starts `fn(args...)` as a root task on the scheduler
/// and returns at once with a `tine::future` of its outcome. Unlike `sync_wait`, the arguments
/// (and `fn`) are copied or moved into the future's state, which the root refers to: they live
/// until the root ends. Callable from any thread, tine workers included (a task can spawn work
/// beside itself: `tine::spawn(tine::current_scheduler(), fn, args...)`).
///
/// Throws std::bad_alloc (no memory for the state), or what `schedule` threw (it did not take
/// the root); a failure to start the root on the worker (no memory for its frame) reaches the
/// future as its exception.
///
/// `tine::spawn(token, sched, fn, args...)` also links the root's stop to a `std::stop_token`:
/// the root is asked to stop when the token is (from the moment of the call until the root
/// ends). Inside a task, `tine::spawn(tine::get_stop_token(), tine::current_scheduler(), fn,
/// args...)` starts work that is stopped with the spawning task's root or stop scope; a plain
/// `spawn` starts an independent root, which only its own future (or stop_handle) stops.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <functional>
#include <memory>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tine/application/future.hpp>
#include <tine/application/future_state.hpp>
#include <tine/core/callable_check.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/start_root.hpp>
#include <tine/core/stop_forwarding.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {
namespace detail {

/// The root's state: its future's, plus the callable, the arguments, the submission, and the
/// link to a stop token the root was spawned with.
template <typename T, typename F, typename... Args>
class spawn_state final : public future_state<T>, public submit_node {
 public:
  template <typename G, typename... A>
  spawn_state(std::atomic<std::size_t>* pending, G&& fn, A&&... args)
      : future_state<T>(&destroy, pending, &finish),
        m_fn(std::forward<G>(fn)),
        m_args(std::forward<A>(args)...) {
    run = &start;
    starts_root = true;
  }

  /// Asks the root to stop when `token` is; at once if it already is. Before the root is
  /// scheduled (the link is ended by the root's end, on the worker).
  void link(const std::stop_token& token) noexcept { m_link.link(token, stop_this{this}); }

 private:
  struct stop_this {
    future_state_base* state;
    void operator()() const noexcept { state->request_stop(); }
  };

  static void destroy(future_state_base* s) noexcept { delete static_cast<spawn_state*>(s); }

  /// The root ended: the token no longer concerns it (waits for a callback running now), then
  /// the outcome is published.
  static void finish(future_state_base* s) noexcept {
    static_cast<spawn_state*>(s)->m_link.reset();
  }

  static void start(submit_node* node) {
    auto* self = static_cast<spawn_state*>(node);
    start_submitted_root<T>(self, [self] {
      return std::apply([self](Args&... a) { return std::invoke(self->m_fn, a...); }, self->m_args);
    });
  }

  F m_fn;
  std::tuple<Args...> m_args;
  stop_forwarding<stop_this> m_link;
};

/// spawn, with the root's stop linked to `token` (null: none). `fn` and `args` are not
/// constrained: a mistake is reported by one static_assert (core/callable_check.hpp), for the
/// copies the root is called with.
template <typename S, typename F, typename... Args>
auto spawn_linked(const std::stop_token* token, S&& sched, F&& fn, Args&&... args) {
  using Fn = std::decay_t<F>;
  if constexpr (check_task_function<entry::spawn, void, Fn&, std::decay_t<Args>&...>()) {
    using T = typename task_value<std::invoke_result_t<Fn&, std::decay_t<Args>&...>>::type;
    const scheduler_ref target(sched);  // (a scheduler_ref is copied)
    std::atomic<std::size_t>* pending = target.pending_work();
    auto state = std::make_unique<spawn_state<T, Fn, std::decay_t<Args>...>>(
        pending, std::forward<F>(fn), std::forward<Args>(args)...);
    state->context.scheduler.emplace(target);
    if (token != nullptr) {
      state->link(*token);  // noexcept; stops the root at once if the token is stopped
    }
    if (pending != nullptr) {
      // relaxed: the scheduler's destructor runs after this call returns, or not at all
      // while it holds the root; complete() releases.
      pending->fetch_add(1, std::memory_order_relaxed);
    }
    try {
      target.schedule(state.get());
    } catch (...) {
      // It did not take the root: nothing runs, nothing is pending.
      if (pending != nullptr) {
        pending->fetch_sub(1, std::memory_order_relaxed);
      }
      throw;
    }
    return future_access::make<T>(state.release());
  } else {
    explain_refusal<Fn&, std::decay_t<Args>&...>();
  }
}

}  // namespace detail

/// Starts `fn(args...)` on `sched` and returns its future (see the file comment).
template <typename S, typename F, typename... Args>
  requires scheduler<std::remove_cvref_t<S>>
[[nodiscard(
    "tine::spawn returns a future: dropping it at once stops the work (and, off a tine worker, "
    "waits for it); keep it, or call detach()")]] auto
spawn(S&& sched, F&& fn, Args&&... args) {
  return detail::spawn_linked(nullptr, sched, std::forward<F>(fn), std::forward<Args>(args)...);
}

/// As above, and the root is asked to stop when `token` is (see the file comment).
template <typename S, typename F, typename... Args>
  requires scheduler<std::remove_cvref_t<S>>
[[nodiscard(
    "tine::spawn returns a future: dropping it at once stops the work (and, off a tine worker, "
    "waits for it); keep it, or call detach()")]] auto
spawn(std::stop_token token, S&& sched, F&& fn, Args&&... args) {
  return detail::spawn_linked(&token, sched, std::forward<F>(fn), std::forward<Args>(args)...);
}

}  // namespace tine

#endif  // TINE_APPLICATION_SPAWN_HPP
