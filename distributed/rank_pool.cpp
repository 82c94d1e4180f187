#include <tine/distributed/rank_pool.hpp>

#include <chrono>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <tine/distributed/collective_call.hpp>
#include <tine/distributed/exception_transport.hpp>
#include <tine/distributed/rank_topology.hpp>
#include <tine/distributed/rank_worker.hpp>
#include <tine/distributed/rma_deque.hpp>

namespace tine::mpi::detail {
namespace {

/// The first bytes every rank receives after a root task: how it ended, then the result's bytes.
struct outcome_header {
  std::uint32_t threw = 0;              ///< 1: an exception escaped the root task
  std::uint32_t description_bytes = 0;  ///< its description, sent next when it threw
};

bool completed(MPI_Request& request) {
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

}  // namespace

/// Binds the worker to the calling thread for one sync_wait with, when other ranks could steal
/// from it, the rank's backend installed (its continuations in this rank's rma_deque, its
/// stacklets from this rank's slice, its frames' exceptions kept as tokens); undone on every exit.
class rank_pool::worker_session {
 public:
  explicit worker_session(rank_pool& pool) : m_context(*pool.m_context) {
    m_context.bind();
    try {
      m_context.set_backend(pool.m_worker.get());
    } catch (...) {
      m_context.unbind();
      throw;
    }
  }
  ~worker_session() { m_context.unbind(); }  // uninstalls the backend too
  worker_session(const worker_session&) = delete;
  worker_session& operator=(const worker_session&) = delete;

 private:
  worker_context& m_context;
};

rank_pool::rank_pool(MPI_Comm comm, std::size_t slice_bytes, std::size_t deque_capacity)
    : m_thread(std::this_thread::get_id()) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised == 0) {
    throw std::logic_error(
        "tine::mpi_pool: MPI is not initialised: construct a tine::mpi::environment first");
  }
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
  check_same_parameters(slice_bytes, deque_capacity);
  m_random = xoshiro256ss(static_cast<std::uint64_t>(m_rank));
  m_ranks = std::make_unique<topology>(rank_topology(m_comm));
  m_region = std::make_unique<uni_address_region>(m_comm, slice_bytes);
  m_deque = std::make_unique<rma_deque>(m_comm, deque_capacity);
  // Stacklets from the slice (the backend's), each at least min_stacklet_bytes.
  m_region->set_min_stacklet_bytes(min_stacklet_bytes);
  // The worker's deque has no thief but the worker itself (its backend moves continuations to
  // the rank's deque from it): taken back without a fence, as a one-worker busy_pool does.
  m_context = std::make_unique<worker_context>(std::size_t{1024}, true);
  // The parallel algorithms size their grain by the workers of the whole pool.
  m_context->set_worker_count(static_cast<std::size_t>(m_size));
  if (m_size > 1) {
    m_worker = std::make_unique<rank_worker>(m_comm, *m_region, *m_deque, *m_context);
  }
}

void rank_pool::check_same_parameters(std::size_t slice_bytes, std::size_t deque_capacity) {
  // Windows of different sizes on different ranks crash inside MPI, or silently make a thief
  // misread a victim's deque: refused on every rank, which all see the same values.
  const std::uint64_t mine[2] = {slice_bytes, deque_capacity};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(m_size));
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, m_comm);
  bool same = true;
  std::string listed;
  for (int r = 0; r < m_size; ++r) {
    const std::uint64_t* theirs = &all[2 * static_cast<std::size_t>(r)];
    same = same && theirs[0] == all[0] && theirs[1] == all[1];
    listed += (r == 0 ? " rank " : ", rank ") + std::to_string(r) + " slice_bytes " +
              std::to_string(theirs[0]) + " deque_capacity " + std::to_string(theirs[1]);
  }
  if (!same) {
    MPI_Comm_free(&m_comm);
    throw std::invalid_argument(
        "tine::mpi_pool: the ranks constructed the pool with different parameters (every rank "
        "must pass the same slice_bytes and deque_capacity):" +
        listed);
  }
}

rank_pool::~rank_pool() {
  agree_on_call(m_comm, {collective_call::destroy, m_calls, 0, 0});
  // The stacks go back to the slice before the region goes; the deque's window is collective.
  m_worker.reset();
  m_context.reset();
  m_deque.reset();
  m_region.reset();
  MPI_Comm_free(&m_comm);
}

pool_counters rank_pool::counters() const noexcept {
  pool_counters c;
  c.rma_operations = m_deque->rma_operations();
  c.roots = m_roots;
  if (m_worker) {
    c.steals = m_worker->steals();
    c.pieced_steals = m_worker->pieced_steals();
    c.steal_attempts = m_worker->steal_attempts();
    c.bytes_migrated = m_worker->bytes_migrated();
    c.remote_joins = m_worker->remote_joins();
    c.rma_operations += m_worker->rma_operations();
  }
  return c;
}

std::vector<std::uint32_t> rank_pool::steal_latencies_ns() const {
  if (!m_worker) {
    return {};
  }
  return m_worker->steal_latencies();
}

void rank_pool::work_or_steal(const victim_chooser& victims) {
  if (!m_worker) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));  // alone: nothing to steal
    return;
  }
  if (m_worker->run_ready()) {
    return;
  }
  const auto victim =
      static_cast<int>(victims.next(victims.policy, static_cast<std::size_t>(m_rank), m_random));
  if (victim == m_rank || !m_worker->try_steal(victim)) {
    std::this_thread::yield();
  }
}

void rank_pool::run_root(submit_node* root, tine::detail::waiting_sink& sink, void* value,
                         std::size_t value_bytes, std::uint64_t signature,
                         victim_chooser victims) {
  if (std::this_thread::get_id() != m_thread) {
    throw std::logic_error(
        "tine::sync_wait on an mpi_pool: call it on the thread that constructed the pool (that "
        "thread is the rank's worker)");
  }
  agree_on_call(
      m_comm, {collective_call::root, m_calls++, signature, value_bytes});
  outcome_header head;
  std::string description;
  std::vector<std::byte> outcome(sizeof(outcome_header) + value_bytes);
  MPI_Request request = MPI_REQUEST_NULL;
  if (m_rank == 0) {
    ++m_roots;
    try {
      worker_session session(*this);
      m_context->run_submitted(root);
      // The root ends on this rank (a frame's joins complete where it was made); meanwhile this
      // worker steals like the others.
      while (!sink.done()) {
        work_or_steal(victims);
      }
    } catch (...) {
      // Memory too short to start the root: still an outcome every rank must receive.
      sink.exception = std::current_exception();
    }
    if (sink.exception) {
      head.threw = 1;
      try {
        description = serialise_exception(sink.exception, 0);
      } catch (...) {
        // No memory to describe it: what every rank throws is then std::bad_alloc.
        description = serialise_exception(std::current_exception(), 0);
      }
      sink.exception = nullptr;  // every rank, this one too, throws the rebuilt exception
      head.description_bytes = static_cast<std::uint32_t>(description.size());
    }
    std::memcpy(outcome.data(), &head, sizeof head);
    if (value_bytes != 0) {
      std::memcpy(outcome.data() + sizeof head, value, value_bytes);
    }
    MPI_Ibcast(outcome.data(), static_cast<int>(outcome.size()), MPI_BYTE, 0, m_comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Ibcast(outcome.data(), static_cast<int>(outcome.size()), MPI_BYTE, 0, m_comm, &request);
    worker_session session(*this);
    // Steal until the outcome arrives: the root's work is spread from rank 0.
    while (!completed(request)) {
      work_or_steal(victims);
    }
  }
  if (m_worker) {
    m_worker->end_of_root();
    // No rank starts the next root (and pushes its continuations) before every rank has stopped
    // stealing for this one: a rank still in this loop would take the next root's work and hold
    // it across the two calls.
    MPI_Barrier(m_comm);
  }
  std::memcpy(&head, outcome.data(), sizeof head);
  if (head.threw != 0) {
    // The same exception on every rank, rank 0 included: ranks that catch different types would
    // go different ways and meet in different collective calls.
    description.resize(head.description_bytes);
    MPI_Bcast(description.data(), static_cast<int>(head.description_bytes), MPI_CHAR, 0, m_comm);
    std::rethrow_exception(rebuild_exception(description));
  }
  if (m_rank != 0 && value_bytes != 0) {
    std::memcpy(value, outcome.data() + sizeof head, value_bytes);
  }
}

}  // namespace tine::mpi::detail
