#include <tine/policies/topology.hpp>

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#if HWLOC_API_VERSION < 0x00020000
#error "tine/policies needs hwloc 2.x (Debian: apt-get install libhwloc-dev)"
#endif

namespace tine {

namespace {

struct topology_deleter {
  void operator()(hwloc_topology_t t) const noexcept { hwloc_topology_destroy(t); }
};
using topology_handle = std::unique_ptr<std::remove_pointer_t<hwloc_topology_t>, topology_deleter>;

struct bitmap_deleter {
  void operator()(hwloc_bitmap_t b) const noexcept { hwloc_bitmap_free(b); }
};
using bitmap_handle = std::unique_ptr<std::remove_pointer_t<hwloc_bitmap_t>, bitmap_deleter>;

[[noreturn]] void fail_hwloc(const char* what) {
  throw std::runtime_error(std::string{"tine::topology::discover: "} + what +
                           " failed: " + std::strerror(errno));
}

bitmap_handle new_bitmap() {
  bitmap_handle b{hwloc_bitmap_alloc()};
  if (!b) {
    throw std::bad_alloc{};
  }
  return b;
}

topology_handle load_machine() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    fail_hwloc("hwloc_topology_init");
  }
  topology_handle t{raw};
  // I/O devices play no part in placement and cost most of the discovery time.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  // A level of private caches (one L2 per core) would add the same constant to every distance
  // and flatten the ratios of eq. 6; keep a cache level only where it groups several cores.
  hwloc_topology_set_cache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_STRUCTURE);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  // discover() may run while other threads of the program are pinned: never touch bindings.
  hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING);
  if (hwloc_topology_load(raw) != 0) {
    fail_hwloc("hwloc_topology_load");
  }
  return t;
}

/// The cpus this process may run on: hwloc's allowed set (cgroups) cut down to the process
/// binding (taskset, sched_setaffinity). On Linux the process binding is the union over its
/// threads, so one pinned worker of another pool does not shrink what a new pool sees.
bitmap_handle usable_cpus(hwloc_topology_t t) {
  bitmap_handle usable{hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t))};
  if (!usable) {
    throw std::bad_alloc{};
  }
  hwloc_bitmap_and(usable.get(), usable.get(), hwloc_topology_get_topology_cpuset(t));
  bitmap_handle bound = new_bitmap();
  if (hwloc_get_cpubind(t, bound.get(), HWLOC_CPUBIND_PROCESS) == 0 ||
      hwloc_get_cpubind(t, bound.get(), HWLOC_CPUBIND_THREAD) == 0) {
    bitmap_handle both = new_bitmap();
    hwloc_bitmap_and(both.get(), usable.get(), bound.get());
    // A binding entirely outside the allowed set cannot be honoured; fall back to the allowed set.
    if (!hwloc_bitmap_iszero(both.get())) {
      usable = std::move(both);
    }
  }
  return usable;
}

/// One usable core: its hwloc object, the OS indices of its usable PUs, its NUMA node's hwloc
/// logical index.
struct core_slot {
  hwloc_obj_t obj;
  std::vector<unsigned> pus;
  unsigned numa_logical;
};

std::vector<core_slot> usable_cores(hwloc_topology_t t, hwloc_const_bitmap_t usable) {
  // Some platforms report no Core objects; then each PU is its own core.
  const hwloc_obj_type_t leaf_type =
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int n_numa = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);

  std::vector<core_slot> cores;
  bitmap_handle pus = new_bitmap();
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(t, leaf_type, nullptr); obj != nullptr;
       obj = hwloc_get_next_obj_by_type(t, leaf_type, obj)) {
    if (obj->cpuset == nullptr) {
      continue;
    }
    hwloc_bitmap_and(pus.get(), obj->cpuset, usable);
    if (hwloc_bitmap_iszero(pus.get())) {
      continue;
    }
    core_slot slot{obj, {}, 0};
    for (int pu = hwloc_bitmap_first(pus.get()); pu != -1; pu = hwloc_bitmap_next(pus.get(), pu)) {
      slot.pus.push_back(static_cast<unsigned>(pu));
    }
    // No NUMA node, or none covering the core: node 0, the single-node answer.
    for (int k = 0; k < n_numa; ++k) {
      hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(k));
      if (node != nullptr && node->cpuset != nullptr &&
          hwloc_bitmap_intersects(node->cpuset, obj->cpuset)) {
        slot.numa_logical = static_cast<unsigned>(k);
        break;
      }
    }
    cores.push_back(std::move(slot));
  }
  return cores;
}

/// The paper's topological distance: the larger depth from either leaf up to their common
/// ancestor (leaves need not be at the same depth in an asymmetric tree).
unsigned tree_distance(hwloc_topology_t t, hwloc_obj_t a, hwloc_obj_t b) {
  if (a == b) {
    return 0;
  }
  hwloc_obj_t ancestor = hwloc_get_common_ancestor_obj(t, a, b);
  return static_cast<unsigned>(std::max(a->depth - ancestor->depth, b->depth - ancestor->depth));
}

void check_index(std::size_t i, std::size_t size, const char* who) {
  if (i >= size) {
    throw std::out_of_range(std::string{who} + ": place index " + std::to_string(i) +
                            " is out of range for a topology of " + std::to_string(size) +
                            " places");
  }
}

}  // namespace

topology::topology(std::vector<place> places, std::vector<unsigned> distances)
    : m_places{std::move(places)}, m_distances{std::move(distances)}, m_numa_nodes{0} {
  for (const place& p : m_places) {
    m_numa_nodes = std::max(m_numa_nodes, p.numa_node + 1);
  }
}

topology topology::discover(std::size_t n_workers) {
  if (n_workers == 0) {
    throw std::invalid_argument("tine::topology::discover: n_workers must be at least 1, got 0");
  }
  const topology_handle machine = load_machine();
  hwloc_topology_t t = machine.get();
  const bitmap_handle usable = usable_cpus(t);
  const std::vector<core_slot> cores = usable_cores(t, usable.get());
  if (cores.empty()) {
    throw std::runtime_error("tine::topology::discover: hwloc found no core this process may use");
  }

  // Dense NUMA indices in hwloc order, over the nodes actually used.
  std::vector<unsigned> used_nodes;
  for (const core_slot& c : cores) {
    used_nodes.push_back(c.numa_logical);
  }
  std::sort(used_nodes.begin(), used_nodes.end());
  used_nodes.erase(std::unique(used_nodes.begin(), used_nodes.end()), used_nodes.end());
  auto dense_node = [&](unsigned logical) {
    return static_cast<std::size_t>(
        std::lower_bound(used_nodes.begin(), used_nodes.end(), logical) - used_nodes.begin());
  };

  const std::size_t n_cores = cores.size();
  std::vector<place> places;
  places.reserve(n_workers);
  for (std::size_t k = 0; k < n_workers; ++k) {
    const core_slot& c = cores[k % n_cores];
    const std::size_t round = k / n_cores;
    places.push_back(place{c.pus[round % c.pus.size()], dense_node(c.numa_logical)});
  }

  std::vector<unsigned> core_distance(n_cores * n_cores);
  for (std::size_t a = 0; a < n_cores; ++a) {
    for (std::size_t b = 0; b < n_cores; ++b) {
      core_distance[a * n_cores + b] = tree_distance(t, cores[a].obj, cores[b].obj);
    }
  }
  std::vector<unsigned> distances(n_workers * n_workers);
  for (std::size_t i = 0; i < n_workers; ++i) {
    for (std::size_t j = 0; j < n_workers; ++j) {
      distances[i * n_workers + j] = core_distance[(i % n_cores) * n_cores + (j % n_cores)];
    }
  }
  return topology{std::move(places), std::move(distances)};
}

topology topology::synthetic(std::size_t nodes, std::size_t cores_per_node) {
  if (nodes == 0 || cores_per_node == 0) {
    throw std::invalid_argument(
        "tine::topology::synthetic: nodes and cores_per_node must both be "
        "at least 1, got " +
        std::to_string(nodes) + " and " + std::to_string(cores_per_node));
  }
  const std::size_t n = nodes * cores_per_node;
  std::vector<place> places;
  places.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    places.push_back(place{std::nullopt, k / cores_per_node});
  }
  std::vector<unsigned> distances(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      distances[i * n + j] = i == j ? 0U : places[i].numa_node == places[j].numa_node ? 1U : 2U;
    }
  }
  return topology{std::move(places), std::move(distances)};
}

topology topology::from_distances(std::vector<std::size_t> numa_node_of_place,
                                  std::vector<unsigned> distances) {
  const std::string who = "tine::topology::from_distances: ";
  const std::size_t n = numa_node_of_place.size();
  if (n == 0) {
    throw std::invalid_argument(who + "a topology needs at least one place");
  }
  if (distances.size() != n * n) {
    throw std::invalid_argument(who + "expected " + std::to_string(n * n) +
                                " distances (n x n for n = " + std::to_string(n) +
                                " places), got " + std::to_string(distances.size()));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (distances[i * n + i] != 0) {
      throw std::invalid_argument(who + "distance(" + std::to_string(i) + ", " + std::to_string(i) +
                                  ") must be 0");
    }
    for (std::size_t j = i + 1; j < n; ++j) {
      if (distances[i * n + j] != distances[j * n + i]) {
        throw std::invalid_argument(who + "distances must be symmetric, but distance(" +
                                    std::to_string(i) + ", " + std::to_string(j) +
                                    ") != distance(" + std::to_string(j) + ", " +
                                    std::to_string(i) + ")");
      }
    }
  }
  const std::size_t n_nodes =
      *std::max_element(numa_node_of_place.begin(), numa_node_of_place.end()) + 1;
  std::vector<bool> used(n_nodes, false);
  for (std::size_t node : numa_node_of_place) {
    used[node] = true;
  }
  for (std::size_t node = 0; node < n_nodes; ++node) {
    if (!used[node]) {
      throw std::invalid_argument(who +
                                  "NUMA node indices must be dense, but no place is on node " +
                                  std::to_string(node) + " of 0.." + std::to_string(n_nodes - 1));
    }
  }
  std::vector<place> places;
  places.reserve(n);
  for (std::size_t node : numa_node_of_place) {
    places.push_back(place{std::nullopt, node});
  }
  return topology{std::move(places), std::move(distances)};
}

std::size_t topology::numa_node(std::size_t i) const {
  check_index(i, size(), "tine::topology::numa_node");
  return m_places[i].numa_node;
}

std::optional<unsigned> topology::cpu(std::size_t i) const {
  check_index(i, size(), "tine::topology::cpu");
  return m_places[i].cpu;
}

unsigned topology::distance(std::size_t i, std::size_t j) const {
  check_index(i, size(), "tine::topology::distance");
  check_index(j, size(), "tine::topology::distance");
  return m_distances[i * size() + j];
}

bool pin_current_thread(const topology& topo, std::size_t place) {
  check_index(place, topo.size(), "tine::pin_current_thread");
  const std::optional<unsigned> cpu = topo.cpu(place);
  if (!cpu) {
    return false;
  }
#if defined(__linux__)
  // A dynamically sized set: cpu indices can exceed CPU_SETSIZE (1024) on big machines.
  cpu_set_t* set = CPU_ALLOC(*cpu + 1);
  if (set == nullptr) {
    return false;
  }
  const std::size_t bytes = CPU_ALLOC_SIZE(*cpu + 1);
  CPU_ZERO_S(bytes, set);
  CPU_SET_S(*cpu, bytes, set);
  const int rc = pthread_setaffinity_np(pthread_self(), bytes, set);
  CPU_FREE(set);
  return rc == 0;
#else
  // Elsewhere hwloc knows how; it wants a topology, which costs a few milliseconds once per worker.
  try {
    const topology_handle machine = load_machine();
    bitmap_handle set = new_bitmap();
    hwloc_bitmap_only(set.get(), *cpu);
    return hwloc_set_cpubind(machine.get(), set.get(), HWLOC_CPUBIND_THREAD) == 0;
  } catch (const std::exception&) {
    return false;
  }
#endif
}

}  // namespace tine
