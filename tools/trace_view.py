#!/usr/bin/env python3
"""Turns a tine scheduler trace into one self-contained HTML page (no network, no fonts, no CDN).

    tools/trace_view.py TRACE.json -o OUT.html

The trace is the Chrome trace event format that tine's trace observer writes (see
docs/trace_viewer.md). It is validated first: anything not in the contract's shape is reported
with the index of the offending event and exit status 1. The page is built from
tools/trace_viewer/page.html, viewer.css and viewer.js, with a compact form of the trace embedded
as JSON (per-worker span arrays, steals, event counts); the page's script draws it.
Python 3 standard library only.
"""

import argparse
import html
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.join(HERE, "trace_viewer")
sys.path.insert(0, ASSETS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import trace_model  # noqa: E402  (found through the path set just above)


def read_asset(name):
    with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
        return f.read()


def embed_json(obj):
    """JSON safe inside <script type="application/json">: no "<" at all, so neither "</script>"
    nor "<!--" can end or confuse the element; JSON.parse reads "\\u003c" back as "<"."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c")


def render(model, title):
    css, js = read_asset("viewer.css"), read_asset("viewer.js")
    # The assets are inlined verbatim: they must not close their own element.
    if re.search(r"</style", css, re.I) or re.search(r"</script|<!--", js, re.I):
        raise RuntimeError("viewer.css/viewer.js contain a closing tag; they cannot be inlined")
    parts = {
        "TITLE": html.escape(title),
        "CSS": css,
        "JS": js,
        "DATA": embed_json(model),
    }
    # One pass: substituted text is never scanned again for placeholders.
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], read_asset("page.html"))


def main(argv):
    ap = argparse.ArgumentParser(description="Write an offline HTML viewer page for a tine trace.")
    ap.add_argument("trace", help="trace file (Chrome trace event JSON, as tine writes it)")
    ap.add_argument("-o", "--output", required=True, help="HTML file to write")
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    a = ap.parse_args(argv)

    t0 = time.monotonic()
    try:
        model = trace_model.load(a.trace)
    except trace_model.TraceError as e:
        print(f"trace_view: {a.trace}: {e}", file=sys.stderr)
        return 1
    page = render(model, os.path.basename(a.trace))
    try:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        print(f"trace_view: cannot write {a.output}: {e.strerror}", file=sys.stderr)
        return 1
    if not a.quiet:
        m = model["meta"]
        spans = sum(len(s["d"]) for s in model["spans"])
        print(f"trace_view: {a.output}: {m['workers']} workers, {m['events']} events, "
              f"{spans} state spans, {len(model['steals']['thief'])} steals, "
              f"{len(page) / 1e6:.1f} MB, {time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
