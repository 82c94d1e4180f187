#!/usr/bin/env python3
"""Checks what headless Chromium rendered from a trace_view.py page against numbers computed here,
independently of the viewer's code, straight from the trace JSON. Used by
tools/check_trace_viewer.sh.

    check_page.py compare TRACE.json DOM.html SHOT.png [--expected FIXTURE_EXPECTED.json]
    check_page.py rejects TRACE_VIEW.py WORKDIR     # malformed traces must fail with the right text
    check_page.py selftest TRACE.json DOM.html      # the comparison must catch a wrong page

Prints what it compared; exit status 1 with a message naming the first mismatch.
"""

import html.parser
import json
import os
import struct
import subprocess
import sys
import zlib

# The page's colours for busy, stealing, asleep and steal arrows (tools/trace_viewer/viewer.js);
# the screenshot must contain each of them, proving the timeline was painted.
PAINT_COLOURS = {"busy": (0x2f, 0x9e, 0x44), "stealing": (0xf5, 0x9f, 0x00),
                 "asleep": (0x91, 0xa7, 0xff), "steal": (0xc9, 0x2a, 0x2a)}
STATES = ("busy", "stealing", "asleep")
SPAN_TOL_US = 0.004  # per span, see compare()


class Mismatch(Exception):
    pass


# ---- independent reading of the trace ----------------------------------------------------------

def expected_from_trace(path):
    """The numbers the page must show, from the raw events (no code shared with the viewer)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    n = doc["otherData"]["workers"]
    exp = {"workers": n, "steals": 0, "names": [f"worker {i}" for i in range(n)],
           "us": [{s: 0.0 for s in STATES} for _ in range(n)], "spans": [0] * n,
           "made": [0] * n, "suffered": [0] * n, "submission": [0] * n, "matrix": {}}
    for e in doc["traceEvents"]:
        ph, cat, tid = e.get("ph"), e.get("cat"), e.get("tid")
        if ph == "M" and e.get("name") == "thread_name":
            exp["names"][tid] = e["args"]["name"]
        elif ph == "X" and cat == "state":
            exp["us"][tid][e["name"]] += e["dur"]
            exp["spans"][tid] += 1
        elif ph == "i" and cat == "steal":
            v = e["args"]["victim"]
            exp["steals"] += 1
            exp["made"][tid] += 1
            exp["suffered"][v] += 1
            exp["matrix"][(v, tid)] = exp["matrix"].get((v, tid), 0) + 1
        elif ph == "i" and cat == "event" and e.get("name") == "submission":
            exp["submission"][tid] += 1
    return exp


# ---- the dumped DOM ----------------------------------------------------------------------------

class DomReader(html.parser.HTMLParser):
    """Collects <body>'s attributes, every element's attributes by id, and td/th text by id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = None
        self.by_id = {}
        self.text = {}
        self.order = []  # ids of td/th elements, in document order
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if "id" in a:
            self.by_id[a["id"]] = a
            if tag in ("td", "th"):
                self._cell = a["id"]
                self.text[self._cell] = ""
                self.order.append(a["id"])

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self.text[self._cell] += data


def read_dom(path):
    r = DomReader()
    with open(path, encoding="utf-8") as f:
        r.feed(f.read())
    if r.body is None:
        raise Mismatch(f"{path}: no <body> in the dumped DOM")
    return r


def compare(exp, dom, fixture=None):
    """Raises Mismatch on the first difference; returns a one-line summary."""
    b = dom.body
    if b.get("data-tine-rendered") != "1":
        raise Mismatch("page did not render: data-tine-rendered="
                       f"{b.get('data-tine-rendered')!r}, error: {b.get('data-tine-error')!r}")

    if b.get("data-interaction") != "ok":
        raise Mismatch(f"the page's controls misbehaved (opened with #interact): "
                       f"{b.get('data-interaction')!r}")

    def num(attrs, key, where):
        if key not in attrs:
            raise Mismatch(f"{where} has no {key}")
        return float(attrs[key])

    def cell(cid):
        if cid not in dom.by_id:
            raise Mismatch(f"no element with id {cid!r} in the page")
        return num(dom.by_id[cid], "data-value", f"#{cid}")

    def same(what, got, want, tol=0.0):
        if abs(got - want) > tol:
            raise Mismatch(f"{what}: page shows {got}, the trace says {want}")

    n = exp["workers"]
    same("tracks (data-tracks)", num(b, "data-tracks", "body"), n)
    same("steals (data-steals)", num(b, "data-steals", "body"), exp["steals"])
    # The page works in integer ns: each span's ends are rounded to 1 ns, and a span that starts
    # (within 2 ns, trace_model.OVERLAP_TOLERANCE_US) before the previous one ends is moved to
    # its end.
    total_tol = SPAN_TOL_US * sum(exp["spans"]) + 1e-6
    same("total busy µs (data-busy-us)", num(b, "data-busy-us", "body"),
         sum(u["busy"] for u in exp["us"]), total_tol)
    for w in range(n):
        tol = SPAN_TOL_US * exp["spans"][w] + 1e-6
        for s in STATES:
            same(f"worker {w} {s} µs", cell(f"w{w}-{s}-us"), exp["us"][w][s], tol)
        same(f"worker {w} steals made", cell(f"w{w}-steals-made"), exp["made"][w])
        same(f"worker {w} steals suffered", cell(f"w{w}-steals-suffered"), exp["suffered"][w])
        same(f"worker {w} submissions", cell(f"w{w}-submission"), exp["submission"][w])
        got_name = dom.text.get(f"w{w}-name")
        if got_name != exp["names"][w]:
            raise Mismatch(f"worker {w} name: page shows {got_name!r}, the trace says "
                           f"{exp['names'][w]!r}")
        for v in range(n):
            if v != w:
                same(f"steals by {w} from {v}", cell(f"steal-v{v}-t{w}"),
                     exp["matrix"].get((v, w), 0))
    same("steal matrix total", cell("steal-total"), exp["steals"])
    # Rows are thieves and columns victims, as tine::stats_report::print has them: in document
    # order the cells run through victims within one thief's row.
    laid_out = [c for c in dom.order if c.startswith("steal-v")]
    def thief_victim(c):
        v, t = (int(x) for x in c[len("steal-v"):].split("-t"))
        return t, v
    by_thief = sorted(laid_out, key=thief_victim)
    if laid_out != by_thief:
        raise Mismatch("steal matrix: rows must be thieves and columns victims "
                       f"(stats_report's orientation); cells are laid out as {laid_out[:4]}...")

    if fixture is not None:  # the generator's own tallies: a third, independent source
        same("fixture workers", fixture["workers"], n)
        same("fixture steals", fixture["steals"], exp["steals"])
        for w, pw in enumerate(fixture["per_worker"]):
            for s in STATES:
                same(f"fixture worker {w} {s} µs", pw[s + "_ns"] / 1000, exp["us"][w][s], 1e-6)
            same(f"fixture worker {w} steals made", pw["steals_made"], exp["made"][w])
    return (f"{n} tracks, {exp['steals']} steals, busy {b['data-busy-us']} µs, per-worker times, "
            f"steal matrix and names agree; controls work; rendered in "
            f"{b.get('data-render-ms')} ms")


# ---- the screenshot ----------------------------------------------------------------------------

def decode_png(path):
    """Returns (width, height, channels, rows of bytes) for 8-bit RGB/RGBA non-interlaced PNGs."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Mismatch(f"{path} is not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        pos += 12 + length
    if ihdr is None:
        raise Mismatch(f"{path}: PNG without IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise Mismatch(f"{path}: PNG kind not handled (depth {depth}, colour type {ctype})")
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(ch, stride):
                line[i] = (line[i] + line[i - ch]) & 0xFF
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif f == 3:
            for i in range(stride):
                left = line[i - ch] if i >= ch else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - ch] if i >= ch else 0
                b = prev[i]
                c = prev[i - ch] if i >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif f != 0:
            raise Mismatch(f"{path}: bad PNG filter {f} in row {y}")
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def check_screenshot(path, want_w, want_h, exp, dom):
    size = os.path.getsize(path)
    if size < 10_000:
        raise Mismatch(f"screenshot {path} is only {size} bytes")
    w, h, ch, rows = decode_png(path)
    if (w, h) != (want_w, want_h):
        raise Mismatch(f"screenshot is {w}x{h}, expected {want_w}x{want_h}")
    counts = {}
    for row in rows:
        for x in range(0, w * ch, ch):
            px = row[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    if len(counts) < 20:
        raise Mismatch(f"screenshot has only {len(counts)} distinct colours: nothing was drawn")
    # The state and steal colours are looked for inside the timeline's canvas only (the legend,
    # the utilisation chart and the tables use them too).
    try:
        x0, y0, cw, chh = (int(v) for v in dom.body["data-timeline-rect"].split(","))
    except (KeyError, ValueError):
        raise Mismatch("the page did not report where its timeline is (data-timeline-rect)")
    if cw < 100 or chh < 20 or x0 < 0 or y0 < 0 or x0 + cw > w or y0 + 10 > h:
        raise Mismatch(f"timeline rectangle {x0},{y0} {cw}x{chh} is not inside the screenshot")
    timeline = {}
    for row in rows[y0:min(h, y0 + chh)]:
        for x in range(x0 * ch, (x0 + cw) * ch, ch):
            px = row[x:x + 3]
            timeline[px] = timeline.get(px, 0) + 1
    # Each colour the trace calls for: states with a visible share of the time, steals if any.
    total = sum(u[s] for u in exp["us"] for s in STATES)
    wanted = [s for s in STATES if sum(u[s] for u in exp["us"]) > 0.005 * total]
    wanted += ["steal"] if exp["steals"] else []
    for what in wanted:
        rgb = PAINT_COLOURS[what]
        got = timeline.get(bytes(rgb), 0)
        # A state fills spans; a steal is one thin arrow (drawn with some transparency, so only
        # its head's pixels have the exact colour: about 17 of them). A trace may hold a single
        # steal (how many happen depends on the run), so one arrow must pass.
        if got < (12 if what == "steal" else 30):
            raise Mismatch(f"the timeline has {got} pixels of the {what} colour #%02x%02x%02x: "
                           "it was not painted" % rgb)
    top = sorted(counts.values(), reverse=True)[0]
    return (f"screenshot {w}x{h}, {size} bytes, {len(counts)} colours; the timeline shows the "
            f"colours of {'/'.join(wanted) or 'nothing (no states or steals)'}; most common "
            f"colour {100 * top / (w * h):.0f}% of pixels")


# ---- proving the check can fail ----------------------------------------------------------------

def malformed_traces():
    """(name, content, text the error must contain)."""
    ok_other = {"producer": "tine", "workers": 2}

    def doc(events, other=ok_other):
        return json.dumps({"traceEvents": events, "otherData": other})

    span = {"ph": "X", "cat": "state", "name": "busy", "pid": 1, "tid": 0, "ts": 0, "dur": 10}
    return [
        ("not-json", '{"traceEvents": [', "not valid JSON"),
        ("array-form", json.dumps([span]), "top level is a JSON array"),
        ("no-events", json.dumps({"otherData": ok_other}), '"traceEvents" is missing'),
        ("other-producer", doc([span], {"producer": "chrome", "workers": 2}),
         'otherData.producer is "chrome"'),
        ("no-workers", doc([span], {"producer": "tine"}), "otherData.workers is null"),
        ("tid-out-of-range", doc([dict(span, tid=2)]), 'traceEvents[0]: "tid" is 2'),
        ("bad-state", doc([dict(span, name="running")]), 'state span named "running"'),
        ("negative-dur", doc([dict(span, dur=-1)]), '"dur" is -1'),
        ("ts-string", doc([dict(span, ts="5")]), '"ts" is "5"'),
        ("overlap", doc([span, dict(span, ts=5, name="asleep")]), "must not overlap"),
        ("steal-no-victim", doc([{"ph": "i", "cat": "steal", "name": "steal", "s": "t",
                                  "pid": 1, "tid": 1, "ts": 3}]), "steal needs args.victim"),
        ("self-steal", doc([{"ph": "i", "cat": "steal", "name": "steal", "s": "t", "pid": 1,
                             "tid": 1, "ts": 3, "args": {"victim": 1}}]),
         "worker 1 steals from itself"),
    ]


def check_rejects(trace_view, workdir):
    py = sys.executable
    for name, content, text in malformed_traces():
        src = os.path.join(workdir, f"bad-{name}.json")
        out = os.path.join(workdir, f"bad-{name}.html")
        with open(src, "w", encoding="utf-8") as f:
            f.write(content)
        r = subprocess.run([py, trace_view, src, "-o", out], capture_output=True, text=True)
        if r.returncode == 0:
            raise Mismatch(f"trace_view.py accepted the malformed trace {name!r}")
        if text not in r.stderr:
            raise Mismatch(f"trace_view.py rejected {name!r} without saying {text!r}; it said: "
                           f"{r.stderr.strip()!r}")
        if os.path.exists(out):
            raise Mismatch(f"trace_view.py wrote {out} for the malformed trace {name!r}")
    return f"{len(malformed_traces())} malformed traces rejected with the expected messages"


def selftest(exp, dom):
    """compare() must notice a page that is wrong by one steal or one microsecond."""
    mutations = [
        ("body", "data-steals", lambda v: str(int(v) + 1)),
        ("body", "data-tracks", lambda v: str(int(v) - 1)),
        ("body", "data-tine-rendered", lambda v: "0"),
        ("body", "data-interaction", lambda v: "the wheel did not zoom in"),
        ("w0-busy-us", "data-value",
         lambda v: f"{float(v) + 2 * SPAN_TOL_US * exp['spans'][0] + 0.01:.3f}"),
        ("w1-steals-suffered", "data-value", lambda v: str(int(v) + 1)),
        ("steal-v0-t1", "data-value", lambda v: str(int(v) + 1)),
    ]
    mutations = [m for m in mutations if m[0] == "body" or m[0] in dom.by_id]  # 1 worker: fewer
    for where, key, change in mutations:
        attrs = dom.body if where == "body" else dom.by_id[where]
        old = attrs[key]
        attrs[key] = change(old)
        try:
            compare(exp, dom)
        except Mismatch:
            pass
        else:
            raise Mismatch(f"the comparison did not notice {where} {key} {old} -> {attrs[key]}")
        finally:
            attrs[key] = old
    name = dom.text["w0-name"]
    dom.text["w0-name"] = name + "x"
    try:
        compare(exp, dom)
        raise Mismatch("the comparison did not notice a wrong worker name")
    except Mismatch as e:
        if "name" not in str(e):
            raise
    finally:
        dom.text["w0-name"] = name
    return f"{len(mutations) + 1} deliberately wrong pages caught"


def main(argv):
    try:
        if len(argv) >= 4 and argv[0] == "compare":
            fixture = None
            if len(argv) == 6 and argv[4] == "--expected":
                with open(argv[5], encoding="utf-8") as f:
                    fixture = json.load(f)
            elif len(argv) != 4:
                raise SystemExit(__doc__)
            exp, dom = expected_from_trace(argv[1]), read_dom(argv[2])
            print("check_page: " + compare(exp, dom, fixture))
            print("check_page: " + check_screenshot(argv[3], 1400, 1000, exp, dom))
        elif len(argv) == 3 and argv[0] == "rejects":
            print("check_page: " + check_rejects(argv[1], argv[2]))
        elif len(argv) == 3 and argv[0] == "selftest":
            print("check_page: " + selftest(expected_from_trace(argv[1]), read_dom(argv[2])))
        else:
            raise SystemExit(__doc__)
    except Mismatch as e:
        print(f"check_page: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
