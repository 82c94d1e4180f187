#!/usr/bin/env bash
# Build-failure tests: each snippet of the folder given as $1 (relative to the workspace root)
# names, on its first line, the message the compiler must print (or COMPILES for the control
# snippet that proves the failures are real). Runs the system C++ compiler on tine's headers from
# the runfiles. By hand, from the workspace root: CXX=clang++-16 tools/check_compile_failures.sh
# tests/core/compile_fail (extra compiler flags go in CXXFLAGS; clang++-16 needs
# -fsized-deallocation for core/deque.hpp).
set -u
if [ -n "${TEST_SRCDIR:-}" ]; then
  root="$TEST_SRCDIR/${TEST_WORKSPACE:-tine}"
else
  root="$PWD"
fi
inc=$(mktemp -d)
trap 'rm -rf "$inc"' EXIT
ln -s "$root" "$inc/tine"
cxx="${CXX:-g++}"
echo "compiler: $cxx ($("$cxx" --version 2>&1 | head -n 1))"
status=0
dir="${1:?usage: check_compile_failures.sh FOLDER_WITH_SNIPPETS}"
for src in "$root/$dir"/*.cpp; do
  expect=$(head -n 1 "$src" | sed -e 's|^// EXPECT: ||')
  # shellcheck disable=SC2086  # CXXFLAGS is a list of flags
  out=$("$cxx" -std=c++20 ${CXXFLAGS:-} -fsyntax-only -I"$inc" "$src" 2>&1)
  rc=$?
  name=$(basename "$src")
  if [ "$expect" = "COMPILES" ]; then
    if [ $rc -ne 0 ]; then
      echo "FAIL $name: the control must compile:"; echo "$out" | head -n 20; status=1
    else
      echo "ok   $name compiles"
    fi
  elif [ $rc -eq 0 ]; then
    echo "FAIL $name: compiled, but must be rejected with: $expect"; status=1
  elif ! grep -qF -- "$expect" <<<"$out"; then
    echo "FAIL $name: rejected, but without the message: $expect"; echo "$out" | head -n 20; status=1
  else
    echo "ok   $name rejected with: $expect"
  fi
done
exit $status
