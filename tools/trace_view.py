#!/usr/bin/env python3
"""Turns a tine scheduler trace, a tine::analysis JSON, or both, into one self-contained HTML page
(no network, no fonts, no CDN).

    tools/trace_view.py TRACE.json -o OUT.html
    tools/trace_view.py ANALYSIS.json -o OUT.html    # its scalability section alone
    tools/trace_view.py TRACE.json --analysis ANALYSIS.json -o OUT.html   # both on one page

The trace is the Chrome trace event format that tine's trace observer writes; the analysis is what
tine::analysis::write_json writes, recognised by its "tine_analysis" key (see
docs/trace_viewer.md). Both are validated first: anything not in the contract's shape is reported
with the offending event's index or field's path, and exit status 1, before any page is written.
The page is built from tools/trace_viewer/page.html, viewer.css and viewer.js, with a compact form
of the trace (per-worker span arrays, steals, event counts) and the analysis embedded as JSON; the
page's script draws them. Python 3 standard library only.
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


def render(model, title, analysis=None):
    """The page for a trace's model, an analysis's model, or both (either may be None)."""
    css, js = read_asset("viewer.css"), read_asset("viewer.js")
    # The assets are inlined verbatim: they must not close their own element.
    if re.search(r"</style", css, re.I) or re.search(r"</script|<!--", js, re.I):
        raise RuntimeError("viewer.css/viewer.js contain a closing tag; they cannot be inlined")
    if model is not None:
        heading, kind = "tine scheduler trace", "tine trace"
    else:
        heading, kind = "tine work/span analysis", "tine analysis"
    parts = {
        "KIND": kind,
        "HEADING": heading,
        "TITLE": html.escape(title),
        "CSS": css,
        "JS": js,
        "DATA": embed_json(model),
        "ANALYSIS": embed_json(analysis),
    }
    # One pass: substituted text is never scanned again for placeholders.
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], read_asset("page.html"))


def main(argv):
    ap = argparse.ArgumentParser(
        description="Write an offline HTML viewer page for a tine trace and/or tine analysis.")
    ap.add_argument("trace", metavar="INPUT",
                    help="trace file (Chrome trace event JSON, as tine writes it), or an analysis "
                         "(tine::analysis::write_json's JSON, with its \"tine_analysis\" key)")
    ap.add_argument("--analysis", metavar="ANALYSIS.json",
                    help="an analysis to show beside the trace (its scalability section)")
    ap.add_argument("-o", "--output", required=True, help="HTML file to write")
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    a = ap.parse_args(argv)

    t0 = time.monotonic()
    model = analysis = None
    source = a.trace
    try:
        kind, first = trace_model.load_any(a.trace)
        if kind == "analysis":
            if a.analysis is not None:
                raise trace_model.TraceError("is an analysis; --analysis goes beside a trace "
                                             "(trace_view.py TRACE.json --analysis "
                                             "ANALYSIS.json)")
            analysis = first
        else:
            model = first
            if a.analysis is not None:
                source = a.analysis
                analysis = trace_model.load_analysis(a.analysis)
    except trace_model.TraceError as e:
        print(f"trace_view: {source}: {e}", file=sys.stderr)
        return 1
    title = os.path.basename(a.trace)
    if model is not None and analysis is not None:
        title += " + " + os.path.basename(a.analysis)
    page = render(model, title, analysis)
    try:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        print(f"trace_view: cannot write {a.output}: {e.strerror}", file=sys.stderr)
        return 1
    if not a.quiet:
        what = []
        if model is not None:
            m = model["meta"]
            spans = sum(len(s["d"]) for s in model["spans"])
            what.append(f"{m['workers']} workers, {m['events']} events, {spans} state spans, "
                        f"{len(model['steals']['thief'])} steals")
        if analysis is not None:
            what.append(f"analysis {json.dumps(analysis['name'])} in {analysis['units']}, "
                        f"{len(analysis['regions'])} regions")
        print(f"trace_view: {a.output}: {'; '.join(what)}, {len(page) / 1e6:.1f} MB, "
              f"{time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
