// A child whose parent was stolen arrives at the parent's join with the bytes it returned
// (join_arrival::returned), kept apart from the parent's frame. A distributed pool needs them:
// the child writes its result into its own process's copy of the parent, and another worker of
// that process may overwrite that copy (stealing the parent back from another process) between
// the child's co_return and its arrival. Here a local's destructor, which runs after co_return,
// overwrites the parent's variable the same way, and a backend that (like the distributed pool)
// has a process boundary, with an exception codec, and writes the arrival's bytes into the parent,
// sees each result intact: small results (kept in the child's frame) and large ones (kept by the
// worker thread).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include <tine/core/core.hpp>

#include "tests/queued_scheduler.hpp"

namespace {

namespace d = tine::detail;

// Takes every continuation into a queue that a thief empties; its own process boundary. Each
// arrival of a child at a stolen parent writes the bytes the arrival carries into the parent, as
// the distributed pool's home does with a result patch, then counts on the frame's own counter.
class patching_queue final : public tine::worker_backend, public tine::process_boundary {
 public:
  bool offer(d::frame* parent, void* /*child*/,
             tine::deque<d::frame*>& /*continuations*/) override {
    std::lock_guard<std::mutex> hold(m_mutex);
    m_items.push_back(parent);
    tine::current_worker()->request_offer();
    return true;
  }
  d::frame* take_back() noexcept override {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      return nullptr;
    }
    d::frame* f = m_items.back();
    m_items.pop_back();
    return f;
  }
  d::frame* steal() {
    std::lock_guard<std::mutex> hold(m_mutex);
    if (m_items.empty()) {
      return nullptr;
    }
    d::frame* f = m_items.front();
    m_items.pop_front();
    return f;
  }
  bool empty() const {
    std::lock_guard<std::mutex> hold(m_mutex);
    return m_items.empty();
  }
  bool arrive(d::frame* f, tine::join_arrival& a) noexcept override {
    if (!a.frame_itself && a.result != nullptr) {
      if (a.returned != nullptr) {
        std::memcpy(const_cast<void*>(a.result), a.returned, a.result_bytes);
        m_kept.fetch_add(1, std::memory_order_relaxed);
      } else {
        m_not_kept.fetch_add(1, std::memory_order_relaxed);
      }
    }
    return tine::process_boundary::arrive(f, a);
  }
  tine::process_boundary* boundary() noexcept override { return this; }
  const d::exception_codec& exceptions() const noexcept override { return tine_test::boxing_codec; }

  std::uint64_t kept() const { return m_kept.load(); }
  std::uint64_t not_kept() const { return m_not_kept.load(); }

 private:
  mutable std::mutex m_mutex;
  std::deque<d::frame*> m_items;
  std::atomic<std::uint64_t> m_kept{0};
  std::atomic<std::uint64_t> m_not_kept{0};
};

patching_queue* the_queue = nullptr;

struct large {
  std::int64_t words[9];  // more than a frame keeps: the worker thread keeps it
};
static_assert(sizeof(large) > d::frame::returned_capacity);
static_assert(sizeof(std::int64_t) <= d::frame::returned_capacity);

// Overwrites the parent's variable when the child's body ends, after its co_return.
template <typename T>
struct overwrite_at_end {
  T* at;
  ~overwrite_at_end() { std::memset(static_cast<void*>(at), 0xAB, sizeof(T)); }
};

// Returns `value`, once its parent's continuation has been stolen (the queue is empty), then
// overwrites the parent's variable `slot` (the one it returns into).
template <typename T>
tine::task<T> child(T value, T* slot) {
  overwrite_at_end<T> later{slot};
  while (!the_queue->empty()) {
    std::this_thread::yield();
  }
  co_return value;
}

template <typename T>
tine::task<T> parent(T value) {
  T got{};
  co_await tine::fork(&got, child<T>, value, &got);
  co_await tine::join();
  co_return got;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(returned_result)

BOOST_AUTO_TEST_CASE(a_child_arrives_with_the_bytes_it_returned) {
  patching_queue queue;
  the_queue = &queue;
  {
    tine_test::queued_scheduler sched(queue, [&queue] { return queue.steal(); });
    for (std::int64_t round = 1; round <= 50; ++round) {
      BOOST_TEST(tine::sync_wait(sched, parent<std::int64_t>, round * 1000 + 7) ==
                 round * 1000 + 7);
      large l{};
      for (int i = 0; i < 9; ++i) {
        l.words[i] = round * 100 + i;
      }
      const large got = tine::sync_wait(sched, parent<large>, l);
      BOOST_TEST(std::memcmp(&got, &l, sizeof l) == 0);
    }
  }
  the_queue = nullptr;
  BOOST_TEST(queue.kept() == 100u);  // every child found its parent stolen
  BOOST_TEST(queue.not_kept() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
