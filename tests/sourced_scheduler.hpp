#ifndef TINE_TESTS_SOURCED_SCHEDULER_HPP
#define TINE_TESTS_SOURCED_SCHEDULER_HPP

// A one-worker scheduler for tests whose worker thread installs a stacklet source before it
// creates its context, as a scheduler that wants its frames in particular memory does (the
// distributed pool's worker, in the uni-address region): the context's first stacks and every
// stacklet its tasks grow come from the source.

#include <atomic>
#include <thread>

#include <tine/core/concepts.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>

namespace tine_test {

class sourced_scheduler {
 public:
  explicit sourced_scheduler(const tine::detail::stacklet_source* source)
      : m_thread([this, source] { loop(source); }) {
    while (!m_ready.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
  }
  ~sourced_scheduler() {
    m_stop.store(true, std::memory_order_release);
    m_thread.join();
  }
  sourced_scheduler(const sourced_scheduler&) = delete;
  sourced_scheduler& operator=(const sourced_scheduler&) = delete;

  void schedule(tine::submit_node* node) noexcept {
    m_context.load(std::memory_order_acquire)->submit(node);
  }

 private:
  void loop(const tine::detail::stacklet_source* source) {
    tine::detail::set_stacklet_source(source);
    {
      tine::worker_context context(1024, /*unshared=*/true);
      context.bind();
      m_context.store(&context, std::memory_order_release);
      m_ready.store(true, std::memory_order_release);
      while (!m_stop.load(std::memory_order_acquire)) {
        if (!context.run_one_submission()) {
          std::this_thread::yield();
        }
      }
      context.unbind();
    }
    tine::detail::set_stacklet_source(nullptr);
  }

  std::atomic<tine::worker_context*> m_context{nullptr};
  std::atomic<bool> m_ready{false};
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

static_assert(tine::scheduler<sourced_scheduler>);

}  // namespace tine_test

#endif  // TINE_TESTS_SOURCED_SCHEDULER_HPP
