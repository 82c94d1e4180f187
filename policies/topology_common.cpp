// The parts of tine::topology that do not depend on how the machine is found: laying workers out
// on the cores, the made-up topologies, the accessors, pinning, and the cpus the process may run
// on. Shared by both builds; the machine itself comes from policies/topology.cpp (hwloc) or
// policies/topology_flat.cpp.
#include <tine/policies/detail/machine.hpp>
#include <tine/policies/topology.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/types.h>
#endif

namespace tine {

namespace {

void check_index(std::size_t i, std::size_t size, const char* who) {
  if (i >= size) {
    throw std::out_of_range(std::string{who} + ": place index " + std::to_string(i) +
                            " is out of range for a topology of " + std::to_string(size) +
                            " places");
  }
}

}  // namespace

topology::topology(std::vector<place> places, std::vector<unsigned> distances,
                   std::string_view source)
    : m_places{std::move(places)},
      m_distances{std::move(distances)},
      m_numa_nodes{0},
      m_source{source} {
  for (const place& p : m_places) {
    m_numa_nodes = std::max(m_numa_nodes, p.numa_node + 1);
  }
}

namespace {

void check_worker_count(std::size_t n_workers) {
  if (n_workers == 0) {
    throw std::invalid_argument("tine::topology::discover: n_workers must be at least 1, got 0");
  }
}

detail::machine find_usable_machine() {
  detail::machine machine = detail::find_machine();
  if (machine.cores.empty()) {
    throw std::runtime_error("tine::topology::discover: found no core this process may use");
  }
  return machine;
}

/// A set of cpus the way taskset prints it: "0-3,8,10-11" (sorted, duplicates dropped).
std::string cpu_list(std::vector<unsigned> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
      ++j;
    }
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) {
      out += "-" + std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

/// The machine cut down to the cores with a thread in `wanted`, each keeping only those threads
/// (their NUMA indices may then skip a node: lay_out makes the places' indices dense).
detail::machine keep_cpus(const detail::machine& machine, std::span<const unsigned> wanted) {
  const std::string who = "tine::topology::discover: ";
  if (wanted.empty()) {
    throw std::invalid_argument(who + "the set of cpus to lay workers on is empty");
  }
  std::vector<unsigned> all = machine.all_cpus;
  for (const detail::usable_core& c : machine.cores) {
    all.insert(all.end(), c.cpus.begin(), c.cpus.end());
  }
  for (unsigned cpu : wanted) {
    if (std::find(all.begin(), all.end(), cpu) == all.end()) {
      throw std::invalid_argument(who + "there is no cpu " + std::to_string(cpu) +
                                  " on this machine (its cpus are " + cpu_list(all) + ")");
    }
  }

  std::vector<std::size_t> kept;  // indices into machine.cores
  detail::machine result;
  for (std::size_t k = 0; k < machine.cores.size(); ++k) {
    detail::usable_core core{{}, machine.cores[k].numa_node};
    for (unsigned cpu : machine.cores[k].cpus) {
      if (std::find(wanted.begin(), wanted.end(), cpu) != wanted.end()) {
        core.cpus.push_back(cpu);
      }
    }
    if (!core.cpus.empty()) {
      kept.push_back(k);
      result.cores.push_back(std::move(core));
    }
  }
  if (kept.empty()) {
    std::vector<unsigned> usable;
    for (const detail::usable_core& c : machine.cores) {
      usable.insert(usable.end(), c.cpus.begin(), c.cpus.end());
    }
    throw std::invalid_argument(who + "this process may not run on any of the cpus " +
                                cpu_list(std::vector<unsigned>(wanted.begin(), wanted.end())) +
                                " (it may run on " + cpu_list(usable) + ")");
  }

  const std::size_t n = kept.size();
  const std::size_t n_all = machine.cores.size();
  result.distances.resize(n * n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      result.distances[a * n + b] = machine.distances[kept[a] * n_all + kept[b]];
    }
  }
  result.all_cpus = std::move(all);
  return result;
}

}  // namespace

topology topology::discover(std::size_t n_workers) { return discover_avoiding(n_workers, {}); }

topology topology::discover(std::size_t n_workers, std::span<const unsigned> cpus) {
  check_worker_count(n_workers);
  return lay_out(n_workers, keep_cpus(find_usable_machine(), cpus), {});
}

topology topology::discover_avoiding(std::size_t n_workers,
                                     std::span<const std::size_t> workers_per_cpu) {
  check_worker_count(n_workers);
  return lay_out(n_workers, find_usable_machine(), workers_per_cpu);
}

topology topology::lay_out(std::size_t n_workers, const detail::machine& machine,
                           std::span<const std::size_t> workers_per_cpu) {
  const std::vector<detail::usable_core>& cores = machine.cores;
  const std::size_t n_cores = cores.size();
  const auto already = [&](unsigned cpu) {
    return cpu < workers_per_cpu.size() ? workers_per_cpu[cpu] : std::size_t{0};
  };
  // Workers on each core and on each of its threads, the ones counted and those placed so far.
  std::vector<std::size_t> on_core(n_cores, 0);
  std::vector<std::vector<std::size_t>> on_thread(n_cores);
  for (std::size_t k = 0; k < n_cores; ++k) {
    for (unsigned cpu : cores[k].cpus) {
      on_thread[k].push_back(already(cpu));
      on_core[k] += already(cpu);
    }
  }

  // Each worker to the least loaded core, then its least loaded thread, the first on ties. With
  // nothing counted that is core k mod C, round r on the core's thread r mod its thread count.
  std::vector<std::size_t> core_of(n_workers);
  std::vector<place> places;
  places.reserve(n_workers);
  for (std::size_t w = 0; w < n_workers; ++w) {
    const std::size_t k = static_cast<std::size_t>(
        std::min_element(on_core.begin(), on_core.end()) - on_core.begin());
    std::vector<std::size_t>& threads = on_thread[k];
    const std::size_t t = static_cast<std::size_t>(
        std::min_element(threads.begin(), threads.end()) - threads.begin());
    ++on_core[k];
    ++threads[t];
    core_of[w] = k;
    places.push_back(place{cores[k].cpus[t], cores[k].numa_node});
  }
  std::vector<unsigned> distances(n_workers * n_workers);
  for (std::size_t i = 0; i < n_workers; ++i) {
    for (std::size_t j = 0; j < n_workers; ++j) {
      distances[i * n_workers + j] = machine.distances[core_of[i] * n_cores + core_of[j]];
    }
  }
  // The cores chosen may leave a node out (the first node full of other pools' workers): make
  // the indices dense again over the nodes used, in the same order.
  std::vector<std::size_t> nodes;
  nodes.reserve(places.size());
  for (const place& p : places) {
    nodes.push_back(p.numa_node);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  for (place& p : places) {
    p.numa_node = static_cast<std::size_t>(
        std::lower_bound(nodes.begin(), nodes.end(), p.numa_node) - nodes.begin());
  }
  return topology{std::move(places), std::move(distances), detail::discovery_source()};
}

bool topology::discovers_with_hwloc() noexcept { return detail::discovery_source() == "hwloc"; }

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
  return topology{std::move(places), std::move(distances), "synthetic"};
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
  return topology{std::move(places), std::move(distances), "from_distances"};
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
  return detail::bind_thread_elsewhere(*cpu);
#endif
}

namespace detail {

#if defined(__linux__)

namespace {

struct cpu_set_deleter {
  void operator()(cpu_set_t* set) const noexcept { CPU_FREE(set); }
};
using cpu_set_handle = std::unique_ptr<cpu_set_t, cpu_set_deleter>;

struct dir_deleter {
  void operator()(DIR* d) const noexcept { closedir(d); }
};

/// Adds the affinity of thread `tid` (0: the calling thread) to `cpus`. False if the thread is
/// gone (it may exit while we look); throws on any other failure.
bool add_affinity(pid_t tid, std::vector<bool>& cpus) {
  // The kernel's mask may be larger than CPU_SETSIZE: grow until it fits (EINVAL means too small).
  for (int n = CPU_SETSIZE;; n *= 2) {
    const cpu_set_handle set{CPU_ALLOC(n)};
    if (!set) {
      throw std::bad_alloc{};
    }
    const std::size_t bytes = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(bytes, set.get());
    if (sched_getaffinity(tid, bytes, set.get()) == 0) {
      for (int c = 0; c < n; ++c) {
        if (CPU_ISSET_S(c, bytes, set.get())) {
          if (cpus.size() <= static_cast<std::size_t>(c)) {
            cpus.resize(static_cast<std::size_t>(c) + 1, false);
          }
          cpus[static_cast<std::size_t>(c)] = true;
        }
      }
      return true;
    }
    if (errno == ESRCH && tid != 0) {
      return false;
    }
    if (errno != EINVAL || n >= (1 << 20)) {
      throw std::system_error(errno, std::generic_category(),
                              "tine::topology::discover: sched_getaffinity failed");
    }
  }
}

}  // namespace

std::vector<unsigned> process_cpus() {
  std::vector<bool> cpus;
  add_affinity(0, cpus);
  // The other threads' affinities. A directory that cannot be read leaves the calling thread's,
  // unless memory was short, which the caller must hear of.
  errno = 0;
  if (const std::unique_ptr<DIR, dir_deleter> dir{opendir("/proc/self/task")}) {
    while (const dirent* entry = readdir(dir.get())) {
      char* end = nullptr;
      const long tid = std::strtol(entry->d_name, &end, 10);
      if (end != entry->d_name && *end == '\0' && tid > 0) {
        add_affinity(static_cast<pid_t>(tid), cpus);
      }
    }
  } else if (errno == ENOMEM) {
    throw std::bad_alloc{};
  }
  std::vector<unsigned> result;
  for (std::size_t c = 0; c < cpus.size(); ++c) {
    if (cpus[c]) {
      result.push_back(static_cast<unsigned>(c));
    }
  }
  return result;
}

#else

std::vector<unsigned> process_cpus() { return {}; }

#endif

}  // namespace detail

std::vector<unsigned> usable_cpus() {
  std::vector<unsigned> result = detail::process_cpus();
  if (result.empty()) {
    result.resize(std::max(1U, std::thread::hardware_concurrency()));
    for (std::size_t c = 0; c < result.size(); ++c) {
      result[c] = static_cast<unsigned>(c);
    }
  }
  return result;
}

}  // namespace tine
