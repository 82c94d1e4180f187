#!/usr/bin/env bash
# Tests the trace viewer (tools/trace_view.py) in a real browser: headless Chromium loads the page
# it writes, and what the page rendered is compared with numbers computed independently from the
# trace JSON (tools/trace_viewer/check_page.py).
#
#   tools/check_trace_viewer.sh               # a deterministic synthetic trace (make_fixture.py)
#   tools/check_trace_viewer.sh TRACE.json    # a given trace, e.g. one tine's trace observer wrote
#
# Steps: malformed traces must be rejected with the right message; the page is generated; Chromium
# dumps the DOM after the page's script ran (and tried its zoom/pan/hover controls with synthetic
# events) and takes a 1400x1000 screenshot; the DOM must report the trace's worker count, steal
# count, per-worker busy/stealing/asleep times, steal matrix and names, and working controls, and
# the screenshot must be a PNG showing the state and steal colours; finally the
# comparison itself must catch deliberately wrong pages. Exit status 1 on any failure.
#
# Chromium is Debian's package (tools/install-deps.sh --chromium; ~120 MB, about 30 s to install).
# Flags, found by trying them as root in a container:
#   --headless=new        the only headless mode Debian's Chromium still has (the old one is a
#                         separate binary upstream since version 132); said explicitly so a
#                         default change cannot surprise us
#   --no-sandbox          required as root (Chromium refuses to start its sandbox as root)
#   --disable-gpu         no GPU here; avoids probing for one (software canvas is fine)
#   --disable-dev-shm-usage  containers often have a tiny /dev/shm; use /tmp instead
#   --user-data-dir=TMP   a fresh profile, not ~/.config/chromium, so runs never share state
#   --virtual-time-budget=10000  wait until the page is loaded and idle (up to 10 s of virtual
#                         time) before dumping or capturing; the page renders synchronously on
#                         load, so this only guards against that changing
#   --run-all-compositor-stages-before-draw  the screenshot waits for the canvases to be painted
#   --hide-scrollbars     the screenshot shows the page, not a scrollbar
# Chromium's stderr (D-Bus complaints, a harmless "unexpected operator" from Debian's wrapper
# script) goes to a log that is printed only when something fails.
set -uo pipefail
# A trace given relative to the caller's directory, made absolute before leaving it.
[ $# -ge 1 ] && [ -e "$1" ] && set -- "$(readlink -f "$1")" "${@:2}"
cd "$(dirname "$0")/.."

python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3  # Debian's, whatever PATH says

fail() { echo "check_trace_viewer: FAILED: $*" >&2; exit 1; }

trace="${1:-}"
if [ $# -gt 1 ] || [ "$trace" = "-h" ] || [ "$trace" = "--help" ]; then
  echo "usage: tools/check_trace_viewer.sh [TRACE.json]" >&2
  exit 2
fi

start=$SECONDS
tools/install-deps.sh --chromium || fail "could not install chromium"
command -v chromium >/dev/null || fail "chromium is not on PATH after installing it"
echo "check_trace_viewer: $(chromium --version 2>/dev/null), ready after $((SECONDS - start)) s"

work="$(mktemp -d "${TMPDIR:-/tmp}/tine-trace-viewer.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# 1. Bad input is refused, with a message naming what is wrong.
"$python" tools/trace_viewer/check_page.py rejects tools/trace_view.py "$work" ||
  fail "trace_view.py does not reject malformed traces properly"

# 2. The page.
expected_args=()
if [ -z "$trace" ]; then
  trace="$work/fixture.json"
  "$python" tools/trace_viewer/make_fixture.py "$trace" --expected "$work/fixture-expected.json" ||
    fail "make_fixture.py failed"
  expected_args=(--expected "$work/fixture-expected.json")
fi
[ -r "$trace" ] || fail "cannot read $trace"
page="$work/trace.html"
"$python" tools/trace_view.py "$trace" -o "$page" || fail "trace_view.py failed on $trace"
if grep -Eqi '(src|href)=["'"'"']?(https?:)?//' "$page"; then
  fail "the page refers to an external resource"
fi

# 3. Chromium renders it.
chrome=(chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage
        --user-data-dir="$work/profile" --virtual-time-budget=10000 --window-size=1400,1000)
t0=$SECONDS
# #interact: the page also drives its own controls with synthetic events (see viewer.js).
timeout 120 "${chrome[@]}" --dump-dom "file://$page#interact" >"$work/dom.html" \
  2>"$work/chromium.log" ||
  { cat "$work/chromium.log" >&2; fail "chromium --dump-dom failed"; }
timeout 120 "${chrome[@]}" --run-all-compositor-stages-before-draw --hide-scrollbars \
  --screenshot="$work/shot.png" "file://$page" >>"$work/chromium.log" 2>&1 ||
  { cat "$work/chromium.log" >&2; fail "chromium --screenshot failed"; }
[ -s "$work/shot.png" ] || { cat "$work/chromium.log" >&2; fail "no screenshot written"; }
echo "check_trace_viewer: chromium dumped the DOM and took the screenshot in $((SECONDS - t0)) s"

# 4. What it rendered is right, and 5. the comparison can tell a wrong page.
"$python" tools/trace_viewer/check_page.py compare "$trace" "$work/dom.html" "$work/shot.png" \
  "${expected_args[@]}" || fail "the page does not show what the trace holds"
"$python" tools/trace_viewer/check_page.py selftest "$trace" "$work/dom.html" ||
  fail "the comparison misses wrong pages"

if [ -n "${TINE_TRACE_VIEWER_KEEP:-}" ]; then
  mkdir -p "$TINE_TRACE_VIEWER_KEEP" && cp "$page" "$work/shot.png" "$work/dom.html" \
    "$TINE_TRACE_VIEWER_KEEP/" && echo "check_trace_viewer: kept page, DOM and screenshot in" \
    "$TINE_TRACE_VIEWER_KEEP"
fi
echo "check_trace_viewer: passed in $((SECONDS - start)) s"
