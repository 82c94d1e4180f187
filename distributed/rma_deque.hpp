#ifndef TINE_DISTRIBUTED_RMA_DEQUE_HPP
#define TINE_DISTRIBUTED_RMA_DEQUE_HPP

/// \file rma_deque.hpp
/// `tine::mpi::rma_deque`: one work-stealing deque per rank, stolen from by other ranks with
/// one-sided MPI operations (the distributed pool makes one per worker index, each worker's
/// lane, where the worker offers its oldest continuation).
///
/// The owner pushes and pops at the bottom with plain memory operations, so the work-first fast
/// path makes no MPI call; thieves on any rank take the oldest item at the top with MPI atomics.
/// Chase-Lev's lock-free steal needs a compare-and-swap that the owner and the thieves perform on
/// the same word, and MPI promises atomicity only among its own accumulate operations, not against
/// the owner's processor atomics. So this is Cilk-5's THE protocol ("The Implementation of the
/// Cilk-5 Multithreaded Language", Frigo, Leiserson and Randall), as in the paper's runtime:
/// thieves serialise on a lock word with MPI atomics; the owner takes the same lock, with an MPI
/// atomic on its own window, only when its pop may race a thief for the last item.
///
/// The words, in the owner's window (`MPI_Win_allocate`):
/// - `lock`: 0 or 1; only ever accessed with MPI atomics (compare-and-swap, replace).
/// - `top`: index of the oldest item; changed only by the lock holder, with MPI fetch-and-add
///   (thieves) or an MPI replace (the owner under the lock); the owner reads it with plain loads.
/// - `bottom`: one past the newest item; written only by the owner, with plain stores; thieves read
///   it with MPI_Get.
/// - `slots`: a ring of `capacity` items; written by the owner before it publishes `bottom`. A
///   thief increments `top` before it reads its slot, so the owner keeps one slot free.
///
/// Why a thief and an owner never both take the last item (Dekker's pattern): the owner stores
/// `bottom`, issues a full fence, then loads `top`; the thief increments `top` and only then, in a
/// separate operation after a flush, reads `bottom`. The target executes the thief's operations
/// in order, each MPI atomic as a locked read-modify-write or inside the MPI library's own lock,
/// a full barrier on x86-64; so at least one of the two sees the other's write and backs off
/// (the owner then decides under the lock). This leans on that property of the MPI library on
/// x86-64 (stated in docs/distributed.md and exercised by the stress test), as the paper's
/// runtime leans on its network's ordering.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace tine::mpi {

class rma_deque {
 public:
  /// Outcome of a steal.
  enum class status {
    success,  ///< an item was taken
    empty,    ///< the victim's deque was empty
    busy,     ///< another thief held the victim's lock; retrying may succeed
  };

  struct steal_result {
    status what;
    std::uint64_t value;  ///< the item, when `what` is success
  };

  /// Collective over `comm`: every rank gets a deque with a ring of `capacity` slots (a power of
  /// two), which holds `capacity - 1` items. Throws std::invalid_argument otherwise.
  explicit rma_deque(MPI_Comm comm, std::size_t capacity = std::size_t{1} << 16);

  /// Collective.
  ~rma_deque();

  rma_deque(const rma_deque&) = delete;
  rma_deque& operator=(const rma_deque&) = delete;

  /// Owner: offers `item` to thieves. False, leaving the deque as it was, when it is full.
  bool push(std::uint64_t item) noexcept;

  /// Owner: takes back the newest item, or nothing when thieves took everything.
  std::optional<std::uint64_t> pop() noexcept;

  /// Any rank (the owner of `victim`'s deque included, for a test): tries once to take the oldest
  /// item of `victim`'s deque.
  steal_result steal(int victim) noexcept;

  /// Owner: items in this rank's deque (exact only when no thief is active).
  std::size_t size() const noexcept;

  std::size_t capacity() const noexcept { return m_capacity; }

  /// MPI calls made by this rank's steals and by its pops that took the lock.
  std::uint64_t rma_operations() const noexcept {
    return m_rma_operations.load(std::memory_order_relaxed);
  }

  /// Owner: pops that found a thief possibly racing for the last item and decided under the
  /// lock.
  std::uint64_t contended_pops() const noexcept { return m_contended_pops; }

 private:
  struct control;  // lock, top, bottom: the first words of the window

  bool lock(int rank) noexcept;  // one attempt
  void unlock(int rank) noexcept;
  std::int64_t fetch_add(int rank, std::size_t word, std::int64_t delta) noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  MPI_Win m_window = MPI_WIN_NULL;
  std::int64_t* m_words = nullptr;  ///< this rank's lock, top, bottom, then the slots
  std::size_t m_capacity = 0;
  int m_rank = 0;
  // Atomic (relaxed: a statistic): a thread of the rank other than the owner may steal too.
  std::atomic<std::uint64_t> m_rma_operations{0};
  std::uint64_t m_contended_pops = 0;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_RMA_DEQUE_HPP
