#include <tine/distributed/pool/offer_slot.hpp>

#include <stdexcept>

#include <tine/core/config.hpp>

namespace tine::mpi::detail {

offer_slot::offer_slot(MPI_Comm comm) {
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  // A whole cache line: MPICH 4.0 (ch4) lays out the segments of a shared-memory window wrongly
  // when a rank's size is not a multiple of 16 bytes, and the other ranks then read the wrong
  // word; the line also keeps the slot apart from its neighbours' in a shared window.
  MPI_Win_allocate(64, sizeof(std::uint64_t), MPI_INFO_NULL, m_comm, &m_word, &m_window);
  *m_word = 0;
  // One passive-target epoch for the window's whole life: operations then only flush.
  MPI_Win_lock_all(MPI_MODE_NOCHECK, m_window);
  // The word is written before any other rank's first operation on it.
  MPI_Win_sync(m_window);
  MPI_Barrier(m_comm);
}

offer_slot::~offer_slot() {
  MPI_Barrier(m_comm);  // no operation is in flight
  MPI_Win_unlock_all(m_window);
  MPI_Win_free(&m_window);
  MPI_Comm_free(&m_comm);
}

bool offer_slot::offer(std::uint64_t item) {
  if (item == 0) {
    throw std::invalid_argument(
        "tine::mpi::detail::offer_slot: 0 means empty and cannot be offered");
  }
  // The hint is exact here: only the owner fills the slot, so empty means empty (a thief's
  // replace racing this one finds 0 and writes 0, or comes after and takes the item).
  if (offered()) {
    return false;
  }
  if (replace(m_rank, item) != 0) {
    tine::detail::fatal("tine::mpi::detail::offer_slot: internal error: an offer replaced another");
  }
  return true;
}

std::optional<std::uint64_t> offer_slot::take_back() noexcept {
  if (!offered()) {
    return std::nullopt;  // taken (the hint is exact here: only the owner fills the slot)
  }
  const std::uint64_t item = replace(m_rank, 0);
  return item != 0 ? std::optional<std::uint64_t>(item) : std::nullopt;
}

std::optional<std::uint64_t> offer_slot::take(int victim) noexcept {
  const std::uint64_t item = replace(victim, 0);
  return item != 0 ? std::optional<std::uint64_t>(item) : std::nullopt;
}

bool offer_slot::offered() const noexcept {
  // relaxed: a hint. Every change of the word is an MPI atomic, which on x86-64 is a locked
  // instruction or made under the library's lock, and what the caller does next with a nonzero
  // value is itself an MPI atomic on the word.
  return std::atomic_ref<std::uint64_t>(*m_word).load(std::memory_order_relaxed) != 0;
}

std::uint64_t offer_slot::replace(int rank, std::uint64_t value) noexcept {
  std::uint64_t old = 0;
  MPI_Fetch_and_op(&value, &old, MPI_UINT64_T, rank, 0, MPI_REPLACE, m_window);
  MPI_Win_flush(rank, m_window);
  m_rma_operations.fetch_add(1, std::memory_order_relaxed);
  return old;
}

}  // namespace tine::mpi::detail
