#include <tine/distributed/rma_deque.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>

namespace tine::mpi {
namespace {

// Word indices in each rank's window.
constexpr MPI_Aint lock_word = 0;
constexpr MPI_Aint top_word = 1;
constexpr MPI_Aint bottom_word = 2;
constexpr MPI_Aint first_slot = 3;

std::atomic_ref<std::int64_t> word(std::int64_t* words, MPI_Aint i) {
  return std::atomic_ref<std::int64_t>(words[i]);
}

// GCC 12's ThreadSanitizer does not model standalone fences (and -Wtsan makes them an error).
// Under TSan (the deque runs there over tests' one-rank MPI stub, whose operations are seq_cst
// atomics) the owner's store before each store-load fence and its load after it are seq_cst
// instead, which orders them the same way: seq_cst operations are in one total order.
#if defined(__SANITIZE_THREAD__)
constexpr bool fences = false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool fences = false;
#else
constexpr bool fences = true;
#endif
#else
constexpr bool fences = true;
#endif
constexpr std::memory_order around_fence =
    fences ? std::memory_order_relaxed : std::memory_order_seq_cst;

// seq_cst fence: the store-load barrier of the owner's pop (see the callers).
void store_load_fence() noexcept {
  if constexpr (fences) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

}  // namespace

rma_deque::rma_deque(MPI_Comm comm, std::size_t capacity) : m_capacity(capacity) {
  if (capacity == 0 || (capacity & (capacity - 1)) != 0) {
    throw std::invalid_argument("tine::mpi::rma_deque: the capacity must be a power of two");
  }
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  // Whole cache lines: MPICH 4.0 (ch4) lays out the segments of a shared-memory window wrongly
  // when a rank's size is not a multiple of 16 bytes, and every other rank then sees this rank's
  // words one word off (found by rma_deque_test's neighbour steals).
  const auto bytes =
      static_cast<MPI_Aint>(((first_slot + capacity) * sizeof(std::int64_t) + 63) / 64 * 64);
  MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, m_comm, &m_words, &m_window);
  for (std::size_t i = 0; i < first_slot + capacity; ++i) {
    m_words[i] = 0;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, m_window);
  // Every rank's words are zero before anyone steals.
  MPI_Win_sync(m_window);
  MPI_Barrier(m_comm);
}

rma_deque::~rma_deque() {
  MPI_Barrier(m_comm);  // no steal is in flight
  MPI_Win_unlock_all(m_window);
  MPI_Win_free(&m_window);
  MPI_Comm_free(&m_comm);
}

bool rma_deque::push(std::uint64_t item) noexcept {
  // relaxed: only this thread writes `bottom`.
  const std::int64_t b = word(m_words, bottom_word).load(std::memory_order_relaxed);
  // acquire: pairs with the thieves' increments of `top`.
  const std::int64_t t = word(m_words, top_word).load(std::memory_order_acquire);
  // One slot short of the ring: a thief increments `top` before it reads the slot it takes, so
  // the slot just below `top` may still be in flight (one thief at a time: the lock).
  if (b - t >= static_cast<std::int64_t>(m_capacity) - 1) {
    return false;
  }
  word(m_words, first_slot + (b & static_cast<std::int64_t>(m_capacity - 1)))
      .store(static_cast<std::int64_t>(item), std::memory_order_relaxed);
  // release: the slot is written before a thief can see the new bottom.
  word(m_words, bottom_word).store(b + 1, std::memory_order_release);
  return true;
}

std::optional<std::uint64_t> rma_deque::pop() noexcept {
  const std::int64_t b = word(m_words, bottom_word).load(std::memory_order_relaxed) - 1;
  // Empty (thieves took everything): nothing to race for, and no lock to take. relaxed: a `top`
  // older than the latest is smaller and sends us down the careful path below; one larger than
  // the item's index is a thief's increment in flight, and since `bottom` is untouched here that
  // thief's check succeeds and it takes the item, so reporting none is right.
  if (word(m_words, top_word).load(std::memory_order_relaxed) > b) {
    return std::nullopt;
  }
  word(m_words, bottom_word).store(b, around_fence);
  // seq_cst fence: Dekker's store-load order against the thieves' increment of `top` (see the
  // file comment).
  store_load_fence();
#if defined(TINE_RMA_DEQUE_WIDEN_RACE)
  // Test builds only (rma_deque_race_test): when one item is left, hold the window between the
  // store of `bottom` and the load of `top` open long enough for thieves to land in it, so the
  // path below runs.
  if (word(m_words, top_word).load(std::memory_order_relaxed) == b) {
    for (const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
         std::chrono::steady_clock::now() < until;) {
    }
  }
#endif
  std::int64_t t = word(m_words, top_word).load(around_fence);
  if (t > b) {
    // A thief may be taking the last item: give it back, then decide under the lock.
    ++m_contended_pops;
    word(m_words, bottom_word).store(b + 1, std::memory_order_relaxed);
    while (!lock(m_rank)) {
    }
    word(m_words, bottom_word).store(b, around_fence);
    // seq_cst fence: keep the load below after the lock and the store (no thief runs now).
    store_load_fence();
    t = word(m_words, top_word).load(around_fence);
    if (t > b) {
      word(m_words, bottom_word).store(b + 1, std::memory_order_relaxed);
      unlock(m_rank);
      return std::nullopt;
    }
    unlock(m_rank);
  }
  return static_cast<std::uint64_t>(
      word(m_words, first_slot + (b & static_cast<std::int64_t>(m_capacity - 1)))
          .load(std::memory_order_relaxed));
}

rma_deque::steal_result rma_deque::steal(int victim) noexcept {
  // A look first: most steal attempts find an empty deque, and this costs one round trip.
  std::int64_t ends[2] = {0, 0};  // top, bottom
  MPI_Get(ends, 2, MPI_INT64_T, victim, top_word, 2, MPI_INT64_T, m_window);
  MPI_Win_flush(victim, m_window);
  m_rma_operations.fetch_add(1, std::memory_order_relaxed);
  if (ends[0] >= ends[1]) {
    return {status::empty, 0};
  }
  if (!lock(victim)) {
    return {status::busy, 0};
  }
  const std::int64_t h = fetch_add(victim, top_word, 1);
  const std::int64_t b = fetch_add(victim, bottom_word, 0);
  if (h + 1 > b) {
    fetch_add(victim, top_word, -1);
    unlock(victim);
    return {status::empty, 0};
  }
  std::int64_t item = 0;
  MPI_Get(&item, 1, MPI_INT64_T, victim,
          first_slot + (h & static_cast<std::int64_t>(m_capacity - 1)), 1, MPI_INT64_T, m_window);
  MPI_Win_flush(victim, m_window);
  m_rma_operations.fetch_add(1, std::memory_order_relaxed);
  unlock(victim);
  return {status::success, static_cast<std::uint64_t>(item)};
}

std::size_t rma_deque::size() const noexcept {
  const std::int64_t b = word(m_words, bottom_word).load(std::memory_order_relaxed);
  const std::int64_t t = word(m_words, top_word).load(std::memory_order_relaxed);
  return b > t ? static_cast<std::size_t>(b - t) : 0;
}

bool rma_deque::lock(int rank) noexcept {
  const std::int64_t locked = 1;
  const std::int64_t unlocked = 0;
  std::int64_t old = 0;
  MPI_Compare_and_swap(&locked, &unlocked, &old, MPI_INT64_T, rank, lock_word, m_window);
  MPI_Win_flush(rank, m_window);
  m_rma_operations.fetch_add(1, std::memory_order_relaxed);
  return old == unlocked;
}

void rma_deque::unlock(int rank) noexcept {
  const std::int64_t unlocked = 0;
  std::int64_t old = 0;
  MPI_Fetch_and_op(&unlocked, &old, MPI_INT64_T, rank, lock_word, MPI_REPLACE, m_window);
  MPI_Win_flush(rank, m_window);
  m_rma_operations.fetch_add(1, std::memory_order_relaxed);
}

std::int64_t rma_deque::fetch_add(int rank, std::size_t w, std::int64_t delta) noexcept {
  std::int64_t old = 0;
  MPI_Fetch_and_op(&delta, &old, MPI_INT64_T, rank, static_cast<MPI_Aint>(w),
                   delta == 0 ? MPI_NO_OP : MPI_SUM, m_window);
  MPI_Win_flush(rank, m_window);
  m_rma_operations.fetch_add(1, std::memory_order_relaxed);
  return old;
}

}  // namespace tine::mpi
