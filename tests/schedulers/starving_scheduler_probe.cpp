// A scheduler that breaks one rule on purpose, for the conformance kit to catch: its single worker
// runs a submission whenever there is one, and looks at its deque only when the queue is empty, so
// submissions starve continuations. Not a test on its own: kit_rejects_starving_scheduler_test
// runs this binary and expects it to fail with the kit's message naming the rule, in seconds.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include <tine/core/concepts.hpp>
#include <tine/core/context.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/testing/scheduler_conformance.hpp>

namespace {

class submissions_first {
 public:
  submissions_first() : m_thread([this] { loop(); }) {}

  submissions_first(const submissions_first&) = delete;
  submissions_first& operator=(const submissions_first&) = delete;

  ~submissions_first() {
    m_stop.store(true, std::memory_order_release);
    m_thread.join();
  }

  void schedule(tine::submit_node* node) noexcept { m_context.submit(node); }

 private:
  void loop() {
    m_context.bind();
    for (;;) {
      if (m_context.run_one_submission()) {
        continue;  // the defect: the deque waits as long as submissions keep coming
      }
      if (m_context.steal_from(m_context) == tine::steal_status::success) {
        continue;
      }
      // acquire: pairs with the destructor's store (nothing else to order, but a stopping worker
      // should not act on older state).
      if (m_stop.load(std::memory_order_acquire) && !m_context.has_submissions() &&
          m_context.deque_size() == 0) {
        break;
      }
      std::this_thread::yield();
    }
    m_context.unbind();
  }

  tine::worker_context m_context{1024, /*unshared=*/true};  // one worker: nobody else steals
  std::atomic<bool> m_stop{false};
  std::thread m_thread;  // last: it uses the members above
};

static_assert(tine::scheduler<submissions_first>);

}  // namespace

BOOST_AUTO_TEST_CASE(submissions_first_breaks_the_resubmission_rule) {
  submissions_first s;
  // It is a working scheduler otherwise: these pass, so the one failure below is the rule's.
  tine::testing::check_fork_join(s);
  tine::testing::check_explicit_scheduling(s);
  tine::testing::check_resubmission(s, 1, std::chrono::milliseconds(1000));
}
