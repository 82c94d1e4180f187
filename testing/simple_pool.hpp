#ifndef TINE_TESTING_SIMPLE_POOL_HPP
#define TINE_TESTING_SIMPLE_POOL_HPP

/// \file simple_pool.hpp
/// A deliberately small scheduler written only against tine's public core API, the way a user
/// would write one: N threads, one worker_context each, one shared submission queue, random
/// victims (after its own deque), a steal attempt after each submission, spinning with a yield
/// when idle. Tests use it to exercise stealing without depending on tine's own pools, and the
/// conformance kit checks it like any other scheduler.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>

namespace tine::testing {

/// A minimal scheduler written the way a user would (see the file comment).
class simple_pool {
 public:
  explicit simple_pool(std::size_t n) {
    if (n == 0) {
      throw std::invalid_argument("simple_pool: needs at least one worker");
    }
    for (std::size_t i = 0; i < n; ++i) {
      m_contexts.push_back(std::make_unique<worker_context>());
      m_contexts.back()->set_worker_count(n);
    }
    m_threads.reserve(n);
    try {
      for (std::size_t i = 0; i < n; ++i) {
        m_threads.emplace_back([this, i] { loop(i); });
      }
    } catch (...) {
      stop();  // the system refused a thread: stop those that started, then report
      throw;
    }
  }

  simple_pool(const simple_pool&) = delete;
  simple_pool& operator=(const simple_pool&) = delete;

  ~simple_pool() { stop(); }

  void schedule(submit_node* node) {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(node);
  }

  std::size_t size() const noexcept { return m_contexts.size(); }

 private:
  void stop() noexcept {
    m_stop.store(true, std::memory_order_release);
    for (auto& t : m_threads) {
      t.join();
    }
  }

  submit_node* take() {
    std::lock_guard lock(m_mutex);
    if (m_queue.empty()) {
      return nullptr;
    }
    submit_node* n = m_queue.front();
    m_queue.pop_front();
    return n;
  }

  void loop(std::size_t me) {
    worker_context& ctx = *m_contexts[me];
    ctx.bind();
    std::uint64_t rng = 0x9e3779b97f4a7c15ULL * (me + 1);
    submit_node* pending = nullptr;
    for (;;) {
      // A submission, then a steal attempt, in turn: a task resubmitting itself in a loop must
      // not starve the continuations in the deques (nor the other way round).
      bool ran = false;
      if (submit_node* n = pending != nullptr ? std::exchange(pending, nullptr) : take()) {
        try {
          ctx.run_submitted(n);
          ran = true;
        } catch (const std::bad_alloc&) {
          pending = n;  // not run (no memory for a spare stack now): this worker tries it again
        }
      }
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      // Our own deque first: a task that moved away with resume_on may have left its parent's
      // continuation there, and then we find it on this very attempt rather than by chance.
      worker_context& victim = ctx.deque_size() != 0 ? ctx : *m_contexts[rng % m_contexts.size()];
      if (ctx.steal_from(victim) == steal_status::success || ran) {
        continue;
      }
      if (m_stop.load(std::memory_order_acquire) && pending == nullptr) {
        break;
      }
      std::this_thread::yield();
    }
    ctx.unbind();
  }

  std::vector<std::unique_ptr<worker_context>> m_contexts;
  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::deque<submit_node*> m_queue;
  std::atomic<bool> m_stop{false};
};

static_assert(scheduler<simple_pool>);

}  // namespace tine::testing

#endif  // TINE_TESTING_SIMPLE_POOL_HPP
