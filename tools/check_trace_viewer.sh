#!/usr/bin/env bash
# Tests the trace viewer (tools/trace_view.py) in a real browser: headless Chromium loads the page
# it writes, and what the page rendered is compared with numbers computed independently from the
# trace or analysis JSON (tools/trace_viewer/check_page.py).
#
#   tools/check_trace_viewer.sh               # a deterministic synthetic trace (make_fixture.py)
#   tools/check_trace_viewer.sh TRACE.json    # a given trace, e.g. one tine's trace observer wrote
#   tools/check_trace_viewer.sh [TRACE.json] --analysis ANALYSIS.json
#                                             # a given analysis (tine::analysis::write_json's)
#
# Steps: malformed traces and analyses must be rejected with the right message; the trace's page
# is generated; Chromium dumps the DOM after the page's script ran (and tried its zoom/pan/hover
# controls with synthetic events) and takes a 1400x1000 screenshot; the DOM must report the trace's
# worker count, steal count, per-worker busy/stealing/asleep times, steal matrix and names, and
# working controls, and no scalability section, and the screenshot must be a PNG showing the state
# and steal colours. Then the analysis pages: an analysis alone (tools/trace_viewer/
# analysis_fixture.json, one tine wrote, or the one given), DOM and screenshot; make_fixture.py's
# synthetic analysis (strands, nulls, problems) alone; and the trace with that analysis beside it:
# the scalability section must show the analysis's curves (every point, on log2 axes, under the
# right axis labels), measures, speed-ups, regions and problems, the chart painted in the
# screenshot. Finally the comparisons themselves must catch deliberately wrong pages. Exit status 1
# on any failure.
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
usage() {
  echo "usage: tools/check_trace_viewer.sh [TRACE.json] [--analysis ANALYSIS.json]" >&2
  exit 2
}
# Files given relative to the caller's directory, made absolute before leaving it.
absolute() { if [ -e "$1" ]; then readlink -f "$1"; else printf '%s\n' "$1"; fi; }
trace="" analysis=""
while [ $# -gt 0 ]; do
  case "$1" in
    --analysis)
      [ $# -ge 2 ] || usage
      analysis="$(absolute "$2")"
      shift 2
      ;;
    -*) usage ;;
    *)
      [ -z "$trace" ] || usage
      trace="$(absolute "$1")"
      shift
      ;;
  esac
done
cd "$(dirname "$0")/.."

python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3  # Debian's, whatever PATH says

fail() { echo "check_trace_viewer: FAILED: $*" >&2; exit 1; }
[ -z "$analysis" ] || [ -r "$analysis" ] || fail "cannot read $analysis"

start=$SECONDS
tools/install-deps.sh --chromium || fail "could not install chromium"
command -v chromium >/dev/null || fail "chromium is not on PATH after installing it"
echo "check_trace_viewer: $(chromium --version 2>/dev/null), ready after $((SECONDS - start)) s"

work="$(mktemp -d "${TMPDIR:-/tmp}/tine-trace-viewer.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# 1. Bad input is refused, with a message naming what is wrong.
"$python" tools/trace_viewer/check_page.py rejects tools/trace_view.py "$work" ||
  fail "trace_view.py does not reject malformed traces and analyses properly"

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

# 6. Analyses: alone (DOM and screenshot), the synthetic one alone (DOM), and the synthetic one
# beside the trace (DOM, with the controls tried again: the trace's part must still work).
[ -n "$analysis" ] || analysis="$PWD/tools/trace_viewer/analysis_fixture.json"
synthetic="$work/analysis-synthetic.json"
"$python" tools/trace_viewer/make_fixture.py --analysis "$synthetic" ||
  fail "make_fixture.py --analysis failed"
"$python" tools/trace_view.py "$analysis" -o "$work/analysis.html" ||
  fail "trace_view.py failed on $analysis"
"$python" tools/trace_view.py -q "$synthetic" -o "$work/analysis-synthetic.html" ||
  fail "trace_view.py failed on the synthetic analysis"
"$python" tools/trace_view.py -q "$trace" --analysis "$synthetic" -o "$work/both.html" ||
  fail "trace_view.py failed on $trace with --analysis"
for p in analysis analysis-synthetic both; do
  if grep -Eqi '(src|href)=["'"'"']?(https?:)?//' "$work/$p.html"; then
    fail "the page $p.html refers to an external resource"
  fi
done
render_analyses() {
  timeout 120 "${chrome[@]}" --dump-dom "file://$work/analysis.html" \
    >"$work/analysis-dom.html" 2>>"$work/chromium.log" &&
    timeout 120 "${chrome[@]}" --run-all-compositor-stages-before-draw --hide-scrollbars \
      --screenshot="$work/analysis-shot.png" "file://$work/analysis.html" \
      >>"$work/chromium.log" 2>&1 &&
    timeout 120 "${chrome[@]}" --dump-dom "file://$work/analysis-synthetic.html" \
      >"$work/analysis-synthetic-dom.html" 2>>"$work/chromium.log" &&
    timeout 120 "${chrome[@]}" --dump-dom "file://$work/both.html#interact" \
      >"$work/both-dom.html" 2>>"$work/chromium.log"
}
t0=$SECONDS
render_analyses || { cat "$work/chromium.log" >&2; fail "chromium failed on an analysis page"; }
echo "check_trace_viewer: chromium dumped 3 analysis pages and took a screenshot in" \
  "$((SECONDS - t0)) s"
"$python" tools/trace_viewer/check_page.py analysis "$analysis" "$work/analysis-dom.html" \
  "$work/analysis-shot.png" || fail "the page does not show what the analysis holds"
"$python" tools/trace_viewer/check_page.py analysis "$synthetic" \
  "$work/analysis-synthetic-dom.html" || fail "the page does not show the synthetic analysis"
"$python" tools/trace_viewer/check_page.py compare "$trace" "$work/both-dom.html" \
  "${expected_args[@]}" --analysis "$synthetic" ||
  fail "the page of the trace and the analysis does not show what they hold"
"$python" tools/trace_viewer/check_page.py selftest-analysis "$analysis" \
  "$work/analysis-dom.html" || fail "the comparison misses wrong scalability sections"
"$python" tools/trace_viewer/check_page.py selftest-analysis "$synthetic" "$work/both-dom.html" ||
  fail "the comparison misses wrong scalability sections"

if [ -n "${TINE_TRACE_VIEWER_KEEP:-}" ]; then
  mkdir -p "$TINE_TRACE_VIEWER_KEEP" && cp "$page" "$work/shot.png" "$work/dom.html" \
    "$work/analysis.html" "$work/analysis-shot.png" "$work/analysis-dom.html" "$work/both.html" \
    "$TINE_TRACE_VIEWER_KEEP/" && echo "check_trace_viewer: kept pages, DOMs and screenshots in" \
    "$TINE_TRACE_VIEWER_KEEP"
fi
echo "check_trace_viewer: passed in $((SECONDS - start)) s"
