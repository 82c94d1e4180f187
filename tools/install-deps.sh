#!/usr/bin/env bash
# Installs every Debian package tine's build, tests and benchmarks need.
# Idempotent and fast when all are present (only dpkg is asked). Needs root
# (or passwordless sudo) only when something is missing.
set -euo pipefail

packages=(
  bazel-bootstrap   # Bazel 4.2.3, the only Bazel offline (pulls in a JDK)
  bazel-rules-cc    # /usr/share/bazel/rules/cc, patched by tools/repo_rules.bzl
  bazel-rules-java  # /usr/share/bazel/rules/java, needed at toolchain registration
  bazel-skylib
  g++               # GCC 12, libstdc++, libgomp and the sanitizer runtimes
  clang-16          # --config=clang (with GCC's libstdc++; OpenMP from libomp-dev below)
  python3           # tools/tally.py
  libhwloc-dev hwloc  # topology (library; lstopo to look at the machine)
  libboost-test-dev
  librange-v3-dev
  libtbb-dev
  libbenchmark-dev
  libssl-dev        # libcrypto's SHA-1 for a benchmark
  libomp-dev        # LLVM's OpenMP runtime, for a benchmark peer
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install-deps: run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: apt-get update"
"${sudo[@]}" apt-get update -q
echo "install-deps: apt-get install -y --no-install-recommends ${missing[*]}"
"${sudo[@]}" apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
