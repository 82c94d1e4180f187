#ifndef TINE_TESTS_QUEUED_SCHEDULER_HPP
#define TINE_TESTS_QUEUED_SCHEDULER_HPP

// A scheduler for tests of worker backends: one worker whose context has a
// tine::worker_backend installed (asked for an offer at once), and optionally a thief thread
// that asks the worker for an offer, then takes continuations by the queue's own means (`steal`:
// a callable returning a frame, or null when it found none) and runs them with resume_stolen. It
// also records the largest size its worker's own deque showed between two pieces of work. And an
// exception codec for the test backends that have a process boundary, which needs one.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <utility>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/worker_context.hpp>

namespace tine_test {

// An exception codec as simple as can be: the token is a heap copy of the exception_ptr, taken
// back (once) by decode. Good for frames that stay in the process, as every test's do.
inline std::uintptr_t box_exception(void* /*self*/, std::exception_ptr e) noexcept {
  return reinterpret_cast<std::uintptr_t>(new std::exception_ptr(std::move(e)));
}
inline std::exception_ptr unbox_exception(void* /*self*/, std::uintptr_t token) noexcept {
  auto* boxed = reinterpret_cast<std::exception_ptr*>(token);
  std::exception_ptr e = std::move(*boxed);
  delete boxed;
  return e;
}
inline constexpr tine::detail::exception_codec boxing_codec{&box_exception, &unbox_exception,
                                                            nullptr};

class queued_scheduler {
 public:
  using steal_function = std::function<tine::detail::frame*()>;

  // Without `steal`, no thief thread.
  explicit queued_scheduler(tine::worker_backend& queue, steal_function steal = {})
      : m_queue(queue), m_steal(std::move(steal)) {
    m_worker = std::thread([this] { work(); });
    if (m_steal) {
      m_thief = std::thread([this] { thieve(); });
    }
    while (m_context.load(std::memory_order_acquire) == nullptr) {
      std::this_thread::yield();
    }
  }
  ~queued_scheduler() {
    m_stop.store(true, std::memory_order_release);
    m_worker.join();
    if (m_thief.joinable()) {
      m_thief.join();
    }
  }
  queued_scheduler(const queued_scheduler&) = delete;
  queued_scheduler& operator=(const queued_scheduler&) = delete;

  void schedule(tine::submit_node* node) noexcept {
    m_context.load(std::memory_order_acquire)->submit(node);
  }

  // Continuations the thief took and ran.
  std::uint64_t steals() const { return m_steals.load(); }

  // The largest size the worker's own deque showed between two pieces of work.
  std::size_t largest_own_deque() const { return m_largest_own.load(); }

  // Whether the context reported the queue as installed.
  bool queue_was_installed() const { return m_installed.load(); }

 private:
  void work() {
    tine::worker_context context(1024, tine::owner_fence::full);
    context.bind();
    context.set_backend(&m_queue);
    context.request_offer();  // the test backends then ask again at every offer
    m_installed.store(context.backend() == &m_queue);
    m_context.store(&context, std::memory_order_release);
    while (!m_stop.load(std::memory_order_acquire)) {
      if (!context.run_one_submission()) {
        std::this_thread::yield();
      }
      if (context.deque_size() > m_largest_own.load()) {
        m_largest_own.store(context.deque_size());
      }
    }
    context.set_backend(nullptr);
    context.unbind();
  }

  void thieve() {
    tine::worker_context context(1024, /*unshared=*/true);
    context.bind();
    // The thief keeps exceptions as the queue's worker does (a distributed pool's workers all
    // have its boundary's codec): a frame it resumes may store one that the worker takes, and the
    // reverse.
    const tine::detail::exception_codec* saved = tine::detail::read_tls_exception_codec();
    const bool saved_leave = tine::detail::frames_may_leave_process();
    const tine::process_boundary* boundary = m_queue.boundary();
    tine::detail::set_exception_codec(boundary != nullptr ? &boundary->exceptions() : nullptr);
    tine::detail::set_frames_leave_process(boundary != nullptr);
    tine::worker_context* worker = nullptr;
    while ((worker = m_context.load(std::memory_order_acquire)) == nullptr) {
      std::this_thread::yield();
    }
    while (!m_stop.load(std::memory_order_acquire)) {
      worker->request_offer();
      if (tine::detail::frame* f = m_steal()) {
        m_steals.fetch_add(1);
        context.resume_stolen(f);
      }
    }
    tine::detail::set_exception_codec(saved);
    tine::detail::set_frames_leave_process(saved_leave);
    context.unbind();
  }

  tine::worker_backend& m_queue;
  steal_function m_steal;
  std::atomic<tine::worker_context*> m_context{nullptr};
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_installed{false};
  std::atomic<std::size_t> m_largest_own{0};
  std::atomic<std::uint64_t> m_steals{0};
  std::thread m_worker;
  std::thread m_thief;
};

static_assert(tine::scheduler<queued_scheduler>);

}  // namespace tine_test

#endif  // TINE_TESTS_QUEUED_SCHEDULER_HPP
