"""External repositories of tine, all from Debian packages (Bazel 4.2.3, offline).

A consumer's WORKSPACE:

    local_repository(name = "tine", path = "...")   # or any other way to get tine
    load("@tine//:repositories.bzl", "tine_dependencies")
    tine_dependencies()

tine_testing_dependencies() adds the test frameworks of the scheduler conformance
kit's adapters (Boost.Test, GoogleTest), for a consumer who tests a scheduler;
tine_dev_dependencies() adds those and what only tine's own tests and benchmarks need;
Bazel fetches a repository only when a target being built uses it, so it costs
nothing to a consumer who never builds those targets.

Every repository is declared only if the workspace has not declared it already
(maybe()), so a consumer's own rules_cc or hwloc wins. hwloc is optional: without it tine
builds a flat topology (docs/build.md).
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load(
    "//tools:repo_rules.bzl",
    "RULES_CC_PATCHES",
    "tine_coverage_stub",
    "tine_debian_copy",
    "tine_system_library",
)
load("//tools:stdexec_repo.bzl", "tine_stdexec")

# The hwloc repository's attributes, shared with extensions.bzl (bzlmod).
# Optional: without a usable hwloc (2.x) the repository says AVAILABLE = False in
# @tine_hwloc//:available.bzl, a notice is printed, and //policies builds the flat topology
# (as with --define=tine_hwloc=off). A workspace that declares its own tine_hwloc must give
# it an available.bzl too.
HWLOC_REPOSITORY = dict(
    name = "tine_hwloc",
    library = "hwloc",
    target = "hwloc",
    debian_package = "libhwloc-dev",
    probe = """#include <hwloc.h>
#if HWLOC_API_VERSION < 0x00020000
#error "tine needs hwloc 2.x"
#endif
int main() { hwloc_topology_t t; if (hwloc_topology_init(&t)) return 1; hwloc_topology_destroy(t); }
""",
    linkopts = ["-lhwloc"],
    optional = True,
    without = "building tine without it: a flat topology (one NUMA node, every cpu its own " +
              "core) and uniform victims in place of NUMA-weighted ones",
)

# The test frameworks of the conformance kit's adapters; extensions.bzl declares the same.
# Boost.Test: shared library + BOOST_TEST_DYN_LINK (propagated to every dependent), so test
# sources need no define; main() is the test's (tine's tests: //tests:boost_main, or define
# BOOST_TEST_MODULE in one source for Boost's own).
BOOST_TEST_REPOSITORY = dict(
    name = "tine_boost_test",
    library = "Boost.Test",
    target = "boost_test",
    debian_package = "libboost-test-dev",
    probe = """#define BOOST_TEST_MODULE probe
#include <boost/test/unit_test.hpp>
BOOST_AUTO_TEST_CASE(probe) { BOOST_TEST(true); }
""",
    defines = ["BOOST_TEST_DYN_LINK"],
    linkopts = ["-lboost_unit_test_framework"],
)

# GoogleTest: Debian's libgtest-dev ships static libraries (no define needed); gtest_main is
# GoogleTest's main(), for tests that do not write their own.
GTEST_REPOSITORY = dict(
    name = "tine_gtest",
    library = "GoogleTest",
    target = "gtest",
    debian_package = "libgtest-dev",
    probe = """#include <gtest/gtest.h>
TEST(Probe, Runs) { EXPECT_EQ(1, 1); }
int main(int argc, char** argv) { testing::InitGoogleTest(&argc, argv); return RUN_ALL_TESTS(); }
""",
    linkopts = ["-lgtest", "-pthread"],
    main_target = "gtest_main",
    main_linkopts = ["-lgtest_main"],
)

# MPI for //distributed (MPICH: docs/distributed_internals.md says why), fetched only when a target
# that uses it is built. Its headers come from MPICH's own directory, not the generic
# /usr/include/.../mpi, which Debian points at whichever MPI was installed last.
MPI_REPOSITORY = dict(
    name = "tine_mpi",
    library = "MPI (MPICH)",
    target = "mpi",
    debian_package = "libmpich-dev mpich",
    header_globs = [
        "/usr/include/*-linux-gnu*/mpich/mpi.h",
        "/usr/include/*-linux-gnu*/mpich/mpi_proto.h",
        "/usr/include/*-linux-gnu*/mpich/mpio.h",
    ],
    probe = """#include <mpi.h>
int main() { int v = 0, sub = 0; MPI_Get_version(&v, &sub); return v >= 3 ? 0 : 1; }
""",
    # No C++ bindings (mpicxx.h): tine uses the C API.
    defines = ["MPICH_SKIP_MPICXX"],
    linkopts = ["-lmpich", "-pthread"],
)

def tine_dependencies():
    """What building and using the library needs."""

    # These three keep Bazel's own names: Bazel itself refers to them and would
    # otherwise try to download them.
    maybe(
        tine_debian_copy,
        name = "rules_cc",
        path = "/usr/share/bazel/rules/cc",
        what = "rules_cc",
        debian_package = "bazel-rules-cc",
        patches = RULES_CC_PATCHES,
    )
    maybe(
        tine_debian_copy,
        name = "rules_java",
        path = "/usr/share/bazel/rules/java",
        what = "rules_java",
        debian_package = "bazel-rules-java",
    )
    maybe(tine_coverage_stub, name = "remote_coverage_tools")

    maybe(tine_system_library, **HWLOC_REPOSITORY)
    maybe(tine_system_library, **MPI_REPOSITORY)

    # stdexec for //execution (std::execution), optional: tools/stdexec_repo.bzl.
    maybe(tine_stdexec, name = "tine_stdexec")

def tine_testing_dependencies():
    """The test frameworks of the conformance kit's adapters (//testing).

    @tine_boost_test//:boost_test for //testing:conformance_boost_test and
    @tine_gtest//:gtest (+ :gtest_main) for //testing:conformance_gtest. A consumer
    who tests a scheduler with the kit calls this after tine_dependencies().
    """

    maybe(tine_system_library, **BOOST_TEST_REPOSITORY)
    maybe(tine_system_library, **GTEST_REPOSITORY)

def tine_dev_dependencies():
    """What tine's tests and benchmarks need on top of tine_dependencies()."""

    tine_testing_dependencies()
    maybe(
        tine_system_library,
        name = "tine_range_v3",
        library = "range-v3",
        target = "range_v3",
        debian_package = "librange-v3-dev",
        probe = """#include <range/v3/view/iota.hpp>
int main() { return ranges::views::iota(0, 3).size() == 3 ? 0 : 1; }
""",
    )
    maybe(
        tine_system_library,
        name = "tine_tbb",
        library = "TBB",
        target = "tbb",
        debian_package = "libtbb-dev",
        probe = """#include <tbb/parallel_for.h>
int main() { tbb::parallel_for(0, 2, [](int) {}); }
""",
        linkopts = ["-ltbb"],
    )
    maybe(
        tine_system_library,
        name = "tine_benchmark",
        library = "Google Benchmark",
        target = "benchmark",
        debian_package = "libbenchmark-dev",
        probe = """#include <benchmark/benchmark.h>
int main(int argc, char** argv) { benchmark::Initialize(&argc, argv); benchmark::Shutdown(); }
""",
        linkopts = ["-lbenchmark", "-pthread"],
    )
    maybe(
        tine_system_library,
        name = "tine_openssl",
        library = "OpenSSL libcrypto",
        target = "crypto",
        debian_package = "libssl-dev",
        probe = """#include <openssl/sha.h>
int main() { unsigned char d[SHA_DIGEST_LENGTH]; SHA1((const unsigned char*)"x", 1, d); }
""",
        linkopts = ["-lcrypto"],
    )

    # OpenMP. GCC compiles `#pragma omp` (with -fopenmp on the target itself) into
    # calls to the GOMP_* ABI, which both runtimes implement. Only one runtime per
    # binary: -fopenmp at link time pulls in libgomp.
    #   libomp: LLVM's runtime; its own omp.h (the omp_lock_t layouts differ from
    #   GCC's); linked by soname so no -fopenmp (and no libgomp) at link time.
    maybe(
        tine_system_library,
        name = "tine_libomp",
        library = "LLVM OpenMP (libomp)",
        target = "omp",
        debian_package = "libomp-dev",
        header_globs = ["/usr/lib/llvm-*/lib/clang/*/include/omp.h"],
        probe = """#include <omp.h>
int main() { int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  return n > 0 && omp_get_max_threads() > 0 ? 0 : 1; }
""",
        probe_copts = ["-fopenmp"],
        linkopts = ["-l:libomp.so.5"],
    )

    #   gomp: GCC's runtime; linking with -fopenmp is how GCC wants it done.
    maybe(
        tine_system_library,
        name = "tine_gomp",
        library = "GNU OpenMP (libgomp)",
        target = "gomp",
        debian_package = "g++",
        probe = """#include <omp.h>
int main() { int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  return n > 0 ? 0 : 1; }
""",
        probe_copts = ["-fopenmp"],
        linkopts = ["-fopenmp"],
    )
