#ifndef TINE_DISTRIBUTED_FOUNDATION_PROGRESS_THREAD_HPP
#define TINE_DISTRIBUTED_FOUNDATION_PROGRESS_THREAD_HPP

/// \file progress_thread.hpp
/// Makes one-sided MPI operations aimed at this rank complete while its worker computes, and
/// (optionally) receives the messages other ranks send it meanwhile.
///
/// A thief steals from a busy victim with MPI_Get and atomics on the victim's windows, and the
/// victim's worker, following the work-first principle, makes no MPI call on its fork/join fast
/// path. MPI libraries on one machine mostly complete such operations only when the target
/// process itself enters MPI (measured for MPICH 4.0 and Open MPI 4.1 in
/// docs/distributed_internals.md), so without help a steal would wait for the victim's next MPI
/// call, which may be never. This thread enters MPI every `interval` and sleeps in between: a steal
/// waits at most about one interval for each of its operations, and the thread costs a wake-up per
/// interval instead of the spinning core of MPICH's own asynchronous progress thread.
///
/// `tine::mpi_pool` runs one per rank with a message handler: the same entry into MPI that
/// completes thieves' operations also receives the arrivals at the joins of frames that moved.
/// The rank's idle workers poll too (`poll_once`), so that what comes while one of them is idle
/// (an arrival that completes a join, a thief's operations) waits for no interval.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

namespace tine::mpi::detail {

class progress_thread {
 public:
  static constexpr std::chrono::microseconds default_interval{20};

  /// Called on the thread with a message found on the communicator; it must receive it.
  using message_handler = std::function<void(const MPI_Status&)>;

  /// Starts polling MPI on a duplicate of `comm` (collective: MPI_Comm_dup), on which nothing is
  /// ever sent: the thread only drives MPI's progress engine. It does not start when MPICH's own
  /// asynchronous progress is on (`MPICH_ASYNC_PROGRESS=1`), which makes it unnecessary.
  explicit progress_thread(MPI_Comm comm, std::chrono::microseconds interval = default_interval);

  /// How long the thread polls without sleeping after `on_poll` returns true. Not with Open MPI:
  /// there the atomics on a shared-memory window complete without the target, and a thread
  /// spinning in MPI made the frame's fetch slower, not faster (docs/distributed_internals.md).
#if defined(OPEN_MPI)
  static constexpr std::chrono::microseconds burst{0};
#else
  static constexpr std::chrono::microseconds burst{100};
#endif

  /// Called after each poll that found no message. True: a thief has just begun a steal here
  /// and its next operations are coming (the frame's fetch), so poll again without sleeping for
  /// the next `burst`, instead of making each of them wait for the next interval.
  using poll_handler = std::function<bool()>;

  /// Polls `comm` itself (not duplicated; not collective) every `interval`, and hands each
  /// message found there to `on_message` at once, without sleeping in between; calls `on_poll`
  /// (when given) after a poll that found none, at most once an interval. Always starts.
  progress_thread(MPI_Comm comm, std::chrono::microseconds interval, message_handler on_message,
                  poll_handler on_poll = {});

  /// Stops and joins the thread (frees the duplicate, collectively, if the first form made one).
  ~progress_thread();

  progress_thread(const progress_thread&) = delete;
  progress_thread& operator=(const progress_thread&) = delete;

  /// False when MPI makes progress by itself (MPICH_ASYNC_PROGRESS=1) and no thread runs.
  bool running() const noexcept { return m_thread.joinable(); }

  /// Any thread (the second form only): polls once as the thread does (hands a message found to
  /// `on_message`; otherwise calls `on_poll` if it has not run for an interval), unless another
  /// thread is polling at that moment, in which case it does nothing. Returns true when it
  /// handled a message. `on_message` and `on_poll` must then be safe to call on any thread (one
  /// at a time).
  bool poll_once() noexcept { return poll(false) == poll_result::message; }

  /// How many times the thread, or a caller of poll_once, has entered MPI so far.
  std::uint64_t polls() const noexcept { return m_polls.load(std::memory_order_relaxed); }

  /// Of the messages handled, those handled by callers of poll_once, not by the thread.
  std::uint64_t messages_polled_by_callers() const noexcept {
    return m_caller_messages.load(std::memory_order_relaxed);
  }

 private:
  enum class poll_result { skipped, message, nothing };

  void run();
  poll_result poll(bool by_thread) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  bool m_owns_comm = false;
  message_handler m_on_message;
  poll_handler m_on_poll;
  std::chrono::microseconds m_interval{0};
  /// When `on_poll` last ran. Only under m_polling.
  std::chrono::steady_clock::time_point m_last_on_poll{};
  // relaxed is enough for both: `stop` is only a request (join() synchronises the rest), and
  // `polls` is a statistic.
  std::atomic<bool> m_stop{false};
  std::atomic<std::uint64_t> m_polls{0};
  std::atomic<std::uint64_t> m_caller_messages{0};
  /// Held by whoever polls: one thread at a time probes and receives, so that no two receive
  /// the one message both saw, and `on_poll` runs on one thread at a time. acquire when taken,
  /// release when given back: each poll sees what the previous one did.
  std::atomic<bool> m_polling{false};
  /// Until when (steady_clock ticks) the thread polls without sleeping. relaxed: a hint.
  std::atomic<std::chrono::steady_clock::rep> m_hurry_until{0};
  std::thread m_thread;
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_FOUNDATION_PROGRESS_THREAD_HPP
