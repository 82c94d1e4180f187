#ifndef TINE_DISTRIBUTED_POOL_WORKER_LANE_HPP
#define TINE_DISTRIBUTED_POOL_WORKER_LANE_HPP

/// \file worker_lane.hpp
/// One worker of a rank in a distributed pool (internal to `tine::mpi_pool`): the worker backend
/// installed on it, and its lane, the `offer_slot` where it offers continuations to other ranks.
///
/// The worker keeps its continuations in its own deque, where the rank's other workers steal
/// them as in a shared-memory pool, with no MPI on that path. Whenever its lane is empty, the
/// rank's progress thread asks it for an offer, and at its next fork the worker moves its oldest
/// continuation there (`offer`), where other ranks can steal it; one at a time, so what they find
/// is always the continuation with the most work behind it. A continuation that cannot move (its
/// range is too large or unknown, or its child could not be found on the worker's chain) is kept
/// back and taken back in its turn. Its process boundary is the rank's (rank_worker.hpp):
/// arrivals, stops, stacklets and exceptions.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include <tine/core/deque.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/worker_context.hpp>
#include <tine/distributed/pool/offer_slot.hpp>
#include <tine/distributed/pool/rank_worker.hpp>

namespace tine::mpi::detail {

class worker_lane final : public tine::worker_backend {
 public:
  /// `rank`, `slot` (this worker's lane) and `context` (the worker's) outlive the lane.
  worker_lane(rank_worker& rank, offer_slot& slot, worker_context& context) noexcept
      : m_rank(rank), m_slot(slot), m_context(context) {}

  // tine::worker_backend, called by the core on this worker.
  bool offer(tine::detail::frame* parent, void* child,
             tine::deque<tine::detail::frame*>& continuations) override;
  tine::detail::frame* take_back() noexcept override;
  /// Frames leave the process: the rank's boundary, shared by its workers.
  tine::process_boundary* boundary() noexcept override { return &m_rank; }

  /// Worker, idle: runs a continuation left with it (one given back to its own deque by a pop
  /// that found another's, then one it kept or offered and nobody took), newest first, as
  /// returning children would have taken them; counted as a steal (their children ended
  /// elsewhere, or will). False if none.
  bool run_own();

  /// The progress thread, after each poll: asks the worker for an offer if its lane is empty.
  /// Returns true when the lane held an offer at the previous call and is empty now while the
  /// worker took nothing back since: a thief took it, and a thief's fetch of the frame comes
  /// next. (A guess: a take-back and a steal in one interval count as a take-back.)
  bool ask_for_offer() noexcept {
    const bool offered = m_slot.offered();
    // relaxed: a count compared with its previous value, for a guess.
    const std::uint64_t taken_back = m_taken_back.load(std::memory_order_relaxed);
    const bool taken =
        m_offered_at_last_look && !offered && taken_back == m_taken_back_at_last_look;
    m_offered_at_last_look = offered;
    m_taken_back_at_last_look = taken_back;
    if (!offered) {
      m_context.request_offer();
    }
    return taken;
  }

  offer_slot& slot() noexcept { return m_slot; }
  worker_context& context() noexcept { return m_context; }

  /// Continuations kept back (none once a root has ended).
  std::size_t kept() const noexcept { return m_kept.size(); }

 private:
  rank_worker& m_rank;
  offer_slot& m_slot;
  worker_context& m_context;
  /// Continuations taken by offer() that could not go into the lane, newest last: all older than
  /// the lane's (offer() adds to the lane only when it is empty). Worker only.
  std::vector<tine::detail::frame*> m_kept;
  /// What the progress thread saw in the lane at its previous look. Progress thread only.
  bool m_offered_at_last_look = false;
  std::uint64_t m_taken_back_at_last_look = 0;
  /// Offers the worker took back from its lane (written by the worker, read by the progress
  /// thread).
  std::atomic<std::uint64_t> m_taken_back{0};
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_WORKER_LANE_HPP
