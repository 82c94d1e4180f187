#!/usr/bin/env bash
# Runs the analysis demo ($1) on a small input and checks what it wrote.
set -eu
dir="${TEST_TMPDIR:-$(mktemp -d)}"
"$1" "$dir/analysis.json" "$dir/analysis.html" 18 >"$dir/out.txt"
cat "$dir/out.txt"
grep -qF '"tine_analysis": 1' "$dir/analysis.json" || { echo "no analysis in $dir/analysis.json"; exit 1; }
grep -qF '<svg' "$dir/analysis.html" || { echo "no curves in $dir/analysis.html"; exit 1; }
grep -qF 'serial prefix sums: 1 run' "$dir/out.txt" || { echo "no region in the report"; exit 1; }
echo "analyze_demo wrote $(wc -c <"$dir/analysis.json") + $(wc -c <"$dir/analysis.html") bytes"
