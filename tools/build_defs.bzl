"""Test macros for tine's own tests.

    load("//tools:build_defs.bzl", "tine_cc_test", "tine_plain_cc_test")

    tine_cc_test(
        name = "deque_test",
        srcs = ["deque_test.cpp"],
        deps = ["//core"],
    )

A Boost.Test source only does `#include <boost/test/unit_test.hpp>` and uses
BOOST_AUTO_TEST_SUITE / BOOST_AUTO_TEST_CASE. It must NOT define BOOST_TEST_MODULE
or BOOST_TEST_MAIN: main() comes from //tests:boost_main, and BOOST_TEST_DYN_LINK
comes from @tine_boost_test//:boost_test's `defines`.
"""

load("@rules_cc//cc:defs.bzl", "cc_test")

# Label() resolves these in tine's repository, wherever the macro is called from.
_BOOST_MAIN = Label("//tests:boost_main")
_BOOST_TEST = Label("@tine_boost_test//:boost_test")

def tine_cc_test(name, srcs, deps = [], timeout = "moderate", **kwargs):
    """A Boost.Test cc_test: one JUnit <testcase> per BOOST_AUTO_TEST_CASE.

    Args:
      name: target name.
      srcs: test sources (several files may share one binary).
      deps: libraries under test; the Boost main is added here.
      timeout: Bazel test timeout; "moderate" (300 s) unless given.
      **kwargs: anything cc_test takes (size, tags, copts, data, shard_count...).
    """
    cc_test(
        name = name,
        srcs = srcs,
        deps = deps + [_BOOST_MAIN, _BOOST_TEST],
        timeout = timeout,
        **kwargs
    )

def tine_plain_cc_test(name, srcs, deps = [], timeout = "moderate", **kwargs):
    """A test that is just a main(): exit code 0 passes. Counted as one case.

    Bazel writes its test.xml itself (one <testcase>, failed unless exit 0).
    """
    cc_test(
        name = name,
        srcs = srcs,
        deps = deps,
        timeout = timeout,
        **kwargs
    )

# Code built with -fopenmp: put these in the target's copts and depend on exactly
# one runtime, @tine_gomp//:gomp (GCC's) or @tine_libomp//:omp (LLVM's).
# cc_library cannot give copts to its dependents, hence this constant.
OPENMP_COPTS = ["-fopenmp"]
