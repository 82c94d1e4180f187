#ifndef TINE_POLICIES_DETAIL_MACHINE_HPP
#define TINE_POLICIES_DETAIL_MACHINE_HPP

/// \file machine.hpp
/// Internal: what topology::discover() needs from a way of finding the machine. Two files
/// implement these functions, and a build compiles exactly one of them: policies/topology.cpp
/// asks hwloc, policies/topology_flat.cpp (tine built without hwloc) sees a flat machine.
/// Everything else about topologies is in policies/topology_common.cpp, shared by both.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <string_view>
#include <vector>

namespace tine::detail {

/// A core this process may use: the OS indices of its usable hardware threads (at least one,
/// in the order workers wrap onto them) and its NUMA node, already dense (0, 1, ... in order).
struct usable_core {
  std::vector<unsigned> cpus;
  std::size_t numa_node;
};

/// The usable cores in placement order and the topological distance between any two of them
/// (row-major cores.size() x cores.size(), zero diagonal, symmetric); and every cpu the machine
/// has, usable or not, as far as it is known (any order; topology adds the cores' cpus), so that
/// a cpu asked for by index that does not exist can be told from one the process may not use.
struct machine {
  std::vector<usable_core> cores;
  std::vector<unsigned> distances;
  std::vector<unsigned> all_cpus;
};

/// Finds the machine; at least one core. Throws std::bad_alloc when memory is short, else
/// std::system_error or std::runtime_error, its message starting with
/// "tine::topology::discover: ", when it cannot.
machine find_machine();

/// The cpus this process may run on as Linux reports them: the union of its threads' affinities
/// (so one pinned worker of another pool does not shrink what a new pool sees; the kernel keeps
/// affinities within the cgroup's cpuset), sorted. Empty where there is no such call. Shared by
/// both builds (topology_common.cpp); makes no call to hwloc. Throws std::bad_alloc or
/// std::system_error.
std::vector<unsigned> process_cpus();

/// What topology::source() says for a discovered topology: "hwloc" or
/// "flat: built without hwloc" (a string literal).
std::string_view discovery_source() noexcept;

/// Binds the calling thread to one cpu where Linux's pthread_setaffinity_np is not available;
/// false if that cannot be done.
bool bind_thread_elsewhere(unsigned cpu) noexcept;

}  // namespace tine::detail

#endif  // TINE_POLICIES_DETAIL_MACHINE_HPP
