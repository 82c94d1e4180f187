#ifndef TINE_CORE_ROOT_SINK_HPP
#define TINE_CORE_ROOT_SINK_HPP

/// \file root_sink.hpp
/// Where a root task (started by sync_wait or spawn) reports that it finished, and the context
/// its tasks share (root_context.hpp: whether they were asked to stop).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <condition_variable>
#include <exception>
#include <mutex>

#include <tine/core/root_context.hpp>

namespace tine::detail {

struct root_sink {
  std::exception_ptr exception;
  root_context context;

  /// Called once by the worker that finishes the root task, after its frame is freed.
  void complete() noexcept { m_complete(this); }

 protected:
  explicit root_sink(void (*complete)(root_sink*) noexcept) noexcept : m_complete(complete) {}
  ~root_sink() = default;
  root_sink(const root_sink&) = delete;
  root_sink& operator=(const root_sink&) = delete;

 private:
  void (*m_complete)(root_sink*) noexcept;
};

/// A sink a thread waits on: sync_wait's.
struct waiting_sink : root_sink {
  waiting_sink() noexcept : root_sink(&waiting_sink::on_complete) {}

  /// Whether complete() was called (a scheduler that runs the root on the waiting thread polls).
  bool done() noexcept {
    std::lock_guard lock(m_mutex);
    return m_done;
  }

  void wait() noexcept {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return m_done; });
  }

 private:
  static void on_complete(root_sink* sink) noexcept {
    auto* self = static_cast<waiting_sink*>(sink);
    // Notify while holding the lock: the waiter cannot return (and destroy this object, which
    // lives on its stack) until we have released it.
    std::lock_guard lock(self->m_mutex);
    self->m_done = true;
    self->m_cv.notify_one();
  }

  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_done = false;
};

}  // namespace tine::detail

#endif  // TINE_CORE_ROOT_SINK_HPP
