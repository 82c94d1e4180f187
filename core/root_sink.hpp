#ifndef TINE_CORE_ROOT_SINK_HPP
#define TINE_CORE_ROOT_SINK_HPP

/// \file root_sink.hpp
/// Where a root task (started by sync_wait) reports that it finished.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <condition_variable>
#include <exception>
#include <mutex>

namespace tine::detail {

struct root_sink {
  std::exception_ptr exception;

  /// Called by the worker that finishes the root task, after its frame is freed.
  void complete() noexcept {
    // Notify while holding the lock: the waiter cannot return (and destroy this object, which
    // lives on its stack) until we have released it.
    std::lock_guard lock(m_mutex);
    m_done = true;
    m_cv.notify_one();
  }

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
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_done = false;
};

}  // namespace tine::detail

#endif  // TINE_CORE_ROOT_SINK_HPP
