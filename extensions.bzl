"""Module extension for MODULE.bazel (bzlmod, Bazel 7 and 8): tine's system libraries.

Declares the repositories that tine_dependencies() in repositories.bzl declares for a
WORKSPACE, other than Bazel's own rules_cc and rules_java (a module gets those through
bazel_dep) and the coverage stand-in (only needed offline with Bazel 4.2.3). It reuses the
same repository rule and attributes, so both setups probe the same library the same way.

Linted only: no Bazel with bzlmod is available where tine is tested (docs/build.md).
"""

load(
    "//:repositories.bzl",
    "BOOST_TEST_REPOSITORY",
    "GTEST_REPOSITORY",
    "HWLOC_REPOSITORY",
    "MPI_REPOSITORY",
)
load("//tools:repo_rules.bzl", "tine_system_library")

def _tine_deps_impl(_module_ctx):
    # No tags: every module that uses the extension gets the same repositories.
    tine_system_library(**HWLOC_REPOSITORY)

    # For //distributed; fetched only when a target needs it.
    tine_system_library(**MPI_REPOSITORY)

    # For //testing's conformance kit adapters; fetched only when a target needs them.
    tine_system_library(**BOOST_TEST_REPOSITORY)
    tine_system_library(**GTEST_REPOSITORY)

tine_deps = module_extension(
    implementation = _tine_deps_impl,
    doc = "The system-library repositories tine needs (hwloc as @tine_hwloc, MPI as " +
          "@tine_mpi), and the test frameworks of its conformance kit (@tine_boost_test, " +
          "@tine_gtest).",
)
