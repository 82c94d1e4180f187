#!/usr/bin/env bash
# Runs the trace demo ($1) on a small input and checks that it wrote a trace.
set -eu
out="${TEST_TMPDIR:-$(mktemp -d)}/trace.json"
"$1" "$out" 18 2
head -c 15 "$out" | grep -qF '{"traceEvents":' || { echo "no trace in $out"; exit 1; }
grep -qF '"producer":"tine"' "$out" || { echo "no otherData in $out"; exit 1; }
echo "trace_demo wrote $(wc -c <"$out") bytes"
