#!/usr/bin/env bash
# Installs every Debian package tine's build, tests and benchmarks need.
# Idempotent and fast when all are present (only dpkg is asked). Needs root
# (or passwordless sudo) only when something is missing.
#
#   tools/install-deps.sh               # the Debian packages
#   tools/install-deps.sh --buildifier  # and buildifier (npm's @bazel/buildifier, which ships the
#                                       # binaries), for tools/check_buildifier.sh; prints its path
#   tools/install-deps.sh --chromium    # and Debian's chromium (about 120 MB), only for
#                                       # tools/check_trace_viewer.sh (a headless browser test)
#   tools/install-deps.sh --doxygen     # and doxygen, for tools/check_api_reference.sh
set -euo pipefail

# Pinned: a new buildifier brings new warnings, which should arrive by a change here.
BUILDIFIER_VERSION=8.2.1

with_buildifier=0
with_chromium=0
with_doxygen=0
for arg in "$@"; do
  case "$arg" in
    --buildifier) with_buildifier=1 ;;
    --chromium) with_chromium=1 ;;
    --doxygen) with_doxygen=1 ;;
    *)
      echo "install-deps: unknown option '$arg' (use --buildifier, --chromium or --doxygen)" >&2
      exit 2
      ;;
  esac
done

packages=(
  bazel-bootstrap   # Bazel 4.2.3, the only Bazel offline (pulls in a JDK)
  bazel-rules-cc    # /usr/share/bazel/rules/cc, patched by tools/repo_rules.bzl
  bazel-rules-java  # /usr/share/bazel/rules/java, needed at toolchain registration
  bazel-skylib
  g++               # GCC 12, libstdc++, libgomp and the sanitizer runtimes
  clang-16          # --config=clang (with GCC's libstdc++; OpenMP from libomp-dev below)
  python3           # tools/tally.py
  clang-format-16   # tools/check_format.sh (pinned: formatting differs between versions)
  clang-tidy-16     # tools/check_tidy.sh (pinned: each version brings new findings)
  codespell         # tools/check_spelling.sh
  cmake pkg-config  # tools/check_cmake_consumers.sh: tine built and used with CMake, pkg-config
  libhwloc-dev hwloc  # topology (library; lstopo to look at the machine)
  libboost-test-dev
  libgtest-dev       # GoogleTest (static libgtest.a, libgtest_main.a), the kit's gtest adapter
  librange-v3-dev
  libtbb-dev
  libbenchmark-dev
  libssl-dev        # libcrypto's SHA-1 for a benchmark
  libomp-dev        # LLVM's OpenMP runtime, for a benchmark peer
  libmpich-dev mpich  # MPI for distributed/ (MPICH: docs/distributed_internals.md says why)
  openmpi-bin libopenmpi-dev  # Open MPI: tools/check_openmpi.sh
)
if [ "$with_doxygen" = 1 ]; then
  packages+=(doxygen)  # the API reference (tools/check_api_reference.sh)
fi

if [ "$with_buildifier" = 1 ] && ! command -v npm >/dev/null; then
  packages+=(npm)  # Debian's npm (and Node.js), only to fetch buildifier
fi
if [ "$with_chromium" = 1 ]; then
  packages+=(chromium)  # headless, for the trace viewer's page test
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present" >&2
else
  echo "install-deps: missing: ${missing[*]}" >&2
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "install-deps: run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  echo "install-deps: apt-get update" >&2
  "${sudo[@]}" apt-get update -q >&2
  echo "install-deps: apt-get install -y --no-install-recommends ${missing[*]}" >&2
  "${sudo[@]}" apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}" >&2
fi

if [ "$with_buildifier" = 1 ]; then
  # In the user's cache, not the tree: installed once per machine, kept across clones.
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/tine-tools/buildifier-$BUILDIFIER_VERSION"
  bin="$dir/node_modules/.bin/buildifier"
  if ! "$bin" --version 2>/dev/null | grep -q "version: $BUILDIFIER_VERSION"; then
    echo "install-deps: npm install @bazel/buildifier@$BUILDIFIER_VERSION into $dir" >&2
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error \
      "@bazel/buildifier@$BUILDIFIER_VERSION" >&2
  fi
  "$bin" --version >/dev/null || { echo "install-deps: $bin does not run" >&2; exit 1; }
  echo "$bin"
fi
