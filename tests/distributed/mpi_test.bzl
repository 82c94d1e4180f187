"""MPI test programs and the tests that run them under mpiexec (mpi_run.sh).

    mpi_program(name = "x_program", srcs = ["x_test.cpp"], deps = ["//distributed"])
    mpi_tests(name = "x_test", program = ":x_program", ranks = [1, 2, 3, 4])

MPICH is not built with ThreadSanitizer, whose reports would be about MPICH's own threads: every
test here carries no-tsan, like the benchmarks' peer tests.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def mpi_program(name, srcs, deps = [], **kwargs):
    """A test program: the sources, mpi_check.hpp, and MPI's modules kept loaded.

    Args:
      name: target name.
      srcs: the test's sources.
      deps: what it tests.
      **kwargs: anything cc_binary takes (local_defines...).
    """
    cc_binary(
        name = name,
        testonly = True,
        srcs = srcs + ["keep_modules_loaded.cpp"],
        # keep_modules_loaded.cpp's dlclose must be seen by MPI's modules.
        linkopts = ["-rdynamic"],
        deps = deps + [":mpi_check"],
        **kwargs
    )

def mpi_tests(name, program, ranks, seconds = 120, args = [], env = {}, launcher = []):
    """One sh_test per rank count, named NAME_N_ranks.

    Args:
      name: the tests' name stem.
      program: the mpi_program to run.
      ranks: the rank counts, one test each.
      seconds: the time limit of each run.
      args: the program's arguments.
      env: the tests' environment (EXPECT_FAILURE, MPICH_ASYNC_PROGRESS...).
      launcher: a command the program runs under on every rank (["setarch", "-R"]).
    """
    for n in ranks:
        mpi_test(
            name = "%s_%d_ranks" % (name, n),
            program = program,
            ranks = n,
            seconds = seconds,
            args = args,
            env = env,
            launcher = launcher,
        )

def mpi_test(name, program, ranks, seconds = 120, args = [], env = {}, launcher = []):
    """One sh_test: `program` on `ranks` ranks; arguments as for mpi_tests."""
    native.sh_test(
        name = name,
        srcs = ["mpi_run.sh"],
        args = [str(ranks), str(seconds)] + launcher + ["$(location %s)" % program] + args,
        data = [program],
        env = env,
        tags = ["no-tsan"],
        # Longer than the run's own limit, so that mpi_run.sh reports an overrun itself.
        timeout = "moderate" if seconds < 240 else "long",
    )
