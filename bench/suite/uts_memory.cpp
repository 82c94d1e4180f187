// UTS with tine alone in the process (no TBB, OpenMP or Google Benchmark linked): the peak RSS of
// a tine program, for the memory target on the deep binomial tree T3L. Same traversal as uts.cpp.
//   /usr/bin/time -v bazel-bin/bench/uts_memory T3L 2 [busy|lazy]
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "bench/suite/uts.hpp"

namespace {

struct slot {
  uts::node node;
  uts::result res;
};

tine::task<uts::result> traverse(const uts::params* p, const uts::node* n) {
  const int k = uts::num_children(*p, *n);
  uts::result r{1, k == 0 ? 1u : 0u, n->depth};
  if (k == 0) {
    co_return r;
  }
  std::vector<slot> cs(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    uts::child(*n, i, cs[static_cast<std::size_t>(i)].node);
    co_await tine::fork(&cs[static_cast<std::size_t>(i)].res, traverse, p,
                        &cs[static_cast<std::size_t>(i)].node);
  }
  co_await tine::join();
  for (const slot& c : cs) {
    r += c.res;
  }
  co_return r;
}

template <typename Pool>
int run(const uts::params& p, std::size_t workers) {
  Pool pool(workers);
  const uts::node root = uts::root(p);
  const uts::result r = tine::sync_wait(pool, traverse, &p, &root);
  const bool ok =
      p.nodes == 0 || (r.nodes == p.nodes && r.leaves == p.leaves && r.depth == p.depth);
  std::printf("%s nodes=%llu leaves=%llu depth=%d %s\n", p.name,
              static_cast<unsigned long long>(r.nodes), static_cast<unsigned long long>(r.leaves),
              r.depth, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TREE WORKERS [busy|lazy]\n", argv[0]);
    return 2;
  }
  for (const uts::params& p : uts::trees) {
    if (std::string_view(p.name) == argv[1]) {
      const auto workers = static_cast<std::size_t>(std::atoi(argv[2]));
      const bool lazy = argc > 3 && std::string_view(argv[3]) == "lazy";
      return lazy ? run<tine::lazy_pool<>>(p, workers) : run<tine::busy_pool<>>(p, workers);
    }
  }
  std::fprintf(stderr, "unknown tree %s\n", argv[1]);
  return 2;
}
