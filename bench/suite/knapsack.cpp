/// knapsack: 0/1 knapsack by branch and bound (the Cilk-5 suite's knapsack). Items sorted by
/// value per unit of weight; each task decides one item, forking the branch without it and
/// calling the branch with it, and gives up when the fractional bound of what is left cannot
/// beat the best value found so far by any task. The pruning depends on the order the tasks run
/// in, so the work varies between runs and runtimes; the best value does not. Checked against
/// dynamic programming. One task = one node of the search tree.

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"

namespace {

struct item {
  int value;
  int weight;
};

struct problem {
  std::vector<item> items;
  int capacity;
};

/// `n` items from a fixed generator (values and weights correlated, the hard kind for branch and
/// bound), sorted by value per weight, and a capacity of half their total weight.
problem make_problem(int n) {
  std::uint64_t s = 0x9e3779b97f4a7c15ULL * std::uint64_t(n + 1);
  auto next = [&s] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  problem p;
  long total = 0;
  for (int i = 0; i < n; ++i) {
    const int w = 10 + int(next() % 90);
    p.items.push_back({w + 10 + int(next() % 11), w});
    total += w;
  }
  std::sort(p.items.begin(), p.items.end(), [](const item& a, const item& b) {
    return long(a.value) * b.weight > long(b.value) * a.weight;
  });
  p.capacity = int(total / 2);
  return p;
}

/// The best value found so far, shared by every task of a run: a bound for pruning only (the
/// result is made of returned values), so relaxed loads and a relaxed maximum suffice.
struct best_so_far {
  std::atomic<int> value{0};

  int get() const noexcept { return value.load(std::memory_order_relaxed); }
  void offer(int v) noexcept {
    int seen = value.load(std::memory_order_relaxed);
    while (v > seen && !value.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
    }
  }
};

/// Whether the node (items from `e` on, `c` capacity left, value `v` so far) is decided without
/// children; sets `out` then.
bool leaf(const item* e, int c, int n, int v, const best_so_far& best, int& out) {
  if (c < 0) {
    out = INT_MIN;
    return true;
  }
  if (n == 0 || c == 0) {
    out = v;
    return true;
  }
  const double bound = double(v) + double(c) * e->value / e->weight;
  if (bound < best.get()) {
    out = INT_MIN;
    return true;
  }
  return false;
}

int knap_serial(const item* e, int c, int n, int v, best_so_far& best) {
  int out = 0;
  if (leaf(e, c, n, v, best, out)) {
    return out;
  }
  const int without = knap_serial(e + 1, c, n - 1, v, best);
  const int with = knap_serial(e + 1, c - e->weight, n - 1, v + e->value, best);
  const int r = std::max(with, without);
  best.offer(r);
  return r;
}

/// knap_serial, counting the nodes it visits in `nodes`.
int knap_count(const item* e, int c, int n, int v, best_so_far& best, std::uint64_t& nodes) {
  ++nodes;
  int out = 0;
  if (leaf(e, c, n, v, best, out)) {
    return out;
  }
  const int without = knap_count(e + 1, c, n - 1, v, best, nodes);
  const int with = knap_count(e + 1, c - e->weight, n - 1, v + e->value, best, nodes);
  const int r = std::max(with, without);
  best.offer(r);
  return r;
}

tine::task<int> knap_tine(const item* e, int c, int n, int v, best_so_far* best) {
  int out = 0;
  if (leaf(e, c, n, v, *best, out)) {
    co_return out;
  }
  int without = 0;
  int with = 0;
  co_await tine::fork(&without, knap_tine, e + 1, c, n - 1, v, best);
  co_await tine::call(&with, knap_tine, e + 1, c - e->weight, n - 1, v + e->value, best);
  co_await tine::join();
  const int r = std::max(with, without);
  best->offer(r);
  co_return r;
}

// TBB and OpenMP run a spawned task later (the caller goes on), tine at once (its continuation
// waits): each spawns the branch that the serial search takes second, so that on one worker all
// of them search in the serial order and prune alike. (Spawning the branch without the item, as
// tine forks it, made the peers take the item first: on one worker they visited far fewer nodes
// than the serial search, which was a different computation, not a faster runtime.)
int knap_tbb(const item* e, int c, int n, int v, best_so_far& best) {
  int out = 0;
  if (leaf(e, c, n, v, best, out)) {
    return out;
  }
  int with = 0;
  tbb::task_group g;
  g.run([&] { with = knap_tbb(e + 1, c - e->weight, n - 1, v + e->value, best); });
  const int without = knap_tbb(e + 1, c, n - 1, v, best);
  g.wait();
  const int r = std::max(with, without);
  best.offer(r);
  return r;
}

int knap_omp(const item* e, int c, int n, int v, best_so_far& best) {
  int out = 0;
  if (leaf(e, c, n, v, best, out)) {
    return out;
  }
  int with = 0;
#pragma omp task default(none) shared(with, best) firstprivate(e, c, n, v)
  with = knap_omp(e + 1, c - e->weight, n - 1, v + e->value, best);
  const int without = knap_omp(e + 1, c, n - 1, v, best);
#pragma omp taskwait
  const int r = std::max(with, without);
  best.offer(r);
  return r;
}

/// The optimum by dynamic programming over capacities.
int knap_dp(const problem& p) {
  std::vector<int> best(std::size_t(p.capacity) + 1, 0);
  for (const item& it : p.items) {
    for (int c = p.capacity; c >= it.weight; --c) {
      const std::size_t k = std::size_t(c);
      best[k] = std::max(best[k], best[k - std::size_t(it.weight)] + it.value);
    }
  }
  return best[std::size_t(p.capacity)];
}

const problem& problem_for(int n) {
  static std::vector<std::pair<int, problem>> made;
  for (auto& [k, p] : made) {
    if (k == n) {
      return p;
    }
  }
  made.emplace_back(n, make_problem(n));
  return made.back().second;
}

struct knapsack_workload {
  static constexpr const char* name = "knapsack";
  using input = int;  // items
  using result = int;

  static input parse(std::string_view s) { return std::stoi(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {46}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 18; }

  static result serial(input n) {
    const problem& p = problem_for(n);
    best_so_far best;
    return knap_serial(p.items.data(), p.capacity, n, 0, best);
  }
  template <class S>
  static result tine(S& s, input n) {
    const problem& p = problem_for(n);
    best_so_far best;
    return tine::sync_wait(s, knap_tine, p.items.data(), p.capacity, n, 0, &best);
  }
  static result tbb(input n) {
    const problem& p = problem_for(n);
    best_so_far best;
    return knap_tbb(p.items.data(), p.capacity, n, 0, best);
  }
  static result omp(input n) {
    const problem& p = problem_for(n);
    best_so_far best;
    return knap_omp(p.items.data(), p.capacity, n, 0, best);
  }

  /// The serial search's nodes (a parallel run visits a different number: its pruning differs).
  static std::uint64_t tasks(input n) {
    const problem& p = problem_for(n);
    best_so_far best;
    std::uint64_t nodes = 0;
    (void)knap_count(p.items.data(), p.capacity, n, 0, best, nodes);
    return nodes;
  }
  static std::string check(input n, result got, result ref) {
    const int want = knap_dp(problem_for(n));
    if (got != want || ref != want) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "best value %d (serial %d), dynamic programming says %d", got,
                    ref, want);
      return buf;
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(knapsack_workload)
