#include <tine/distributed/progress_thread.hpp>

#include <sys/prctl.h>
#include <time.h>

#include <cstdlib>
#include <utility>

namespace tine::mpi {

progress_thread::progress_thread(MPI_Comm comm, std::chrono::microseconds interval) {
  MPI_Comm_dup(comm, &m_comm);
  m_owns_comm = true;
  const char* async = std::getenv("MPICH_ASYNC_PROGRESS");
  if (async != nullptr && async[0] == '1') {
    return;
  }
  m_thread = std::thread([this, interval] { run(interval); });
}

progress_thread::progress_thread(MPI_Comm comm, std::chrono::microseconds interval,
                                 message_handler on_message, poll_handler on_poll)
    : m_comm(comm), m_on_message(std::move(on_message)), m_on_poll(std::move(on_poll)) {
  m_thread = std::thread([this, interval] { run(interval); });
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

void progress_thread::run(std::chrono::microseconds interval) {
  // Linux delays a sleeping thread's wake-up by up to its timer slack (50 us by default) to batch
  // wake-ups; the interval is the point here, so take a slack of 1 us.
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  const timespec pause{static_cast<time_t>(interval.count() / 1000000),
                       static_cast<long>(interval.count() % 1000000) * 1000L};
  std::chrono::steady_clock::time_point hurry_until{};
  while (!m_stop.load(std::memory_order_relaxed)) {
    int flag = 0;
    MPI_Status status;
    // Entering MPI is what completes the one-sided operations other ranks aim at this rank.
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m_comm, &flag, &status);
    m_polls.fetch_add(1, std::memory_order_relaxed);
    if (flag != 0 && m_on_message) {
      m_on_message(status);
      continue;  // more may be waiting: look again before sleeping
    }
    if (m_on_poll && m_on_poll()) {
      hurry_until = std::chrono::steady_clock::now() + burst;
    }
    if (std::chrono::steady_clock::now() < hurry_until) {
      continue;  // a steal is under way here: its next operation is coming
    }
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace tine::mpi
