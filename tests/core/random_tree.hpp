#ifndef TINE_TESTS_CORE_RANDOM_TREE_HPP
#define TINE_TESTS_CORE_RANDOM_TREE_HPP

// Seeded random fork-join trees for the reducer and dprng tests: each node has 0 to 4 children,
// forks them (its last child by fork or by call), may throw before forking (its children then
// never run) and may catch what its children throw; it may also spin a little, so that idle
// workers of a pool find its continuation. `visit_serially` walks a tree in the serial program's
// order with the same exception rules as the task, for the reference results; `visit_as_run`
// walks the nodes a parallel run started, in that order.

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tine_tests {

struct tree {
  struct node {
    std::vector<int> children;
    bool throws = false;        // throws after its first update, before forking
    bool catches = false;       // catches what its children throw (and then finishes normally)
    bool last_by_call = false;  // its last child is started with tine::call
    int spin = 0;               // iterations of busy work before forking
  };
  std::vector<node> nodes;
};

struct node_error : std::runtime_error {
  explicit node_error(int id) : std::runtime_error("node " + std::to_string(id) + " failed") {}
};

// About `size` nodes; a node throws with probability `throw_probability` and catches with
// probability `catch_probability`.
inline tree make_tree(std::uint64_t seed, std::size_t size, double throw_probability,
                      double catch_probability) {
  std::mt19937_64 rng(seed);
  tree t;
  t.nodes.emplace_back();
  std::size_t next = 0;  // breadth first, so the tree is bushy near the root
  while (next < t.nodes.size() && t.nodes.size() < size) {
    const auto children = static_cast<int>(rng() % 5);
    for (int c = 0; c < children && t.nodes.size() < size; ++c) {
      t.nodes[next].children.push_back(static_cast<int>(t.nodes.size()));
      t.nodes.emplace_back();
    }
    ++next;
  }
  std::bernoulli_distribution throws(throw_probability), catches(catch_probability), by_call(0.5),
      spins(0.2);
  for (tree::node& n : t.nodes) {
    n.throws = throws(rng);
    n.catches = catches(rng);
    n.last_by_call = by_call(rng);
    n.spin = spins(rng) ? static_cast<int>(rng() % 2000) : 0;
  }
  return t;
}

inline void spin_for(int iterations) {
  for (int i = 0; i < iterations; ++i) {
    asm volatile("" ::: "memory");  // a loop the optimiser keeps
  }
}

// Calls before(id) and after(id) in the order of the serial program, as it ran: `ran(id)` says
// whether node id started. A node's children before its first child whose exception escaped must
// all have started (`ok` is cleared otherwise); the children after it start or not, depending on
// whether the scope's later forks saw the stored exception (they start no child once they do:
// with nothing stolen, never; with thieves about, a fork racing with the throw may). Returns true
// when an exception escapes node `id` (after() is then not called for it).
template <typename Before, typename After, typename Ran>
bool visit_as_run(const tree& t, int id, Before& before, After& after, Ran& ran, bool& ok) {
  const tree::node& n = t.nodes[static_cast<std::size_t>(id)];
  before(id);
  if (n.throws) {
    return true;
  }
  bool child_threw = false;
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    const int c = n.children[k];
    const bool by_call = k + 1 == n.children.size() && n.last_by_call;
    if (!ran(c)) {
      // Only a fork after the scope's exception may start nothing; a call always starts.
      ok = ok && child_threw && !by_call;
      continue;
    }
    child_threw = visit_as_run(t, c, before, after, ran, ok) || child_threw;
  }
  if (child_threw && !n.catches) {
    return true;
  }
  after(id);
  return false;
}

// The serial program (one worker, nothing stolen): every fork after a child's exception starts
// nothing (a call starts its child all the same). Calls before(id) and after(id) in its order;
// returns true when an exception escapes node `id`. `started`, when given, receives a 1 for every
// node that starts.
template <typename Before, typename After>
bool visit_serially(const tree& t, int id, Before& before, After& after,
                    std::vector<char>* started = nullptr) {
  const tree::node& n = t.nodes[static_cast<std::size_t>(id)];
  before(id);
  if (started != nullptr) {
    (*started)[static_cast<std::size_t>(id)] = 1;
  }
  if (n.throws) {
    return true;
  }
  bool child_threw = false;
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    if (child_threw && !(k + 1 == n.children.size() && n.last_by_call)) {
      continue;  // a fork after the exception was stored: skipped
    }
    child_threw = visit_serially(t, n.children[k], before, after, started) || child_threw;
  }
  if (child_threw && !n.catches) {
    return true;
  }
  after(id);
  return false;
}

}  // namespace tine_tests

#endif  // TINE_TESTS_CORE_RANDOM_TREE_HPP
