#!/usr/bin/env bash
# Checks the automatic fallback of a machine without hwloc, on a machine that has it:
# TINE_PRETEND_MISSING=hwloc makes the @tine_hwloc repository rule behave as if hwloc were
# missing. The fetch must print the notice naming the Debian package, and the demo, built without
# --define=tine_hwloc=off, must report the flat topology. Uses the nohwloc output tree, which
# holds the same actions (tools/test.sh nohwloc builds them first), so it mostly re-analyses.
# The next ordinary Bazel command re-fetches @tine_hwloc (a second or two).
set -uo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp "${TMPDIR:-/tmp}/tine-hwloc-fallback.XXXXXX")"
trap 'rm -f "$log"' EXIT

# The notice is printed when the repository is fetched: a token that names nothing, new each run,
# changes the variable's value and so forces that fetch even if the last run pretended the same.
bazel run --curses=no --color=no --platform_suffix=nohwloc \
  --repo_env=TINE_PRETEND_MISSING="hwloc,run-$$-$RANDOM" //examples:demo -- --quick \
  </dev/null >"$log" 2>&1
rc=$?
cat "$log"
if [ $rc -ne 0 ]; then
  echo "check_hwloc_fallback: the demo failed (exit $rc) with hwloc pretended missing" >&2
  exit 1
fi
notice="tine: hwloc not found; install it with: apt-get install libhwloc-dev; building tine"
notice+=" without it"
if ! grep -qF "$notice" "$log"; then
  echo "check_hwloc_fallback: no notice '$notice' when hwloc is missing" >&2
  exit 1
fi
if ! grep -qF "source: flat: built without hwloc" "$log"; then
  echo "check_hwloc_fallback: the demo does not report the flat topology" >&2
  exit 1
fi
echo "check_hwloc_fallback: notice printed, flat topology built and reported"
