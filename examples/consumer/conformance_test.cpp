// A user's scheduler checked by tine's conformance kit through its GoogleTest adapter, in the
// user's own workspace: the test depends on @tine//testing:conformance_gtest and
// @tine_gtest//:gtest_main (WORKSPACE: tine_testing_dependencies()).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/testing/conformance_gtest.hpp>

namespace {

// A tiny scheduler written here: N workers, submissions go to worker 0's queue; each worker runs
// one submission, then tries one steal from every worker, its own deque first.
class tiny_pool {
 public:
  explicit tiny_pool(std::size_t n) {
    if (n == 0) {
      throw std::invalid_argument("tiny_pool: needs at least one worker");
    }
    for (std::size_t i = 0; i < n; ++i) {
      m_contexts.push_back(std::make_unique<tine::worker_context>());
    }
    for (std::size_t i = 0; i < n; ++i) {
      m_threads.emplace_back([this, i] { loop(i); });
    }
  }

  tiny_pool(const tiny_pool&) = delete;
  tiny_pool& operator=(const tiny_pool&) = delete;

  ~tiny_pool() {
    m_stop.store(true, std::memory_order_release);
    for (auto& t : m_threads) {
      t.join();
    }
  }

  void schedule(tine::submit_node* node) { m_contexts[0]->submit(node); }

 private:
  void loop(std::size_t me) {
    tine::worker_context& ctx = *m_contexts[me];
    ctx.bind();
    for (;;) {
      const bool ran = me == 0 && ctx.run_one_submission();
      bool stole = false;
      for (std::size_t k = 0; k < m_contexts.size() && !stole; ++k) {
        stole = ctx.steal_from(*m_contexts[(me + k) % m_contexts.size()]) ==
                tine::steal_status::success;
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
  std::atomic<bool> m_stop{false};
};

static_assert(tine::scheduler<tiny_pool>);

TEST(TinyPool, Conforms) {
  tiny_pool pool(2);
  EXPECT_TRUE(tine::testing::gtest::expect_conformance(pool, {.workers = 2}));
}

TEST(BusyPool, Conforms) {
  tine::busy_pool<> pool(2);
  EXPECT_TRUE(tine::testing::gtest::expect_conformance(pool, {.workers = 2}));
}

}  // namespace
