/// \file rank_worker.cpp
/// The rank_worker's lifetime (its communicator, its progress thread), the end of a root, and the
/// exceptions kept for frames as tokens (encode, decode: m_exceptions_mutex, and m_mutex for
/// m_generation). Its two legs are rank_worker_joins.cpp (joins at the frame's home) and
/// rank_worker_steal.cpp (steals from other ranks); rank_worker.hpp says what each lock guards.

#include <tine/distributed/pool/rank_worker.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <tine/distributed/pool/messages.hpp>

namespace tine::mpi::detail {

rank_worker::rank_worker(MPI_Comm comm, uni_address_region& region)
    : m_region(region),
      m_codec{[](void* self, std::exception_ptr e) noexcept {
                return static_cast<rank_worker*>(self)->encode(std::move(e));
              },
              [](void* self, std::uintptr_t token) noexcept {
                return static_cast<rank_worker*>(self)->decode(token);
              },
              this},
      // NOLINTNEXTLINE(bugprone-throw-keyword-missing): a member, not an exception to throw
      m_exceptions(region) {
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
  if (const char* us = std::getenv("TINE_MPI_PROGRESS_US"); us != nullptr && std::atoi(us) > 0) {
    m_interval = std::chrono::microseconds(std::atoi(us));
  }
}

void rank_worker::start(progress_thread::poll_handler on_poll) {
  m_progress.emplace(
      m_comm, m_interval, [this](const MPI_Status& status) { receive(status); },
      std::move(on_poll));
}

rank_worker::~rank_worker() {
  MPI_Barrier(m_comm);  // no arrival or release is in flight
  m_progress.reset();
  m_exceptions.clear();
  MPI_Comm_free(&m_comm);
}

void rank_worker::end_of_root() noexcept {
  {
    std::lock_guard lock(m_mutex);
    if (!m_records.empty() || !m_ready.empty()) {
      std::fprintf(stderr,
                   "tine: rank %d: %zu join records and %zu frames to resume outstanding after a "
                   "root task's end\n",
                   m_rank, m_records.size(), m_ready.size());
      tine::detail::fatal(
          "tine::mpi_pool: internal error: a root task ended with joins outstanding");
    }
    // Entries of frames that left again through an offer, unseen.
    m_held.clear();
    // Under the lock the progress thread checks it with: every release of this root's is in the
    // store's list before the entries are freed, and none comes after.
    ++m_generation;
  }
  std::lock_guard lock(m_exceptions_mutex);
  m_exceptions.clear();
}

std::uintptr_t rank_worker::encode(std::exception_ptr e) noexcept {
  std::lock_guard lock(m_exceptions_mutex);
  return m_exceptions.put(std::move(e));
}

std::exception_ptr rank_worker::decode(std::uintptr_t token) noexcept {
  int release_to = -1;
  std::uint64_t operations = 0;
  std::exception_ptr e;
  {
    std::lock_guard lock(m_exceptions_mutex);
    e = m_exceptions.take(token, release_to, operations);
  }
  m_region_operations.fetch_add(operations, std::memory_order_relaxed);
  if (release_to >= 0) {
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(m_mutex);
      generation = m_generation;
    }
    const release_bytes message = encode_release({token, generation});
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, release_to, release_tag,
             m_comm);
  }
  return e;
}

}  // namespace tine::mpi::detail
