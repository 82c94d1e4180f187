#!/bin/sh
# Checks that each documentation example is identical to the region of a test source it was
# taken from. Arguments come in triples: DOC SOURCE NAME. In SOURCE the region is the lines
# between "// [docs:NAME]" and "// [docs:NAME end]"; in DOC it is the lines of the ```cpp block
# between "<!-- [docs:NAME] ... -->" and "<!-- [docs:NAME end] -->" (fence lines excluded).
set -eu

# region FILE NAME MODE: prints the region's lines (MODE "src" or "doc").
region() {
  awk -v name="$2" -v mode="$3" '
    BEGIN { start = "[docs:" name "]"; stop = "[docs:" name " end]" }
    index($0, stop) { inside = 0; done = 1; next }
    index($0, start) { inside = 1; found = 1; next }
    inside && mode == "doc" && /^```/ { next }
    inside { print }
    END { if (!found || !done) exit 3 }
  ' "$1"
}

status=0
tmp="${TEST_TMPDIR:-/tmp}/doc_regions.$$"
mkdir -p "$tmp"
while [ "$#" -ge 3 ]; do
  doc=$1 src=$2 name=$3
  shift 3
  if ! region "$src" "$name" src >"$tmp/src"; then
    echo "FAIL: $src has no complete region [docs:$name]"; status=1; continue
  fi
  if ! region "$doc" "$name" doc >"$tmp/doc"; then
    echo "FAIL: $doc has no complete region [docs:$name]"; status=1; continue
  fi
  if ! [ -s "$tmp/src" ]; then
    echo "FAIL: region [docs:$name] of $src is empty"; status=1; continue
  fi
  if diff -u "$tmp/src" "$tmp/doc"; then
    echo "ok: [docs:$name] in $doc matches $src"
  else
    echo "FAIL: [docs:$name] in $doc differs from $src (diff above: - test source, + doc)"; status=1
  fi
done
rm -rf "$tmp"
exit "$status"
