#ifndef TINE_DISTRIBUTED_POOL_OFFER_SLOT_HPP
#define TINE_DISTRIBUTED_POOL_OFFER_SLOT_HPP

/// \file offer_slot.hpp
/// `tine::mpi::detail::offer_slot`: where one worker of each rank offers a continuation to thieves
/// on any rank, one at a time: a single word in an MPI window (`MPI_Win_allocate`), holding the
/// offered item or 0.
///
/// A worker offers its oldest continuation only when its previous offer was taken (a lane of
/// one, so that thieves always find the continuation with the most work behind it), so a deque
/// would hold at most one item: a slot takes a thief one atomic operation, where Cilk-5's THE
/// protocol on a deque in a window takes six (look, lock, move `top`, read `bottom`, read the
/// item, unlock), each of which on an MPI library that needs the target to enter MPI waits for
/// the victim's next poll.
///
/// Every write of the word is the same MPI atomic, `MPI_Fetch_and_op` with `MPI_REPLACE`: the
/// owner's offer (a replace of 0 by the item, made only when the slot is empty), its taking back
/// and a thief's taking (a replace by 0 that returns what was there). MPI makes accumulate
/// operations atomic only against each other, not against the owner's processor atomics, and by
/// default (the `accumulate_ops` info key, `same_op_no_op`) only when those aimed at one location
/// at once use one operation. Whoever's replace returns the item has it; the others get 0. The
/// owner and the rank's other workers may also read the word with plain atomic loads, as a hint
/// (is something offered?) that a later atomic confirms.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <optional>

namespace tine::mpi::detail {

class offer_slot {
 public:
  /// Collective over `comm`: every rank gets an empty slot.
  explicit offer_slot(MPI_Comm comm);

  /// Collective.
  ~offer_slot();

  offer_slot(const offer_slot&) = delete;
  offer_slot& operator=(const offer_slot&) = delete;

  /// Owner: offers `item` (not 0) to thieves. False, leaving the slot as it was, when it holds an
  /// offer already. Throws std::invalid_argument for 0. (Only the owner fills its slot, so it
  /// knows when it is empty.)
  bool offer(std::uint64_t item);

  /// Owner: takes back what it offered, or nothing when a thief took it.
  std::optional<std::uint64_t> take_back() noexcept;

  /// Any rank (this one included: the rank's other workers take through the same window): tries
  /// once to take what `victim`'s slot holds.
  std::optional<std::uint64_t> take(int victim) noexcept;

  /// Any thread of the owner's rank: whether something is offered (a hint: a thief may be
  /// taking it).
  bool offered() const noexcept;

  /// MPI calls made by this rank's takes, offers and takings back.
  std::uint64_t rma_operations() const noexcept {
    return m_rma_operations.load(std::memory_order_relaxed);
  }

 private:
  std::uint64_t replace(int rank, std::uint64_t value) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  MPI_Win m_window = MPI_WIN_NULL;
  std::uint64_t* m_word = nullptr;  ///< this rank's slot
  int m_rank = 0;
  // Atomic (relaxed: a statistic): any worker of the rank may take.
  std::atomic<std::uint64_t> m_rma_operations{0};
};

}  // namespace tine::mpi::detail

#endif  // TINE_DISTRIBUTED_POOL_OFFER_SLOT_HPP
