#!/usr/bin/env bash
# tools/check_compile_failures.sh with stdexec's headers (from the @tine_stdexec repository in the
# runfiles, as system headers) and MPICH's (from its compiler wrapper), for the configuration's
# compiler ($CXX: g++, or clang++-16). By hand, from the workspace root:
#   STDEXEC_INCLUDE=<stdexec>/include tests/execution/check_compile_failures_execution.sh FOLDER
set -u
mpi=$(mpicxx.mpich -show | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
[ -n "$mpi" ] || { echo "check_compile_failures_execution.sh: no -I in mpicxx.mpich -show"; exit 1; }
stdexec="${STDEXEC_INCLUDE:-}"
if [ -z "$stdexec" ] && [ -n "${TEST_SRCDIR:-}" ]; then
  for candidate in "$TEST_SRCDIR/tine_stdexec/include" \
                   "$TEST_SRCDIR/${TEST_WORKSPACE:-tine}/external/tine_stdexec/include"; do
    if [ -f "$candidate/stdexec/execution.hpp" ]; then
      stdexec="$candidate"
      break
    fi
  done
fi
[ -n "$stdexec" ] || { echo "check_compile_failures_execution.sh: stdexec's headers not found"; exit 1; }
export CXXFLAGS="${CXXFLAGS:-} $mpi -isystem $stdexec"
if [ -n "${TEST_SRCDIR:-}" ]; then
  exec "$TEST_SRCDIR/${TEST_WORKSPACE:-tine}/tools/check_compile_failures.sh" "$@"
fi
exec tools/check_compile_failures.sh "$@"
