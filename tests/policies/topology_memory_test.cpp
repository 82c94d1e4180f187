// A pool's discovery leaves hwloc's plugins unloaded where the machine is read from sysfs. A
// test binary of its own: once anything in the process asks hwloc, the plugins stay mapped.
#include <tine/policies/detail/machine.hpp>
#include <tine/policies/topology.hpp>

#include <fstream>
#include <string>

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_CASE(discovery_loads_no_hwloc_plugin) {
  if (!tine::detail::machine_from_sysfs().has_value()) {
    BOOST_TEST_MESSAGE("this machine is read with hwloc: its plugins are loaded");
    return;
  }
  const tine::topology topo = tine::topology::discover(2);
  BOOST_TEST(topo.size() == 2U);
  std::ifstream maps{"/proc/self/maps"};
  BOOST_REQUIRE(maps.good());
  for (std::string line; std::getline(maps, line);) {
    // hwloc's plugins are files hwloc_<name>.so in its plugin directory.
    BOOST_TEST(line.find("/hwloc_") == std::string::npos, line);
  }
}
