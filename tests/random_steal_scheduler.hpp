#ifndef TINE_TESTS_RANDOM_STEAL_SCHEDULER_HPP
#define TINE_TESTS_RANDOM_STEAL_SCHEDULER_HPP

// A scheduler whose steals are decided by coin flips instead of timing: each worker has a
// tine::worker_backend installed that asks for an offer at every fork, and every continuation
// offered is, with the given probability, handed at once to a shared pool from which any idle
// worker takes it and runs it with resume_stolen; the others stay with their worker, which takes
// them back as usual, or, when it is idle (their child ended on another worker), steals them
// from itself, newest first and before any other work, as a pool's worker takes back its own
// deque's. So a run steals a large, random share of its continuations, at every depth, whatever
// the machine's load: the steal paths (stolen strands, implicit joins, joins that suspend, merged
// views) run far more often than on a pool, where steals depend on idle workers.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/worker_context.hpp>

namespace tine_test {

class random_steal_scheduler {
 public:
  // `workers` threads; each continuation is handed over with probability `steal_probability`.
  random_steal_scheduler(std::size_t workers, double steal_probability, std::uint64_t seed)
      : m_probability(steal_probability) {
    for (std::size_t i = 0; i < workers; ++i) {
      m_workers.push_back(std::make_unique<worker>(this, seed * 1000 + i));
    }
    for (auto& w : m_workers) {
      w->thread = std::thread([this, me = w.get()] { run(*me); });
    }
    for (auto& w : m_workers) {
      while (!w->started.load(std::memory_order_acquire)) {
        std::this_thread::yield();
      }
    }
  }

  ~random_steal_scheduler() {
    m_stop.store(true, std::memory_order_release);
    for (auto& w : m_workers) {
      w->thread.join();
    }
  }

  random_steal_scheduler(const random_steal_scheduler&) = delete;
  random_steal_scheduler& operator=(const random_steal_scheduler&) = delete;

  void schedule(tine::submit_node* node) noexcept {
    const std::size_t i = m_next.fetch_add(1, std::memory_order_relaxed) % m_workers.size();
    m_workers[i]->context.submit(node);
  }

  // Continuations handed over and run by a worker (each a steal in the join's counting).
  std::uint64_t steals() const { return m_steals.load(); }

 private:
  struct worker;

  // The owner's side: a stack of the continuations it offered, each marked if handed over.
  class coin_queue final : public tine::worker_backend {
   public:
    coin_queue(random_steal_scheduler* owner, std::uint64_t seed) : m_owner(owner), m_rng(seed) {}

    // Takes every fork's continuation: asks for the next offer each time.
    bool offer(tine::detail::frame* parent, void*,
               tine::deque<tine::detail::frame*>& /*continuations*/) override {
      const bool give = std::bernoulli_distribution(m_owner->m_probability)(m_rng);
      // A push after a pop reuses the slot the pop freed: no allocation, so it cannot throw.
      m_stack.push_back({parent, give});
      if (give) {
        m_owner->hand_over(parent);  // from here another worker may run it
      }
      tine::current_worker()->request_offer();
      return true;
    }

    // The owner, idle: the newest continuation it still holds (its child ended elsewhere), taken
    // back as a steal (the slot stays, marked, for the pop that pairs with its push). Newest
    // first, as worker_context::steal_from takes a worker's own: the continuation a returning
    // child takes back must be the one its own fork pushed.
    tine::detail::frame* take_newest() noexcept {
      for (auto e = m_stack.rbegin(); e != m_stack.rend(); ++e) {
        if (!e->given) {
          e->given = true;
          return e->frame;
        }
      }
      return nullptr;
    }

    tine::detail::frame* take_back() noexcept override {
      if (m_stack.empty()) {
        return nullptr;
      }
      const entry e = m_stack.back();
      m_stack.pop_back();
      if (e.given) {
        return nullptr;
      }
      return e.frame;
    }

   private:
    struct entry {
      tine::detail::frame* frame;
      bool given;
    };
    random_steal_scheduler* m_owner;
    std::mt19937_64 m_rng;
    std::vector<entry> m_stack;
  };

  struct worker {
    worker(random_steal_scheduler* owner, std::uint64_t seed)
        : context(1024, /*unshared=*/true), queue(owner, seed) {}
    tine::worker_context context;
    coin_queue queue;
    std::thread thread;
    std::atomic<bool> started{false};
  };

  void hand_over(tine::detail::frame* f) {
    std::lock_guard lock(m_mutex);  // release: the frame as the pusher left it
    m_given.push_back(f);
  }

  tine::detail::frame* take_given() {
    std::lock_guard lock(m_mutex);  // acquire: pairs with hand_over
    if (m_given.empty()) {
      return nullptr;
    }
    tine::detail::frame* f = m_given.front();
    m_given.pop_front();
    return f;
  }

  void run(worker& w) {
    w.context.set_worker_count(m_workers.size());
    w.context.bind();
    w.context.set_backend(&w.queue);
    w.context.request_offer();  // the queue then asks again at every offer
    w.started.store(true, std::memory_order_release);
    while (!m_stop.load(std::memory_order_acquire)) {
      if (tine::detail::frame* f = w.queue.take_newest()) {
        m_steals.fetch_add(1, std::memory_order_relaxed);
        w.context.resume_stolen(f);
        continue;
      }
      if (w.context.run_one_submission()) {
        continue;
      }
      if (tine::detail::frame* f = take_given()) {
        m_steals.fetch_add(1, std::memory_order_relaxed);
        w.context.resume_stolen(f);
        continue;
      }
      std::this_thread::yield();
    }
    w.context.set_backend(nullptr);
    w.context.unbind();
  }

  double m_probability;
  std::vector<std::unique_ptr<worker>> m_workers;
  std::mutex m_mutex;
  std::deque<tine::detail::frame*> m_given;
  std::atomic<std::size_t> m_next{0};
  std::atomic<std::uint64_t> m_steals{0};
  std::atomic<bool> m_stop{false};
};

static_assert(tine::scheduler<random_steal_scheduler>);

}  // namespace tine_test

#endif  // TINE_TESTS_RANDOM_STEAL_SCHEDULER_HPP
