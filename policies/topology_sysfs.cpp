// Reading the machine from Linux's sysfs where that gives exactly the tree hwloc would build, so
// that the hwloc build need not initialise hwloc on those machines. hwloc's first topology in a
// process loads every plugin installed beside it (XML with libxml2 and ICU, OpenCL, OpenGL with
// X11, PCI), which tine does not use and which would otherwise be most of a pool's memory. hwloc
// decides that at hwloc_topology_init from the environment alone, and a library must not set the
// environment (other threads may be reading it; other libraries of the process may want the
// plugins), so the way to not load them is to not ask hwloc.
//
// Only shapes whose hwloc tree is certain are read here: every cache, die and cluster is either
// private to a core or shared by its whole package, so none of them brings structure (tine keeps
// caches, and hwloc dies and groups, only where they do) and the tree is machine, packages,
// cores; and there is one NUMA node, or one per package with two at most (no grouping by NUMA
// distance, no node inside a package or without cpus). Anything else returns nothing and the
// caller asks hwloc. Compiled in both builds; only the hwloc build uses it (policies/topology.cpp).
#include <tine/policies/detail/machine.hpp>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <dirent.h>
#endif

namespace tine::detail {

#if defined(__linux__)

namespace {

using cpu_set = std::vector<unsigned>;  // sorted, no duplicates

/// The whole of a small sysfs file; nullopt if it cannot be read.
std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in{path};
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return std::nullopt;
  }
  return std::move(text).str();
}

/// A kernel cpu list ("0-3,8,10-11\n"), sorted; nullopt if it is not one.
std::optional<cpu_set> parse_list(const std::string& text) {
  cpu_set cpus;
  std::size_t i = 0;
  const auto number = [&](unsigned& out) {
    if (i >= text.size() || text[i] < '0' || text[i] > '9') {
      return false;
    }
    unsigned long value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && value <= (1UL << 22)) {
      value = value * 10 + static_cast<unsigned long>(text[i] - '0');
      ++i;
    }
    out = static_cast<unsigned>(value);
    return value <= (1UL << 22);
  };
  while (i < text.size() && text[i] != '\n') {
    unsigned first = 0;
    if (!number(first)) {
      return std::nullopt;
    }
    unsigned last = first;
    if (i < text.size() && text[i] == '-') {
      ++i;
      if (!number(last) || last < first) {
        return std::nullopt;
      }
    }
    for (unsigned c = first; c <= last; ++c) {
      cpus.push_back(c);
    }
    if (i < text.size() && text[i] == ',') {
      ++i;
    }
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::optional<cpu_set> read_list(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  return text ? parse_list(*text) : std::nullopt;
}

cpu_set intersect(const cpu_set& a, const cpu_set& b) {
  cpu_set out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool includes(const cpu_set& outer, const cpu_set& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

/// The numbers N of the entries `prefix`N of a directory, sorted; nullopt if it cannot be read.
std::optional<std::vector<unsigned>> numbered_entries(const std::string& dir, const char* prefix) {
  const std::unique_ptr<DIR, int (*)(DIR*)> d{opendir(dir.c_str()), &closedir};
  if (!d) {
    return std::nullopt;
  }
  const std::string p{prefix};
  std::vector<unsigned> out;
  // readdir is safe here: this stream is ours alone.
  while (const dirent* e = readdir(d.get())) {  // NOLINT(concurrency-mt-unsafe)
    const std::string name{e->d_name};
    if (name.size() > p.size() && name.compare(0, p.size(), p) == 0 &&
        name.find_first_not_of("0123456789", p.size()) == std::string::npos &&
        name.size() - p.size() <= 7) {
      out.push_back(static_cast<unsigned>(std::stoul(name.substr(p.size()))));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The machine as read once: its cores in hwloc's logical order (packages by first cpu, cores
/// within a package by first cpu), each core's online cpus, its package's index in that order
/// and its NUMA node (0 with one node, else its package's index); and the cpus that exist.
struct layout {
  struct core {
    cpu_set cpus;
    std::size_t package;
    std::size_t numa_node;
  };
  std::vector<core> cores;
  cpu_set all_cpus;
};

std::optional<layout> read_layout(const std::string& root) {
  const std::string cpu_dir = root + "/sys/devices/system/cpu";
  const std::optional<cpu_set> online = read_list(cpu_dir + "/online");
  const std::optional<std::vector<unsigned>> present = numbered_entries(cpu_dir, "cpu");
  if (!online || online->empty() || !present || !includes(*present, *online)) {
    return std::nullopt;
  }

  // Per online cpu: its core's and its package's online cpus; every other grouping the kernel
  // reports must be one of these two.
  std::vector<cpu_set> core_of(online->size());
  std::vector<cpu_set> package_of(online->size());
  for (std::size_t k = 0; k < online->size(); ++k) {
    const std::string dir = cpu_dir + "/cpu" + std::to_string((*online)[k]);
    const std::string topo = dir + "/topology/";
    std::optional<cpu_set> core = read_list(topo + "core_cpus_list");
    if (!core) {
      core = read_list(topo + "thread_siblings_list");
    }
    std::optional<cpu_set> package = read_list(topo + "package_cpus_list");
    if (!package) {
      package = read_list(topo + "core_siblings_list");
    }
    const std::optional<std::string> package_id = read_file(topo + "physical_package_id");
    // Books and drawers (s390) are levels of their own in hwloc's tree; a package id of -1 means
    // the kernel does not know the packages.
    if (!core || !package || !package_id || package_id->empty() || (*package_id)[0] == '-' ||
        read_file(topo + "book_siblings_list") || read_file(topo + "drawer_siblings_list")) {
      return std::nullopt;
    }
    core_of[k] = intersect(*core, *online);
    package_of[k] = intersect(*package, *online);
    const unsigned cpu = (*online)[k];
    if (!std::binary_search(core_of[k].begin(), core_of[k].end(), cpu) ||
        !includes(package_of[k], core_of[k])) {
      return std::nullopt;
    }
    std::vector<cpu_set> groups;
    for (const char* level : {"die_cpus_list", "cluster_cpus_list"}) {
      if (std::optional<cpu_set> g = read_list(topo + level)) {
        groups.push_back(std::move(*g));
      }
    }
    const std::optional<std::vector<unsigned>> caches = numbered_entries(dir + "/cache", "index");
    for (unsigned index : caches ? *caches : std::vector<unsigned>{}) {
      const std::string cache = dir + "/cache/index" + std::to_string(index) + "/";
      const std::optional<std::string> type = read_file(cache + "type");
      if (!type) {
        return std::nullopt;
      }
      if (type->rfind("Instruction", 0) == 0) {
        continue;  // instruction caches are left out of tine's tree
      }
      std::optional<cpu_set> shared = read_list(cache + "shared_cpu_list");
      if (!shared) {
        return std::nullopt;
      }
      groups.push_back(std::move(*shared));
    }
    for (const cpu_set& g : groups) {
      const cpu_set mine = intersect(g, *online);
      if (mine != core_of[k] && mine != package_of[k]) {
        return std::nullopt;  // a level between core and package: hwloc's tree has more levels
      }
    }
  }

  // Cores and packages must partition the online cpus: every cpu of a group sees the same group.
  const auto index_of = [&](unsigned cpu) {
    return static_cast<std::size_t>(std::lower_bound(online->begin(), online->end(), cpu) -
                                    online->begin());
  };
  for (std::size_t k = 0; k < online->size(); ++k) {
    for (unsigned other : package_of[k]) {
      const std::size_t j = index_of(other);
      const bool same_core = std::binary_search(core_of[k].begin(), core_of[k].end(), other);
      if (package_of[j] != package_of[k] || (same_core && core_of[j] != core_of[k])) {
        return std::nullopt;
      }
    }
  }

  // Packages in order of their first cpu; cores likewise within each.
  std::vector<cpu_set> packages(package_of.begin(), package_of.end());
  std::sort(packages.begin(), packages.end());
  packages.erase(std::unique(packages.begin(), packages.end()), packages.end());
  std::sort(packages.begin(), packages.end(),
            [](const cpu_set& a, const cpu_set& b) { return a.front() < b.front(); });

  // NUMA nodes: none reported is one node; otherwise one node, or one per package (two at most,
  // all of them allowed to this process), each with cpus.
  std::vector<std::size_t> node_of_package(packages.size(), 0);
  const std::string node_dir = root + "/sys/devices/system/node";
  const std::optional<std::vector<unsigned>> nodes = numbered_entries(node_dir, "node");
  if (nodes && nodes->size() == 1) {
    const std::optional<cpu_set> cpus =
        read_list(node_dir + "/node" + std::to_string(nodes->front()) + "/cpulist");
    if (!cpus || intersect(*cpus, *online) != *online) {
      return std::nullopt;  // hwloc would put the node under a group of its cpus
    }
  } else if (nodes && nodes->size() > 1) {
    if (nodes->size() > 2 || nodes->size() != packages.size()) {
      return std::nullopt;
    }
    // A node the process may not use is left out of hwloc's tree.
    const std::optional<std::string> status = read_file(root + "/proc/self/status");
    const std::string key = "Mems_allowed_list:";
    const std::size_t at = status ? status->find(key) : std::string::npos;
    if (at == std::string::npos) {
      return std::nullopt;
    }
    std::size_t from = at + key.size();
    while (from < status->size() && ((*status)[from] == ' ' || (*status)[from] == '\t')) {
      ++from;
    }
    const std::optional<cpu_set> mems =
        parse_list(status->substr(from, status->find('\n', from) - from));
    if (!mems || !includes(*mems, *nodes)) {
      return std::nullopt;
    }
    std::vector<std::size_t> with_node;
    for (unsigned node : *nodes) {
      const std::optional<cpu_set> cpus =
          read_list(node_dir + "/node" + std::to_string(node) + "/cpulist");
      if (!cpus) {
        return std::nullopt;
      }
      const cpu_set mine = intersect(*cpus, *online);
      const auto p = std::find(packages.begin(), packages.end(), mine);
      if (mine.empty() || p == packages.end()) {
        return std::nullopt;
      }
      const auto package = static_cast<std::size_t>(p - packages.begin());
      if (std::find(with_node.begin(), with_node.end(), package) != with_node.end()) {
        return std::nullopt;
      }
      with_node.push_back(package);
      node_of_package[package] = package;
    }
  }

  layout result;
  for (std::size_t p = 0; p < packages.size(); ++p) {
    std::vector<cpu_set> cores;
    for (std::size_t k = 0; k < online->size(); ++k) {
      if (package_of[k] == packages[p] && core_of[k].front() == (*online)[k]) {
        cores.push_back(core_of[k]);  // once per core: from its first cpu
      }
    }
    for (cpu_set& c : cores) {
      result.cores.push_back(layout::core{std::move(c), p, node_of_package[p]});
    }
  }
  result.all_cpus = *present;
  return result;
}

/// The machine restricted to the usable cpus; nullopt if none of them is online.
std::optional<machine> restrict_to(const layout& l, const std::vector<unsigned>& usable_list) {
  cpu_set usable = usable_list;
  std::sort(usable.begin(), usable.end());
  std::vector<std::size_t> kept;
  machine m;
  for (std::size_t k = 0; k < l.cores.size(); ++k) {
    cpu_set cpus = intersect(l.cores[k].cpus, usable);
    if (!cpus.empty()) {
      kept.push_back(k);
      m.cores.push_back(usable_core{std::move(cpus), l.cores[k].numa_node});
    }
  }
  if (kept.empty()) {
    return std::nullopt;
  }
  // Dense NUMA indices over the nodes used, in order (they are already in hwloc's order).
  std::vector<std::size_t> used;
  for (const usable_core& c : m.cores) {
    used.push_back(c.numa_node);
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (usable_core& c : m.cores) {
    c.numa_node = static_cast<std::size_t>(std::lower_bound(used.begin(), used.end(), c.numa_node) -
                                           used.begin());
  }
  // In the tree machine / package / core: 1 within a package, 2 across.
  const std::size_t n = kept.size();
  m.distances.resize(n * n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      const bool same_package = l.cores[kept[a]].package == l.cores[kept[b]].package;
      m.distances[a * n + b] = a == b ? 0U : same_package ? 1U : 2U;
    }
  }
  m.all_cpus = l.all_cpus;
  return m;
}

}  // namespace

std::optional<machine> machine_from_sysfs(const std::string& root,
                                          const std::vector<unsigned>& usable) {
  const std::optional<layout> l = read_layout(root);
  return l ? restrict_to(*l, usable) : std::nullopt;
}

std::optional<machine> machine_from_sysfs() {
  // Read once per process, as hwloc's tree is: the hardware does not change while the program
  // runs. Never destroyed: pools may be made while statics are destroyed.
  static const std::optional<layout>* const machine_layout =
      new std::optional<layout>(read_layout(""));
  if (!*machine_layout) {
    return std::nullopt;
  }
  return restrict_to(**machine_layout, process_cpus());
}

#else

std::optional<machine> machine_from_sysfs(const std::string& /*root*/,
                                          const std::vector<unsigned>& /*usable*/) {
  return std::nullopt;
}

std::optional<machine> machine_from_sysfs() { return std::nullopt; }

#endif

}  // namespace tine::detail
