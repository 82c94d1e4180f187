#!/usr/bin/env bash
# Runs Debian's clang-tidy-16 with the root's .clang-tidy over tine's compiled sources and the
# examples that instantiate the header-only layers; every finding is an error.
#
#   tools/check_tidy.sh    # exit status 0 if clang-tidy finds nothing; prints each finding
#
# One configuration: clang-16, -std=c++20, assertions on (no -DNDEBUG, as the default Bazel
# config builds), hwloc's and MPICH's headers. execution/parallel_scheduler_backend.cpp is
# checked only when TINE_STDEXEC_DIR names a stdexec checkout. Two files at a time.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)

tools/install-deps.sh || exit 1
tidy=clang-tidy-16

# Sources include <tine/...>: a temporary directory holds a 'tine' symlink to the tree.
inc=$(mktemp -d)
trap 'rm -rf "$inc"' EXIT
ln -s "$root" "$inc/tine"

mpi_flags=$(mpicc.mpich -show | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
flags=(-std=c++20 -I"$inc" $mpi_flags)

files=(policies/*.cpp schedulers/*.cpp analysis/*.cpp distributed/*.cpp distributed/*/*.cpp
  examples/demo.cpp examples/trace_demo.cpp examples/analyze_demo.cpp
  examples/distributed_fib.cpp examples/global_memory.cpp)
if [ -n "${TINE_STDEXEC_DIR:-}" ]; then
  files+=(execution/parallel_scheduler_backend.cpp)
  flags+=(-I"$TINE_STDEXEC_DIR/include")
fi

# Findings in the library's headers count, wherever they are reached from (through the symlink);
# the standard library's and MPI's do not.
filter="^$inc/tine/(core|application|reducers|policies|schedulers|algorithms|analysis|distributed|execution|testing)/"

# Each file's output to its own log, so that the two at a time do not interleave their lines.
logs="$inc/logs"
mkdir "$logs"
export tidy filter logs
printf '%s\n' "${files[@]}" |
  xargs -P2 -I{} bash -c \
    'f="$1"; shift; "$tidy" --quiet --header-filter="$filter" --warnings-as-errors="*" "$f" \
       -- "$@" >"$logs/${f//\//_}.log" 2>&1 || echo "$f" >>"$logs/failed"' _ {} "${flags[@]}"
out=$(cat "$logs"/*.log)
rc=0
[ -e "$logs/failed" ] && rc=1
# A finding reached from several files is printed once.
findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning): ' <<<"$out" |
  sed -e "s|^$inc/tine/||" -e "s|^$root/||" -e 's/,-warnings-as-errors\]$/]/' | sort -u)
n=$(grep -c . <<<"$findings")
if [ "$n" -gt 0 ]; then
  echo "$findings"
fi
if [ $rc -ne 0 ] && [ "$n" -eq 0 ]; then
  echo "$out"  # clang-tidy failed without a finding (a compile error, a bad option)
  n=1
fi
echo "check_tidy.sh: ${#files[@]} files, $n findings"
[ "$n" -eq 0 ] && [ $rc -eq 0 ]
