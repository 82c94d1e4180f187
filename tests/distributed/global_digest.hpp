#ifndef TINE_TESTS_DISTRIBUTED_GLOBAL_DIGEST_HPP
#define TINE_TESTS_DISTRIBUTED_GLOBAL_DIGEST_HPP

// How the tests of global vectors compare one with a std::vector: a digest (FNV-1a) of their
// bytes, the global one computed by one task that checks out the whole span (its root runs on
// rank 0 and never forks, so no rank's copy goes stale).

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tine/distributed/distributed.hpp>

namespace tine_test {

template <typename T>
std::uint64_t digest_bytes(const T* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n * sizeof(T); ++i) {
    h = (h ^ bytes[i]) * 1099511628211ULL;
  }
  return h ^ n;
}

template <typename T>
tine::task<std::uint64_t> digest_of(tine::mpi::global_span<const T> s) {
  auto all = co_await tine::mpi::checkout(s);
  co_return digest_bytes(all.data(), all.size());
}

template <typename T>
std::uint64_t digest(const std::vector<T>& v) {
  return digest_bytes(v.data(), v.size());
}

}  // namespace tine_test

#endif  // TINE_TESTS_DISTRIBUTED_GLOBAL_DIGEST_HPP
