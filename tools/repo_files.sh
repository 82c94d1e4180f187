#!/usr/bin/env bash
# Prints the files of the repository that the style checks look at, one per line, relative to its
# root: in a git work tree the tracked files and new ones not ignored (so that a file is checked
# before it is committed), in an unpacked release archive every file but Bazel's convenience
# symlinks; only files that exist (a deletion not yet committed is left out).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
  git ls-files --cached --others --exclude-standard
else
  find . -path ./.git -prune -o -path '*/bazel-*' -prune -o -type f -print | sed 's|^\./||'
fi | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done
