#include <tine/distributed/memory/block_cache.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace tine::mpi::detail {

block_cache& block_cache::instance() {
  static block_cache cache([] {
    const char* bytes = std::getenv("TINE_MPI_CACHE_BYTES");
    return bytes != nullptr ? std::strtoull(bytes, nullptr, 10) : std::uint64_t{16} << 20;
  }());
  return cache;
}

block_cache::block_cache(std::uint64_t capacity_bytes)
    : m_capacity_lines(capacity_bytes / line_bytes) {}

std::size_t block_cache::key_hash::operator()(const key& k) const noexcept {
  std::uint64_t h = k.line * 0x9e3779b97f4a7c15ULL;
  h ^= (static_cast<std::uint64_t>(k.store) << 32 | static_cast<std::uint32_t>(k.rank)) +
       0xbf58476d1ce4e5b9ULL + (h << 6) + (h >> 2);
  return static_cast<std::size_t>(h);
}

bool block_cache::read(MPI_Win window, std::uint32_t store, int rank, std::uint64_t from,
                       std::uint64_t bytes, std::uint64_t block_bytes, std::byte* out,
                       std::uint64_t& fetched) {
  const std::uint64_t first = from / line_bytes;
  const std::uint64_t last = (from + bytes - 1) / line_bytes;
  if (bytes == 0 || m_capacity_lines == 0 || last - first + 1 > bypass_lines) {
    return false;
  }
  // The part of line `k` this read wants: where it starts in the line, and how long it is.
  const auto part = [&](std::uint64_t k, std::uint64_t& offset, std::uint64_t& length) {
    const std::uint64_t begin = std::max(from, k * line_bytes);
    const std::uint64_t end = std::min(from + bytes, (k + 1) * line_bytes);
    offset = begin - k * line_bytes;
    length = end - begin;
  };
  std::vector<std::uint64_t> missing;
  std::uint64_t epoch = 0;
  std::uint64_t forgotten = 0;
  {
    std::lock_guard lock(m_mutex);
    epoch = m_epoch;
    forgotten = m_forgotten;
    for (std::uint64_t k = first; k <= last; ++k) {
      const auto found = m_index.find(key{store, rank, k});
      if (found == m_index.end() || found->second->epoch != m_epoch) {
        missing.push_back(k);
        continue;
      }
      m_lines.splice(m_lines.begin(), m_lines, found->second);  // most recently used
      std::uint64_t offset = 0;
      std::uint64_t length = 0;
      part(k, offset, length);
      std::memcpy(out + (k * line_bytes + offset - from), found->second->bytes.get() + offset,
                  length);
    }
  }
  m_hits.fetch_add(last - first + 1 - missing.size(), std::memory_order_relaxed);
  if (missing.empty()) {
    return true;
  }
  // Whole lines (the block's last may be shorter), all requested before one flush.
  std::vector<line> got;
  got.reserve(missing.size());
  for (const std::uint64_t k : missing) {
    const std::uint64_t length = std::min(line_bytes, block_bytes - k * line_bytes);
    line l{key{store, rank, k}, epoch, std::make_unique<std::byte[]>(line_bytes)};
    MPI_Get(l.bytes.get(), static_cast<int>(length), MPI_BYTE, rank,
            static_cast<MPI_Aint>(k * line_bytes), static_cast<int>(length), MPI_BYTE, window);
    fetched += length;
    got.push_back(std::move(l));
  }
  MPI_Win_flush(rank, window);
  m_misses.fetch_add(missing.size(), std::memory_order_relaxed);
  for (const line& l : got) {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    part(l.name.line, offset, length);
    std::memcpy(out + (l.name.line * line_bytes + offset - from), l.bytes.get() + offset, length);
  }
  std::lock_guard lock(m_mutex);
  if (m_epoch == epoch && m_forgotten == forgotten) {
    for (line& l : got) {
      keep(std::move(l));
    }
  }
  return true;
}

void block_cache::keep(line&& l) {
  if (const auto old = m_index.find(l.name); old != m_index.end()) {
    m_lines.erase(old->second);
    m_index.erase(old);
  }
  while (m_lines.size() >= m_capacity_lines) {
    m_index.erase(m_lines.back().name);
    m_lines.pop_back();
  }
  m_lines.push_front(std::move(l));
  m_index[m_lines.front().name] = m_lines.begin();
}

void block_cache::forget(std::uint32_t store, int rank, std::uint64_t from, std::uint64_t bytes) {
  if (bytes == 0 || m_capacity_lines == 0) {
    return;
  }
  std::lock_guard lock(m_mutex);
  ++m_forgotten;  // a fetch in flight may hold the old bytes: it must not keep them
  if (m_lines.empty()) {
    return;
  }
  const std::uint64_t first = from / line_bytes;
  const std::uint64_t last = (from + bytes - 1) / line_bytes;
  if (last - first + 1 > m_lines.size()) {
    for (auto it = m_lines.begin(); it != m_lines.end();) {
      const key& k = it->name;
      if (k.store == store && k.rank == rank && k.line >= first && k.line <= last) {
        m_index.erase(k);
        it = m_lines.erase(it);
      } else {
        ++it;
      }
    }
    return;
  }
  for (std::uint64_t k = first; k <= last; ++k) {
    if (const auto found = m_index.find(key{store, rank, k}); found != m_index.end()) {
      m_lines.erase(found->second);
      m_index.erase(found);
    }
  }
}

void block_cache::forget_store(std::uint32_t store) {
  std::lock_guard lock(m_mutex);
  for (auto it = m_lines.begin(); it != m_lines.end();) {
    if (it->name.store == store) {
      m_index.erase(it->name);
      it = m_lines.erase(it);
    } else {
      ++it;
    }
  }
}

void block_cache::invalidate() noexcept {
  std::lock_guard lock(m_mutex);
  ++m_epoch;
}

}  // namespace tine::mpi::detail
