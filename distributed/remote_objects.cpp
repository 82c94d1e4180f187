#include <tine/distributed/remote_objects.hpp>

#include <atomic>

namespace tine::mpi {

remote_objects::~remote_objects() {
  while (m_head != nullptr) {
    unlink_and_release(m_head);
  }
}

void* remote_objects::allocate(std::size_t bytes) noexcept {
  const std::size_t total = sizeof(header) + bytes;
  if (m_bytes + total > m_limit) {
    collect();
  }
  void* raw = m_region.allocate(total);
  if (raw == nullptr && collect() != 0) {
    raw = m_region.allocate(total);
  }
  if (raw == nullptr) {
    return nullptr;
  }
  auto* h = static_cast<header*>(raw);
  h->prev = nullptr;
  h->next = m_head;
  h->bytes = total;
  // relaxed: nobody can free the block before its address leaves this rank, and whatever
  // carries it away (an MPI operation) orders this store before the remote put.
  std::atomic_ref<std::uint64_t>(h->freed).store(0, std::memory_order_relaxed);
  if (m_head != nullptr) {
    m_head->prev = h;
  }
  m_head = h;
  ++m_blocks;
  m_bytes += total;
  return h + 1;
}

void remote_objects::free_local(void* p) noexcept { unlink_and_release(header_of(p)); }

void remote_objects::free_remote(const uni_address_region& region, void* p) noexcept {
  header* h = header_of(p);
  static const std::uint64_t one = 1;
  const MPI_Aint offset = reinterpret_cast<std::byte*>(&h->freed) - region.base();
  // No flush: the put completes with the next flush to that rank, and nothing here waits for
  // it (the owner reclaims the block whenever it sees the bit).
  MPI_Put(&one, 1, MPI_UINT64_T, region.home_rank(p), offset, 1, MPI_UINT64_T, region.window());
}

std::size_t remote_objects::collect() noexcept {
  std::size_t reclaimed = 0;
  for (header* h = m_head; h != nullptr;) {
    header* next = h->next;
    // acquire: the put came from another process through MPI; the load must not be hoisted or
    // cached, and the block is reused only after the bit was seen.
    if (std::atomic_ref<std::uint64_t>(h->freed).load(std::memory_order_acquire) != 0) {
      unlink_and_release(h);
      ++reclaimed;
    }
    h = next;
  }
  return reclaimed;
}

void remote_objects::unlink_and_release(header* h) noexcept {
  if (h->prev != nullptr) {
    h->prev->next = h->next;
  } else {
    m_head = h->next;
  }
  if (h->next != nullptr) {
    h->next->prev = h->prev;
  }
  --m_blocks;
  m_bytes -= h->bytes;
  m_region.deallocate(h, h->bytes);
}

}  // namespace tine::mpi
