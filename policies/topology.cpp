// Finding the machine with hwloc: the cores this process may use, their NUMA nodes and the
// distances of hwloc's tree. A build without hwloc compiles policies/topology_flat.cpp instead;
// what both share is in policies/topology_common.cpp.
//
// hwloc loads the machine once per process: the tree describes hardware, which does not change
// while the program runs, and loading it is both the slow part of discovery (milliseconds) and
// the part that does not survive every allocation failure (hwloc 2.9 uses some of its own
// allocations unchecked while it loads). Each discovery after the first only reads the loaded
// tree, which allocates nothing in hwloc; on Linux the cpus the process may use come from the
// kernel's affinities (detail::process_cpus), read at each discovery.
#include <tine/policies/detail/machine.hpp>

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
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

/// An hwloc call failed: std::bad_alloc when memory was short, else std::system_error.
[[noreturn]] void fail_hwloc(const char* what) {
  const int error = errno;
  if (error == ENOMEM) {
    throw std::bad_alloc{};
  }
  throw std::system_error(error, std::generic_category(),
                          std::string{"tine::topology::discover: "} + what + " failed");
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

/// What hwloc reads from the environment when it loads (a made-up machine, another file-system
/// root...): a topology loaded under other values describes another machine.
std::string hwloc_environment() {
  std::string key;
  for (const char* name : {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE", "HWLOC_FSROOT", "HWLOC_THISSYSTEM",
                           "HWLOC_COMPONENTS"}) {
    const char* value = std::getenv(name);
    key += value != nullptr ? value : "";
    key += '\0';
  }
  return key;
}

/// The machine, loaded on the first call and kept for the rest of the process (see the file
/// comment): one per set of hwloc's environment values, so that a program (a test) describing a
/// made-up machine gets that one. A load that fails is not kept, so the next call tries again.
/// Loaded topologies are never destroyed: a discovery may be reading one on another thread, and
/// hwloc allows queries of a loaded topology from several threads at once.
hwloc_topology_t loaded_machine() {
  struct loaded {
    std::string environment;
    hwloc_topology_t topology;
  };
  static std::mutex mutex;
  static auto* machines = new std::vector<loaded>();  // never destroyed: pools may outlive statics
  std::string environment = hwloc_environment();
  const std::lock_guard lock(mutex);
  for (const loaded& m : *machines) {
    if (m.environment == environment) {
      return m.topology;
    }
  }
  machines->reserve(machines->size() + 1);  // may throw: before the load, so nothing leaks
  topology_handle t = load_machine();
  machines->push_back(loaded{std::move(environment), t.get()});
  return t.release();
}

/// The process binding where Linux's affinities are not available: hwloc's, as a set of cpus
/// (empty when hwloc cannot tell).
std::vector<unsigned> bound_cpus(hwloc_topology_t t) {
  std::vector<unsigned> cpus = process_cpus();
  if (!cpus.empty()) {
    return cpus;
  }
  bitmap_handle bound = new_bitmap();
  if (hwloc_get_cpubind(t, bound.get(), HWLOC_CPUBIND_PROCESS) == 0 ||
      hwloc_get_cpubind(t, bound.get(), HWLOC_CPUBIND_THREAD) == 0) {
    for (int pu = hwloc_bitmap_first(bound.get()); pu != -1;
         pu = hwloc_bitmap_next(bound.get(), pu)) {
      cpus.push_back(static_cast<unsigned>(pu));
    }
  }
  return cpus;
}

/// The cpus this process may run on, indexed by OS cpu number: hwloc's allowed set (cgroups)
/// within the machine, cut down to the process binding (taskset, sched_setaffinity). On Linux the
/// process binding is the union over its threads, so one pinned worker of another pool does not
/// shrink what a new pool sees. Reads the loaded tree only (no hwloc allocation).
std::vector<bool> usable_cpus(hwloc_topology_t t) {
  hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(t);
  hwloc_const_bitmap_t present = hwloc_topology_get_topology_cpuset(t);
  std::vector<bool> usable;
  for (int pu = hwloc_bitmap_first(allowed); pu != -1; pu = hwloc_bitmap_next(allowed, pu)) {
    if (hwloc_bitmap_isset(present, static_cast<unsigned>(pu))) {
      usable.resize(std::max(usable.size(), static_cast<std::size_t>(pu) + 1), false);
      usable[static_cast<std::size_t>(pu)] = true;
    }
  }
  if (hwloc_topology_is_thissystem(t) == 0) {
    return usable;  // a made-up machine (HWLOC_SYNTHETIC...): no binding of ours applies to it
  }
  std::vector<bool> both(usable.size(), false);
  bool any = false;
  for (unsigned cpu : bound_cpus(t)) {
    if (cpu < usable.size() && usable[cpu]) {
      both[cpu] = true;
      any = true;
    }
  }
  // A binding entirely outside the allowed set cannot be honoured; fall back to the allowed set.
  return any ? both : usable;
}

bool is_usable(const std::vector<bool>& usable, int pu) {
  return pu >= 0 && static_cast<std::size_t>(pu) < usable.size() &&
         usable[static_cast<std::size_t>(pu)];
}

/// One usable core: its hwloc object, the OS indices of its usable PUs, its NUMA node's hwloc
/// logical index.
struct core_slot {
  hwloc_obj_t obj;
  std::vector<unsigned> pus;
  unsigned numa_logical;
};

std::vector<core_slot> usable_cores(hwloc_topology_t t, const std::vector<bool>& usable) {
  // Some platforms report no Core objects; then each PU is its own core.
  const hwloc_obj_type_t leaf_type =
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int n_numa = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);

  std::vector<core_slot> cores;
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(t, leaf_type, nullptr); obj != nullptr;
       obj = hwloc_get_next_obj_by_type(t, leaf_type, obj)) {
    if (obj->cpuset == nullptr) {
      continue;
    }
    core_slot slot{obj, {}, 0};
    for (int pu = hwloc_bitmap_first(obj->cpuset); pu != -1;
         pu = hwloc_bitmap_next(obj->cpuset, pu)) {
      if (is_usable(usable, pu)) {
        slot.pus.push_back(static_cast<unsigned>(pu));
      }
    }
    if (slot.pus.empty()) {
      continue;
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
  hwloc_topology_t t = loaded_machine();
  const std::vector<bool> usable = usable_cpus(t);
  const std::vector<core_slot> slots = usable_cores(t, usable);
  if (slots.empty()) {
    throw std::runtime_error("tine::topology::discover: hwloc found no core this process may use");
  }

  // Dense NUMA indices in hwloc order, over the nodes actually used.
  std::vector<unsigned> used_nodes;
  used_nodes.reserve(slots.size());
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
  // hwloc knows how on other systems; it wants the loaded topology.
  try {
    hwloc_topology_t t = loaded_machine();
    bitmap_handle set = new_bitmap();
    if (hwloc_bitmap_only(set.get(), cpu) != 0) {
      return false;
    }
    return hwloc_set_cpubind(t, set.get(), HWLOC_CPUBIND_THREAD) == 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace tine::detail
