#ifndef TINE_DISTRIBUTED_RANK_WORKER_HPP
#define TINE_DISTRIBUTED_RANK_WORKER_HPP

/// \file rank_worker.hpp
/// What makes one rank's worker part of a distributed pool (internal to `tine::mpi_pool`): the
/// rank's continuations in its `rma_deque`, steals that copy a continuation's frame from another
/// rank to the same address, and the joins of frames that moved (docs/distributed.md, "Stealing
/// across ranks").
///
/// The rules it keeps:
/// - A thief takes a frame F and F's own stack allocations, `[F, end of F's allocations)`, one
///   range whose size travels in the deque item; F's new children live on the thief's stack.
/// - Every join of a stolen frame completes at the frame's *home*, the rank in whose slice it was
///   allocated. A child whose parent moved sends its arrival there, with its result's bytes and
///   its exception's message; a stolen frame that reaches its join stores its bytes home and then
///   sends its own arrival. The home counts arrivals (Nowa's split count), applies the results
///   once the frame's bytes are back, and continues the frame: at once if the last arrival is its
///   own worker's, or the next time its worker is idle if the last arrival was a message.
/// - An exception stored in a frame is kept as a token (an exception codec): its message in this
///   rank's slice, which any rank can read, and the original `exception_ptr` here, so that it
///   is rethrown unchanged on this rank and as a `tine::mpi::remote_error` on any other.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <tine/core/context.hpp>
#include <tine/core/continuation_queue.hpp>
#include <tine/core/frame.hpp>
#include <tine/distributed/rma_deque.hpp>
#include <tine/distributed/uni_address_region.hpp>

namespace tine::mpi::detail {

class rank_worker final : public tine::continuation_queue {
 public:
  /// Collective over `comm` (it duplicates it). `region`, `deque` and `context` are this rank's
  /// and outlive the rank_worker. Starts the thread that receives arrivals (and, by entering MPI,
  /// makes one-sided operations aimed at this rank complete).
  rank_worker(MPI_Comm comm, uni_address_region& region, rma_deque& deque, worker_context& context);

  /// Collective. Stops the thread.
  ~rank_worker();

  rank_worker(const rank_worker&) = delete;
  rank_worker& operator=(const rank_worker&) = delete;

  // tine::continuation_queue, called by the core on this rank's worker.
  void push(tine::detail::frame* parent, void* child) override;
  std::optional<tine::detail::frame*> pop() noexcept override;
  bool arrive(tine::detail::frame* f, join_arrival& arrival) noexcept override;

  /// Worker, idle: continues one frame whose join completed by a message. False if none.
  bool run_ready();

  /// Worker, idle: one attempt to steal from `victim`; runs what it took. False if it took none.
  bool try_steal(int victim);

  /// The codec to install on the worker's thread (tine::detail::set_exception_codec).
  const tine::detail::exception_codec* codec() const noexcept { return &m_codec; }

  /// Every rank, after a root task's outcome is known: no frame is stolen or waiting any more.
  /// Forgets the exceptions kept for frames; stops the program if something was left behind.
  void end_of_root() noexcept;

  std::uint64_t steals() const noexcept { return m_steals; }
  std::uint64_t steal_attempts() const noexcept { return m_attempts; }
  std::uint64_t bytes_migrated() const noexcept { return m_bytes; }
  std::uint64_t remote_joins() const noexcept { return m_remote_joins; }
  std::uint64_t rma_operations() const noexcept {
    return m_region_operations.load(std::memory_order_relaxed);
  }
  /// How long each successful steal took, from the attempt to the frame's bytes being here, in
  /// nanoseconds (the first `max_latency_samples`).
  const std::vector<std::uint32_t>& steal_latencies() const noexcept { return m_latencies; }
  static constexpr std::size_t max_latency_samples = 1 << 16;

 private:
  struct patch {
    std::byte* at;
    std::vector<std::byte> bytes;
  };
  /// A frame of this rank stolen in its current scope: the arrivals counted so far (Nowa's count
  /// goes up from 0 to I_max here), the results to write into it, the first exception.
  struct join_record {
    std::uint64_t count = 0;
    std::vector<patch> patches;
    std::exception_ptr exception;
  };

  int home_of(const tine::detail::frame* f) const noexcept { return m_region.home_rank(f); }

  /// Under m_mutex: counts `strands` for `f`; true when the join is complete (the record is then
  /// applied to the frame and erased).
  bool count_at_home(tine::detail::frame* f, std::uint64_t strands, patch* result,
                     std::exception_ptr exception);

  /// Sends an arrival at `f`'s join to its home.
  void send_arrival(tine::detail::frame* f, std::uint32_t strands, const void* result,
                    std::uint32_t result_bytes, const std::exception_ptr& exception);

  void serve();  // the receiving thread
  void receive(const MPI_Status& status);

  std::uintptr_t encode(std::exception_ptr e) noexcept;
  std::exception_ptr decode(std::uintptr_t token) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_size = 1;
  uni_address_region& m_region;
  rma_deque& m_deque;
  worker_context& m_context;
  tine::detail::exception_codec m_codec;

  std::mutex m_mutex;  // the records, the ready frames, the exceptions kept
  std::unordered_map<tine::detail::frame*, join_record> m_records;
  std::deque<tine::detail::frame*> m_ready;
  std::unordered_map<std::uintptr_t, std::exception_ptr> m_originals;
  std::byte* m_messages = nullptr;  ///< This rank's buffer of exception messages (its slice).
  std::size_t m_messages_used = 0;

  /// Frames this worker stole and still holds, with the size of their range (worker only): a
  /// frame's range is measured once, where it forked first in its scope, and travels with it.
  std::unordered_map<tine::detail::frame*, std::uint32_t> m_held;

  std::uint64_t m_steals = 0;
  std::uint64_t m_attempts = 0;
  std::uint64_t m_bytes = 0;
  std::uint64_t m_remote_joins = 0;
  std::vector<std::uint32_t> m_latencies;
  // relaxed: statistics; the receiving thread fetches messages too.
  std::atomic<std::uint64_t> m_region_operations{0};

  /// How long the receiving thread sleeps between two entries into MPI (`TINE_MPI_PROGRESS_US`
  /// overrides it). Shorter makes steals and remote joins faster and costs the rank's worker more
  /// preemptions: on this 2-core machine, 20 us made two ranks slower than one (fib(36): 2.3x
  /// busy_pool(1)), 200 us gave 1.08x and 1.7 ms steals, 500 us 1.00x and 3.6 ms steals.
  std::chrono::microseconds m_interval{200};
  std::atomic<bool> m_stop{false};  // relaxed: a request; join() orders the rest
  std::thread m_server;
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_RANK_WORKER_HPP
