#!/usr/bin/env bash
# tine's distributed layer on Open MPI (Debian's openmpi-bin and libopenmpi-dev), beside the
# Bazel test suite's MPICH: tine built with CMake against Open MPI's compiler wrapper, and the
# distributed foundation's test programs (the region, the offer slot, the pool, steals and
# exceptions across ranks, two workers per rank, global vectors, their algorithms, sort, cache
# and stress test, and examples/global_memory.cpp) built against it and run on 1 and 2 ranks;
# and one of them started by MPICH's mpiexec, where tine must warn that MPI sees one process.
# Open MPI's mpiexec runs here oversubscribed (2 cores) and as root (CI). One line per run ("ok"
# or "FAIL" with its output's tail); exits non-zero if any failed. A few minutes on 2 cores (355 s
# beside other builds, at a load of 7 to 11).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
src="$PWD"

tools/install-deps.sh >/dev/null || { echo "FAIL install-deps.sh"; exit 1; }
mpicxx="$(command -v mpicxx.openmpi)" || { echo "FAIL: no mpicxx.openmpi (apt-get install libopenmpi-dev)"; exit 1; }
mpiexec="$(command -v mpiexec.openmpi)" || { echo "FAIL: no mpiexec.openmpi (apt-get install openmpi-bin)"; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tine-openmpi.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "$("$mpiexec" --version 2>&1 | head -n 1), $("$mpicxx" --version | head -n 1)"
if ! cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DTINE_WITH_MPI=ON \
  -DMPI_CXX_COMPILER="$mpicxx" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >"$tmp/build.log" 2>&1 ||
  ! cmake --build "$tmp/build" -j2 --target tine_distributed >>"$tmp/build.log" 2>&1; then
  echo "FAIL tine built against Open MPI; the end of its log:"
  tail -n 30 "$tmp/build.log" | sed 's/^/    /'
  exit 1
fi
echo "ok   tine and tine::distributed built against Open MPI"

failed=0
runs=0
# build NAME [SOURCE]: builds SOURCE (tests/distributed/NAME.cpp by default; asserts on, as in the
# Bazel tests) as NAME; fails, saying so, if it does not build.
build() {
  local name="$1"
  local source="${2:-tests/distributed/$name.cpp}"
  # OMPI_SKIP_MPICXX: tine uses the C API; Open MPI's C++ bindings do not build with -Wextra.
  if ! "$mpicxx" -std=c++20 -O2 -Wall -Wextra -Werror -DOMPI_SKIP_MPICXX -I"$tmp/build/include" \
    -iquote "$src" \
    "$src/$source" "$src/tests/distributed/keep_modules_loaded.cpp" -rdynamic \
    "$tmp/build/libtine_distributed.a" "$tmp/build/libtine.a" -lhwloc -lcrypto -pthread \
    -o "$tmp/$name" >"$tmp/$name.log" 2>&1; then
    echo "FAIL $name does not build; the end of its log:"
    tail -n 30 "$tmp/$name.log" | sed 's/^/    /'
    failed=1
    return 1
  fi
}

# run NAME RANKS [VAR=VALUE...] [-- ARGS...]: runs NAME on RANKS ranks with the variables set
# (exported to every rank) and the arguments.
run() {
  local name="$1"
  local n="$2"
  shift 2
  local vars=() exports=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    vars+=("$1")
    exports+=(-x "${1%%=*}")
    shift
  done
  [ $# -gt 0 ] && shift
  local label="$name on $n rank(s)${vars[*]:+ with ${vars[*]}}"
  runs=$((runs + 1))
  local log="$tmp/run$runs.log"
  if env "${vars[@]}" timeout --kill-after=10 300 "$mpiexec" --oversubscribe --allow-run-as-root \
    "${exports[@]}" -n "$n" "$tmp/$name" "$@" >"$log" 2>&1; then
    echo "ok   $label: $(tail -n 1 "$log")"
  else
    echo "FAIL $label (exit $?); the end of its output:"
    tail -n 30 "$log" | sed 's/^/    /'
    failed=1
  fi
}

# program NAME RANKS...: builds tests/distributed/NAME.cpp and runs it on each number of ranks.
program() {
  local name="$1"
  shift
  build "$name" || return
  local n
  for n in "$@"; do
    run "$name" "$n"
  done
}

program region_test 1 2
# Started by MPICH's mpiexec, each process of an Open MPI program is a job of one rank: the
# environment must say so on stderr (the run itself succeeds, alone).
if mpich_exec="$(command -v mpiexec.mpich)"; then
  runs=$((runs + 1))
  log="$tmp/run$runs.log"
  label="region_test on 2 processes of MPICH's mpiexec"
  if timeout --kill-after=10 120 "$mpich_exec" -launcher fork -n 2 "$tmp/region_test" \
    >"$log" 2>&1 && [ "$(grep -c "tine: warning: tine::mpi::environment: the launcher started \
this program as one of 2 processes" "$log")" -eq 2 ]; then
    echo "ok   $label: each warned that MPI sees one process"
  else
    echo "FAIL $label: not two warnings that MPI sees one process; the end of its output:"
    tail -n 30 "$log" | sed 's/^/    /'
    failed=1
  fi
fi
program offer_slot_test 1 2
program mpi_pool_test 1 2
program mpi_pool_steal_test 2
program mpi_pool_exceptions_test 2
program mpi_pool_workers_test 1 2
program global_vector_test 1 2
program global_algorithms_test 1 2
program global_sort_test 2
# The cache between ranks laid out as two machines, with its default size and with two lines.
if build global_cache_test; then
  run global_cache_test 2 TINE_MPI_RANKS_PER_MACHINE=1
  run global_cache_test 2 TINE_MPI_RANKS_PER_MACHINE=1 TINE_MPI_CACHE_BYTES=8192
fi
if build global_stress_test; then
  run global_stress_test 2 -- 6
  run global_stress_test 2 TINE_MPI_RANKS_PER_MACHINE=1 TINE_MPI_CACHE_BYTES=8192 -- 6
fi
if build global_memory examples/global_memory.cpp; then
  run global_memory 2 -- 100000
fi
exit "$failed"
