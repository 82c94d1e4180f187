"""The libraries of distributed/, each built twice: over MPI, and over the one-rank MPI stub.

    load("//distributed:mpi_library.bzl", "mpi_library")

    mpi_library(
        name = "pool",
        srcs = ["rank_pool.cpp"],
        hdrs = ["rank_pool.hpp"],
        mpi_deps = ["//distributed/foundation"],
        deps = ["//core:runtime"],
    )

gives `:pool` (over @tine_mpi) and `:pool_mpi_stub` (tests only: over
//tests/distributed/mpi_stub, with the lanes and progress thread of several ranks on one,
TINE_MPI_LANES_ON_ONE_RANK). `mpi_deps` are other libraries made by this macro: the stub build
takes their stub builds, so that one binary never holds both MPIs.
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

# Label() resolves these in tine's repository, wherever the macro is called from.
_MPI = Label("@tine_mpi//:mpi")
_MPI_STUB = Label("//tests/distributed/mpi_stub:mpi")
_STUB_USERS = [
    "//distributed:__subpackages__",
    "//tests/distributed:__pkg__",
]

def mpi_library(name, srcs = [], hdrs = [], mpi_deps = [], deps = [], visibility = None):
    """A cc_library under <tine/...> over MPI, and its twin `name + "_mpi_stub"` over the stub.

    Args:
      name: target name.
      srcs: sources.
      hdrs: headers, included as <tine/PATH> (PATH from the workspace root).
      mpi_deps: libraries made by mpi_library (labels of their MPI builds).
      deps: other dependencies, the same in both builds.
      visibility: of the MPI build; the stub build is for distributed/ and its tests.
    """
    common = dict(
        srcs = srcs,
        hdrs = hdrs,
        include_prefix = "tine",
        linkopts = ["-pthread"],
        strip_include_prefix = "/",
    )
    cc_library(
        name = name,
        visibility = visibility,
        deps = mpi_deps + deps + [_MPI],
        **common
    )
    cc_library(
        name = name + "_mpi_stub",
        testonly = True,
        local_defines = ["TINE_MPI_LANES_ON_ONE_RANK"],
        visibility = _STUB_USERS,
        deps = [_stub(d) for d in mpi_deps] + deps + [_MPI_STUB],
        **common
    )

def _stub(label):
    """The stub build of an mpi_library: //a/b -> //a/b:b_mpi_stub, //a:c -> //a:c_mpi_stub."""
    if ":" in label:
        return label + "_mpi_stub"
    return label + ":" + label.split("/")[-1] + "_mpi_stub"
