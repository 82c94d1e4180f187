#include <tine/distributed/memory/global_store.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <tine/core/worker_context.hpp>
#include <tine/distributed/global_traffic.hpp>
#include <tine/distributed/memory/block_cache.hpp>
#include <tine/distributed/pool/pool_hooks.hpp>

namespace tine::mpi::detail {
namespace {

/// Every store of this process by id. Stores are made and destroyed outside tasks, and looked
/// up by tasks on any worker: a lock.
struct registry {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, global_store*> stores;
  std::uint32_t next_id = 1;
  /// The stores alive on each pool (an entry while any is), which its destructor checks.
  std::unordered_map<const resource_host*, std::int64_t> per_pool;
};

registry& stores() {
  static registry r;
  return r;
}

/// What the pool announces to global memory (pool_hooks.hpp).
void on_acquire(acquire_point) noexcept {
  // The lines this rank cached of other ranks' blocks may predate writes it now follows.
  block_cache::instance().invalidate();
}

void on_closing(const resource_host& pool) noexcept {
  bool alive = false;
  {
    registry& r = stores();
    std::lock_guard lock(r.mutex);
    alive = r.per_pool.contains(&pool);
  }
  if (alive) {
    tine::detail::fatal(
        "tine::mpi_pool: destroyed while global vectors made on it still exist (destroy every "
        "tine::mpi::global_vector before its pool)");
  }
}

/// Registered by the first store (rather than by a static object, which a static library's link
/// may drop): with no store yet, no line is cached and no pool has a store to outlive.
constexpr pool_hooks hooks{&on_acquire, &on_closing};

/// One store fewer alive on `pool` (the constructor counts one more).
void one_fewer_on(const resource_host& pool) noexcept {
  registry& r = stores();
  std::lock_guard lock(r.mutex);
  const auto it = r.per_pool.find(&pool);
  if (it != r.per_pool.end() && --it->second == 0) {
    r.per_pool.erase(it);
  }
}

/// This process's traffic (tine::mpi::traffic). relaxed: counts, read between collective calls
/// that order them.
struct traffic_counters {
  std::atomic<std::uint64_t> checkouts{0};
  std::atomic<std::uint64_t> copied_checkouts{0};
  std::atomic<std::uint64_t> bytes_fetched{0};
  std::atomic<std::uint64_t> bytes_stored{0};
};

traffic_counters& counters() {
  static traffic_counters c;
  return c;
}

/// Calls `transfer(offset, part)` over [0, bytes) in parts of at most 1 GiB: MPI's counts are
/// ints.
template <typename Transfer>
void in_parts(std::uint64_t bytes, Transfer&& transfer) {
  constexpr std::uint64_t max_part = std::uint64_t{1} << 30;
  for (std::uint64_t done = 0; done < bytes; done += max_part) {
    transfer(done, static_cast<int>(std::min(max_part, bytes - done)));
  }
}

}  // namespace

void global_store::checked_out(bool copied) noexcept {
  m_live.fetch_add(1, std::memory_order_relaxed);
  counters().checkouts.fetch_add(1, std::memory_order_relaxed);
  if (copied) {
    counters().copied_checkouts.fetch_add(1, std::memory_order_relaxed);
  }
}

global_store::global_store(resource_host& pool, std::uint64_t elements, std::size_t element_bytes)
    : m_pool(pool), m_size(elements), m_element_bytes(element_bytes) {
  if (tine::current_worker() != nullptr) {
    throw std::logic_error(
        "tine::mpi::global_vector: made inside a task; a global vector is made (and destroyed) "
        "collectively, by every rank, outside tasks");
  }
  set_pool_hooks(hooks);
  pool.agree_on_resource_call(true, elements, element_bytes);
  m_comm = pool.comm();
  m_rank = pool.rank();
  m_ranks = pool.size();
  const auto ranks = static_cast<std::uint64_t>(m_ranks);
  // At least 1, so that an empty vector's block arithmetic never divides by zero.
  m_block = std::max<std::uint64_t>(1, (elements + ranks - 1) / ranks);
  const std::uint64_t start = std::min(elements, m_block * static_cast<std::uint64_t>(m_rank));
  const std::uint64_t mine = std::min(elements - start, m_block);
  // Whole cache lines: MPICH 4.0 lays out a shared-memory window wrongly when a rank's part is
  // not a multiple of 16 bytes (offer_slot.cpp).
  const std::uint64_t bytes = (mine * element_bytes + 63) / 64 * 64;
  // The ranks of this machine, as the pool's topology draws machines (within the ranks that
  // can share memory at all), hold their blocks in one shared-memory window, each block in its
  // own pages (noncontiguous): each maps the others' and reads and writes them in place. The
  // same memory is also a window over all the ranks for one-sided operations from elsewhere.
  MPI_Comm sharing = MPI_COMM_NULL;
  MPI_Comm_split_type(m_comm, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &sharing);
  const std::size_t machine = pool.machine_of(m_rank);
  MPI_Comm_split(sharing, static_cast<int>(machine), m_rank, &m_machine);
  MPI_Comm_free(&sharing);
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  const int made =
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, m_machine, &m_base, &m_shared);
  MPI_Info_free(&info);
  if (made != MPI_SUCCESS || MPI_Win_create(m_base, static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL,
                                            m_comm, &m_window) != MPI_SUCCESS) {
    throw std::bad_alloc();
  }
  if (bytes != 0) {
    std::memset(m_base, 0, static_cast<std::size_t>(bytes));  // elements start zeroed
  }
  int machine_ranks = 1;
  MPI_Comm_size(m_machine, &machine_ranks);
  std::vector<int> rank_of(static_cast<std::size_t>(machine_ranks));
  MPI_Allgather(&m_rank, 1, MPI_INT, rank_of.data(), 1, MPI_INT, m_machine);
  m_mapped.assign(static_cast<std::size_t>(m_ranks), nullptr);
  for (int k = 0; k < machine_ranks; ++k) {
    MPI_Aint their_bytes = 0;
    int unit = 1;
    std::byte* their_base = nullptr;
    MPI_Win_shared_query(m_shared, k, &their_bytes, &unit, &their_base);
    m_mapped[static_cast<std::size_t>(rank_of[static_cast<std::size_t>(k)])] = their_base;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, m_shared);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, m_window);
  // Zeroed before any rank reads or writes it (the Allreduce below orders the ranks).
  MPI_Win_sync(m_shared);
  MPI_Win_sync(m_window);
  // One id on every rank: the largest any rank would give (ranks that made stores on other
  // communicators may be ahead).
  registry& r = stores();
  std::uint32_t proposed = 0;
  {
    std::lock_guard lock(r.mutex);
    proposed = r.next_id;
  }
  MPI_Allreduce(&proposed, &m_id, 1, MPI_UINT32_T, MPI_MAX, m_comm);
  std::lock_guard lock(r.mutex);
  r.next_id = m_id + 1;
  r.stores[m_id] = this;
  ++r.per_pool[&pool];
}

global_store::~global_store() {
  if (m_live.load(std::memory_order_relaxed) != 0) {
    tine::detail::fatal(
        "tine::mpi::global_vector: destroyed while a checkout of it is live (a task holds one, "
        "or a checked_out view outlived its task)");
  }
  {
    registry& r = stores();
    std::lock_guard lock(r.mutex);
    r.stores.erase(m_id);
  }
  block_cache::instance().forget_store(m_id);
  m_pool.agree_on_resource_call(false, m_size, m_element_bytes);
  MPI_Win_unlock_all(m_window);
  MPI_Win_free(&m_window);  // collective: no rank's operation on it is in flight
  MPI_Win_unlock_all(m_shared);
  MPI_Win_free(&m_shared);
  MPI_Comm_free(&m_machine);
  one_fewer_on(m_pool);
}

global_store& global_store::find(std::uint32_t id) {
  registry& r = stores();
  std::lock_guard lock(r.mutex);
  const auto found = r.stores.find(id);
  if (found == r.stores.end()) {
    throw std::logic_error(
        "tine::mpi::checkout: the span's global_vector does not exist (it was destroyed)");
  }
  return *found->second;
}

template <typename Piece>
void global_store::for_each_piece(std::uint64_t first, std::uint64_t count, Piece&& piece) const {
  while (count != 0) {
    const std::uint64_t rank = first / m_block;
    const std::uint64_t in_block = first - rank * m_block;
    const std::uint64_t n = std::min(count, m_block - in_block);
    piece(static_cast<int>(rank), in_block, n);
    first += n;
    count -= n;
  }
}

std::uint64_t global_store::held_bytes(int rank) const noexcept {
  const std::uint64_t start = std::min(m_size, m_block * static_cast<std::uint64_t>(rank));
  return std::min(m_size - start, m_block) * m_element_bytes;
}

bool global_store::maps(std::uint64_t first, std::uint64_t count) const noexcept {
  return count != 0 && first / m_block == (first + count - 1) / m_block &&
         m_mapped[static_cast<std::size_t>(first / m_block)] != nullptr;
}

std::byte* global_store::local(std::uint64_t first, std::uint64_t count) const noexcept {
  if (!maps(first, count)) {
    return nullptr;
  }
  const std::uint64_t rank = first / m_block;
  std::byte* const block = m_mapped[static_cast<std::size_t>(rank)];
  if (rank != static_cast<std::uint64_t>(m_rank)) {
    // The acquire half of another rank's publish_local: its writes, ordered before this
    // checkout by the fork-join order (an arrival, a steal: messages and atomics), are seen.
    MPI_Win_sync(m_shared);
  }
  return block + (first - rank * m_block) * m_element_bytes;
}

void global_store::fetch(std::byte* out, std::uint64_t first, std::uint64_t count) {
  for_each_piece(first, count, [&](int rank, std::uint64_t at, std::uint64_t n) {
    const std::uint64_t bytes = n * m_element_bytes;
    const std::uint64_t from = at * m_element_bytes;
    if (std::byte* const block = m_mapped[static_cast<std::size_t>(rank)]; block != nullptr) {
      if (rank != m_rank) {
        MPI_Win_sync(m_shared);  // acquire, as in local()
      }
      std::memcpy(out, block + from, bytes);
    } else {
      std::uint64_t fetched = 0;
      if (!block_cache::instance().read(m_window, m_id, rank, from, bytes, held_bytes(rank), out,
                                        fetched)) {
        in_parts(bytes, [&](std::uint64_t done, int part) {
          MPI_Get(out + done, part, MPI_BYTE, rank, static_cast<MPI_Aint>(from + done), part,
                  MPI_BYTE, m_window);
        });
        MPI_Win_flush(rank, m_window);
        fetched = bytes;
      }
      counters().bytes_fetched.fetch_add(fetched, std::memory_order_relaxed);
    }
    out += bytes;
  });
}

void global_store::store(const std::byte* in, std::uint64_t first, std::uint64_t count) {
  for_each_piece(first, count, [&](int rank, std::uint64_t at, std::uint64_t n) {
    const std::uint64_t bytes = n * m_element_bytes;
    const std::uint64_t to = at * m_element_bytes;
    if (std::byte* const block = m_mapped[static_cast<std::size_t>(rank)]; block != nullptr) {
      std::memcpy(block + to, in, bytes);
      publish_local();
    } else {
      in_parts(bytes, [&](std::uint64_t done, int part) {
        MPI_Put(in + done, part, MPI_BYTE, rank, static_cast<MPI_Aint>(to + done), part, MPI_BYTE,
                m_window);
      });
      // Complete at the target before the writer goes on: whatever follows the write in the
      // fork-join order (a join, a steal) then finds it there, and not in this rank's cache.
      MPI_Win_flush(rank, m_window);
      block_cache::instance().forget(m_id, rank, to, bytes);
      counters().bytes_stored.fetch_add(bytes, std::memory_order_relaxed);
    }
    in += bytes;
  });
}

void global_store::publish_local() noexcept {
  // Both windows are in MPI's unified memory model: a sync orders this rank's stores before the
  // other ranks' later one-sided reads (m_window) and in-place reads (m_shared, whose readers
  // sync too: local()).
  MPI_Win_sync(m_shared);
  MPI_Win_sync(m_window);
}

}  // namespace tine::mpi::detail

namespace tine::mpi {

global_traffic traffic() noexcept {
  const detail::traffic_counters& c = detail::counters();
  const detail::block_cache& cache = detail::block_cache::instance();
  return {c.checkouts.load(std::memory_order_relaxed),
          c.copied_checkouts.load(std::memory_order_relaxed),
          c.bytes_fetched.load(std::memory_order_relaxed),
          c.bytes_stored.load(std::memory_order_relaxed),
          cache.hits(),
          cache.misses()};
}

}  // namespace tine::mpi
