// The parts of tine::topology that do not depend on how the machine is found: laying workers out
// on the cores, the made-up topologies, the accessors and pinning. Shared by both builds; the
// machine itself comes from policies/topology.cpp (hwloc) or policies/topology_flat.cpp.
#include <tine/policies/detail/machine.hpp>
#include <tine/policies/topology.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
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

topology topology::discover(std::size_t n_workers) {
  if (n_workers == 0) {
    throw std::invalid_argument("tine::topology::discover: n_workers must be at least 1, got 0");
  }
  const detail::machine machine = detail::find_machine();
  const std::vector<detail::usable_core>& cores = machine.cores;
  if (cores.empty()) {
    throw std::runtime_error("tine::topology::discover: found no core this process may use");
  }

  // Worker k on core k mod C; round r of the wrap on the core's r-th hardware thread (cycling).
  const std::size_t n_cores = cores.size();
  std::vector<place> places;
  places.reserve(n_workers);
  for (std::size_t k = 0; k < n_workers; ++k) {
    const detail::usable_core& c = cores[k % n_cores];
    const std::size_t round = k / n_cores;
    places.push_back(place{c.cpus[round % c.cpus.size()], c.numa_node});
  }
  std::vector<unsigned> distances(n_workers * n_workers);
  for (std::size_t i = 0; i < n_workers; ++i) {
    for (std::size_t j = 0; j < n_workers; ++j) {
      distances[i * n_workers + j] = machine.distances[(i % n_cores) * n_cores + (j % n_cores)];
    }
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

}  // namespace tine
