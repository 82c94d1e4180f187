#ifndef TINE_CORE_START_ROOT_HPP
#define TINE_CORE_START_ROOT_HPP

/// \file start_root.hpp
/// How a root task starts on the worker that took its submission (sync_wait's, spawn's): made,
/// told where its result and its end go, and run on the worker's empty stack inside its root's
/// context.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <type_traits>

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
  rt.views().begin_root();
  rt.resume(handle_of(&p->frame_header));
}

}  // namespace tine::detail

#endif  // TINE_CORE_START_ROOT_HPP
