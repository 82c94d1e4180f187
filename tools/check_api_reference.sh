#!/usr/bin/env bash
# Builds the API reference (docs/Doxyfile) into a temporary folder and fails on any doxygen
# warning: a doc comment doxygen cannot read (an unknown command, a \param naming no parameter,
# an unterminated code block, a reference it cannot resolve) is a defect of the reference.
# Installs doxygen through tools/install-deps.sh when it is missing.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! command -v doxygen >/dev/null; then
  tools/install-deps.sh --doxygen || exit 1
fi
out="$(mktemp -d "${TMPDIR:-/tmp}/tine-api-reference.XXXXXX")"
trap 'rm -rf "$out"' EXIT
log="$out/warnings.log"
start=$SECONDS
{
  cat docs/Doxyfile
  echo "OUTPUT_DIRECTORY = $out"
  echo "WARN_LOGFILE = $log"
  echo "WARN_AS_ERROR = FAIL_ON_WARNINGS"
} | doxygen - >"$out/doxygen.out" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ -s "$log" ] || [ ! -f "$out/html/index.html" ]; then
  echo "check_api_reference: FAILED (doxygen exited $rc after $((SECONDS - start)) s):"
  cat "$out/doxygen.out" "$log" 2>/dev/null | sed "s|$root/||g"
  exit 1
fi
files=$(find "$out/html" -type f | wc -l)
echo "check_api_reference: ok, no warnings ($files files in $((SECONDS - start)) s)"
