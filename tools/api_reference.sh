#!/usr/bin/env bash
# Builds tine's API reference (HTML) from the doc comments of the public headers with doxygen
# (Debian package `doxygen`), using docs/Doxyfile.
#
#   tools/api_reference.sh            # into api-reference/html/ at the repository root
#   tools/api_reference.sh OUTDIR     # into OUTDIR/html/
#
# Open OUTDIR/html/index.html. Warnings are printed; tools/check_api_reference.sh makes them fatal.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/api-reference}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if ! command -v doxygen >/dev/null; then
  echo "api_reference: doxygen is missing; install it with: apt-get install doxygen" >&2
  exit 1
fi
cd "$root"
# Settings given after the file override it: here, only where the output goes.
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; } | doxygen -
echo "api_reference: $out/html/index.html"
