#ifndef TINE_DISTRIBUTED_RMA_CONTINUATION_QUEUE_HPP
#define TINE_DISTRIBUTED_RMA_CONTINUATION_QUEUE_HPP

/// \file rma_continuation_queue.hpp
/// `tine::mpi::rma_continuation_queue`: a worker's continuations in this rank's `rma_deque`, so
/// that thieves on any rank can take them with one-sided operations. Installed on the worker's
/// context (`worker_context::set_continuation_queue`), it receives every fork's parent and gives
/// it back to the returning child, with no MPI call unless the pop may race a thief for the last
/// item (rma_deque.hpp). A thief that took a frame address with `rma_deque::steal` runs it with
/// `worker_context::resume_stolen`; on another rank it must first have the frame's bytes at the
/// same address (the uni-address region; docs/distributed.md).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <tine/core/continuation_queue.hpp>
#include <tine/core/frame.hpp>
#include <tine/distributed/rma_deque.hpp>

namespace tine::mpi {

/// This rank's rma_deque as the continuation queue of the rank's worker.
class rma_continuation_queue final : public tine::continuation_queue {
 public:
  /// Uses this rank's deque of `deque`, which must outlive the queue's installation.
  explicit rma_continuation_queue(rma_deque& deque) noexcept : m_deque(deque) {}

  /// Throws std::length_error when the deque is full (the fork then fails with it).
  void push(tine::detail::frame* parent, void* /*child*/) override {
    if (!m_deque.push(reinterpret_cast<std::uintptr_t>(parent))) {
      throw std::length_error("tine::mpi::rma_continuation_queue: this rank's rma_deque is full (" +
                              std::to_string(m_deque.capacity() - 1) +
                              " continuations): construct it with a larger capacity");
    }
  }

  /// The newest continuation, or nothing when thieves took every one.
  std::optional<tine::detail::frame*> pop() noexcept override {
    const std::optional<std::uint64_t> item = m_deque.pop();
    if (!item.has_value()) {
      return std::nullopt;
    }
    return reinterpret_cast<tine::detail::frame*>(static_cast<std::uintptr_t>(*item));
  }

 private:
  rma_deque& m_deque;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_RMA_CONTINUATION_QUEUE_HPP
