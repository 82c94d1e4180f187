#include <tine/distributed/foundation/progress_thread.hpp>

#include <sys/prctl.h>
#include <time.h>

#include <cstdlib>
#include <utility>

namespace tine::mpi::detail {

progress_thread::progress_thread(MPI_Comm comm, std::chrono::microseconds interval)
    : m_interval(interval) {
  MPI_Comm_dup(comm, &m_comm);
  m_owns_comm = true;
  const char* async = std::getenv("MPICH_ASYNC_PROGRESS");
  if (async != nullptr && async[0] == '1') {
    return;
  }
  m_thread = std::thread([this] { run(); });
}

progress_thread::progress_thread(MPI_Comm comm, std::chrono::microseconds interval,
                                 message_handler on_message, poll_handler on_poll)
    : m_comm(comm),
      m_on_message(std::move(on_message)),
      m_on_poll(std::move(on_poll)),
      m_interval(interval) {
  m_thread = std::thread([this] { run(); });
}

progress_thread::~progress_thread() {
  m_stop.store(true, std::memory_order_relaxed);
  if (m_thread.joinable()) {
    m_thread.join();
  }
  if (m_owns_comm) {
    MPI_Comm_free(&m_comm);
  }
}

void progress_thread::run() {
  // Linux delays a sleeping thread's wake-up by up to its timer slack (50 us by default) to batch
  // wake-ups; the interval is the point here, so take a slack of 1 us.
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  const timespec pause{static_cast<time_t>(m_interval.count() / 1000000),
                       static_cast<long>(m_interval.count() % 1000000) * 1000L};
  while (!m_stop.load(std::memory_order_relaxed)) {
    if (poll(true) == poll_result::message) {
      continue;  // more may be waiting: look again before sleeping
    }
    if (std::chrono::steady_clock::now().time_since_epoch().count() <
        m_hurry_until.load(std::memory_order_relaxed)) {
      continue;  // a steal is under way here: its next operation is coming
    }
    ::nanosleep(&pause, nullptr);
  }
}

progress_thread::poll_result progress_thread::poll(bool by_thread) noexcept {
  if (m_polling.exchange(true, std::memory_order_acquire)) {
    return poll_result::skipped;  // another thread is in MPI for this rank right now
  }
  int flag = 0;
  MPI_Status status;
  // Entering MPI is what completes the one-sided operations other ranks aim at this rank.
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m_comm, &flag, &status);
  m_polls.fetch_add(1, std::memory_order_relaxed);
  poll_result got = poll_result::nothing;
  if (flag != 0 && m_on_message) {
    m_on_message(status);  // receives it, before anyone probes again
    got = poll_result::message;
    if (!by_thread) {
      m_caller_messages.fetch_add(1, std::memory_order_relaxed);
    }
  } else if (m_on_poll) {
    // At most once an interval, however many idle workers poll: what it asks of busy workers
    // (an offer at their next fork, each an MPI call) must not come at every fork.
    const auto now = std::chrono::steady_clock::now();
    if (now - m_last_on_poll >= m_interval) {
      m_last_on_poll = now;
      if (m_on_poll()) {
        // Whoever saw it, the thread hurries (a worker that saw it may be busy again soon).
        m_hurry_until.store((now + burst).time_since_epoch().count(), std::memory_order_relaxed);
      }
    }
  }
  m_polling.store(false, std::memory_order_release);
  return got;
}

}  // namespace tine::mpi::detail
