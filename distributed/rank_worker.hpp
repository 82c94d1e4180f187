#ifndef TINE_DISTRIBUTED_RANK_WORKER_HPP
#define TINE_DISTRIBUTED_RANK_WORKER_HPP

/// \file rank_worker.hpp
/// What makes one rank's worker part of a distributed pool (internal to `tine::mpi_pool`): the
/// rank's continuations in its `rma_deque`, steals that copy a continuation's frame from another
/// rank to the same address, and the joins of frames that moved (docs/distributed.md, "Stealing
/// across ranks").
///
/// The rules it keeps:
/// - A thief takes a frame F and F's own stack allocations (frame_range.hpp: one stretch, or
///   several when F's allocations began a new stacklet); F's new children live on the thief's
///   stack.
/// - Every join of a stolen frame completes at the frame's *home*, the rank in whose slice it was
///   allocated. A child whose parent moved sends its arrival there, with its result's bytes and
///   its exception; a stolen frame that reaches its join sends its arrival there with its own
///   bytes. The home counts arrivals (Nowa's split count) and, once the count is complete, writes
///   the frame's bytes in and then the children's results, and continues the frame: at once if
///   the last arrival is its own worker's, or the next time its worker is idle if the last
///   arrival was a message. Nothing is written into the home's copy of a frame while the frame is
///   away, but the results its own children write there (which the home keeps, as patches).
/// - An exception stored in a frame is kept as a token of the rank that stored it
///   (exception_store.hpp); an exception sent with an arrival travels as its description and is
///   rebuilt with its type (exception_transport.hpp).
/// - The worker keeps its continuations in its own deque, at no cost beyond a single worker's.
///   Whenever the rank's `rma_deque` is empty, the progress thread asks the worker for an offer,
///   and at its next fork the worker moves its oldest continuation there, where other ranks can
///   steal it; one at a time, so what they find is always the continuation with the most work
///   behind it. A continuation that cannot move (its range is too large, or its child could not
///   be found on the worker's chain) is kept by the worker and taken back in its turn.

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
#include <unordered_map>
#include <utility>
#include <vector>

#include <tine/core/context.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/frame.hpp>
#include <tine/distributed/exception_store.hpp>
#include <tine/distributed/frame_range.hpp>
#include <tine/distributed/progress_thread.hpp>
#include <tine/distributed/rma_deque.hpp>
#include <tine/distributed/uni_address_region.hpp>

namespace tine::mpi::detail {

class rank_worker final : public tine::worker_backend {
 public:
  /// Collective over `comm` (it duplicates it). `region`, `deque` and `context` are this rank's
  /// and outlive the rank_worker. Starts the rank's progress thread, which receives arrivals
  /// (and, by entering MPI, makes one-sided operations aimed at this rank complete).
  rank_worker(MPI_Comm comm, uni_address_region& region, rma_deque& deque, worker_context& context);

  /// Collective. Stops the thread.
  ~rank_worker();

  rank_worker(const rank_worker&) = delete;
  rank_worker& operator=(const rank_worker&) = delete;

  // tine::worker_backend, called by the core on this rank's worker.
  bool offer(tine::detail::frame* parent, void* child,
             tine::deque<tine::detail::frame*>& continuations) override;
  tine::detail::frame* take_back() noexcept override;
  bool arrive(tine::detail::frame* f, join_arrival& arrival) noexcept override;
  /// The rank's slice of the region: frames and stack allocations at the same address on every
  /// rank.
  const tine::detail::stacklet_source* stacklets() const noexcept override {
    return m_region.stacklet_source();
  }
  /// Exceptions kept as tokens any rank can read (exception_store.hpp).
  const tine::detail::exception_codec* exceptions() const noexcept override { return &m_codec; }

  /// Worker, idle: continues one frame whose join completed by a message, or runs a
  /// continuation it took back from its own deque or from the rank's. False if none.
  bool run_ready();

  /// Worker, idle: one attempt to steal from `victim`; runs what it took. False if it took none.
  bool try_steal(int victim);

  /// Every rank, after a root task's outcome is known: no frame is stolen or waiting any more.
  /// Frees what is left of the exceptions kept for frames; stops the program if a frame was left
  /// behind.
  void end_of_root() noexcept;

  std::uint64_t steals() const noexcept { return m_steals; }
  std::uint64_t pieced_steals() const noexcept { return m_pieced_steals; }
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
  /// Bytes to write at an address of this rank's (a child's result, or a piece of a frame that
  /// comes home).
  struct patch {
    std::byte* at;
    std::vector<std::byte> bytes;
  };
  /// A frame of this rank stolen in its current scope: the arrivals counted so far (Nowa's count
  /// goes up from 0 to I_max here), the frame's bytes when they come home, the results to write
  /// into it after them, the first exception.
  struct join_record {
    std::uint64_t count = 0;
    std::vector<patch> frame_bytes;
    std::vector<patch> results;
    std::exception_ptr exception;
  };
  /// A frame this worker stole and holds: the item it came with (which this worker offers again
  /// if it forks), and its pieces, which go home with it.
  struct held_frame {
    std::uint64_t item;
    std::vector<range_piece> pieces;
  };

  int home_of(const tine::detail::frame* f) const noexcept { return m_region.home_rank(f); }

  /// The rank's deque's item for `f`'s continuation, whose running child is `child`; nothing
  /// when its range is too large to move.
  std::optional<std::uint64_t> item_for(tine::detail::frame* f, const void* child);

  /// Under m_mutex: adds an arrival to `f`'s record; when that completes the count, returns the
  /// record (erased from the table).
  std::optional<join_record> count_at_home(tine::detail::frame* f, std::uint64_t strands,
                                           std::vector<patch> frame_bytes,
                                           std::optional<patch> result,
                                           std::exception_ptr exception);

  /// Worker: a complete record goes into its frame (bytes, then results, then the exception).
  static void apply(tine::detail::frame* f, join_record& record) noexcept;

  /// Sends an arrival at `f`'s join to its home.
  void send_arrival(tine::detail::frame* f, std::uint32_t strands, const void* result,
                    std::uint32_t result_bytes, const std::vector<range_piece>& pieces,
                    const std::exception_ptr& exception);

  void receive(const MPI_Status& status);  // on the progress thread

  std::uintptr_t encode(std::exception_ptr e) noexcept;
  std::exception_ptr decode(std::uintptr_t token) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_size = 1;
  uni_address_region& m_region;
  rma_deque& m_deque;
  worker_context& m_context;
  tine::detail::exception_codec m_codec;
  exception_store m_exceptions;  // worker thread, but release()

  std::mutex m_mutex;  // the records and the ready frames
  std::unordered_map<tine::detail::frame*, join_record> m_records;
  std::deque<std::pair<tine::detail::frame*, join_record>> m_ready;

  // Worker only.
  std::unordered_map<tine::detail::frame*, held_frame> m_held;
  /// Continuations taken by offer() that could not go into the rank's deque, newest last: all
  /// older than the rank's deque's.
  std::vector<tine::detail::frame*> m_kept;

  std::uint64_t m_steals = 0;
  std::uint64_t m_pieced_steals = 0;
  std::uint64_t m_attempts = 0;
  std::uint64_t m_bytes = 0;
  std::uint64_t m_remote_joins = 0;
  std::vector<std::uint32_t> m_latencies;
  // relaxed: statistics; the progress thread counts too.
  std::atomic<std::uint64_t> m_region_operations{0};

  /// Roots ended so far (written by the worker under m_mutex): a release message names the root
  /// its token was taken in.
  std::uint64_t m_generation = 0;
  /// How long the progress thread sleeps between two entries into MPI (`TINE_MPI_PROGRESS_US`
  /// overrides it): shorter makes steals and remote joins faster, and preempts the rank's worker
  /// more often where the rank has no core to spare (bench/README.md has the trade-off measured).
  std::chrono::microseconds m_interval{200};
  std::optional<progress_thread> m_progress;  // last: it calls receive() until it is gone
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_RANK_WORKER_HPP
