// The machines read from sysfs without hwloc (policies/topology_sysfs.cpp) are the ones hwloc
// would give: on this machine, and on made-up sysfs trees that hwloc reads too (HWLOC_FSROOT).
#include <tine/policies/detail/machine.hpp>
#include <tine/policies/topology.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace {

using cpus_t = std::vector<unsigned>;

/// Sets an environment variable for one scope (tests run on one thread).
class env_guard {
 public:
  env_guard(const char* name, const std::string& value) : m_name{name} {
    BOOST_REQUIRE_EQUAL(setenv(name, value.c_str(), 1), 0);  // NOLINT(concurrency-mt-unsafe)
  }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;
  ~env_guard() { unsetenv(m_name); }  // NOLINT(concurrency-mt-unsafe)

 private:
  const char* m_name;
};

std::string list(const cpus_t& cpus) {
  std::string out;
  for (unsigned c : cpus) {
    out += (out.empty() ? "" : ",") + std::to_string(c);
  }
  return out;
}

std::string mask(const cpus_t& cpus) {
  unsigned long bits = 0;
  for (unsigned c : cpus) {
    bits |= 1UL << c;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%08lx", bits);
  return text;
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream{file} << text << '\n';
}

/// A made-up Linux machine as the kernel shows it, in both the list and the mask files (tine
/// reads the first, hwloc the second): cores, packages, the L3 of each cpu (its package's unless
/// given), NUMA nodes (none: no node directory) and the nodes the process may use.
struct fake_machine {
  std::vector<cpus_t> cores;
  std::vector<cpus_t> packages;
  std::vector<cpus_t> l3;  // per cpu; empty: the package's
  std::vector<cpus_t> nodes;
  std::string mems_allowed = "0-1";
  std::string package_id;  // per cpu when empty: its package's index

  std::filesystem::path write_under(const std::string& name) const {
    const char* tmp = std::getenv("TEST_TMPDIR");  // NOLINT(concurrency-mt-unsafe)
    const std::filesystem::path root =
        std::filesystem::path{tmp != nullptr ? tmp : "/tmp"} / ("fake_sysfs_" + name);
    std::filesystem::remove_all(root);
    const std::filesystem::path cpu = root / "sys/devices/system/cpu";
    unsigned last = 0;
    for (const cpus_t& core : cores) {
      last = std::max(last, *std::max_element(core.begin(), core.end()));
    }
    for (const char* f : {"online", "present", "possible"}) {
      write(cpu / f, "0-" + std::to_string(last));
    }
    for (std::size_t p = 0; p < packages.size(); ++p) {
      for (unsigned c : packages[p]) {
        const cpus_t& core = *std::find_if(cores.begin(), cores.end(), [&](const cpus_t& k) {
          return std::find(k.begin(), k.end(), c) != k.end();
        });
        const cpus_t& pack = packages[p];
        const std::filesystem::path dir = cpu / ("cpu" + std::to_string(c));
        const std::filesystem::path topo = dir / "topology";
        write(topo / "physical_package_id", package_id.empty() ? std::to_string(p) : package_id);
        write(topo / "core_id", std::to_string(core.front()));
        write(topo / "die_id", "0");
        for (const auto& [name, set] : {std::pair{"core_cpus", core},
                                        {"thread_siblings", core},
                                        {"package_cpus", pack},
                                        {"core_siblings", pack},
                                        {"die_cpus", pack},
                                        {"cluster_cpus", core}}) {
          write(topo / name, mask(set));
          write(topo / (std::string{name} + "_list"), list(set));
        }
        const cpus_t& shared = l3.empty() ? pack : l3[c];
        int index = 0;
        for (const auto& [level, type, set] : {std::tuple{1, "Data", core},
                                               {1, "Instruction", core},
                                               {2, "Unified", core},
                                               {3, "Unified", shared}}) {
          const std::filesystem::path cache = dir / "cache" / ("index" + std::to_string(index++));
          write(cache / "level", std::to_string(level));
          write(cache / "type", type);
          write(cache / "size", "1024K");
          write(cache / "shared_cpu_map", mask(set));
          write(cache / "shared_cpu_list", list(set));
        }
      }
    }
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const std::filesystem::path node =
          root / "sys/devices/system/node" / ("node" + std::to_string(n));
      write(node / "cpumap", mask(nodes[n]));
      write(node / "cpulist", list(nodes[n]));
      write(node / "meminfo", "Node " + std::to_string(n) + " MemTotal:       1048576 kB");
      std::string distances;
      for (std::size_t m = 0; m < nodes.size(); ++m) {
        distances += (m == 0 ? "" : " ") + std::string{m == n ? "10" : "21"};
      }
      write(node / "distance", distances);
    }
    write(root / "proc/self/status", "Name:\tx\nMems_allowed_list:\t" + mems_allowed);
    return root;
  }
};

cpus_t all_of(const fake_machine& f) {
  cpus_t all;
  for (const cpus_t& c : f.cores) {
    all.insert(all.end(), c.begin(), c.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

/// What hwloc makes of the tree (places of one worker per core) against what tine read.
void check_same_as_hwloc(const std::filesystem::path& root, const tine::detail::machine& m) {
  const env_guard fsroot{"HWLOC_FSROOT", root.string()};
  const std::size_t n = m.cores.size();
  const tine::topology topo = tine::topology::discover(n);
  BOOST_REQUIRE_EQUAL(topo.size(), n);
  for (std::size_t a = 0; a < n; ++a) {
    BOOST_TEST((topo.cpu(a) == std::optional<unsigned>{m.cores[a].cpus.front()}));
    BOOST_TEST(topo.numa_node(a) == m.cores[a].numa_node);
    for (std::size_t b = 0; b < n; ++b) {
      BOOST_TEST(topo.distance(a, b) == m.distances[a * n + b]);
    }
  }
}

/// Two packages of two cores of two threads, numbered the way x86 servers number them.
fake_machine two_packages() {
  fake_machine f;
  f.cores = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  f.packages = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  f.nodes = f.packages;
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(topology_sysfs)

BOOST_AUTO_TEST_CASE(this_machine_reads_as_hwloc_reads_it) {
  const std::optional<tine::detail::machine> m = tine::detail::machine_from_sysfs();
  if (!tine::topology::discovers_with_hwloc() || !m) {
    BOOST_TEST_MESSAGE("hwloc is asked on this machine (or not built in): nothing to compare");
    return;
  }
  const std::size_t cores = m->cores.size();
  for (std::size_t n = 1; n <= 2 * cores + 1; ++n) {
    const tine::topology read = tine::topology::discover(n);
    // Any HWLOC_ variable makes tine ask hwloc; this one changes nothing in hwloc's answer.
    const env_guard ask_hwloc{"HWLOC_THISSYSTEM", "1"};
    BOOST_TEST((read == tine::topology::discover(n)), "n_workers = " << n);
  }
  // The machine's cpus as both know them: the message lists them.
  const std::vector<unsigned> absent{100000};
  std::string without;
  std::string with;
  try {
    (void)tine::topology::discover(1, absent);
  } catch (const std::invalid_argument& e) {
    without = e.what();
  }
  {
    const env_guard ask_hwloc{"HWLOC_THISSYSTEM", "1"};
    try {
      (void)tine::topology::discover(1, absent);
    } catch (const std::invalid_argument& e) {
      with = e.what();
    }
  }
  BOOST_TEST(!without.empty());
  BOOST_TEST(without == with);
}

BOOST_AUTO_TEST_CASE(two_packages_with_threads_read_as_hwloc_reads_them) {
  const fake_machine f = two_packages();
  const std::filesystem::path root = f.write_under("two_packages");
  const std::optional<tine::detail::machine> m =
      tine::detail::machine_from_sysfs(root.string(), all_of(f));
  BOOST_REQUIRE(m.has_value());
  BOOST_REQUIRE_EQUAL(m->cores.size(), 4U);
  BOOST_TEST((m->cores[0].cpus == cpus_t{0, 4}));
  BOOST_TEST((m->cores[3].cpus == cpus_t{3, 7}));
  BOOST_TEST(m->cores[1].numa_node == 0U);
  BOOST_TEST(m->cores[2].numa_node == 1U);
  BOOST_TEST(m->distances[0 * 4 + 1] == 1U);
  BOOST_TEST(m->distances[1 * 4 + 2] == 2U);
  BOOST_TEST((m->all_cpus == cpus_t{0, 1, 2, 3, 4, 5, 6, 7}));
  if (tine::topology::discovers_with_hwloc()) {
    check_same_as_hwloc(root, *m);
  }

  // Cut down to some cpus: the second package's node becomes the second dense index.
  const std::optional<tine::detail::machine> some =
      tine::detail::machine_from_sysfs(root.string(), {5, 6});
  BOOST_REQUIRE(some.has_value());
  BOOST_REQUIRE_EQUAL(some->cores.size(), 2U);
  BOOST_TEST((some->cores[0].cpus == cpus_t{5}));
  BOOST_TEST(some->cores[1].numa_node == 1U);
  BOOST_TEST(some->distances[1] == 2U);
  BOOST_TEST(!tine::detail::machine_from_sysfs(root.string(), {42}).has_value());
}

BOOST_AUTO_TEST_CASE(one_package_without_numa_nodes_reads_as_hwloc_reads_it) {
  fake_machine f;
  f.cores = {{0}, {1}, {2}};
  f.packages = {{0, 1, 2}};
  const std::filesystem::path root = f.write_under("one_package");
  const std::optional<tine::detail::machine> m =
      tine::detail::machine_from_sysfs(root.string(), all_of(f));
  BOOST_REQUIRE(m.has_value());
  BOOST_REQUIRE_EQUAL(m->cores.size(), 3U);
  BOOST_TEST(m->distances[0 * 3 + 2] == 1U);
  if (tine::topology::discovers_with_hwloc()) {
    check_same_as_hwloc(root, *m);
  }
}

// Shapes whose hwloc tree has more than machine / package / core: left to hwloc.
BOOST_AUTO_TEST_CASE(other_shapes_are_left_to_hwloc) {
  const auto read = [](const fake_machine& f, const std::string& name) {
    return tine::detail::machine_from_sysfs(f.write_under(name).string(), all_of(f));
  };
  fake_machine ccx;  // two L3 caches in one package
  ccx.cores = {{0}, {1}, {2}, {3}};
  ccx.packages = {{0, 1, 2, 3}};
  ccx.l3 = {{0, 1}, {0, 1}, {2, 3}, {2, 3}};
  BOOST_TEST(!read(ccx, "ccx").has_value());

  fake_machine snc;  // two NUMA nodes in one package
  snc.cores = ccx.cores;
  snc.packages = ccx.packages;
  snc.nodes = {{0, 1}, {2, 3}};
  BOOST_TEST(!read(snc, "snc").has_value());

  fake_machine cpuless = two_packages();  // a node without cpus
  cpuless.nodes = {{0, 1, 2, 3, 4, 5, 6, 7}, {}};
  BOOST_TEST(!read(cpuless, "cpuless").has_value());

  fake_machine mems = two_packages();  // a node the process may not use
  mems.mems_allowed = "0";
  BOOST_TEST(!read(mems, "mems").has_value());

  fake_machine unknown = two_packages();  // the kernel does not know the packages
  unknown.package_id = "-1";
  BOOST_TEST(!read(unknown, "unknown").has_value());

  fake_machine four = two_packages();  // more than two nodes: hwloc may group them by distance
  four.cores = {{0}, {1}, {2}, {3}};
  four.packages = {{0}, {1}, {2}, {3}};
  four.nodes = four.packages;
  BOOST_TEST(!read(four, "four").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
