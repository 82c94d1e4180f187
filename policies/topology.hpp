#ifndef TINE_POLICIES_TOPOLOGY_HPP
#define TINE_POLICIES_TOPOLOGY_HPP

/// \file topology.hpp
/// The machine as the schedulers see it: one place per worker and the distances between places.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace tine {

namespace detail {
struct machine;
}  // namespace detail

/// A list of places, one per worker slot, and the topological distance between any two of them.
///
/// A place is where one worker runs: an OS cpu index to pin the worker to (none for a synthetic
/// topology) and a NUMA node index. NUMA node indices are dense, 0 to numa_nodes() - 1, every
/// index is used by at least one place, and they follow hwloc's order of the nodes: a scheduler
/// can group its workers by node without empty groups.
///
/// `distance(i, j)` is the topological distance of the libfork paper: in the hwloc tree whose
/// leaves are the cores, the larger of the two depths from each core up to their common ancestor.
/// It is 0 when i == j and also between two places on the same core (oversubscription).
///
/// A topology is an immutable value: copy it freely, read it from any thread.
///
/// tine can be built without hwloc (docs/build.md). Then discover() sees a flat machine: every
/// usable cpu is a core of its own, all on one NUMA node, all at distance 1 from each other, so
/// numa_victims picks victims uniformly. `source()` says which happened, and
/// `discovers_with_hwloc()` tells a program which build it runs on.
class topology {
 public:
  /// Asks hwloc for the machine and lays `n_workers` places on it (without hwloc, see below).
  ///
  /// - Only the cpus this process may run on count: the union of the bindings of its threads
  ///   (what `taskset` or `sched_setaffinity` set) within hwloc's allowed set (cgroup cpusets).
  ///   Under `taskset -c 0` the machine is one core.
  /// - Worker k goes to core k mod C of the C usable cores in hwloc's logical order, so fewer
  ///   workers than cores fill the first cores (and the first NUMA node) first, and more workers
  ///   than cores wrap round: the second round lands on the core's second hardware thread if it
  ///   has one, else on the same one. Places sharing a core are at distance 0.
  /// - cpu(k) is the OS index of one hardware thread (PU) of that core.
  /// - A core's NUMA node is the first NUMA node (hwloc order) whose cpus overlap the core's; if
  ///   hwloc reports no NUMA node, or none covers the core, the machine is one node, index 0.
  /// - Caches that add no structure (a private L2 under each core) are left out of the tree,
  ///   so distances count the levels at which cores actually share something.
  ///
  /// Built without hwloc, the usable cpus (the union of the affinities of the process's threads,
  /// from sched_getaffinity; elsewhere than Linux, std::thread::hardware_concurrency() cpus that
  /// cannot be pinned) are the cores, in increasing order, all on NUMA node 0, distance 1 apart.
  /// Placement and wrapping follow the rules above, each cpu being its own core.
  ///
  /// Throws std::invalid_argument when n_workers == 0 and std::runtime_error when hwloc cannot
  /// load the topology (or, without hwloc, when the process's cpus cannot be read).
  static topology discover(std::size_t n_workers);

  /// As discover(n_workers), on the chosen cpus only: the cores of the machine that have a
  /// hardware thread in `cpus` and usable by the process, each keeping only those threads.
  ///
  /// - `cpus` are OS cpu indices, as `cpu(k)` returns them and `taskset -c` takes them; their
  ///   order does not matter and duplicates are ignored. Workers go to the kept cores in hwloc's
  ///   logical order, k mod C, wrapping round as in discover(n_workers); distances and NUMA nodes
  ///   are those of the kept cores (node indices renumbered densely over the nodes kept).
  /// - A cpu of the machine that the process may not run on is left out, as discover() leaves it
  ///   out; `discover(n, cpus)` with every cpu the process may use equals `discover(n)`.
  ///
  /// Throws std::invalid_argument when n_workers == 0, when `cpus` is empty, when a cpu is not one
  /// of the machine's (the message names it and lists the machine's cpus), or when the process may
  /// run on none of `cpus` (the message names them and the cpus it may use); std::runtime_error
  /// as discover(n_workers).
  static topology discover(std::size_t n_workers, std::span<const unsigned> cpus);

  /// As discover(n_workers), but away from workers already pinned: `workers_per_cpu[c]` workers
  /// are counted on cpu c (cpus past the end of the span count 0), and each new worker in turn
  /// goes to the usable core that holds fewest (ties: the lowest in hwloc's logical order), on
  /// its hardware thread that holds fewest (ties: the first). With no worker counted anywhere
  /// this is exactly discover(n_workers). The pools' default layout (cpu_claims.hpp).
  ///
  /// Throws as discover(n_workers).
  static topology discover_avoiding(std::size_t n_workers,
                                    std::span<const std::size_t> workers_per_cpu);

  /// Whether discover() asks hwloc in this build of tine: false when tine was built without
  /// hwloc (on purpose, or because hwloc was missing), and discover() then sees a flat machine.
  static bool discovers_with_hwloc() noexcept;

  /// A made-up machine of `nodes` NUMA nodes with `cores_per_node` cores each: place k is on
  /// node k / cores_per_node, distance 1 within a node and 2 across nodes (a machine / node /
  /// core tree), no cpus. For testing NUMA logic on any machine.
  ///
  /// Throws std::invalid_argument when either count is 0.
  static topology synthetic(std::size_t nodes, std::size_t cores_per_node);

  /// A topology given outright: place k is on NUMA node `numa_node_of_place[k]`, and the
  /// distance between places i and j is `distances[i * n + j]` (row-major, n = number of places).
  /// No cpus.
  ///
  /// Throws std::invalid_argument unless: n >= 1; distances has n·n entries, is symmetric and
  /// has a zero diagonal; the node indices are dense (every index from 0 to the largest is used).
  static topology from_distances(std::vector<std::size_t> numa_node_of_place,
                                 std::vector<unsigned> distances);

  /// How this topology was made, printable as it is: "hwloc" (discover() with hwloc),
  /// "flat: built without hwloc" (discover() in a build without hwloc: one NUMA node, uniform
  /// distances), "synthetic" or "from_distances".
  std::string_view source() const noexcept { return m_source; }

  /// The number of places (workers); at least 1.
  std::size_t size() const noexcept { return m_places.size(); }

  /// The number of NUMA nodes the places are on; at least 1.
  std::size_t numa_nodes() const noexcept { return m_numa_nodes; }

  /// The NUMA node of place i, in [0, numa_nodes()). Throws std::out_of_range if i >= size().
  std::size_t numa_node(std::size_t i) const;

  /// The OS cpu index to pin place i to; std::nullopt for synthetic places.
  /// Throws std::out_of_range if i >= size().
  std::optional<unsigned> cpu(std::size_t i) const;

  /// The topological distance between places i and j (0 when i == j).
  /// Throws std::out_of_range if i or j >= size().
  unsigned distance(std::size_t i, std::size_t j) const;

  /// Equal when the places, the distances and the source are.
  friend bool operator==(const topology&, const topology&) = default;

 private:
  struct place {
    std::optional<unsigned> cpu;
    std::size_t numa_node;
    friend bool operator==(const place&, const place&) = default;
  };

  topology(std::vector<place> places, std::vector<unsigned> distances, std::string_view source);

  // discover()'s layout of n_workers on the machine's cores, away from the workers counted.
  static topology lay_out(std::size_t n_workers, const detail::machine& machine,
                          std::span<const std::size_t> workers_per_cpu);

  std::vector<place> m_places;
  std::vector<unsigned> m_distances;  // row-major size() x size()
  std::size_t m_numa_nodes;
  std::string_view m_source;  // always a string literal
};

/// Binds the calling thread to the cpu of `topo`'s place `place`.
///
/// Returns true if the thread is now bound to that cpu alone. Returns false, leaving the binding
/// as it was, when the place has no cpu (synthetic topologies) or the OS refuses (the cpu is not
/// allowed any more, or binding is unsupported): a pool runs correctly unpinned, only less
/// predictably, so callers normally carry on. Throws std::out_of_range if place >= topo.size().
bool pin_current_thread(const topology& topo, std::size_t place);

/// The OS cpu indices this process may run on, sorted and never empty: on Linux, the union of
/// the affinities of all the process's threads (so a thread another pool pinned to one cpu does
/// not shrink it; the kernel keeps affinities within the cgroup's cpuset), with masks of any
/// size; where the system cannot say, 0 to `std::thread::hardware_concurrency() - 1` (at least
/// one). Read anew at each call. On Linux, discover() lays workers out on these cpus;
/// `tine::mpi_pool` counts them for its default workers per rank. Throws std::bad_alloc, or
/// std::system_error when Linux refuses to report an affinity.
std::vector<unsigned> usable_cpus();

}  // namespace tine

#endif  // TINE_POLICIES_TOPOLOGY_HPP
