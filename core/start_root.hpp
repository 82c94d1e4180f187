#ifndef TINE_CORE_START_ROOT_HPP
#define TINE_CORE_START_ROOT_HPP

/// \file start_root.hpp
/// How a root task starts on the worker that took its submission (sync_wait's, spawn's): made,
/// told where its result and its end go, and run on the worker's empty stack inside its root's
/// context.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <exception>
#include <type_traits>
#include <utility>

#include <tine/core/cancelled.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/root_sink.hpp>
#include <tine/core/task.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine::detail {

/// Runs `make()`, which returns the root's `task<T>`, as the root of `sink` on the calling worker,
/// its value written to `*result` (ignored for void). If making it throws (no memory for the
/// frame, an argument's copy threw), the sink completes with that exception: reported, not hung.
template <typename T, typename Make>
void start_root(root_sink* sink, [[maybe_unused]] T* result, Make&& make) {
  promise<std::remove_const_t<T>>* p = nullptr;
  try {
    auto t = make();
    p = task_access::release(t);
  } catch (...) {
    sink->exception = std::current_exception();
    sink->complete();
    return;
  }
  if constexpr (!std::is_void_v<T>) {
    p->set_result(result);
  }
  p->frame_header.kind = frame_kind::root;
  p->frame_header.root = sink;
  worker_runtime& rt = runtime();
  rt.enter(&sink->context);
  rt.strands().begin_root();
  rt.resume(handle_of(&p->frame_header));
}

/// Starts the root a submission carries (sync_wait's job, spawn's state: a `root_sink` and a
/// `submit_node` with a `value` for a non-void T): a root stopped before it started never starts
/// and ends with `tine::cancelled`; otherwise `start_root` with its value as the result.
template <typename T, typename Root, typename Make>
void start_submitted_root(Root* self, Make&& make) {
  // acquire, as every reader of the stop flag: it pairs with request_stop's exchange.
  if (self->context.stop.load(std::memory_order_acquire)) {
    self->exception = std::make_exception_ptr(cancelled());
    self->complete();
    return;
  }
  T* result = nullptr;
  if constexpr (!std::is_void_v<T>) {
    result = &self->value;
  }
  start_root<T>(self, result, std::forward<Make>(make));
}

}  // namespace tine::detail

#endif  // TINE_CORE_START_ROOT_HPP
