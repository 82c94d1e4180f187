// Schedulers that each break one rule of docs/extending.md on purpose, for the conformance kit
// to reject (broken_scheduler_probe.cpp, kit_rejects_* tests). They share toy_pool, a correct
// small pool whose parts the broken ones replace: N workers, one shared queue under a mutex,
// one submission then one steal attempt (own deque first, then the others), yield when idle.
#ifndef TINE_TESTS_SCHEDULERS_BROKEN_SCHEDULERS_HPP
#define TINE_TESTS_SCHEDULERS_BROKEN_SCHEDULERS_HPP

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/worker_context.hpp>

namespace broken {

// What a broken pool does differently in its workers' loop.
struct quirks {
  bool steals_from_itself = true;
  bool steals_from_others = true;
  bool submissions_first = false;  // after a submission, take the next one before any steal
};

class toy_pool {
 public:
  explicit toy_pool(std::size_t n, quirks q = {}) : m_quirks(q) {
    for (std::size_t i = 0; i < n; ++i) {
      m_contexts.push_back(std::make_unique<tine::worker_context>());
    }
    m_busy = std::make_unique<std::atomic<bool>[]>(n);
    for (std::size_t i = 0; i < n; ++i) {
      m_threads.emplace_back([this, i] { loop(i); });
    }
  }

  toy_pool(const toy_pool&) = delete;
  toy_pool& operator=(const toy_pool&) = delete;

  ~toy_pool() {
    m_stop.store(true, std::memory_order_release);
    for (auto& t : m_threads) {
      t.join();
    }
  }

  void schedule(tine::submit_node* node) { push(node); }

 protected:
  // Returns the queue's length after the push.
  std::size_t push(tine::submit_node* node) {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(node);
    return m_queue.size();
  }

  std::size_t queued() {
    std::lock_guard lock(m_mutex);
    return m_queue.size();
  }

  // The worker index of the calling thread, or -1.
  long worker_index() const {
    const tine::worker_context* me = tine::current_worker();
    for (std::size_t i = 0; i < m_contexts.size(); ++i) {
      if (m_contexts[i].get() == me) {
        return static_cast<long>(i);
      }
    }
    return -1;
  }

  // Whether worker i is running a piece of work.
  bool busy(std::size_t i) const { return m_busy[i].load(std::memory_order_acquire); }
  // How many nodes workers have taken from the queue.
  std::size_t taken() const { return m_taken.load(std::memory_order_acquire); }

 private:
  tine::submit_node* take() {
    std::lock_guard lock(m_mutex);
    if (m_queue.empty()) {
      return nullptr;
    }
    tine::submit_node* n = m_queue.front();
    m_queue.pop_front();
    m_taken.fetch_add(1, std::memory_order_release);
    return n;
  }

  void loop(std::size_t me) {
    tine::worker_context& ctx = *m_contexts[me];
    ctx.bind();
    for (;;) {
      bool ran = false;
      if (tine::submit_node* n = take()) {
        m_busy[me].store(true, std::memory_order_release);
        ctx.run_submitted(n);
        m_busy[me].store(false, std::memory_order_release);
        ran = true;
        if (m_quirks.submissions_first) {
          continue;
        }
      }
      bool stole = false;
      for (std::size_t k = 0; k < m_contexts.size() && !stole; ++k) {
        if ((k == 0 && !m_quirks.steals_from_itself) || (k != 0 && !m_quirks.steals_from_others)) {
          continue;
        }
        m_busy[me].store(true, std::memory_order_release);
        stole = ctx.steal_from(*m_contexts[(me + k) % m_contexts.size()]) ==
                tine::steal_status::success;
        m_busy[me].store(false, std::memory_order_release);
      }
      if (ran || stole) {
        continue;
      }
      if (m_stop.load(std::memory_order_acquire) && queued() == 0 && ctx.deque_size() == 0) {
        break;
      }
      std::this_thread::yield();
    }
    ctx.unbind();
  }

  quirks m_quirks;
  std::vector<std::unique_ptr<tine::worker_context>> m_contexts;
  std::unique_ptr<std::atomic<bool>[]> m_busy;
  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::deque<tine::submit_node*> m_queue;
  std::atomic<std::size_t> m_taken{0};
  std::atomic<bool> m_stop{false};
};

// The correct pool, so that the probe shows the kit passes what the others break.
class correct_pool : public toy_pool {
 public:
  using toy_pool::toy_pool;
};

// Breaks "schedule may be called from any thread at once, including from the scheduler's own
// workers": called on a worker, schedule waits for that worker to finish what it runs (itself).
class waits_for_own_worker : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    const long me = worker_index();
    while (me >= 0 && busy(static_cast<std::size_t>(me))) {
      std::this_thread::yield();
    }
    push(node);
  }
};

// Breaks "schedule must not block for long": it hands the node over, waiting until a worker
// has taken it.
class handoff : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    const std::size_t ticket = m_pushed.fetch_add(1) + 1;
    push(node);
    while (taken() < ticket) {
      std::this_thread::yield();
    }
  }

 private:
  std::atomic<std::size_t> m_pushed{0};
};

// Breaks "schedule must not run the node on the calling thread": on a worker, it runs the node
// at once.
class eager : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    if (worker_index() >= 0) {
      node->run(node);
      return;
    }
    push(node);
  }
};

// Breaks "every node must eventually run exactly once": every node is queued twice.
class duplicating : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    push(node);
    push(node);
  }
};

// Breaks the same rule the other way: a node that finds 8 queued is dropped.
class lossy : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    if (queued() < 8) {
      push(node);
    }
  }
};

// Breaks "every node must run on a thread bound to one of the scheduler's worker_contexts":
// a thread per node, never bound.
class thread_per_node : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    std::thread([node] { node->run(node); }).detach();
  }
};

// Breaks "the workers must keep stealing from each other": each steals from itself only.
class never_steals_from_others : public toy_pool {
 public:
  explicit never_steals_from_others(std::size_t n) : toy_pool(n, {.steals_from_others = false}) {}
};

// Breaks "the workers must keep stealing from themselves": each steals from the others only.
class never_steals_from_itself : public toy_pool {
 public:
  explicit never_steals_from_itself(std::size_t n) : toy_pool(n, {.steals_from_itself = false}) {}
};

// Breaks "submissions must not starve continuations": while there are submissions, a worker
// takes them and never looks at the deques.
class submissions_first : public toy_pool {
 public:
  explicit submissions_first(std::size_t n) : toy_pool(n, {.submissions_first = true}) {}
};

// Breaks "schedule may throw only if it did not take the node": a bounded queue that checks
// its bound after queuing the node. The bound is above the external-threads check's 6 roots, so
// only the check made for this rule (16 roots while the workers are busy) reaches it: a lower
// bound was sometimes reached first by an earlier check, whose failure then named its own rule.
class throws_after_queuing : public toy_pool {
 public:
  using toy_pool::toy_pool;
  void schedule(tine::submit_node* node) {
    if (push(node) > 10) {
      throw std::length_error("throws_after_queuing: queue full");
    }
  }
};

static_assert(tine::scheduler<correct_pool> && tine::scheduler<waits_for_own_worker> &&
              tine::scheduler<handoff> && tine::scheduler<eager> && tine::scheduler<duplicating> &&
              tine::scheduler<lossy> && tine::scheduler<thread_per_node> &&
              tine::scheduler<never_steals_from_others> &&
              tine::scheduler<never_steals_from_itself> && tine::scheduler<submissions_first> &&
              tine::scheduler<throws_after_queuing>);

}  // namespace broken

#endif  // TINE_TESTS_SCHEDULERS_BROKEN_SCHEDULERS_HPP
