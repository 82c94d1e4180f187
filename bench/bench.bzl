"""tine_bench: one workload's benchmark binaries and CI smoke tests.

    tine_bench(name = "fib", srcs = ["fib.cpp"])

gives
  :fib, :fib_libomp      Google Benchmark binaries (serial, tine, TBB, OpenMP side by side),
                          OpenMP from GCC's libgomp or LLVM's libomp; same object code, so the
                          library is compiled once and the runtime chosen at link time;
  :fib_smoke_tine         CI: tiny input, serial vs tine inline/busy/lazy at 1 and 2 workers;
  :fib_smoke_peers        CI: tiny input, TBB and libgomp at 1 and 2 workers, tags "no-tsan",
                          "no-clang";
  :fib_smoke_libomp       CI: the same with libomp, tag "no-tsan".
TBB and the OpenMP runtimes are not built with ThreadSanitizer, so their runs report races that
are not there: the lead's TSan run filters them out with --test_tag_filters=-no-tsan.

Clang (--config=clang) compiles `#pragma omp` to LLVM's __kmpc ABI, which libgomp lacks, and its
-fopenmp links LLVM 16's libomp, which Debian 12 cannot install beside libomp-dev (LLVM 14's, the
one @tine_libomp uses): with Clang, :fib (libgomp) does not link, :fib_smoke_peers is filtered out
(--test_tag_filters=-no-clang) and :fib_smoke_tine links libomp instead (it runs no OpenMP code).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//tools:build_defs.bzl", "OPENMP_COPTS")

def tine_bench(name, srcs, deps = []):
    """One benchmark: its binaries (libgomp and libomp) and smoke tests.

    Args:
      name: the binary's name; the others are NAME_libomp, NAME_smoke_tine, NAME_smoke_peers
        and NAME_smoke_libomp, on a library NAME_lib.
      srcs: the workload's sources.
      deps: what the sources need besides //bench:harness and an OpenMP runtime.
    """
    cc_library(
        name = name + "_lib",
        srcs = srcs,
        copts = OPENMP_COPTS,
        deps = ["//bench:harness"] + deps,
        alwayslink = True,
    )
    cc_binary(
        name = name,
        deps = [":" + name + "_lib", "@tine_gomp//:gomp"],
    )
    cc_binary(
        name = name + "_libomp",
        deps = [":" + name + "_lib", "@tine_libomp//:omp"],
    )
    cc_test(
        name = name + "_smoke_tine",
        size = "small",
        linkstatic = True,
        args = ["--smoke=tine"],
        deps = [":" + name + "_lib"] + select({
            "//bench:clang": ["@tine_libomp//:omp"],
            "//conditions:default": ["@tine_gomp//:gomp"],
        }),
    )
    cc_test(
        name = name + "_smoke_peers",
        size = "small",
        linkstatic = True,
        args = ["--smoke=peers"],
        tags = [
            "no-clang",
            "no-tsan",
        ],
        deps = [":" + name + "_lib", "@tine_gomp//:gomp"],
    )
    cc_test(
        name = name + "_smoke_libomp",
        size = "small",
        linkstatic = True,
        args = ["--smoke=peers"],
        tags = ["no-tsan"],
        deps = [":" + name + "_lib", "@tine_libomp//:omp"],
    )
