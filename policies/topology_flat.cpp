// Finding the machine without hwloc (tine built without it, see docs/build.md): every cpu this
// process may use is a core of its own, all on NUMA node 0 and all at distance 1. numa_victims
// then picks victims uniformly. The hwloc build compiles policies/topology.cpp instead; what
// both share is in policies/topology_common.cpp.
#include <tine/policies/detail/machine.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <dirent.h>
#include <sched.h>
#include <sys/types.h>
#endif

namespace tine::detail {

namespace {

#if defined(__linux__)

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
    cpu_set_handle set{CPU_ALLOC(n)};
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
      throw std::runtime_error(std::string{"tine::topology::discover: sched_getaffinity failed: "} +
                               std::strerror(errno));
    }
  }
}

/// The cpus this process may run on: the union of its threads' affinities (as hwloc's process
/// binding on Linux), so a pinned worker of another pool does not shrink what a new pool sees.
/// The kernel already keeps affinities within the cgroup's cpuset.
std::vector<unsigned> usable_cpus() {
  std::vector<bool> cpus;
  add_affinity(0, cpus);
  if (const std::unique_ptr<DIR, dir_deleter> dir{opendir("/proc/self/task")}) {
    while (const dirent* entry = readdir(dir.get())) {
      char* end = nullptr;
      const long tid = std::strtol(entry->d_name, &end, 10);
      if (end != entry->d_name && *end == '\0' && tid > 0) {
        add_affinity(static_cast<pid_t>(tid), cpus);
      }
    }
  }
  std::vector<unsigned> result;
  for (std::size_t c = 0; c < cpus.size(); ++c) {
    if (cpus[c]) {
      result.push_back(static_cast<unsigned>(c));
    }
  }
  return result;
}

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

/// No portable way to read the process's cpus: as many as the standard library reports.
std::vector<unsigned> usable_cpus() {
  std::vector<unsigned> result(std::max(1U, std::thread::hardware_concurrency()));
  for (std::size_t c = 0; c < result.size(); ++c) {
    result[c] = static_cast<unsigned>(c);
  }
  return result;
}

#endif

}  // namespace

machine find_machine() {
  const std::vector<unsigned> cpus = usable_cpus();
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
