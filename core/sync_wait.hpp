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
#include <tuple>
#include <type_traits>
#include <utility>

#include <tine/core/callable_check.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/context.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/task.hpp>

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
  }

  static void start(submit_node* node) {
    auto* self = static_cast<root_job*>(node);
    promise<T>* p = nullptr;
    try {
      auto t = std::apply(
          [self](Args&&... a) {
            return std::invoke(std::forward<F>(self->fn), std::forward<Args>(a)...);
          },
          std::move(self->args));
      p = task_access::release(t);
    } catch (...) {
      // Creating the task failed (no memory, or an argument's copy threw): report, do not hang.
      self->exception = std::current_exception();
      self->complete();
      return;
    }
    if constexpr (!std::is_void_v<T>) {
      p->set_result(&self->value);
    }
    p->frame_header.kind = frame_kind::root;
    p->frame_header.root = self;
    worker_runtime& rt = runtime();
    rt.enter(&self->context);
    rt.views().begin_root();
    rt.resume(handle_of(&p->frame_header));
  }
};

}  // namespace detail

/// Runs `fn(args...)` on `sched` and waits for it; returns its result or rethrows its exception.
/// Arguments are passed by reference to the root task and live until it completes.
///
/// `fn` and `args` are not constrained: a callable that is not a task, or arguments it cannot be
/// called with, are reported by one static_assert (core/callable_check.hpp).
template <scheduler S, typename F, typename... Args>
auto sync_wait(S& sched, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::sync_wait, void, F, Args...>()) {
    using T = typename detail::task_value<std::invoke_result_t<F, Args...>>::type;
    if (current_worker() != nullptr) {
      throw std::logic_error(
          "tine::sync_wait: called on a worker thread, which would block it; inside a task use "
          "co_await tine::call(&result, fn, args...) instead");
    }
    detail::root_job<T, F, Args...> job(std::forward<F>(fn), std::forward<Args>(args)...);
    job.context.scheduler.emplace(sched);
    sched.schedule(&job);
    job.wait();
    if (job.exception) {
      std::rethrow_exception(job.exception);
    }
    if constexpr (!std::is_void_v<T>) {
      return std::move(job.value);
    }
  } else {
    detail::explain_refusal<F, Args...>();
  }
}

}  // namespace tine

#endif  // TINE_CORE_SYNC_WAIT_HPP
