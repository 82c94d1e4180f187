#include <tine/distributed/pool/rank_pool.hpp>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <tine/distributed/foundation/collective_call.hpp>
#include <tine/distributed/foundation/exception_transport.hpp>
#include <tine/distributed/pool/offer_slot.hpp>
#include <tine/distributed/pool/pool_hooks.hpp>
#include <tine/distributed/pool/rank_worker.hpp>
#include <tine/distributed/pool/run_taken.hpp>
#include <tine/distributed/pool/worker_lane.hpp>
#include <tine/distributed/rank_topology.hpp>
#include <tine/policies/topology.hpp>

namespace tine::mpi::detail {
namespace {

// One rank runs as a shared-memory pool, with no lanes, no progress thread and no MPI while a
// root runs. Tests built with TINE_MPI_LANES_ON_ONE_RANK give one rank the lanes and the progress
// thread of several (steals between its workers' lanes through its own windows), so that the
// threads of a rank run under ThreadSanitizer with MPI replaced by a one-rank stub.
#ifdef TINE_MPI_LANES_ON_ONE_RANK
constexpr bool lanes_on_one_rank = true;
#else
constexpr bool lanes_on_one_rank = false;
#endif

bool completed(MPI_Request& request) {
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

/// The default workers per rank: TINE_MPI_WORKERS_PER_RANK when set (a positive integer up to
/// 4096; 0 when it is anything else, which the constructor refuses on every rank), otherwise the
/// cpus this process may run on (tine::usable_cpus), divided among the ranks of its machine when
/// they all have the same cpus (a launcher that does not bind ranks to cores gives each the whole
/// machine's); at least 1. Collective over `comm`, on every rank alike.
std::size_t default_workers(MPI_Comm comm) {
  std::vector<unsigned> cpus;
  try {
    cpus = tine::usable_cpus();
  } catch (...) {
    // A rank that cannot read its cpus counts one, as the other ranks wait for it below.
    cpus.clear();
  }
  const std::size_t cores = cpus.empty() ? 1 : cpus.size();
  // The same cpus on every rank of the machine, by their hash and their count.
  std::uint64_t hash = 1469598103934665603ULL;
  for (const unsigned cpu : cpus) {
    hash = (hash ^ static_cast<std::uint64_t>(cpu)) * 1099511628211ULL;
  }
  MPI_Comm machine = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
  int local = 1;
  MPI_Comm_size(machine, &local);
  const std::uint64_t mine[2] = {hash, ~hash};
  std::uint64_t all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_BAND, machine);
  MPI_Comm_free(&machine);
  const bool same = all[0] == hash && all[1] == ~hash;  // every rank's bits, and no others
  const std::size_t share = same ? cores / static_cast<std::size_t>(local) : cores;
  if (const char* text = std::getenv("TINE_MPI_WORKERS_PER_RANK"); text != nullptr) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && n > 0 && n <= 4096 ? static_cast<std::size_t>(n) : 0;
  }
  return share > 0 ? share : 1;
}

}  // namespace

/// Binds the first worker to the calling thread for one sync_wait with, when other ranks could
/// steal from it, its lane installed (its offers in its lane, its stacklets from this rank's
/// slice, its frames' exceptions kept as tokens); undone on every exit.
class rank_pool::worker_session {
 public:
  explicit worker_session(rank_pool& pool) : m_context(*pool.m_contexts[0]) {
    m_context.bind();
    try {
      if (!pool.m_lanes.empty()) {
        m_context.set_backend(pool.m_lanes[0].get());
      }
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

rank_pool::rank_pool(const pool_options& options) : m_thread(std::this_thread::get_id()) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised == 0) {
    throw std::logic_error(
        "tine::mpi_pool: MPI is not initialised: construct a tine::mpi::environment first");
  }
  MPI_Comm_dup(options.comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
  // Every rank computes the default (a collective call), whatever it passed.
  const std::size_t fallback = default_workers(m_comm);
  m_workers = options.workers_per_rank != 0 ? options.workers_per_rank : fallback;
  const std::size_t slice_bytes = options.slice_bytes != 0
                                      ? options.slice_bytes
                                      : m_workers * uni_address_region::default_slice_bytes;
  check_same_parameters(m_workers, slice_bytes);
  if (m_workers == 0 || m_workers > 4096) {  // the same on every rank, after the check
    MPI_Comm_free(&m_comm);
    throw std::invalid_argument(
        "tine::mpi_pool: workers_per_rank (or TINE_MPI_WORKERS_PER_RANK) must be an integer from "
        "1 to 4096");
  }
  m_ranks = std::make_unique<topology>(rank_topology(m_comm));
  m_region = std::make_unique<uni_address_region>(m_comm, slice_bytes);
  // Stacklets from the slice (the lanes'), each at least min_stacklet_bytes.
  m_region->set_min_stacklet_bytes(min_stacklet_bytes);
  for (std::size_t w = 0; w < m_workers; ++w) {
    // A lone worker's deque has no thief but the worker itself (its lane's offers take from it):
    // taken back without a fence, as a one-worker busy_pool does.
    m_contexts.push_back(std::make_unique<worker_context>(std::size_t{1024}, m_workers == 1));
    // The parallel algorithms size their grain by the workers of the whole pool.
    m_contexts.back()->set_worker_count(m_workers * static_cast<std::size_t>(m_size));
    m_random.emplace_back(static_cast<std::uint64_t>(m_rank) * 1000003ULL + w);
  }
  m_local_steals.assign(m_workers, 0);
  m_lane_steals.assign(m_workers, 0);
  if (m_size > 1 || lanes_on_one_rank) {
    m_worker = std::make_unique<rank_worker>(m_comm, *m_region);
    for (std::size_t w = 0; w < m_workers; ++w) {
      m_slots.push_back(std::make_unique<offer_slot>(m_comm));  // collective
      m_lanes.push_back(std::make_unique<worker_lane>(*m_worker, *m_slots[w], *m_contexts[w]));
    }
    // At each poll of the progress thread, a worker whose lane is empty is asked for an offer;
    // when a thief has just taken one, the thread polls without sleeping for a moment (MPICH),
    // so that the thief's fetch of the frame does not wait for the next interval.
    m_worker->start([this] {
      bool taken = false;
      for (const std::unique_ptr<worker_lane>& lane : m_lanes) {
        taken = lane->ask_for_offer() || taken;
      }
      return taken;
    });
  }
  for (std::size_t w = 1; w < m_workers; ++w) {
    m_threads.emplace_back([this, w] { serve(w); });
  }
}

void rank_pool::check_same_parameters(std::size_t workers, std::size_t slice_bytes) {
  // Regions of different sizes on different ranks crash inside MPI, or put one rank's stacks in
  // another's slice, and different numbers of workers make windows that do not match: refused on
  // every rank, which all see the same values.
  const std::uint64_t mine[2] = {workers, slice_bytes};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(m_size));
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, m_comm);
  bool same = true;
  std::string listed;
  for (int r = 0; r < m_size; ++r) {
    const std::uint64_t* theirs = &all[2 * static_cast<std::size_t>(r)];
    same = same && theirs[0] == all[0] && theirs[1] == all[1];
    listed += (r == 0 ? " rank " : ", rank ") + std::to_string(r) + " workers_per_rank " +
              std::to_string(theirs[0]) + " slice_bytes " + std::to_string(theirs[1]);
  }
  if (!same) {
    MPI_Comm_free(&m_comm);
    throw std::invalid_argument(
        "tine::mpi_pool: the ranks constructed the pool with different parameters (every rank "
        "must pass the same workers_per_rank and slice_bytes):" +
        listed);
  }
}

rank_pool::~rank_pool() {
  // A layer with resources still made on this pool ends the program here, saying so.
  if (const pool_hooks* hooks = pool_hooks_now(); hooks != nullptr && hooks->closing != nullptr) {
    hooks->closing(*this);
  }
  agree_on_call(m_comm, {collective_call::destroy, m_calls, 0, 0});
  {
    std::lock_guard lock(m_park);
    m_stop = true;
    m_running.store(false, std::memory_order_relaxed);  // a root left by an exception
  }
  m_wake.notify_all();
  for (std::thread& t : m_threads) {
    t.join();
  }
  // The progress thread (which asks the lanes for offers) stops first; the stacks go back to the
  // slice before the region goes; the slots' windows are collective.
  m_worker.reset();
  m_lanes.clear();
  m_contexts.clear();
  m_slots.clear();
  m_region.reset();
  MPI_Comm_free(&m_comm);
}

std::size_t rank_pool::machine_of(int rank) const {
  return m_ranks->numa_node(static_cast<std::size_t>(rank));
}

void rank_pool::agree_on_resource_call(bool made, std::uint64_t elements,
                                       std::uint64_t element_bytes) {
  agree_on_call(m_comm, {made ? collective_call::allocate : collective_call::deallocate, m_calls++,
                         elements, element_bytes});
}

pool_counters rank_pool::counters() const noexcept {
  pool_counters c;
  for (const std::unique_ptr<offer_slot>& d : m_slots) {
    c.rma_operations += d->rma_operations();
  }
  c.roots = m_roots;
  for (std::size_t w = 0; w < m_workers; ++w) {
    c.local_steals += m_local_steals[w];
    c.lane_steals += m_lane_steals[w];
  }
  if (m_worker) {
    c.steals = m_worker->steals();
    c.pieced_steals = m_worker->pieced_steals();
    c.steal_attempts = m_worker->steal_attempts();
    c.bytes_migrated = m_worker->bytes_migrated();
    c.remote_joins = m_worker->remote_joins();
    c.messages_by_workers = m_worker->messages_by_workers();
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

void rank_pool::work_or_steal(std::size_t w) {
  worker_context& me = *m_contexts[w];
  xoshiro256ss& rng = m_random[w];
  if (!m_worker) {
    // One rank: a shared-memory pool of the rank's workers.
    if (me.steal_from(me) == steal_status::success) {
      return;
    }
    if (m_workers > 1) {
      const std::size_t victim = m_victims.workers.next(m_victims.workers.policy, w, rng);
      if (victim != w && me.steal_from(*m_contexts[victim]) == steal_status::success) {
        ++m_local_steals[w];
        return;
      }
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));  // alone: nothing to steal
    return;
  }
  if (m_lanes[w]->run_own() || m_worker->run_ready(me)) {
    return;
  }
  // An idle worker polls MPI itself: an arrival that completes a join is received here and its
  // frame continues at once, and thieves' operations on this rank complete, without waiting for
  // the progress thread's next interval.
  if (m_worker->poll() && m_worker->run_ready(me)) {
    return;
  }
  if (m_workers > 1) {
    // Another worker of this rank: its deque (no MPI), then its lane, if it offered something
    // (through this rank's own window; the lane's words are read here first).
    const std::size_t victim = m_victims.workers.next(m_victims.workers.policy, w, rng);
    if (victim != w) {
      if (tine::detail::frame* f = me.take_continuation(*m_contexts[victim])) {
        ++m_local_steals[w];
        run_taken(me, f);
        return;
      }
      if (m_slots[victim]->offered() && m_worker->try_steal(m_rank, *m_slots[victim], me)) {
        ++m_local_steals[w];
        ++m_lane_steals[w];
        return;
      }
    }
  }
  // Another rank, and one of its workers' lanes.
  const auto victim = static_cast<int>(
      m_victims.ranks.next(m_victims.ranks.policy, static_cast<std::size_t>(m_rank), rng));
  const std::size_t lane = m_workers > 1 ? static_cast<std::size_t>(rng() % m_workers) : 0;
  if (victim == m_rank || !m_worker->try_steal(victim, *m_slots[lane], me)) {
    std::this_thread::yield();
  }
}

void rank_pool::serve(std::size_t w) {
  worker_context& context = *m_contexts[w];
  context.bind();
  if (!m_lanes.empty()) {
    try {
      context.set_backend(m_lanes[w].get());
    } catch (const std::bad_alloc&) {
      tine::detail::fatal("tine::mpi_pool: no memory for a worker's stacks in the rank's slice");
    }
  }
  std::uint64_t served = 0;
  std::unique_lock lock(m_park);
  for (;;) {
    m_wake.wait(lock, [&] { return m_stop || m_root_number != served; });
    if (m_stop) {
      break;
    }
    served = m_root_number;
    lock.unlock();
    while (m_running.load(std::memory_order_relaxed)) {
      work_or_steal(w);
    }
    lock.lock();
    ++m_parked;
    m_all_parked.notify_one();
  }
  lock.unlock();
  context.unbind();
}

void rank_pool::run_root(submit_node* root, tine::detail::waiting_sink& sink, void* value,
                         std::size_t value_bytes, std::uint64_t signature,
                         victim_choosers victims) {
  if (std::this_thread::get_id() != m_thread) {
    throw std::logic_error(
        "tine::sync_wait on an mpi_pool: call it on the thread that constructed the pool (that "
        "thread is the rank's first worker)");
  }
  agree_on_call(m_comm, {collective_call::root, m_calls++, signature, value_bytes});
  // A new root follows whatever every rank's earlier roots wrote.
  announce_acquire(acquire_point::root);
  // The pool's threads look for work until the outcome is known here.
  {
    std::lock_guard lock(m_park);
    m_victims = victims;
    m_parked = 0;
    ++m_root_number;
    m_running.store(true, std::memory_order_relaxed);
  }
  m_wake.notify_all();
  const auto stop_workers = [this] {
    m_running.store(false, std::memory_order_relaxed);
    // Every other worker is back waiting: what they did is visible here (m_park), and none
    // takes the next root's work before it starts.
    std::unique_lock lock(m_park);
    m_all_parked.wait(lock, [&] { return m_parked == m_threads.size(); });
  };
  outcome_header head;
  std::string description;
  std::vector<std::byte> outcome(outcome_size(value_bytes));
  MPI_Request request = MPI_REQUEST_NULL;
  if (m_rank == 0) {
    ++m_roots;
    try {
      worker_session session(*this);
      m_contexts[0]->run_submitted(root);
      // The root ends on this rank (a frame's joins complete where it was made); meanwhile this
      // worker steals like the others.
      while (!sink.done()) {
        work_or_steal(0);
      }
    } catch (...) {
      // Memory too short to start the root: still an outcome every rank must receive.
      sink.exception = std::current_exception();
    }
    stop_workers();
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
    encode_outcome(outcome, head, {static_cast<const std::byte*>(value), value_bytes});
    MPI_Ibcast(outcome.data(), static_cast<int>(outcome.size()), MPI_BYTE, 0, m_comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Ibcast(outcome.data(), static_cast<int>(outcome.size()), MPI_BYTE, 0, m_comm, &request);
    try {
      worker_session session(*this);
      // Steal until the outcome arrives: the root's work is spread from rank 0.
      while (!completed(request)) {
        work_or_steal(0);
      }
    } catch (...) {
      stop_workers();  // no memory for this worker's stacks
      throw;
    }
    stop_workers();
  }
  if (m_worker) {
    for (const std::unique_ptr<worker_lane>& lane : m_lanes) {
      if (lane->kept() != 0) {
        tine::detail::fatal(
            "tine::mpi_pool: internal error: a root task ended with continuations kept back");
      }
    }
    m_worker->end_of_root();
    // No rank starts the next root (and pushes its continuations) before every rank has stopped
    // stealing for this one: a rank still in this loop would take the next root's work and hold
    // it across the two calls.
    MPI_Barrier(m_comm);
  }
  // Every rank but 0 takes the result's bytes (rank 0's value is already there).
  const std::size_t received = m_rank != 0 ? value_bytes : 0;
  head = decode_outcome(outcome, {static_cast<std::byte*>(value), received});
  if (head.threw != 0) {
    // The same exception on every rank, rank 0 included: ranks that catch different types would
    // go different ways and meet in different collective calls.
    description.resize(head.description_bytes);
    MPI_Bcast(description.data(), static_cast<int>(head.description_bytes), MPI_CHAR, 0, m_comm);
    std::rethrow_exception(rebuild_exception(description));
  }
}

}  // namespace tine::mpi::detail
