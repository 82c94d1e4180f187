#ifndef TINE_DISTRIBUTED_POOL_RANK_WORKER_HPP
#define TINE_DISTRIBUTED_POOL_RANK_WORKER_HPP

/// \file rank_worker.hpp
/// What makes one rank's workers part of a distributed pool (internal to `tine::mpi_pool`): steals
/// that copy a continuation's frame from another rank to the same address, the joins of frames
/// that moved, the exceptions kept for frames, and the progress thread
/// (docs/distributed_internals.md, "Stealing across ranks"). Each worker's own part, its offers, is
/// its `worker_lane`. The class is defined by leg: rank_worker_joins.cpp (joins at the frame's
/// home), rank_worker_steal.cpp (steals from other ranks), and rank_worker.cpp (its lifetime,
/// the end of a root, exception tokens). They share m_mutex (the join records, the ready frames,
/// the held frames, the root's generation), held only to update those, never across MPI or a
/// frame's resumption; m_exceptions_mutex guards the exception store (but its release(), which
/// has its own lock), m_latencies_mutex the steal latencies.
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
///   the last arrival is one of its workers', or, if it was a message, at once when an idle worker
///   received it (idle workers poll, `poll`), else the next time one of them is idle. Nothing is
///   written into the home's copy of a frame while the frame is away, but the results its own
///   children write there (which the home keeps, as patches).
/// - An exception stored in a frame is kept as a token of the rank that stored it
///   (exception_store.hpp); an exception sent with an arrival travels as its description and is
///   rebuilt with its type (exception_transport.hpp).
/// - Every arrival at the join of a frame whose continuation was stolen is counted here, by
///   whichever worker of the rank it happens on, also for the steals among the rank's own
///   workers: one count per frame, whoever took it.
/// - Any idle worker of the rank steals from other ranks (and from the lanes of the rank's own
///   workers, through its own window): a rank of many workers that runs dry refills at the rate
///   of all of them (one thief per rank made ranks of 64 threads less efficient than as many
///   ranks of one in tools/steal_sim.py's model).
///
/// It is the rank's `tine::process_boundary`: every worker_lane of the rank returns it from
/// `boundary()`, so the core asks it, on any of the rank's workers, how arrivals are counted,
/// which frames stops reach, where stacklets come from and how exceptions are kept.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tine/core/frame.hpp>
#include <tine/core/join_counter.hpp>
#include <tine/core/process_boundary.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/distributed/foundation/progress_thread.hpp>
#include <tine/distributed/foundation/uni_address_region.hpp>
#include <tine/distributed/pool/exception_store.hpp>
#include <tine/distributed/pool/frame_range.hpp>
#include <tine/distributed/pool/messages.hpp>
#include <tine/distributed/pool/offer_slot.hpp>

namespace tine::mpi::detail {

class rank_worker final : public tine::process_boundary {
 public:
  /// Collective over `comm` (it duplicates it). `region` is this rank's and outlives the
  /// rank_worker.
  rank_worker(MPI_Comm comm, uni_address_region& region);

  /// Collective. Stops the progress thread.
  ~rank_worker();

  rank_worker(const rank_worker&) = delete;
  rank_worker& operator=(const rank_worker&) = delete;

  /// Starts the rank's progress thread, which receives arrivals (and, by entering MPI, makes
  /// one-sided operations aimed at this rank complete), and calls `on_poll` after each poll that
  /// found no message (the workers' requests for offers). Once, before any worker runs.
  void start(progress_thread::poll_handler on_poll);

  // tine::process_boundary, for every worker_lane of the rank, on any of its workers.
  bool arrive(tine::detail::frame* f, join_arrival& arrival) noexcept override;
  /// The rank's slice of the region: frames and stack allocations at the same address on every
  /// rank.
  const tine::detail::stacklet_source* stacklets() const noexcept override {
    return m_region.stacklet_source();
  }
  /// Exceptions kept as tokens any rank can read (exception_store.hpp).
  const tine::detail::exception_codec& exceptions() const noexcept override { return m_codec; }

  /// Whether the stacklet `f`'s scope opened on (`f->stack`) is in this rank's slice: then it is
  /// one of this rank's live stacklets, the root or stop scope its header names is in this
  /// process, and stops reach `f` (process_boundary::stops_reach). A frame's scope opens where the
  /// frame runs after its last join, which is its home, so this holds for the frames whose home is
  /// this rank, wherever in the rank they run; a copy of another rank's frame names that rank's
  /// stacklet, whose header here is not one. Any worker of the rank.
  bool stops_reach(const tine::detail::frame* f) const noexcept override {
    return f->stack != nullptr && m_region.home_rank(f->stack) == m_rank;
  }

  /// The offer slot's item for `f`'s continuation, whose running child begins at `child`;
  /// nothing when its range is too large to move, or unknown (a frame of this rank whose
  /// continuation was taken in its current scope, or whose child is not named: `child` null).
  /// Any worker of the rank.
  std::optional<std::uint64_t> item_for(tine::detail::frame* f, const void* child);

  /// A worker of the rank, idle (`context` its context): continues one frame whose join
  /// completed by a message. False if none.
  bool run_ready(worker_context& context);

  /// A worker of the rank, idle: polls MPI as the progress thread does (receives a message, or
  /// asks the workers for offers), unless another thread of the rank is polling. True when it
  /// received a message.
  /// Workers run only after start(), so the progress thread is there.
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access)
  bool poll() noexcept { return m_progress->poll_once(); }

  /// Messages (arrivals, releases) received by workers that polled, not by the progress thread.
  std::uint64_t messages_by_workers() const noexcept {
    return m_progress ? m_progress->messages_polled_by_callers() : 0;
  }

  /// A worker of the rank, idle: one attempt to take what lane `slot` of rank `victim` offers
  /// (`slot` that lane's object, which names every rank's); runs what it took on `context`. False
  /// if it took none. `victim` may be this rank (another worker's lane: nothing to copy). Any
  /// number of the rank's workers may steal at once.
  bool try_steal(int victim, offer_slot& slot, worker_context& context);

  /// Every rank, after a root task's outcome is known and its workers are idle: no frame is
  /// stolen or waiting any more. Frees what is left of the exceptions kept for frames; stops the
  /// program if a frame was left behind.
  void end_of_root() noexcept;

  // Read after the workers stopped for the root.
  std::uint64_t steals() const noexcept { return m_steals.load(std::memory_order_relaxed); }
  std::uint64_t pieced_steals() const noexcept {
    return m_pieced_steals.load(std::memory_order_relaxed);
  }
  std::uint64_t steal_attempts() const noexcept {
    return m_attempts.load(std::memory_order_relaxed);
  }
  std::uint64_t bytes_migrated() const noexcept { return m_bytes.load(std::memory_order_relaxed); }
  std::uint64_t remote_joins() const noexcept {
    return m_remote_joins.load(std::memory_order_relaxed);
  }
  std::uint64_t rma_operations() const noexcept {
    return m_region_operations.load(std::memory_order_relaxed);
  }
  /// How long each successful steal took, from the attempt to the frame's bytes being here, in
  /// nanoseconds (the first `max_latency_samples`).
  const std::vector<std::uint32_t>& steal_latencies() const noexcept { return m_latencies; }
  static constexpr std::size_t max_latency_samples = 1 << 16;

 private:
  /// A frame of this rank stolen in its current scope: the arrivals counted so far (Nowa's count
  /// goes up from 0 to I_max here), the frame's bytes when they come home, the results to write
  /// into it after them, the first exception.
  struct join_record {
    std::uint64_t count = 0;
    std::vector<patch> frame_bytes;
    std::vector<patch> results;
    std::exception_ptr exception;
  };
  /// A frame of another rank that this rank stole and holds: the item it came with (offered
  /// again if it forks), and its pieces, which go home with it.
  struct held_frame {
    std::uint64_t item;
    std::vector<range_piece> pieces;
  };

  int home_of(const tine::detail::frame* f) const noexcept { return m_region.home_rank(f); }

  /// Under m_mutex: adds an arrival to `f`'s record; when that completes the count, returns the
  /// record (erased from the table).
  std::optional<join_record> count_at_home(tine::detail::frame* f, std::uint64_t strands,
                                           std::vector<patch> frame_bytes,
                                           std::optional<patch> result,
                                           std::exception_ptr exception);

  /// Worker: a complete record goes into its frame (bytes, then results, then the exception).
  static void apply(tine::detail::frame* f, join_record& record) noexcept;

  /// A child's result in an arrival: where it goes in the frame, and its bytes.
  struct result_bytes {
    const void* at = nullptr;
    const void* bytes = nullptr;
    std::uint32_t size = 0;
  };

  /// Sends an arrival at `f`'s join to its home.
  void send_arrival(tine::detail::frame* f, std::uint32_t strands, const result_bytes& result,
                    const std::vector<range_piece>& pieces, const std::exception_ptr& exception);

  void receive(const MPI_Status& status);  // on the progress thread

  std::uintptr_t encode(std::exception_ptr e) noexcept;
  std::exception_ptr decode(std::uintptr_t token) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_size = 1;
  uni_address_region& m_region;
  tine::detail::exception_codec m_codec;
  std::mutex m_exceptions_mutex;  // m_exceptions, but release() (its own lock)
  exception_store m_exceptions;

  std::mutex m_mutex;  // the records, the ready frames, the held frames, m_generation
  std::unordered_map<tine::detail::frame*, join_record> m_records;
  std::deque<std::pair<tine::detail::frame*, join_record>> m_ready;
  /// Frames of other ranks stolen into this rank. An entry stays until the frame's own arrival
  /// here, or the end of the root (a frame may leave again through an offer, unseen).
  std::unordered_map<tine::detail::frame*, held_frame> m_held;

  // relaxed: statistics, counted by every worker that steals; read after the root.
  std::atomic<std::uint64_t> m_steals{0};
  std::atomic<std::uint64_t> m_pieced_steals{0};
  std::atomic<std::uint64_t> m_attempts{0};
  std::atomic<std::uint64_t> m_bytes{0};
  std::mutex m_latencies_mutex;
  std::vector<std::uint32_t> m_latencies;
  // relaxed: a statistic, counted by every worker.
  std::atomic<std::uint64_t> m_remote_joins{0};
  // relaxed: statistics; the progress thread counts too.
  std::atomic<std::uint64_t> m_region_operations{0};

  /// Roots ended so far (under m_mutex): a release message names the root its token was taken
  /// in.
  std::uint64_t m_generation = 0;
  /// How long the progress thread sleeps between two entries into MPI (`TINE_MPI_PROGRESS_US`
  /// overrides it): shorter makes steals and remote joins faster, and preempts the rank's worker
  /// more often where the rank has no core to spare (bench/journal/2026-11-25-distributed-pool.md
  /// has the trade-off measured).
  std::chrono::microseconds m_interval{200};
  std::optional<progress_thread> m_progress;  // last: it calls receive() until it is gone
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_RANK_WORKER_HPP
