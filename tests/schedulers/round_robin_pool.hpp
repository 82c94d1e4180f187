// A scheduler written the way a user would, against tine's public core API only: the example of
// docs/extending.md (between the [docs:round_robin_pool] markers), checked by the conformance kit.
#ifndef TINE_TESTS_SCHEDULERS_ROUND_ROBIN_POOL_HPP
#define TINE_TESTS_SCHEDULERS_ROUND_ROBIN_POOL_HPP

// clang-format off
// [docs:round_robin_pool]
#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>

// N workers; submissions are dealt round-robin into the workers' own queues; a worker runs one
// submission (when its own deque is empty), then tries its own deque and the others in turn, and
// yields when it found nothing.
class round_robin_pool {
 public:
  explicit round_robin_pool(std::size_t n) {
    if (n == 0) {
      throw std::invalid_argument("round_robin_pool: needs at least one worker");
    }
    for (std::size_t i = 0; i < n; ++i) {
      m_contexts.push_back(std::make_unique<tine::worker_context>());
      m_contexts.back()->set_worker_count(n);  // tasks size their work to it (the algorithms do)
    }
    for (std::size_t i = 0; i < n; ++i) {
      m_threads.emplace_back([this, i] { loop(i); });
    }
  }

  round_robin_pool(const round_robin_pool&) = delete;
  round_robin_pool& operator=(const round_robin_pool&) = delete;

  // Destroy only after every sync_wait on the pool has returned: the workers then drain what
  // is left in their queues and deques before stopping.
  ~round_robin_pool() {
    m_stop.store(true, std::memory_order_release);
    for (auto& t : m_threads) {
      t.join();
    }
  }

  // The scheduler concept: any thread, never runs the node inline.
  void schedule(tine::submit_node* node) {
    const std::size_t i = m_next.fetch_add(1, std::memory_order_relaxed) % m_contexts.size();
    m_contexts[i]->submit(node);
  }

 private:
  void loop(std::size_t me) {
    tine::worker_context& ctx = *m_contexts[me];
    ctx.bind();
    for (;;) {
      // One submission, then one continuation: a task resubmitting itself in a loop must not
      // keep its parent's continuation waiting in a deque forever. Our own deque's go first.
      const bool ran = ctx.deque_size() == 0 && ctx.run_one_submission();
      // Steal from everyone, ourselves first (resume_on may leave continuations in our deque).
      bool stole = false;
      for (std::size_t k = 0; k < m_contexts.size() && !stole; ++k) {
        tine::worker_context& victim = *m_contexts[(me + k) % m_contexts.size()];
        stole = ctx.steal_from(victim) == tine::steal_status::success;
      }
      if (ran || stole) {
        continue;
      }
      if (m_stop.load(std::memory_order_acquire) && !ctx.has_submissions() &&
          ctx.deque_size() == 0) {
        break;
      }
      std::this_thread::yield();
    }
    ctx.unbind();
  }

  std::vector<std::unique_ptr<tine::worker_context>> m_contexts;
  std::vector<std::thread> m_threads;
  std::atomic<std::size_t> m_next{0};
  std::atomic<bool> m_stop{false};
};

static_assert(tine::scheduler<round_robin_pool>);
// [docs:round_robin_pool end]
// clang-format on

#endif  // TINE_TESTS_SCHEDULERS_ROUND_ROBIN_POOL_HPP
