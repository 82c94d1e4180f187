#!/usr/bin/env bash
# Build-failure tests: each snippet of the folder given as $1 (relative to the workspace root)
# starts with a block of comment lines that says what the compiler must do:
#   // EXPECT: TEXT          the compiler must reject the snippet and print TEXT (one line each;
#                            every one must appear), or COMPILES for a control snippet that proves
#                            the failures are real
#   // FLAGS: -Werror=...    extra flags, after -std=c++20 (so -std=c++17 replaces it)
#   // AT_MOST_LINES: N      the compiler's whole output is at most N lines
# Runs the system C++ compiler on tine's headers from the runfiles. By hand, from the workspace
# root: CXX=clang++-16 tools/check_compile_failures.sh tests/core/compile_fail (extra compiler
# flags for every snippet go in CXXFLAGS).
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
  name=$(basename "$src")
  header=$(awk '!/^\/\//{exit} {print}' "$src")
  expects=()
  while IFS= read -r line; do expects+=("$line"); done < <(sed -n 's|^// EXPECT: ||p' <<<"$header")
  flags=$(sed -n 's|^// FLAGS: ||p' <<<"$header")
  max_lines=$(sed -n 's|^// AT_MOST_LINES: ||p' <<<"$header")
  if [ ${#expects[@]} -eq 0 ]; then
    echo "FAIL $name: no // EXPECT: line at the top"; status=1; continue
  fi
  # shellcheck disable=SC2086  # CXXFLAGS and flags are lists of flags
  out=$("$cxx" -std=c++20 ${CXXFLAGS:-} $flags -fsyntax-only -I"$inc" "$src" 2>&1)
  rc=$?
  lines=$(printf '%s' "$out" | grep -c '')
  if [ "${expects[0]}" = "COMPILES" ]; then
    if [ $rc -ne 0 ]; then
      echo "FAIL $name: the control must compile:"; echo "$out" | head -n 20; status=1
    else
      echo "ok   $name compiles"
    fi
    continue
  fi
  if [ $rc -eq 0 ]; then
    echo "FAIL $name: compiled, but must be rejected with: ${expects[0]}"; status=1; continue
  fi
  for expect in "${expects[@]}"; do
    if ! grep -qF -- "$expect" <<<"$out"; then
      echo "FAIL $name: rejected, but without the message: $expect"; echo "$out" | head -n 20
      status=1
    else
      echo "ok   $name rejected with: $expect"
    fi
  done
  if [ -n "$max_lines" ]; then
    if [ "$lines" -gt "$max_lines" ]; then
      echo "FAIL $name: $lines lines of compiler output, more than $max_lines:"; echo "$out"
      status=1
    else
      echo "ok   $name: $lines lines of compiler output (at most $max_lines)"
    fi
  fi
done
exit $status
