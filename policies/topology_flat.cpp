// Finding the machine without hwloc (tine built without it, see docs/build.md): every cpu this
// process may use is a core of its own, all on NUMA node 0 and all at distance 1. numa_victims
// then picks victims uniformly. The hwloc build compiles policies/topology.cpp instead; what
// both share is in policies/topology_common.cpp.
#include <tine/policies/detail/machine.hpp>
#include <tine/policies/topology.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace tine::detail {

namespace {

#if defined(__linux__)

/// Every cpu the machine has, online or not: /sys/devices/system/cpu/present, a list such as
/// "0-3,8-11". Empty if it cannot be read; the caller then knows only the usable cpus.
std::vector<unsigned> present_cpus() {
  std::vector<unsigned> result;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{
      std::fopen("/sys/devices/system/cpu/present", "r"), &std::fclose};
  if (!file) {
    return result;
  }
  unsigned first = 0;
  while (std::fscanf(file.get(), "%u", &first) == 1) {
    unsigned last = first;
    int next = std::fgetc(file.get());
    if (next == '-') {
      if (std::fscanf(file.get(), "%u", &last) != 1) {
        return {};
      }
      next = std::fgetc(file.get());
    }
    if (last < first || last - first > (1U << 20)) {
      return {};  // not a list the kernel writes
    }
    for (unsigned c = first; c <= last; ++c) {
      result.push_back(c);
    }
    if (next != ',') {
      break;
    }
  }
  return result;
}

#else

std::vector<unsigned> present_cpus() { return {}; }

#endif

}  // namespace

machine find_machine() {
  const std::vector<unsigned> cpus = tine::usable_cpus();
  if (cpus.empty()) {
    throw std::runtime_error("tine::topology::discover: found no cpu this process may use");
  }
  const std::size_t n = cpus.size();
  machine m;
  m.cores.reserve(n);
  for (unsigned cpu : cpus) {
    m.cores.push_back(usable_core{{cpu}, 0});
  }
  // One level below the machine: distinct cores are 1 apart.
  m.distances.resize(n * n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      m.distances[a * n + b] = a == b ? 0U : 1U;
    }
  }
  m.all_cpus = present_cpus();
  return m;
}

std::string_view discovery_source() noexcept { return "flat: built without hwloc"; }

bool bind_thread_elsewhere(unsigned /*cpu*/) noexcept {
  // Binding without hwloc is done only through Linux's affinity API (policies/topology_common.cpp).
  return false;
}

}  // namespace tine::detail
