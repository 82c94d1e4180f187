#ifndef TINE_CORE_SYNC_WAIT_HPP
#define TINE_CORE_SYNC_WAIT_HPP

/// \file sync_wait.hpp
/// `tine::sync_wait(scheduler, fn, args...)`: the bridge from ordinary code into tine. Starts
/// `fn(args...)` as a root task on the scheduler, blocks the calling thread until it completes,
/// and returns its value or rethrows its exception.
///
/// Call it from a thread that is not a worker: inside a task use `co_await tine::call(...)`.
/// Calling it on a worker throws `std::logic_error` instead of deadlocking.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <functional>
#include <stdexcept>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tine/core/callable_check.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/start_root.hpp>
#include <tine/core/stop_forwarding.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_context.hpp>

namespace tine {
namespace detail {

template <typename T>
struct root_result {
  // Value-initialised by the constructor, not by a default member initialiser: for a T with an
  // empty [[no_unique_address]] member (std::ranges::in_in_result<std::ranges::dangling, I>),
  // Clang 16 at -O1 compiles `T value{};` here into a store outside the object, on the caller's
  // stack.
  root_result() : value() {}
  T value;
};
template <>
struct root_result<void> {};

template <typename T, typename F, typename... Args>
struct root_job : submit_node, waiting_sink, root_result<T> {
  F&& fn;
  std::tuple<Args&&...> args;

  root_job(F&& f, Args&&... a) : fn(std::forward<F>(f)), args(std::forward<Args>(a)...) {
    run = &root_job::start;
    starts_root = true;
  }

  static void start(submit_node* node) {
    auto* self = static_cast<root_job*>(node);
    start_submitted_root<T>(self, [self] {
      return std::apply(
          [self](Args&&... a) {
            return std::invoke(std::forward<F>(self->fn), std::forward<Args>(a)...);
          },
          std::move(self->args));
    });
  }
};

/// Refuses a blocking entry (sync_wait, on any scheduler) called on a worker thread, where it
/// would block the worker instead of running tasks.
inline void refuse_on_worker() {
  if (current_worker() != nullptr) {
    throw std::logic_error(
        "tine::sync_wait: called on a worker thread, which would block it; inside a task use "
        "co_await tine::call(&result, fn, args...) instead");
  }
}

/// Stops a root's context when a std::stop_token is stopped.
struct stop_root {
  root_context* context;
  void operator()() const noexcept { context->request_stop(); }
};

/// Runs `fn(args...)` on `sched` and waits for it with the root's stop linked to `token`
/// (null: none); see the public overloads, which check `fn` and `args` first.
template <scheduler S, typename F, typename... Args>
auto sync_wait_linked(const std::stop_token* token, S& sched, F&& fn, Args&&... args) {
  using T = typename task_value<std::invoke_result_t<F, Args...>>::type;
  refuse_on_worker();
  root_job<T, F, Args...> job(std::forward<F>(fn), std::forward<Args>(args)...);
  job.context.scheduler.emplace(sched);
  // Declared after the job, so destroyed before it: once the root is done, a stop of the
  // token no longer reaches its context (reset waits for a callback running now).
  stop_forwarding<stop_root> link;
  if (token != nullptr) {
    link.link(*token, stop_root{&job.context});  // runs at once if already stopped
  }
  sched.schedule(&job);
  job.wait();
  link.reset();
  if (job.exception) {
    std::rethrow_exception(job.exception);
  }
  if constexpr (!std::is_void_v<T>) {
    return std::move(job.value);
  }
}

}  // namespace detail

/// Runs `fn(args...)` on `sched` and waits for it; returns its result or rethrows its exception.
/// Arguments are passed by reference to the root task and live until it completes.
///
/// `fn` and `args` are not constrained: a callable that is not a task, or arguments it cannot be
/// called with, are reported by one static_assert (core/callable_check.hpp).
template <scheduler S, typename F, typename... Args>
auto sync_wait(S& sched, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::sync_wait, void, F, Args...>()) {
    return detail::sync_wait_linked(nullptr, sched, std::forward<F>(fn),
                                    std::forward<Args>(args)...);
  } else {
    detail::explain_refusal<F, Args...>();
  }
}

/// As above, and the root is asked to stop (as by `tine::request_stop()`) when `token` is: from
/// another thread, say, while this one waits. A root stopped before it started never starts and
/// ends with `tine::cancelled`.
template <scheduler S, typename F, typename... Args>
auto sync_wait(std::stop_token token, S& sched, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::sync_wait, void, F, Args...>()) {
    return detail::sync_wait_linked(&token, sched, std::forward<F>(fn),
                                    std::forward<Args>(args)...);
  } else {
    detail::explain_refusal<F, Args...>();
  }
}

}  // namespace tine

#endif  // TINE_CORE_SYNC_WAIT_HPP
