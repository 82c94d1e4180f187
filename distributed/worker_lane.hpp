#ifndef TINE_DISTRIBUTED_WORKER_LANE_HPP
#define TINE_DISTRIBUTED_WORKER_LANE_HPP

/// \file worker_lane.hpp
/// One worker of a rank in a distributed pool (internal to `tine::mpi_pool`): the worker backend
/// installed on it, and its lane, the `rma_deque` where it offers continuations to other ranks.
///
/// The worker keeps its continuations in its own deque, where the rank's other workers steal
/// them as in a shared-memory pool, with no MPI on that path. Whenever its lane is empty, the
/// rank's progress thread asks it for an offer, and at its next fork the worker moves its oldest
/// continuation there (`offer`), where other ranks can steal it; one at a time, so what they find
/// is always the continuation with the most work behind it. A continuation that cannot move (its
/// range is too large or unknown, or its child could not be found on the worker's chain) is kept
/// back and taken back in its turn. Arrivals, stacklets and exceptions are the rank's
/// (rank_worker.hpp).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <optional>
#include <vector>

#include <tine/core/context.hpp>
#include <tine/core/deque.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/distributed/rank_worker.hpp>
#include <tine/distributed/rma_deque.hpp>

namespace tine::mpi::detail {

class worker_lane final : public tine::worker_backend {
 public:
  /// `rank`, `deque` (this worker's lane) and `context` (the worker's) outlive the lane.
  worker_lane(rank_worker& rank, rma_deque& deque, worker_context& context) noexcept
      : m_rank(rank), m_deque(deque), m_context(context) {}

  // tine::worker_backend, called by the core on this worker.
  bool offer(tine::detail::frame* parent, void* child,
             tine::deque<tine::detail::frame*>& continuations) override;
  tine::detail::frame* take_back() noexcept override;
  bool arrive(tine::detail::frame* f, join_arrival& arrival) noexcept override {
    return m_rank.arrive(f, arrival);
  }
  const tine::detail::stacklet_source* stacklets() const noexcept override {
    return m_rank.stacklets();
  }
  const tine::detail::exception_codec* exceptions() const noexcept override {
    return m_rank.exceptions();
  }

  /// Worker, idle: runs a continuation left with it (one given back to its own deque by a pop
  /// that found another's, then one it kept or offered and nobody took), newest first, as
  /// returning children would have taken them; counted as a steal (their children ended
  /// elsewhere, or will). False if none.
  bool run_own();

  /// Any thread: asks the worker for an offer if its lane is empty (the progress thread).
  void ask_for_offer() noexcept {
    if (m_deque.size() == 0) {
      m_context.request_offer();
    }
  }

  rma_deque& deque() noexcept { return m_deque; }
  worker_context& context() noexcept { return m_context; }

  /// Continuations kept back (none once a root has ended).
  std::size_t kept() const noexcept { return m_kept.size(); }

 private:
  rank_worker& m_rank;
  rma_deque& m_deque;
  worker_context& m_context;
  /// Continuations taken by offer() that could not go into the lane, newest last: all older than
  /// the lane's (offer() adds to the lane only when it is empty). Worker only.
  std::vector<tine::detail::frame*> m_kept;
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_WORKER_LANE_HPP
