// The process-wide count of pool workers pinned to each cpu, and the pools' default layout that
// avoids the busiest cores.
#include <tine/policies/cpu_claims.hpp>

#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace tine {

namespace {

struct claim_counts {
  std::mutex lock;
  std::vector<std::size_t> workers_per_cpu;  // indexed by OS cpu

  // Callers hold `lock`. All or nothing: only the resize can throw, and it comes first.
  void add(const std::vector<unsigned>& cpus) {
    for (unsigned cpu : cpus) {
      if (workers_per_cpu.size() <= cpu) {
        workers_per_cpu.resize(std::size_t{cpu} + 1, 0);
      }
    }
    for (unsigned cpu : cpus) {
      ++workers_per_cpu[cpu];
    }
  }
  void remove(const std::vector<unsigned>& cpus) noexcept {
    for (unsigned cpu : cpus) {
      --workers_per_cpu[cpu];
    }
  }
};

claim_counts& counts() {
  // Never destroyed: a static pool may be destroyed, and release its claim, after every other
  // static of the program is gone.
  static claim_counts* const the_counts = new claim_counts;
  return *the_counts;
}

std::vector<unsigned> cpus_of(const topology& topo) {
  std::vector<unsigned> cpus;
  for (std::size_t i = 0; i < topo.size(); ++i) {
    if (const std::optional<unsigned> cpu = topo.cpu(i)) {
      cpus.push_back(*cpu);
    }
  }
  return cpus;
}

}  // namespace

cpu_claim::cpu_claim(const topology& topo) : m_cpus(cpus_of(topo)) {
  claim_counts& c = counts();
  const std::lock_guard<std::mutex> hold(c.lock);
  c.add(m_cpus);
}

cpu_claim::cpu_claim(cpu_claim&& other) noexcept : m_cpus(std::exchange(other.m_cpus, {})) {}

cpu_claim& cpu_claim::operator=(cpu_claim&& other) noexcept {
  if (this != &other) {
    cpu_claim old(std::move(*this));  // released at the end of this scope
    m_cpus = std::exchange(other.m_cpus, {});
  }
  return *this;
}

cpu_claim::~cpu_claim() {
  if (m_cpus.empty()) {
    return;  // moved from or empty: no lock to take
  }
  claim_counts& c = counts();
  const std::lock_guard<std::mutex> hold(c.lock);
  c.remove(m_cpus);
}

std::size_t cpu_claim::workers_on(unsigned cpu) {
  claim_counts& c = counts();
  const std::lock_guard<std::mutex> hold(c.lock);
  return cpu < c.workers_per_cpu.size() ? c.workers_per_cpu[cpu] : 0;
}

claimed_topology claim_least_used_cores(std::size_t n_workers) {
  claim_counts& c = counts();
  // Held across the layout and the count: another pool choosing meanwhile sees this one.
  const std::lock_guard<std::mutex> hold(c.lock);
  topology places = topology::discover_avoiding(n_workers, c.workers_per_cpu);
  std::vector<unsigned> cpus = cpus_of(places);
  c.add(cpus);
  // Nothing from here on throws: a claim destroyed while we hold the lock would deadlock.
  cpu_claim claim;
  claim.m_cpus = std::move(cpus);
  return claimed_topology{std::move(places), std::move(claim)};
}

claimed_topology claim_cores(topology topo) {
  cpu_claim claim(topo);
  return claimed_topology{std::move(topo), std::move(claim)};
}

}  // namespace tine
