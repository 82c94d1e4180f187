#include <tine/distributed/pool/messages.hpp>

#include <cstring>

namespace tine::mpi::detail {
namespace {

/// What an arrival carries first. Then: the result's bytes; for each piece of the frame's range,
/// its address, its size and its bytes; the exception's description.
struct arrival_header {
  std::uint64_t frame;
  std::uint64_t strands;
  std::uint64_t result_at;
  std::uint32_t result_bytes;
  std::uint32_t pieces;
  /// 0: no exception; 1: one the sender could not describe; n > 1: n - 1 bytes of description.
  std::uint64_t exception_bytes;
};

struct piece_header {
  std::uint64_t at;
  std::uint64_t bytes;
};

/// Writes a message into a buffer sized for it first (one allocation, no growth).
class writer {
 public:
  explicit writer(std::vector<std::byte>& out) noexcept : m_at(out.data()) {}

  void put(const void* p, std::size_t n) noexcept {
    if (n != 0) {
      std::memcpy(m_at, p, n);
      m_at += n;
    }
  }

 private:
  std::byte* m_at;
};

/// Reads a message front to back, refusing to read past its end.
class reader {
 public:
  explicit reader(std::span<const std::byte> bytes) noexcept : m_rest(bytes) {}

  std::span<const std::byte> take(std::size_t n) noexcept {
    if (n > m_rest.size()) {
      tine::detail::fatal(
          "tine::mpi_pool: internal error: a message is shorter than its header says");
    }
    std::span<const std::byte> got = m_rest.first(n);
    m_rest = m_rest.subspan(n);
    return got;
  }

  template <typename T>
  T read() noexcept {
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }

 private:
  std::span<const std::byte> m_rest;
};

std::byte* address(std::uint64_t a) noexcept {
  return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(a));
}

}  // namespace

std::vector<std::byte> encode_arrival(const arrival_out& a) {
  arrival_header h{};
  h.frame = a.frame;
  h.strands = a.strands;
  h.result_at = reinterpret_cast<std::uintptr_t>(a.result_at);
  h.result_bytes = a.result_at != nullptr ? static_cast<std::uint32_t>(a.result.size()) : 0;
  h.pieces = static_cast<std::uint32_t>(a.pieces.size());
  h.exception_bytes = a.threw ? a.exception.size() + 1 : 0;  // +1: never 0 when it threw
  std::size_t total = sizeof h + h.result_bytes + (a.threw ? a.exception.size() : 0);
  for (const range_piece& p : a.pieces) {
    total += sizeof(piece_header) + p.bytes;
  }
  std::vector<std::byte> out(total);
  writer w(out);
  w.put(&h, sizeof h);
  w.put(a.result.data(), h.result_bytes);
  for (const range_piece& p : a.pieces) {
    const piece_header ph{reinterpret_cast<std::uintptr_t>(p.at), p.bytes};
    w.put(&ph, sizeof ph);
    w.put(p.at, p.bytes);
  }
  if (a.threw) {
    w.put(a.exception.data(), a.exception.size());
  }
  return out;
}

arrival_in decode_arrival(std::span<const std::byte> bytes) {
  reader in(bytes);
  const auto h = in.read<arrival_header>();
  arrival_in a;
  a.frame = static_cast<std::uintptr_t>(h.frame);
  a.strands = h.strands;
  if (h.result_bytes != 0) {
    std::span<const std::byte> r = in.take(h.result_bytes);
    a.result = patch{address(h.result_at), {r.begin(), r.end()}};
  }
  a.pieces.reserve(h.pieces);
  for (std::uint32_t i = 0; i < h.pieces; ++i) {
    const auto ph = in.read<piece_header>();
    std::span<const std::byte> p = in.take(static_cast<std::size_t>(ph.bytes));
    a.pieces.push_back(patch{address(ph.at), {p.begin(), p.end()}});
  }
  a.threw = h.exception_bytes != 0;
  if (h.exception_bytes > 1) {
    std::span<const std::byte> d = in.take(static_cast<std::size_t>(h.exception_bytes - 1));
    a.exception.assign(reinterpret_cast<const char*>(d.data()), d.size());
  }
  return a;
}

release_bytes encode_release(const release_message& r) noexcept {
  release_bytes out;
  std::memcpy(out.data(), &r.token, sizeof r.token);
  std::memcpy(out.data() + sizeof r.token, &r.generation, sizeof r.generation);
  return out;
}

release_message decode_release(std::span<const std::byte> bytes) noexcept {
  reader in(bytes);
  release_message r;
  r.token = in.read<std::uint64_t>();
  r.generation = in.read<std::uint64_t>();
  return r;
}

void encode_outcome(std::span<std::byte> out, const outcome_header& head,
                    std::span<const std::byte> value) noexcept {
  TINE_ASSERT(out.size() == outcome_size(value.size()), "outcome buffer of the wrong size");
  std::memcpy(out.data(), &head, sizeof head);
  if (!value.empty()) {
    std::memcpy(out.data() + sizeof head, value.data(), value.size());
  }
}

outcome_header decode_outcome(std::span<const std::byte> in, std::span<std::byte> value) noexcept {
  reader r(in);
  const auto head = r.read<outcome_header>();
  if (!value.empty()) {
    std::span<const std::byte> v = r.take(value.size());
    std::memcpy(value.data(), v.data(), v.size());
  }
  return head;
}

}  // namespace tine::mpi::detail
