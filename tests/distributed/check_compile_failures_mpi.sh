#!/usr/bin/env bash
# tools/check_compile_failures.sh with MPICH's include directories (from its compiler wrapper),
# so that <mpi.h> is found, for the configuration's compiler ($CXX: g++, or clang++-16).
# By hand, from the workspace root: tests/distributed/check_compile_failures_mpi.sh FOLDER
includes=$(mpicxx.mpich -show | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
[ -n "$includes" ] || { echo "check_compile_failures_mpi.sh: no -I in mpicxx.mpich -show"; exit 1; }
export CXXFLAGS="${CXXFLAGS:-} $includes"
if [ -n "${TEST_SRCDIR:-}" ]; then
  exec "$TEST_SRCDIR/${TEST_WORKSPACE:-tine}/tools/check_compile_failures.sh" "$@"
fi
exec tools/check_compile_failures.sh "$@"
