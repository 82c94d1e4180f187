#ifndef TINE_TESTS_DISTRIBUTED_MIXED_TREE_HPP
#define TINE_TESTS_DISTRIBUTED_MIXED_TREE_HPP

// A seeded random fork-join tree with the shapes that stress a distributed pool, and its serial
// evaluation. A hash of a node's id decides what it is:
// - an ordinary node: 0 to 4 children, forked, their values in a stack allocation;
// - a chain: a fork chain 1,000 to 3,000 deep above an ordinary node (deep stacks that span
//   stacklets);
// - a fat node: 4 KiB of locals in its frame, checked after its join;
// - a node with a 1 MiB stack allocation filled with a pattern and checked after its join;
// - with `failing`, a node that throws std::invalid_argument or std::out_of_range; some parents
//   catch both by type around their join (then their value is fixed, whichever child threw), the
//   others let it pass.
// The value of a run is the same on any number of ranks, or the same exception type escapes.

#include <tine/core/core.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace mixed_tree {

inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

enum class shape { ordinary, chain, fat, big_alloc };

inline shape shape_of(std::uint64_t id, int depth) {
  const std::uint64_t h = mix(id ^ 0x5a5e);
  if (depth >= 2 && depth <= 8 && h % 97 == 0) {
    return shape::chain;
  }
  if (depth <= 6 && h % 61 == 1) {
    return shape::big_alloc;
  }
  if (h % 7 == 2) {
    return shape::fat;
  }
  return shape::ordinary;
}

inline int children_of(std::uint64_t id, int depth) {
  if (depth >= 12) {
    return 0;
  }
  return depth < 3 ? 3 : static_cast<int>(mix(id) % 5);
}

inline int chain_length(std::uint64_t id) {
  return 1000 + static_cast<int>(mix(id ^ 0xc4a1) % 2001);
}

// 0: does not throw; 1: std::invalid_argument; 2: std::out_of_range.
inline int throws_at(std::uint64_t id, bool failing) {
  if (!failing) {
    return 0;
  }
  const std::uint64_t h = mix(id ^ 0x7e57);
  return h % 211 == 0 ? 1 + static_cast<int>((h >> 20) % 2) : 0;
}

inline bool catches(std::uint64_t id) { return mix(id ^ 0xca7c) % 2 == 0; }

inline std::uint64_t caught_value(std::uint64_t id) { return mix(id ^ 0xfa11) & 0xfff; }

inline constexpr std::size_t big_alloc_words = (std::size_t{1} << 20) / 8;

tine::task<std::uint64_t> node(std::uint64_t id, int depth, bool failing);

inline tine::task<std::uint64_t> chain(std::uint64_t id, int depth, int remaining, bool failing) {
  if (remaining == 0) {
    std::uint64_t v = 0;
    co_await tine::call(&v, node, id, depth, failing);
    co_return v;
  }
  std::uint64_t r = 0;
  co_await tine::fork(&r, chain, id, depth, remaining - 1, failing);
  co_await tine::join();
  co_return r + 1;
}

// The children of `id`, forked, then joined; a throwing child is caught by type at the join when
// `catches(id)`.
inline tine::task<std::uint64_t> children(std::uint64_t id, int depth, bool failing) {
  const int k = children_of(id, depth);
  if (k == 0) {
    // A leaf works a few microseconds, so that a run lasts long enough for many steals.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(4);
    while (std::chrono::steady_clock::now() < until) {
    }
    co_return 0;
  }
  tine::stack_array<std::uint64_t> values =
      co_await tine::stack_alloc<std::uint64_t>(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    co_await tine::fork(&values[static_cast<std::size_t>(i)], node, id * 5 + 1 + i, depth + 1,
                        failing);
  }
  bool caught = false;
  try {
    co_await tine::join();
  } catch (const std::invalid_argument&) {
    if (!catches(id)) {
      throw;
    }
    caught = true;
  } catch (const std::out_of_range&) {
    if (!catches(id)) {
      throw;
    }
    caught = true;
  }
  if (caught) {
    co_return caught_value(id);
  }
  std::uint64_t sum = 0;
  for (int i = 0; i < k; ++i) {
    sum += values[static_cast<std::size_t>(i)];
  }
  co_return sum;
}

inline tine::task<std::uint64_t> fat(std::uint64_t id, int depth, bool failing) {
  std::array<std::uint64_t, 512> pad;  // lives across the suspension: in the frame
  pad.fill(id);
  std::uint64_t below = 0;
  co_await tine::call(&below, children, id, depth, failing);
  std::uint64_t intact = 0;
  for (std::uint64_t v : pad) {
    intact += v == id ? 1 : 0;
  }
  co_return below + intact;  // intact is 512 when the frame's bytes arrived whole
}

inline tine::task<std::uint64_t> big_alloc(std::uint64_t id, int depth, bool failing) {
  tine::stack_array<std::uint64_t> a = co_await tine::stack_alloc<std::uint64_t>(big_alloc_words);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = id + i;
  }
  std::uint64_t below = 0;
  co_await tine::call(&below, children, id, depth, failing);
  std::uint64_t intact = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    intact += a[i] == id + i ? 1 : 0;
  }
  co_return below + intact;
}

inline tine::task<std::uint64_t> node(std::uint64_t id, int depth, bool failing) {
  if (const int t = throws_at(id, failing); t != 0) {
    if (t == 1) {
      throw std::invalid_argument("node " + std::to_string(id));
    }
    throw std::out_of_range("node " + std::to_string(id));
  }
  const std::uint64_t own = mix(id) & 0xffff;
  std::uint64_t below = 0;
  switch (shape_of(id, depth)) {
    case shape::chain:
      co_await tine::call(&below, chain, id * 5 + 1, depth + 1, chain_length(id), failing);
      break;
    case shape::fat:
      co_await tine::call(&below, fat, id, depth, failing);
      break;
    case shape::big_alloc:
      co_await tine::call(&below, big_alloc, id, depth, failing);
      break;
    case shape::ordinary:
      co_await tine::call(&below, children, id, depth, failing);
      break;
  }
  co_return own + below;
}

// The serial evaluation: the value, or nothing when an exception escapes the node.
inline std::optional<std::uint64_t> serial_node(std::uint64_t id, int depth, bool failing);

inline std::optional<std::uint64_t> serial_children(std::uint64_t id, int depth, bool failing) {
  const int k = children_of(id, depth);
  std::uint64_t sum = 0;
  bool threw = false;
  for (int i = 0; i < k; ++i) {
    const std::optional<std::uint64_t> v = serial_node(id * 5 + 1 + i, depth + 1, failing);
    threw = threw || !v.has_value();
    sum += v.value_or(0);
  }
  if (threw) {
    return catches(id) ? std::optional<std::uint64_t>(caught_value(id)) : std::nullopt;
  }
  return sum;
}

inline std::optional<std::uint64_t> serial_node(std::uint64_t id, int depth, bool failing) {
  if (throws_at(id, failing) != 0) {
    return std::nullopt;
  }
  const std::uint64_t own = mix(id) & 0xffff;
  std::optional<std::uint64_t> below;
  switch (shape_of(id, depth)) {
    case shape::chain: {
      below = serial_node(id * 5 + 1, depth + 1, failing);
      if (below) {
        *below += static_cast<std::uint64_t>(chain_length(id));
      }
      break;
    }
    case shape::fat:
      below = serial_children(id, depth, failing);
      if (below) {
        *below += 512;
      }
      break;
    case shape::big_alloc:
      below = serial_children(id, depth, failing);
      if (below) {
        *below += big_alloc_words;
      }
      break;
    case shape::ordinary:
      below = serial_children(id, depth, failing);
      break;
  }
  if (!below) {
    return std::nullopt;
  }
  return own + *below;
}

}  // namespace mixed_tree

#endif  // TINE_TESTS_DISTRIBUTED_MIXED_TREE_HPP
