#include <tine/distributed/pool/exception_store.hpp>

#include <cstring>
#include <new>
#include <string>
#include <utility>

#include <tine/distributed/foundation/exception_transport.hpp>
#include <tine/distributed/remote_error.hpp>

namespace tine::mpi::detail {
namespace {

// A token is the address of the entry's block in the owner's slice (64-byte aligned), or, for an
// entry kept without a block, an odd number with the owner's rank in its high half.
constexpr std::uintptr_t unplaced_bit = 1;

std::uintptr_t unplaced_token(int rank, std::uint32_t index) noexcept {
  return (static_cast<std::uintptr_t>(rank) << 32) | (std::uintptr_t{index} << 1) | unplaced_bit;
}

int unplaced_owner(std::uintptr_t token) noexcept { return static_cast<int>(token >> 32); }

}  // namespace

std::uintptr_t exception_store::put(std::exception_ptr e) noexcept {
  try {
    const std::string description = serialise_exception(e, m_region.rank());
    const std::uint64_t length = description.size();
    const std::size_t block = uni_address_region::block_bytes(sizeof length + length);
    auto* at = static_cast<std::byte*>(m_region.allocate(block));
    std::uintptr_t token = 0;
    if (at != nullptr) {
      std::memcpy(at, &length, sizeof length);
      std::memcpy(at + sizeof length, description.data(), description.size());
      token = reinterpret_cast<std::uintptr_t>(at);
    } else {
      token = unplaced_token(m_region.rank(), m_next_local++ & 0x7fffffffu);
    }
    try {
      m_entries.emplace(token, entry{std::move(e), at != nullptr ? block : 0});
    } catch (...) {
      if (at != nullptr) {
        m_region.deallocate(at, block);
      }
      return 0;
    }
    return token;
  } catch (...) {
    return 0;
  }
}

std::exception_ptr exception_store::take(std::uintptr_t token, int& release_to,
                                         std::uint64_t& operations) noexcept {
  release_to = -1;
  if (token == 0) {
    return std::make_exception_ptr(std::bad_alloc());
  }
  const bool placed = (token & unplaced_bit) == 0;
  const int owner =
      placed ? m_region.home_rank(reinterpret_cast<const void*>(token)) : unplaced_owner(token);
  if (owner == m_region.rank()) {
    const auto it = m_entries.find(token);
    if (it == m_entries.end()) {
      tine::detail::fatal("tine::mpi_pool: internal error: an exception token was taken twice");
    }
    std::exception_ptr e = std::move(it->second.original);
    erase(it);
    return e;
  }
  if (!placed) {
    return std::make_exception_ptr(remote_error(
        "an exception whose description could not be kept where other ranks can read it (rank " +
            std::to_string(owner) + "'s slice of the task memory was full)",
        owner));
  }
  try {
    // Into this rank's memory at the same address: the owner's slice, where this rank never
    // allocates.
    auto* at = reinterpret_cast<std::byte*>(token);
    std::uint64_t length = 0;
    m_region.fetch(owner, at, sizeof length);
    std::memcpy(&length, at, sizeof length);
    m_region.fetch(owner, at + sizeof length, length);
    operations += 2;
    release_to = owner;
    return rebuild_exception(
        std::string_view(reinterpret_cast<const char*>(at + sizeof length), length));
  } catch (...) {
    return std::current_exception();
  }
}

void exception_store::release(std::uintptr_t token) {
  std::lock_guard lock(m_mutex);
  m_released.push_back(token);
}

void exception_store::collect() noexcept {
  {
    std::lock_guard lock(m_mutex);
    if (m_released.empty()) {
      return;
    }
    m_collecting.swap(m_released);
  }
  for (const std::uintptr_t token : m_collecting) {
    if (const auto it = m_entries.find(token); it != m_entries.end()) {
      erase(it);
    }
  }
  m_collecting.clear();
}

void exception_store::clear() noexcept {
  collect();
  while (!m_entries.empty()) {
    erase(m_entries.begin());
  }
}

void exception_store::erase(std::unordered_map<std::uintptr_t, entry>::iterator it) noexcept {
  if (it->second.block_bytes != 0) {
    m_region.deallocate(reinterpret_cast<void*>(it->first), it->second.block_bytes);
  }
  m_entries.erase(it);
}

}  // namespace tine::mpi::detail
