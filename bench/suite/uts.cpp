/// uts: Unbalanced Tree Search (uts.hpp): a task per node forks one child task
/// per child and joins, returning (nodes, leaves, max depth). Children's states and results live in
/// a heap std::vector, or (the '*' variant, libfork's UTS*) in tine's stack allocation API.
/// Every run's counts are checked against the published reference. One task = one tree node.

#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"
#include "bench/suite/uts.hpp"

namespace {

struct slot {
  uts::node node;
  uts::result res;
};

uts::result uts_serial(const uts::params& p, const uts::node& n) {
  int k = uts::num_children(p, n);
  uts::result r{1, k == 0 ? 1u : 0u, n.depth};
  uts::node c;
  for (int i = 0; i < k; ++i) {
    uts::child(n, i, c);
    r += uts_serial(p, c);
  }
  return r;
}

tine::task<uts::result> uts_tine(const uts::params* p, const uts::node* n) {
  int k = uts::num_children(*p, *n);
  uts::result r{1, k == 0 ? 1u : 0u, n->depth};
  if (k == 0) {
    co_return r;
  }
  std::vector<slot> cs(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(*n, i, cs[i].node);
    co_await tine::fork(&cs[i].res, uts_tine, p, &cs[i].node);
  }
  co_await tine::join();
  for (const auto& c : cs) {
    r += c.res;
  }
  co_return r;
}

// The '*' variant: the children live on the task's segmented stack.
tine::task<uts::result> uts_tine_star(const uts::params* p, const uts::node* n) {
  int k = uts::num_children(*p, *n);
  uts::result r{1, k == 0 ? 1u : 0u, n->depth};
  if (k == 0) {
    co_return r;
  }
  tine::stack_array<slot> cs = co_await tine::stack_alloc<slot>(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(*n, i, cs[i].node);
    co_await tine::fork(&cs[i].res, uts_tine_star, p, &cs[i].node);
  }
  co_await tine::join();
  for (const auto& c : cs) {
    r += c.res;
  }
  co_return r;
}

uts::result uts_tbb(const uts::params& p, const uts::node& n) {
  int k = uts::num_children(p, n);
  uts::result r{1, k == 0 ? 1u : 0u, n.depth};
  if (k == 0) {
    return r;
  }
  std::vector<slot> cs(static_cast<std::size_t>(k));
  tbb::task_group g;
  for (int i = 0; i < k; ++i) {
    uts::child(n, i, cs[i].node);
    g.run([&p, &c = cs[i]] { c.res = uts_tbb(p, c.node); });
  }
  g.wait();
  for (const auto& c : cs) {
    r += c.res;
  }
  return r;
}

uts::result uts_omp(const uts::params& p, const uts::node& n) {
  int k = uts::num_children(p, n);
  uts::result r{1, k == 0 ? 1u : 0u, n.depth};
  if (k == 0) {
    return r;
  }
  std::vector<slot> cs(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(n, i, cs[i].node);
    slot* c = &cs[i];
    const uts::params* pp = &p;
#pragma omp task default(none) firstprivate(c, pp)
    c->res = uts_omp(*pp, c->node);
  }
#pragma omp taskwait
  for (const auto& c : cs) {
    r += c.res;
  }
  return r;
}

/// Input: a tree name, with a '*' suffix for the stack-allocation variant (tine only; the other
/// libraries run their ordinary version for it, so rows stay comparable).
struct uts_input {
  const uts::params* tree;
  bool star;
};

struct uts_workload {
  static constexpr const char* name = "uts";
  using input = uts_input;
  using result = uts::result;

  static input parse(std::string_view s) {
    bool star = !s.empty() && s.back() == '*';
    if (star) {
      s.remove_suffix(1);
    }
    return {&uts::tree(s), star};
  }
  static std::string show(const input& in) {
    return std::string(in.tree->name) + (in.star ? "*" : "");
  }
  static std::vector<input> bench_inputs() {
    return {parse("T1"), parse("T1*"), parse("T3"), parse("T3*")};
  }
  static std::vector<input> full_inputs() {
    return {parse("T1L"), parse("T1L*"), parse("T3L"), parse("T3L*")};
  }
  static input smoke_input() { return parse("T3small*"); }

  static result serial(const input& in) { return uts_serial(*in.tree, uts::root(*in.tree)); }
  template <class S>
  static result tine(S& s, const input& in) {
    const uts::node r = uts::root(*in.tree);
    const uts::node* rp = &r;
    return in.star ? tine::sync_wait(s, uts_tine_star, in.tree, rp)
                   : tine::sync_wait(s, uts_tine, in.tree, rp);
  }
  static result tbb(const input& in) { return uts_tbb(*in.tree, uts::root(*in.tree)); }
  static result omp(const input& in) { return uts_omp(*in.tree, uts::root(*in.tree)); }

  /// TBB and OpenMP have no '*' variant: their rows would repeat the plain input's.
  static bool peers(const input& in) { return !in.star; }

  static std::uint64_t tasks(const input& in) {
    if (in.tree->nodes != 0) {
      return in.tree->nodes;
    }
    static std::vector<std::pair<const uts::params*, std::uint64_t>> memo;
    for (auto& [t, c] : memo) {
      if (t == in.tree) {
        return c;
      }
    }
    memo.emplace_back(in.tree, serial(in).nodes);
    return memo.back().second;
  }
  static std::string check(const input& in, const result& got, const result& ref) {
    return uts::check(*in.tree, got, ref);
  }
};

}  // namespace

TINE_BENCH_MAIN(uts_workload)
