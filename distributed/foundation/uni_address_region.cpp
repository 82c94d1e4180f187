#include <tine/distributed/foundation/uni_address_region.hpp>

#include <algorithm>

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tine::mpi::detail {
namespace {

constexpr std::size_t granule = std::size_t{64} << 10;

// Where to look for a range that is free on every rank: 1 TiB apart from 32 TiB up, far from
// where Linux places programs, heaps, libraries and thread stacks (near 0x5555... and 0x7fff...
// without randomisation). ThreadSanitizer (tests over the one-rank MPI stub) admits programs'
// mappings in a few ranges only, and turns a hint outside them into no hint, which for root can
// be address 0 (then it stops the program): there, the two candidates in its middle range, which
// ends below where programs are loaded.
#if defined(__SANITIZE_THREAD__)
#define TINE_REGION_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TINE_REGION_UNDER_TSAN 1
#endif
#endif
#if defined(TINE_REGION_UNDER_TSAN)
constexpr std::uintptr_t first_candidate = 0x550000000000;
constexpr int candidates = 2;
#else
constexpr std::uintptr_t first_candidate = std::uintptr_t{32} << 40;
constexpr int candidates = 64;
#endif
constexpr std::uintptr_t candidate_step = std::uintptr_t{1} << 40;

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

void* reserve_at(std::uintptr_t where, std::size_t bytes) {
  // NORESERVE: address space only; pages are committed when a stacklet first touches them.
  void* p = ::mmap(reinterpret_cast<void*>(where), bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) {
    return nullptr;
  }
  if (reinterpret_cast<std::uintptr_t>(p) != where) {  // a kernel that ignores NOREPLACE
    ::munmap(p, bytes);
    return nullptr;
  }
  return p;
}

}  // namespace

uni_address_region::uni_address_region(MPI_Comm comm, std::size_t slice_bytes)
    : m_stacklets{[](void* self, std::size_t& total) noexcept -> void* {
                    auto* region = static_cast<uni_address_region*>(self);
                    total = block_bytes(std::max(total, region->m_min_stacklet));
                    return region->allocate(total);
                  },
                  [](void* self, void* block, std::size_t total) noexcept {
                    static_cast<uni_address_region*>(self)->deallocate(block, total);
                  },
                  this} {
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
  m_slice = (slice_bytes + granule - 1) / granule * granule;
  const std::size_t total = m_slice * static_cast<std::size_t>(m_size);
  for (int i = 0; i < candidates && m_base == nullptr; ++i) {
    const std::uintptr_t where = first_candidate + static_cast<std::uintptr_t>(i) * candidate_step;
    void* p = reserve_at(where, total);
    int mine = p != nullptr ? 1 : 0;
    int everywhere = 0;
    MPI_Allreduce(&mine, &everywhere, 1, MPI_INT, MPI_MIN, m_comm);
    if (everywhere == 1) {
      m_base = static_cast<std::byte*>(p);
    } else if (p != nullptr) {
      ::munmap(p, total);
    }
  }
  if (m_base == nullptr) {
    MPI_Comm_free(&m_comm);
    throw std::runtime_error("tine::mpi::detail::uni_address_region: no address range of " +
                             std::to_string(total) +
                             " bytes is free on every rank (try a smaller slice)");
  }
  m_bump = slice_begin(m_rank);
  MPI_Win_create(m_base, static_cast<MPI_Aint>(total), 1, MPI_INFO_NULL, m_comm, &m_window);
  // One passive-target epoch for the window's whole life: fetch and store then only flush.
  MPI_Win_lock_all(MPI_MODE_NOCHECK, m_window);
}

uni_address_region::~uni_address_region() {
  MPI_Win_unlock_all(m_window);
  MPI_Win_free(&m_window);
  ::munmap(m_base, m_slice * static_cast<std::size_t>(m_size));
  MPI_Comm_free(&m_comm);
}

void uni_address_region::fetch(int from, void* p, std::size_t n) const {
  if (from == m_rank) {
    return;  // the bytes are already here (and MPI may not copy a range onto itself)
  }
  const MPI_Aint offset = static_cast<std::byte*>(p) - m_base;
  MPI_Get(p, static_cast<int>(n), MPI_BYTE, from, offset, static_cast<int>(n), MPI_BYTE, m_window);
  MPI_Win_flush(from, m_window);
}

void uni_address_region::store(int to, const void* p, std::size_t n) const {
  if (to == m_rank) {
    return;
  }
  const MPI_Aint offset = static_cast<const std::byte*>(p) - m_base;
  MPI_Put(p, static_cast<int>(n), MPI_BYTE, to, offset, static_cast<int>(n), MPI_BYTE, m_window);
  MPI_Win_flush(to, m_window);
}

std::size_t uni_address_region::class_of(std::size_t bytes) noexcept {
  std::size_t c = 0;
  while ((std::size_t{1} << (min_block_log2 + c)) < bytes) {
    ++c;
  }
  return c;
}

std::size_t uni_address_region::block_bytes(std::size_t bytes) noexcept {
  return std::size_t{1} << (min_block_log2 + class_of(bytes));
}

void* uni_address_region::allocate(std::size_t bytes) noexcept {
  const std::size_t c = class_of(bytes);
  if (c >= classes) {
    return nullptr;
  }
  const std::size_t block = std::size_t{1} << (min_block_log2 + c);
  std::lock_guard lock(m_mutex);
  void* p = m_free[c];
  if (p != nullptr) {
    std::memcpy(&m_free[c], p, sizeof(void*));
  } else {
    if (static_cast<std::size_t>(slice_begin(m_rank) + m_slice - m_bump) < block) {
      return nullptr;
    }
    p = m_bump;
    m_bump += block;
  }
  m_in_use += block;
  return p;
}

void uni_address_region::deallocate(void* p, std::size_t bytes) noexcept {
  const std::size_t c = class_of(bytes);
  const std::size_t block = std::size_t{1} << (min_block_log2 + c);
  if (block >= (std::size_t{256} << 10)) {
    // The pages go back to the system; the range stays reserved and reads as zeros.
    ::madvise(p, block, MADV_DONTNEED);
  }
  std::lock_guard lock(m_mutex);
  std::memcpy(p, &m_free[c], sizeof(void*));
  m_free[c] = p;
  m_in_use -= block;
}

}  // namespace tine::mpi::detail
