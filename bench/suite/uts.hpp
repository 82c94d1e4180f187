#ifndef TINE_BENCH_UTS_HPP
#define TINE_BENCH_UTS_HPP

/// \file uts.hpp
/// Unbalanced Tree Search (Olivier et al. 2006, "UTS: An Unbalanced Tree Search Benchmark"): the
/// tree parameters, the SHA-1 random stream (OpenSSL's libcrypto), the child-count rules and the
/// reference counts of the published trees.

// The low-level SHA1_Init/Update/Final are deprecated in OpenSSL 3 but still supported, and cost
// ~150 ns per node here against ~350 ns for EVP_Digest* with a cached context and ~1200 ns for
// the one-shot SHA1() (which fetches the algorithm on every call): UTS should measure the
// scheduler, not the crypto library's dispatch.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace uts {

struct params {
  const char* name;
  int type;    // 1 geometric (fixed shape, a = 3), 0 binomial
  double b;    // root branching (and geometric target branching)
  int gen_mx;  // geometric: depth limit d
  double q;    // binomial: probability of m children
  int m;       // binomial: children of a non-root node
  int seed;    // r
  // Reference results (0: unpublished, checked against the serial run only).
  std::uint64_t nodes, leaves;
  int depth;
};

// From uts.md's table. "small" trees are not published: only for smoke tests, where every library's
// count is checked against the serial run's.
inline constexpr params trees[] = {
    {"T1", 1, 4, 10, 0, 0, 19, 4130071, 3305118, 10},
    {"T1L", 1, 4, 13, 0, 0, 29, 102181082, 81746377, 13},
    {"T3", 0, 2000, 0, 0.124875, 8, 42, 4112897, 3599034, 1572},
    {"T3L", 0, 2000, 0, 0.200014, 5, 7, 111345631, 89076904, 17844},
    {"T1small", 1, 4, 6, 0, 0, 19, 0, 0, 0},
    {"T3small", 0, 2000, 0, 0.11, 8, 42, 0, 0, 0},
};

inline const params& tree(std::string_view name) {
  for (const auto& t : trees) {
    if (name == t.name) {
      return t;
    }
  }
  throw std::invalid_argument("uts: unknown tree " + std::string(name) +
                              " (T1, T1L, T3, T3L, T1small, T3small)");
}

struct node {
  unsigned char state[SHA_DIGEST_LENGTH];
  int depth;
};

/// What a traversal returns. Trivially copyable, default-constructible.
struct result {
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  int depth = 0;

  result& operator+=(const result& o) {
    nodes += o.nodes;
    leaves += o.leaves;
    depth = depth > o.depth ? depth : o.depth;
    return *this;
  }
  friend bool operator==(const result&, const result&) = default;
};

inline void put_be32(unsigned char* p, std::uint32_t v) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}

inline void sha1(const unsigned char* in, std::size_t len, unsigned char* out) {
  SHA_CTX c;
  SHA1_Init(&c);
  SHA1_Update(&c, in, len);
  SHA1_Final(out, &c);
}

inline node root(const params& p) {
  unsigned char in[20] = {};
  put_be32(in + 16, static_cast<std::uint32_t>(p.seed));
  node n{};
  sha1(in, sizeof in, n.state);
  n.depth = 0;
  return n;
}

inline void child(const node& parent, int i, node& out) {
  unsigned char in[SHA_DIGEST_LENGTH + 4];
  std::memcpy(in, parent.state, SHA_DIGEST_LENGTH);
  put_be32(in + SHA_DIGEST_LENGTH, static_cast<std::uint32_t>(i));
  sha1(in, sizeof in, out.state);
  out.depth = parent.depth + 1;
}

inline double probability(const node& n) {
  std::uint32_t r = (std::uint32_t(n.state[16]) << 24) | (std::uint32_t(n.state[17]) << 16) |
                    (std::uint32_t(n.state[18]) << 8) | std::uint32_t(n.state[19]);
  return static_cast<double>(r & 0x7fffffffu) / 2147483648.0;
}

inline int num_children(const params& p, const node& n) {
  int k = 0;
  if (p.type == 1) {
    double bi = n.depth < p.gen_mx ? p.b : 0.0;
    if (bi > 0) {
      double prob = 1.0 / (1.0 + bi);
      k = static_cast<int>(std::floor(std::log(1.0 - probability(n)) / std::log(1.0 - prob)));
    }
  } else {
    if (n.depth == 0) {
      return static_cast<int>(std::floor(p.b));  // binomial root: not capped
    }
    k = probability(n) < p.q ? p.m : 0;
  }
  return k > 100 ? 100 : k;
}

/// "" if `got` is the published result of the tree (or equal to `serial` for unpublished trees).
inline std::string check(const params& p, const result& got, const result& serial) {
  result want = p.nodes != 0 ? result{p.nodes, p.leaves, p.depth} : serial;
  if (got == want) {
    return "";
  }
  return "wrong UTS result for " + std::string(p.name) + ": nodes " + std::to_string(got.nodes) +
         " leaves " + std::to_string(got.leaves) + " depth " + std::to_string(got.depth) +
         ", expected nodes " + std::to_string(want.nodes) + " leaves " +
         std::to_string(want.leaves) + " depth " + std::to_string(want.depth);
}

}  // namespace uts

#endif  // TINE_BENCH_UTS_HPP
