#!/usr/bin/env bash
# Checks that tine is usable from CMake and pkg-config the ways docs/build.md describes, in a
# fresh temporary directory (the source tree is not written to):
#
#   1. configure, build (Release, -j2, -Wall -Wextra -Werror) and install tine to a temp prefix;
#   2. the installed version file accepts find_package(tine 0.1) and rejects 0.2 and 1.0;
#   3. examples/cmake_consumer with find_package(tine 0.1) against that prefix, and with
#      find_package(tine 0.1 COMPONENTS distributed) and its MPI program on two ranks (one job:
#      rank 1 of 2 reports, and no warning that the launcher and MPI disagree); the MPI tine was
#      built with is recorded in tine.pc and given to that consumer by default; configured with
#      the other of MPICH and Open MPI (when installed) the consumer is refused with a message
#      naming tine's MPI and how to choose it, and its program started by the other MPI's
#      mpiexec warns;
#   4. the same project with add_subdirectory(tine sources), its MPI program included;
#   5. the same project with FetchContent from the release archive (tools/release.sh
#      --allow-dirty; file:// URL and sha256), or from the source directory outside a git tree;
#   6. examples/cmake_consumer/main.cpp built with `pkg-config --cflags --libs tine` (g++, and
#      clang++-16 when installed);
#   7. if the tree has policies/topology_flat.cpp: tine built with TINE_WITH_HWLOC=OFF (and
#      TINE_WITH_MPI=OFF, which must install no distributed layer, and against which
#      find_package(tine COMPONENTS distributed) must fail saying so; and without stdexec, against
#      which COMPONENTS execution must fail saying so), whose tine.pc must not require hwloc, and
#      main.cpp built against it.
#   With TINE_STDEXEC_DIR set (tools/test.sh sets it under CI), steps 3 and 4 also build and run
#   examples/cmake_consumer's execution_app against tine::execution
#   (find_package(tine COMPONENTS execution), and the target in the add_subdirectory build).
#
# Each consumer runs its programs, which exit non-zero on a wrong result. One line per step
# ("ok" or "FAIL", with the log's tail on failure); exits non-zero if any step failed.
# shellcheck disable=SC2317  # the steps are functions called through step()
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
src="$PWD"

tools/install-deps.sh >/dev/null || { echo "FAIL install-deps.sh"; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tine-cmake.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

flags="-Wall -Wextra -Werror"
failed=0

# step NAME LOGFILE COMMAND...: runs the command with its output in the log and prints one line:
# "ok NAME: <last line of output>" or "FAIL NAME" with the log's tail.
step() {
  local name="$1" log="$2"
  shift 2
  if "$@" >"$log" 2>&1; then
    echo "ok   $name: $(tail -n 1 "$log")"
  else
    echo "FAIL $name (exit $?); the end of its log:"
    tail -n 30 "$log" | sed 's/^/    /'
    failed=1
  fi
}

# install_tine BUILD_DIR PREFIX [CMAKE ARGS...]
install_tine() {
  local build="$1" prefix="$2"
  shift 2
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$flags" "$@" &&
    cmake --build "$build" -j2 &&
    cmake --install "$build" --prefix "$prefix" &&
    echo "installed $(cd "$prefix" && find . -type f | wc -l) files to the prefix"
}

# installed_tools PREFIX: the installed demo writes a trace and the installed viewer, run from
# outside the source tree, turns it into a page, as docs/observability.md tells a CMake user.
installed_tools() {
  local prefix="$tmp/$1"
  (cd "$tmp" &&
    "$prefix/bin/tine-trace-demo" "$tmp/demo-trace.json" 22 2 >/dev/null &&
    python3 "$prefix/share/tine/trace_view.py" "$tmp/demo-trace.json" -o "$tmp/demo-trace.html" &&
    echo "trace of fib(22) on 2 workers viewed: $(wc -c <"$tmp/demo-trace.html") bytes of HTML")
}

# launch MPIEXEC N PROGRAM: the program on N ranks of this machine (Hydra's fork launcher; Open
# MPI's oversubscribed and allowed to run as root, as CI does).
launch() {
  local mpiexec="$1" n="$2"
  shift 2
  if "$mpiexec" --version 2>&1 | grep -q -E "Open MPI|OpenRTE"; then
    timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -n "$n" "$@"
  else
    timeout 120 "$mpiexec" -launcher fork -n "$n" "$@"
  fi
}

# The start of tine's warning that the launcher's job and MPI's disagree (distributed/environment).
mismatch_warning="tine: warning: tine::mpi::environment: the launcher started this program"

# mpi_run BUILD_DIR N PROGRAM: the program on N ranks, with the mpiexec that FindMPI found for
# the build; fails unless the ranks form one job (rank N-1 of N reports; no launcher warning:
# with another MPI's mpiexec each process is a job of one, and each would pass alone).
mpi_run() {
  local build="$1" n="$2" mpiexec out
  shift 2
  mpiexec="$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")"
  [ -n "$mpiexec" ] || mpiexec=mpiexec
  out="$(launch "$mpiexec" "$n" "$@" 2>&1)" || { echo "$out"; return 1; }
  echo "$out"
  if grep -qF "$mismatch_warning" <<<"$out" || ! grep -q "rank $((n - 1)) of $n" <<<"$out"; then
    echo "$mpiexec did not start one job of $n ranks"
    return 1
  fi
}

# consumer BUILD_DIR [CMAKE ARGS...]: configures, builds and runs examples/cmake_consumer (and its
# distributed_app on two ranks, when configured with -DTINE_CONSUMER_DISTRIBUTED=ON).
consumer() {
  local build="$1"
  shift
  cmake -S "$src/examples/cmake_consumer" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" &&
    cmake --build "$build" -j2 &&
    "$build/testing_app" &&
    "$build/app" &&
    if [ -x "$build/distributed_app" ]; then mpi_run "$build" 2 "$build/distributed_app"; fi &&
    if [ -x "$build/execution_app" ]; then "$build/execution_app"; fi
}

# The package version file alone (SameMinorVersion while tine is 0.x).
version_rule() {
  local file="$1/lib/cmake/tine/tineConfigVersion.cmake" want
  for want in 0.1:TRUE 0.1.0:TRUE 0.0:FALSE 0.2:FALSE 1.0:FALSE; do
    cat >version.cmake <<EOF
set(PACKAGE_FIND_VERSION ${want%%:*})
string(REPLACE "." ";" _parts "\${PACKAGE_FIND_VERSION}")
list(GET _parts 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET _parts 1 PACKAGE_FIND_VERSION_MINOR)
include("$file")
if(NOT PACKAGE_VERSION_COMPATIBLE STREQUAL "${want#*:}")
  message(FATAL_ERROR "find_package(tine \${PACKAGE_FIND_VERSION}) against \${PACKAGE_VERSION}: "
                      "compatible is '\${PACKAGE_VERSION_COMPATIBLE}', expected '${want#*:}'")
endif()
EOF
    cmake -P version.cmake || return 1
  done
  echo "tine $(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$file"): find_package 0.1 and" \
    "0.1.0 accepted; 0.0, 0.2 and 1.0 rejected"
}

# other_mpi PREFIX: the installed tine records its MPI (tine.pc's mpi, mpi_cxx_compiler and
# mpiexec variables); then, against the other of MPICH and Open MPI (when installed), the
# consumer of tine::distributed must fail to configure, saying which MPI tine was built with and
# how to choose it, and the consumer built with tine's MPI (find_package_distributed), started by
# the other MPI's mpiexec, must warn that the launcher and MPI disagree.
other_mpi() {
  local prefix="$1" mpi wrapper mpiexec other_wrapper other_mpiexec out
  mpi="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=mpi tine)"
  wrapper="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=mpi_cxx_compiler tine)"
  mpiexec="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=mpiexec tine)"
  case "$mpi" in
    MPICH*) other_wrapper=mpicxx.openmpi other_mpiexec=mpiexec.openmpi ;;
    "Open MPI"*) other_wrapper=mpicxx.mpich other_mpiexec=mpiexec.mpich ;;
    *) echo "tine.pc names no MPI of MPICH and Open MPI (mpi=$mpi)"; return 1 ;;
  esac
  if ! grep -q "^MPI_CXX_COMPILER:FILEPATH=$wrapper\$" "$tmp/find_package_distributed/CMakeCache.txt"
  then
    echo "the consumer of tine::distributed did not get tine's MPI ($wrapper) by default"
    return 1
  fi
  if ! other_wrapper="$(command -v "$other_wrapper")" ||
    ! other_mpiexec="$(command -v "$other_mpiexec")"; then
    echo "tine was built with $mpi; the other MPI is not installed: nothing to refuse"
    return 0
  fi
  if cmake -S "$src/examples/cmake_consumer" -B "$tmp/other-mpi" -DCMAKE_PREFIX_PATH="$prefix" \
    -DTINE_CONSUMER_DISTRIBUTED=ON -DMPI_CXX_COMPILER="$other_wrapper" >other-mpi-configure.log 2>&1 ||
    ! tr -s ' \n' ' ' <other-mpi-configure.log | grep -qF "tine was built with $mpi" ||
    ! tr -s ' \n' ' ' <other-mpi-configure.log | grep -qF -- "-DMPI_CXX_COMPILER=$wrapper"; then
    echo "a consumer whose FindMPI finds $other_wrapper was not refused, naming $mpi and $wrapper:"
    cat other-mpi-configure.log
    return 1
  fi
  out="$(launch "$other_mpiexec" 2 "$tmp/find_package_distributed/distributed_app" 2>&1)" || {
    echo "$out"
    return 1
  }
  if ! grep -qF "$mismatch_warning" <<<"$out"; then
    echo "distributed_app ($mpi) started by $other_mpiexec did not warn:"
    echo "$out"
    return 1
  fi
  echo "tine built with $mpi ($wrapper, $mpiexec): a consumer with $other_wrapper refused;" \
    "its program under $other_mpiexec warned"
}

# pkg_consumer PREFIX COMPILER: builds main.cpp with pkg-config's flags only, and runs it.
pkg_consumer() {
  local prefix="$1" cxx="$2" out
  out="$tmp/pc-$(basename "$cxx")-$(basename "$prefix")"
  local -a pc
  read -r -a pc <<<"$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tine)" ||
    return 1
  echo "$cxx -std=c++20 -O2 $flags main.cpp ${pc[*]}"
  # shellcheck disable=SC2086  # flags is a list
  "$cxx" -std=c++20 -O2 $flags "$src/examples/cmake_consumer/main.cpp" "${pc[@]}" -o "$out" &&
    "$out"
}

# The release archive of the work tree (tools/release.sh --allow-dirty: the same files as a release,
# uncommitted changes included), for FetchContent's URL with its sha256.
source_archive() {
  "$src/tools/release.sh" --allow-dirty "$tmp/dist" >release.out || return 1
  archive="$(tail -n 2 release.out | head -n 1)"
  sha256="$(tail -n 1 release.out)"
  echo "$(basename "$archive"), $(tar -tzf "$archive" | wc -l) entries, sha256 $sha256"
}

echo "cmake: $(cmake --version | head -n 1), pkg-config $(pkg-config --version)," \
  "$(g++ --version | head -n 1)"

step "install (tine built and installed)" install.log install_tine build prefix
if [ "$failed" -eq 0 ]; then
  step "version rule (tineConfigVersion.cmake)" version.log version_rule prefix
  step "installed trace demo and viewer (bin/tine-trace-demo, share/tine/trace_view.py)" \
    tools.log installed_tools prefix
  step "find_package consumer" find_package.log consumer find_package \
    -DCMAKE_PREFIX_PATH="$tmp/prefix"
  step "find_package consumer of tine::distributed (COMPONENTS distributed)" \
    find_package_distributed.log consumer find_package_distributed \
    -DCMAKE_PREFIX_PATH="$tmp/prefix" -DTINE_CONSUMER_DISTRIBUTED=ON
  step "tine's MPI recorded; a consumer with the other MPI refused, its mpiexec warned of" \
    other-mpi.log other_mpi "$tmp/prefix"
  if [ -n "${TINE_STDEXEC_DIR:-}" ]; then
    step "find_package consumer of tine::execution (COMPONENTS execution, stdexec)" \
      find_package_execution.log consumer find_package_execution \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" -DTINE_CONSUMER_EXECUTION=ON
  else
    echo "note: TINE_STDEXEC_DIR is not set: tine::execution not built, its consumer not run"
  fi
  for cxx in g++ clang++-16; do
    if command -v "$cxx" >/dev/null; then
      step "pkg-config consumer ($cxx)" "pkg-config-$cxx.log" pkg_consumer "$tmp/prefix" "$cxx"
    fi
  done
fi
execution_consumer=OFF
[ -z "${TINE_STDEXEC_DIR:-}" ] || execution_consumer=ON
step "add_subdirectory consumer (tine::distributed too, and tine::execution with stdexec)" \
  subdirectory.log consumer subdirectory \
  -DTINE_FROM=subdirectory -DTINE_SOURCE="$src" -DCMAKE_CXX_FLAGS="$flags" \
  -DTINE_CONSUMER_DISTRIBUTED=ON -DTINE_CONSUMER_EXECUTION="$execution_consumer"
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$src" && pwd -P)" ]; then
  archive="" sha256=""
  step "release archive" archive.log source_archive  # sets archive and sha256
  step "FetchContent consumer (URL and SHA256 of the release archive)" fetch.log consumer fetch \
    -DTINE_FROM=fetch -DTINE_SOURCE="file://$archive" -DTINE_SHA256="$sha256" \
    -DCMAKE_CXX_FLAGS="$flags"
else
  step "FetchContent consumer (SOURCE_DIR)" fetch.log consumer fetch \
    -DTINE_FROM=fetch -DTINE_SOURCE="$src" -DCMAKE_CXX_FLAGS="$flags"
fi

# Without hwloc: only when the tree can build it (policies/topology_flat.cpp).
if [ -f "$src/policies/topology_flat.cpp" ]; then
  no_hwloc() {
    install_tine build-flat prefix-flat -DTINE_WITH_HWLOC=OFF -DTINE_WITH_MPI=OFF \
      -DTINE_INSTALL_TOOLS=OFF -DTINE_STDEXEC_DIR= || return 1
    if [ -e "$tmp/prefix-flat/bin/tine-trace-demo" ] || [ -e "$tmp/prefix-flat/share/tine" ]; then
      echo "tine configured with TINE_INSTALL_TOOLS=OFF installed the trace demo or viewer"
      return 1
    fi
    if [ -d "$tmp/prefix-flat/include/tine/distributed" ] ||
      grep -q "tine::distributed" "$tmp/prefix-flat/lib/cmake/tine/tineTargets.cmake"; then
      echo "tine configured with TINE_WITH_MPI=OFF installed its distributed layer"
      return 1
    fi
    # Asked of it, the distributed component is not found, and configuring says why.
    if cmake -S "$src/examples/cmake_consumer" -B "$tmp/no-mpi-consumer" \
      -DCMAKE_PREFIX_PATH="$tmp/prefix-flat" -DTINE_CONSUMER_DISTRIBUTED=ON >no-mpi.log 2>&1 ||
      ! grep -q "tine was built without MPI" no-mpi.log; then
      echo "find_package(tine COMPONENTS distributed) of a tine built without MPI did not fail" \
        "saying so:"
      cat no-mpi.log
      return 1
    fi
    # Nor is the execution component of a tine built without stdexec.
    if cmake -S "$src/examples/cmake_consumer" -B "$tmp/no-stdexec-consumer" \
      -DCMAKE_PREFIX_PATH="$tmp/prefix-flat" -DTINE_CONSUMER_EXECUTION=ON >no-stdexec.log 2>&1 ||
      ! grep -q "tine was built without stdexec" no-stdexec.log; then
      echo "find_package(tine COMPONENTS execution) of a tine built without stdexec did not" \
        "fail saying so:"
      cat no-stdexec.log
      return 1
    fi
    if PKG_CONFIG_PATH="$tmp/prefix-flat/lib/pkgconfig" pkg-config --print-requires tine |
      grep -q hwloc; then
      echo "tine.pc of a build without hwloc requires hwloc"
      return 1
    fi
    if nm -u "$tmp/prefix-flat/lib/libtine.a" | grep -q hwloc_; then
      echo "libtine.a built with TINE_WITH_HWLOC=OFF calls hwloc"
      return 1
    fi
    pkg_consumer "$tmp/prefix-flat" g++
  }
  step "pkg-config consumer of tine built with TINE_WITH_HWLOC=OFF" flat.log no_hwloc
else
  echo "note: no policies/topology_flat.cpp in this tree; TINE_WITH_HWLOC=OFF not built"
fi

exit "$failed"
