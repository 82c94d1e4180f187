// Finding the machine with hwloc: the cores this process may use, their NUMA nodes and the
// distances of hwloc's tree. A build without hwloc compiles policies/topology_flat.cpp instead;
// what both share is in policies/topology_common.cpp.
#include <tine/policies/detail/machine.hpp>

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if HWLOC_API_VERSION < 0x00020000
#error "tine/policies needs hwloc 2.x (Debian: apt-get install libhwloc-dev)"
#endif

namespace tine::detail {

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

}  // namespace

machine find_machine() {
  const topology_handle handle = load_machine();
  hwloc_topology_t t = handle.get();
  const bitmap_handle usable = usable_cpus(t);
  const std::vector<core_slot> slots = usable_cores(t, usable.get());
  if (slots.empty()) {
    throw std::runtime_error("tine::topology::discover: hwloc found no core this process may use");
  }

  // Dense NUMA indices in hwloc order, over the nodes actually used.
  std::vector<unsigned> used_nodes;
  for (const core_slot& c : slots) {
    used_nodes.push_back(c.numa_logical);
  }
  std::sort(used_nodes.begin(), used_nodes.end());
  used_nodes.erase(std::unique(used_nodes.begin(), used_nodes.end()), used_nodes.end());

  const std::size_t n = slots.size();
  machine m;
  m.cores.reserve(n);
  for (const core_slot& c : slots) {
    const auto dense = std::lower_bound(used_nodes.begin(), used_nodes.end(), c.numa_logical);
    m.cores.push_back(usable_core{c.pus, static_cast<std::size_t>(dense - used_nodes.begin())});
  }
  m.distances.resize(n * n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      m.distances[a * n + b] = tree_distance(t, slots[a].obj, slots[b].obj);
    }
  }
  // The complete set: offline cpus too, which exist but cannot be used.
  hwloc_const_bitmap_t all = hwloc_topology_get_complete_cpuset(t);
  for (int pu = hwloc_bitmap_first(all); pu != -1; pu = hwloc_bitmap_next(all, pu)) {
    m.all_cpus.push_back(static_cast<unsigned>(pu));
  }
  return m;
}

std::string_view discovery_source() noexcept { return "hwloc"; }

bool bind_thread_elsewhere(unsigned cpu) noexcept {
  // hwloc knows how on other systems; it wants a topology, which costs a few milliseconds once
  // per worker.
  try {
    const topology_handle handle = load_machine();
    bitmap_handle set = new_bitmap();
    hwloc_bitmap_only(set.get(), cpu);
    return hwloc_set_cpubind(handle.get(), set.get(), HWLOC_CPUBIND_THREAD) == 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace tine::detail
