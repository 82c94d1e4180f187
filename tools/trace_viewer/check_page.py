#!/usr/bin/env python3
"""Checks what headless Chromium rendered from a trace_view.py page against numbers computed here,
independently of the viewer's code, straight from the trace or analysis JSON. Used by
tools/check_trace_viewer.sh.

    check_page.py compare TRACE.json DOM.html [SHOT.png] [--expected FIXTURE_EXPECTED.json]
                  [--analysis ANALYSIS.json]     # a trace's page (with its scalability section)
    check_page.py analysis ANALYSIS.json DOM.html [SHOT.png]   # an analysis's page, no trace
    check_page.py rejects TRACE_VIEW.py WORKDIR  # malformed traces and analyses must fail right
    check_page.py selftest TRACE.json DOM.html   # the comparison must catch a wrong page
    check_page.py selftest-analysis ANALYSIS.json DOM.html   # likewise for the scalability section

Prints what it compared; exit status 1 with a message naming the first mismatch.
"""

import html.parser
import json
import math
import os
import re
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
    """Collects <body>'s attributes, every element's attributes by id, the sections' attributes,
    and the text of td, th, li, p, span and SVG text elements by id."""

    TEXT_TAGS = ("td", "th", "li", "p", "span", "text")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = None
        self.by_id = {}
        self.text = {}
        self.sections = []  # attributes of each <section>
        self.order = []  # ids of td/th elements, in document order
        self._open = []  # (tag, id or None) of the text elements the parser is inside

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "section":
            self.sections.append(a)
        if "id" in a:
            self.by_id[a["id"]] = a
            if tag in ("td", "th"):
                self.order.append(a["id"])
        if tag in self.TEXT_TAGS:
            self._open.append((tag, a.get("id")))
            if "id" in a:
                self.text[a["id"]] = ""

    def handle_endtag(self, tag):
        if tag in self.TEXT_TAGS:
            for i in range(len(self._open) - 1, -1, -1):
                if self._open[i][0] == tag:
                    del self._open[i:]
                    break

    def handle_data(self, data):
        for _, cid in self._open:
            if cid is not None:
                self.text[cid] += data


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


# ---- the scalability section (a tine::analysis) ------------------------------------------------

# The curves' keys in the analysis and their colours on the page (viewer.js's CURVES). The
# ceiling's grey is not looked for in screenshots: anti-aliased text has the same greys.
CURVES = ("ceiling", "greedy", "predicted")
CURVE_COLOURS = {"greedy": (0x09, 0x69, 0xda), "predicted": (0xcf, 0x22, 0x2e)}
SHOWN_P = (2, 4, 8, 16, 32, 64, 128, 256)
# Measures in the analysis's units (times, or strands), plain numbers, and counts, with the ids of
# the cells that show them.
UNIT_MEASURES = {"work": "scal-work", "span": "scal-span", "burdened_span": "scal-burdened-span",
                 "steal_cost": "scal-steal-cost", "longest_strand": "scal-longest-strand"}
PLAIN_MEASURES = {"parallelism": "scal-parallelism",
                  "burdened_parallelism": "scal-burdened-parallelism"}
COUNT_MEASURES = {"forks": "scal-forks", "joins": "scal-joins",
                  "critical_strands": "scal-critical-strands", "runs": "scal-runs"}
TIME_UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
COORD_TOL = 0.05  # px: the page writes coordinates with 2 decimals


def expected_from_analysis(path):
    """The analysis as written (json alone, no code shared with the viewer)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _shown_number(text, what):
    """A number as the page shows it ("1,234.5", "9.362", "1e-7") and half a unit of its last
    digit: the value shown stands for any value that close."""
    m = re.fullmatch(r"(-?)([\d,]*)(?:\.(\d*))?(?:e([+-]?\d+))?", text)
    if not m or not (m.group(2) or m.group(3)):
        raise Mismatch(f"{what}: {text!r} is not a number")
    sign, whole, frac, exp = m.group(1), m.group(2).replace(",", ""), m.group(3) or "", m.group(4)
    scale = 10.0 ** int(exp) if exp else 1.0
    value = float(f"{sign}{whole or '0'}.{frac or '0'}") * scale
    return value, 0.5 * 10.0 ** -len(frac) * scale


def _check_shown(what, text, want, units):
    """The text of a cell shows want: "–" for null; a time in a unit that keeps it in [1, 1000]
    (units "seconds"); "N strands" (units "strands"); a plain number (units None)."""
    if want is None:
        if text != "–":
            raise Mismatch(f"{what}: page shows {text!r}, the analysis says null (not finite)")
        return
    if units == "seconds":
        m = re.fullmatch(r"(\S+) (ns|µs|us|ms|s)", text)
        if not m:
            raise Mismatch(f"{what}: page shows {text!r}, expected a time with its unit "
                           "(ns, µs, ms or s)")
        shown, tol = _shown_number(m.group(1), what)
        scale = TIME_UNITS[m.group(2)]
        # (1000 itself: 999.96 µs rounds to "1000 µs"; below 1 ns, ns.)
        if 1e-9 <= abs(want) < 1000 and not 1 <= abs(shown) <= 1000:
            raise Mismatch(f"{what}: {text!r} is in the wrong unit for {want} s")
        got, tol = shown * scale, tol * scale
    elif units == "strands":
        m = re.fullmatch(r"(\S+) (strands?)", text)
        if not m:
            raise Mismatch(f"{what}: page shows {text!r}, expected \"N strands\"")
        if (m.group(2) == "strand") != (want == 1):
            raise Mismatch(f"{what}: {text!r} for {want} strands")
        got, tol = _shown_number(m.group(1), what)
    else:
        got, tol = _shown_number(text, what)
    if abs(got - want) > tol * 1.0001 + 1e-12 * abs(want):
        raise Mismatch(f"{what}: page shows {text!r}, the analysis says {want}")


def _path_points(d, what):
    """The points of an SVG path made of M and L commands, and how many pieces (M) it has."""
    if not re.fullmatch(r"([ML]\s*-?[\d.]+\s*,\s*-?[\d.]+\s*)*", d):
        raise Mismatch(f"{what}: path data is not only M and L commands: {d[:60]!r}")
    cmds = re.findall(r"([ML])\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)", d)
    return [(float(x), float(y)) for _, x, y in cmds], sum(1 for c in cmds if c[0] == "M")


def _fit(pairs):
    """Least squares a + b t through (t, coordinate) pairs; returns a, b and the worst residual."""
    n = len(pairs)
    mt = sum(t for t, _ in pairs) / n
    mc = sum(c for _, c in pairs) / n
    var = sum((t - mt) ** 2 for t, _ in pairs)
    b = sum((t - mt) * (c - mc) for t, c in pairs) / var if var else 0.0
    a = mc - b * mt
    return a, b, max(abs(c - (a + b * t)) for t, c in pairs)


def compare_analysis(an, dom, alone):
    """The scalability section shows the analysis an: its curves (the right points, on log2
    axes whose labels sit where the points put them), its measures, speed-ups, regions and
    problems. alone: the page has no trace, and its trace panels must be hidden. Raises Mismatch
    on the first difference; returns a one-line summary."""
    b = dom.body
    if b.get("data-tine-rendered") != "1":
        raise Mismatch("page did not render: data-tine-rendered="
                       f"{b.get('data-tine-rendered')!r}, error: {b.get('data-tine-error')!r}")
    sec = dom.by_id.get("scalability")
    if sec is None or "hidden" in sec or b.get("data-analysis") != "1":
        raise Mismatch("the Scalability section is missing or hidden")
    if alone:
        shown = [s for s in dom.sections if "trace-panel" in s.get("class", "").split()
                 and "hidden" not in s]
        if shown:
            raise Mismatch(f"{len(shown)} trace panels are shown on a page without a trace")

    def text(cid):
        if cid not in dom.text:
            raise Mismatch(f"no element with id {cid!r} (with text) in the page")
        return dom.text[cid]

    def attr(cid, key):
        if cid not in dom.by_id or key not in dom.by_id[cid]:
            raise Mismatch(f"#{cid} is missing, or has no {key}")
        return dom.by_id[cid][key]

    def value(cid, want, what):
        got = attr(cid, "data-value")
        if want is None or isinstance(want, (bool, str)):
            ok = got == ("null" if want is None else str(want).lower()
                         if isinstance(want, bool) else want)
        else:
            try:
                ok = float(got) == want
            except ValueError:
                ok = False
        if not ok:
            raise Mismatch(f"{what}: page has {got!r} (#{cid} data-value), the analysis says "
                           f"{json.dumps(want)}")

    if text("scal-name-text") != an["name"]:
        raise Mismatch(f"analysis name: page shows {text('scal-name-text')!r}, the analysis says "
                       f"{an['name']!r}")

    # The curves: each point at (x(log2 P), y(log2 speed-up)) with x and y linear, shared by the
    # three curves, x increasing and y decreasing (up is more); nulls and values <= 0 (not on a
    # log axis) leave gaps.
    xs, ys, drawn = [], [], {}
    for key in CURVES:
        cid = f"scal-curve-{key}"
        pts, pieces = _path_points(attr(cid, "d"), f"the {key} curve")
        want = [(i + 1, v) for i, v in enumerate(c[key] for c in an["curve"])
                if v is not None and v > 0]
        want_pieces = sum(1 for i, c in enumerate(an["curve"])
                          if c[key] is not None and c[key] > 0
                          and (i == 0 or an["curve"][i - 1][key] is None
                               or an["curve"][i - 1][key] <= 0))
        if len(pts) != len(want):
            raise Mismatch(f"the {key} curve has {len(pts)} points, the analysis {len(want)}")
        if pieces != want_pieces:
            raise Mismatch(f"the {key} curve is drawn in {pieces} pieces, expected {want_pieces} "
                           "(a gap at each run of nulls)")
        for (p, v), (x, y) in zip(want, pts):
            xs.append((math.log2(p), x))
            ys.append((math.log2(v), y))
        drawn[key] = len(pts)
    x0, dx, xres = _fit(xs)
    y0, dy, yres = _fit(ys)
    if dx * 8 < 100 or dy * 8 > -100:
        raise Mismatch(f"the curves' axes are degenerate or reversed (x: {dx:.2f} px, y: "
                       f"{dy:.2f} px per doubling)")
    if xres > COORD_TOL or yres > COORD_TOL:
        raise Mismatch(f"the curves' points are not on log2 axes of P and the speed-up (worst "
                       f"x off by {xres:.2f} px, y by {yres:.2f} px): a curve is drawn from the "
                       "wrong values")
    for k in range(9):
        cid = f"scal-xtick-{k}"
        if text(cid) != str(2 ** k):
            raise Mismatch(f"x axis label {k}: {text(cid)!r}, expected {2 ** k!r}")
        if abs(float(attr(cid, "x")) - (x0 + dx * k)) > COORD_TOL:
            raise Mismatch(f"x axis label {2 ** k} is at x {attr(cid, 'x')}, the curves put P = "
                           f"{2 ** k} at {x0 + dx * k:.2f}")
    yticks = {cid: text(cid) for cid in dom.text if cid.startswith("scal-ytick-")}
    for cid, label in yticks.items():
        k = int(cid[len("scal-ytick-") + 1:]) * (-1 if cid[len("scal-ytick-")] == "m" else 1)
        want_label = str(2 ** k) if k >= -3 else f"1/{2 ** -k}"
        if label != want_label:
            raise Mismatch(f"y axis label {cid}: {label!r}, expected {want_label!r}")
        if abs(float(attr(cid, "y")) - (y0 + dy * k)) > COORD_TOL:
            raise Mismatch(f"y axis label {label} is at y {attr(cid, 'y')}, the curves put a "
                           f"speed-up of {label} at {y0 + dy * k:.2f}")
    for k in (0, 8):
        if f"scal-ytick-p{k}" not in yticks:
            raise Mismatch(f"the y axis has no label {2 ** k}")
    for cid, want in (("scal-xlabel", "workers P"), ("scal-ylabel", "speed-up")):
        if text(cid) != want:
            raise Mismatch(f"axis title #{cid}: {text(cid)!r}, expected {want!r}")
    for key in CURVES:
        if key not in text(f"scal-legend-{key}"):
            raise Mismatch(f"the legend's entry for the {key} curve says "
                           f"{text(f'scal-legend-{key}')!r}")

    # The measures.
    units = an["units"]
    for key, cid in UNIT_MEASURES.items():
        value(cid, an[key], key)
        _check_shown(key, text(cid), an[key], units)
    for key, cid in PLAIN_MEASURES.items():
        value(cid, an[key], key)
        _check_shown(key, text(cid), an[key], None)
    for key, cid in COUNT_MEASURES.items():
        value(cid, an[key], key)
        _check_shown(key, text(cid), an[key], None)
    value("scal-units", units, "units")
    if text("scal-units") != units:
        raise Mismatch(f"units: page shows {text('scal-units')!r}, the analysis says {units!r}")
    value("scal-steal-cost-note", an["steal_cost_measured"], "steal_cost_measured")
    note = text("scal-steal-cost-note")
    if ("not measured" in note) == an["steal_cost_measured"] or "measured" not in note:
        raise Mismatch(f"steal cost: page says {note!r}, steal_cost_measured is "
                       f"{json.dumps(an['steal_cost_measured'])}")

    # The speed-ups at P = 2, 4, ..., 256.
    for p in SHOWN_P:
        if text(f"scal-p-{p}") != str(p):
            raise Mismatch(f"speed-up table column {p}: heading {text(f'scal-p-{p}')!r}")
        for key in CURVES:
            want = an["curve"][p - 1][key]
            cid = f"scal-{key}-p{p}"
            value(cid, want, f"{key} speed-up at P = {p}")
            _check_shown(f"{key} speed-up at P = {p}", text(cid), want, None)

    # Regions and problems.
    for i, r in enumerate(an["regions"]):
        what = f"region {i} ({r['name']!r})"
        if text(f"scal-region-{i}-name") != r["name"]:
            raise Mismatch(f"{what}: page names it {text(f'scal-region-{i}-name')!r}")
        value(f"scal-region-{i}-count", r["count"], f"{what} runs")
        for key in ("work", "span", "burdened_span"):
            cid = f"scal-region-{i}-{key.replace('_', '-')}"
            value(cid, r[key], f"{what} {key}")
            _check_shown(f"{what} {key}", text(cid), r[key], units)
        par = (r["work"] / r["span"] if r["work"] is not None and r["span"] is not None
               and r["span"] > 0 else None)
        cid = f"scal-region-{i}-parallelism"
        if par is None:
            value(cid, None, f"{what} parallelism")
        elif abs(float(attr(cid, "data-value")) - par) > 1e-9 * par:
            raise Mismatch(f"{what} parallelism: page has {attr(cid, 'data-value')}, work/span "
                           f"is {par}")
        _check_shown(f"{what} parallelism", text(cid), par, None)
    n = len(an["regions"])
    if f"scal-region-{n}-name" in dom.by_id or (n == 0) != ("scal-no-regions" in dom.by_id):
        raise Mismatch(f"the page lists another number of regions than the analysis's {n}")
    for i, problem in enumerate(an["problems"]):
        if text(f"scal-problem-{i}") != problem:
            raise Mismatch(f"problem {i}: page says {text(f'scal-problem-{i}')!r}, the analysis "
                           f"{problem!r}")
    n = len(an["problems"])
    if f"scal-problem-{n}" in dom.by_id or (n == 0) != ("scal-no-problems" in dom.by_id):
        raise Mismatch(f"the page lists another number of problems than the analysis's {n}")
    return (f"scalability of {an['name']!r}: curves of {drawn['ceiling']}/{drawn['greedy']}/"
            f"{drawn['predicted']} points (ceiling/greedy/predicted) on log2 axes (worst point "
            f"{max(xres, yres):.3f} px off), axis labels, "
            f"{len(UNIT_MEASURES) + len(PLAIN_MEASURES) + len(COUNT_MEASURES) + 1} measures, "
            f"{3 * len(SHOWN_P)} speed-ups, {len(an['regions'])} regions and "
            f"{len(an['problems'])} problems agree")


def check_no_analysis(dom):
    """A trace's page without an analysis keeps the scalability section hidden."""
    sec = dom.by_id.get("scalability")
    if sec is None or "hidden" not in sec or dom.body.get("data-analysis") is not None:
        raise Mismatch("a page without an analysis shows the Scalability section")


def check_analysis_screenshot(path, want_w, want_h, an, dom):
    """The chart in the screenshot (where the page says it is) has the predicted curve's colour,
    and the greedy bound's where the two part (the prediction is drawn over it): the SVG was
    painted."""
    w, h, ch, rows = decode_png(path)
    if (w, h) != (want_w, want_h):
        raise Mismatch(f"screenshot is {w}x{h}, expected {want_w}x{want_h}")
    try:
        x0, y0, cw, chh = (int(v) for v in dom.body["data-scalability-rect"].split(","))
    except (KeyError, ValueError):
        raise Mismatch("the page did not report where its chart is (data-scalability-rect)")
    if cw < 200 or chh < 100 or x0 < 0 or y0 < 0 or x0 + cw > w or y0 + chh > h:
        raise Mismatch(f"chart rectangle {x0},{y0} {cw}x{chh} is not inside the screenshot")
    near = {k: 0 for k in CURVE_COLOURS}
    for row in rows[y0:y0 + chh]:
        for x in range(x0 * ch, (x0 + cw) * ch, ch):
            r, g, b_ = row[x], row[x + 1], row[x + 2]
            for k, (cr, cg, cb) in CURVE_COLOURS.items():
                if abs(r - cr) <= 24 and abs(g - cg) <= 24 and abs(b_ - cb) <= 24:
                    near[k] += 1
    end = an["curve"][-1]
    parted = all(isinstance(end[k], (int, float)) and end[k] > 0 for k in CURVE_COLOURS) and \
        abs(math.log2(end["greedy"] / end["predicted"])) > 0.1
    for k, got in near.items():
        # The curves are anti-aliased diagonals: pixels near the colour, not exactly it.
        if k == "greedy" and not parted:
            continue
        if got < (150 if k == "predicted" else 40):
            raise Mismatch(f"the chart has {got} pixels of about the {k} curve's colour "
                           "#%02x%02x%02x: it was not painted" % CURVE_COLOURS[k])
    return (f"screenshot {w}x{h}; the chart ({cw}x{chh} px) shows the predicted curve's colour "
            f"({near['predicted']} px) and the greedy bound's ({near['greedy']} px)")


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


def valid_analysis():
    """A small analysis in write_json's shape (the base of the malformed ones)."""
    return {"tine_analysis": 1, "name": "a", "work": 1.0, "span": 0.01, "burdened_span": 0.02,
            "steal_cost": 1e-6, "steal_cost_measured": False, "units": "seconds", "runs": 1,
            "forks": 10, "joins": 10, "critical_strands": 3, "longest_strand": 0.001,
            "parallelism": 100.0, "burdened_parallelism": 50.0,
            "curve": [{"p": p, "predicted": 0.9 * p, "greedy": p, "ceiling": p}
                      for p in range(1, 257)],
            "regions": [{"name": "r", "count": 1, "work": 0.5, "span": 0.01,
                         "burdened_span": 0.02}],
            "problems": ["none really"]}


def malformed_analyses():
    """(name, content, text the error must contain after "trace_view: FILE: ")."""
    def bad(change):
        a = valid_analysis()
        change(a)
        return json.dumps(a)  # NaN stays NaN: Python's json writes and reads it

    def curve(i, key, v):
        def change(a):
            if v is KeyError:
                del a["curve"][i][key]
            else:
                a["curve"][i][key] = v
        return change

    def field(key, v):
        def change(a):
            if v is KeyError:
                del a[key]
            else:
                a[key] = v
        return change

    return [
        ("version", bad(field("tine_analysis", 2)), "tine_analysis is 2, expected 1"),
        ("version-bool", bad(field("tine_analysis", True)), "tine_analysis is true, expected 1"),
        ("no-name", bad(field("name", KeyError)), "name is missing, expected a string"),
        ("units", bad(field("units", "ms")), 'units is "ms", expected "seconds" or "strands"'),
        ("runs-string", bad(field("runs", "3")), 'runs is "3", expected an integer >= 0'),
        ("work-string", bad(field("work", "x")), 'work is "x", expected a number'),
        ("span-nan", bad(field("span", float("nan"))), "span is NaN, expected a number"),
        ("measured-int", bad(field("steal_cost_measured", 1)),
         "steal_cost_measured is 1, expected true or false"),
        ("forks-fraction", bad(field("forks", 1.5)), "forks is 1.5, expected an integer >= 0"),
        ("joins-negative", bad(field("joins", -1)), "joins is -1, expected an integer >= 0"),
        ("no-critical-strands", bad(field("critical_strands", KeyError)),
         "critical_strands is missing, expected an integer >= 0"),
        ("curve-short", bad(lambda a: a["curve"].pop()),
         "curve has 255 entries, expected 256 (P = 1 to 256)"),
        ("curve-string", bad(curve(3, "predicted", "x")),
         'curve[3].predicted is "x", expected a number'),
        ("curve-p", bad(curve(5, "p", 7)), "curve[5].p is 7, expected 6"),
        ("curve-no-greedy", bad(curve(9, "greedy", KeyError)),
         "curve[9].greedy is missing, expected a number"),
        ("curve-not-object", bad(lambda a: a["curve"].__setitem__(2, 3)),
         "curve[2] is 3, expected an object"),
        ("regions-object", bad(field("regions", {"name": "r"})),
         'regions is {"name": "r"}, expected an array'),
        ("region-no-count", bad(lambda a: a["regions"][0].pop("count")),
         "regions[0].count is missing, expected an integer >= 0"),
        ("region-span-bool", bad(lambda a: a["regions"][0].__setitem__("span", True)),
         "regions[0].span is true, expected a number"),
        ("problem-number", bad(lambda a: a["problems"].append(3)),
         "problems[1] is 3, expected a string"),
    ]


def _run_trace_view(trace_view, args, out):
    r = subprocess.run([sys.executable, trace_view] + args + ["-o", out], capture_output=True,
                       text=True)
    return r.returncode, r.stderr.strip()


def check_rejects(trace_view, workdir):
    def write(name, content):
        path = os.path.join(workdir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        return path

    def refused(what, args, out, text):
        if os.path.exists(out):
            os.remove(out)
        rc, err = _run_trace_view(trace_view, args, out)
        if rc != 1:
            raise Mismatch(f"trace_view.py exited {rc} on {what} (expected 1); it said {err!r}")
        if text not in err:
            raise Mismatch(f"trace_view.py rejected {what} without saying {text!r}; it said: "
                           f"{err!r}")
        if os.path.exists(out):
            raise Mismatch(f"trace_view.py wrote {out} for {what}")

    for name, content, text in malformed_traces():
        src = write(f"bad-{name}.json", content)
        refused(f"the malformed trace {name!r}", [src], os.path.join(workdir, f"bad-{name}.html"),
                text)

    # Analyses: alone, and beside a good trace (the analysis named in the message); both forms
    # give the message the whole prefix "trace_view: FILE: ".
    trace = write("good-trace.json", json.dumps({
        "traceEvents": [{"ph": "X", "cat": "state", "name": "busy", "pid": 1, "tid": 0, "ts": 0,
                         "dur": 10}],
        "otherData": {"producer": "tine", "workers": 1}}))
    out = os.path.join(workdir, "bad-analysis.html")
    for name, content, text in malformed_analyses():
        src = write(f"bad-analysis-{name}.json", content)
        refused(f"the malformed analysis {name!r}", [src], out, f"trace_view: {src}: {text}")
        refused(f"the malformed analysis {name!r} beside a trace", [trace, "--analysis", src],
                out, f"trace_view: {src}: {text}")
    good = write("good-analysis.json", json.dumps(valid_analysis()))
    refused("a trace given as --analysis", [trace, "--analysis", trace], out,
            f"trace_view: {trace}: not a tine analysis")
    refused("an analysis with --analysis", [good, "--analysis", good], out,
            f"trace_view: {good}: is an analysis; --analysis goes beside a trace")

    # And what is in the shape is accepted: the base of the malformed ones, alone and beside the
    # trace, and with null (not finite) wherever write_json may write it, and a key it does not
    # write.
    nulls = valid_analysis()
    for key in ("work", "span", "burdened_span", "steal_cost", "longest_strand", "parallelism",
                "burdened_parallelism"):
        nulls[key] = None
    for key in ("predicted", "greedy", "ceiling"):
        nulls["curve"][7][key] = None
    for key in ("work", "span", "burdened_span"):
        nulls["regions"][0][key] = None
    nulls["from_a_later_version"] = {"ignored": True}
    with_nulls = write("good-analysis-nulls.json", json.dumps(nulls))
    for args in ([good], [trace, "--analysis", good], [with_nulls]):
        if os.path.exists(out):
            os.remove(out)
        rc, err = _run_trace_view(trace_view, args, out)
        if rc != 0 or not os.path.getsize(out):
            raise Mismatch(f"trace_view.py {' '.join(args)} refused a good analysis (exit {rc}): "
                           f"{err!r}")
    return (f"{len(malformed_traces())} malformed traces and {len(malformed_analyses())} "
            "malformed analyses (alone and beside a trace) rejected with the expected messages; "
            "good analyses accepted")


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


def selftest_analysis(an, dom):
    """compare_analysis() must notice a scalability section that is wrong in any one way."""
    def set_attr(cid, key, change):
        def apply():
            attrs = dom.by_id[cid]
            old = attrs.get(key)
            attrs[key] = change(old)
            return lambda: attrs.__setitem__(key, old) if old is not None else attrs.pop(key)
        return apply

    def set_text(cid, change):
        def apply():
            old = dom.text[cid]
            dom.text[cid] = change(old)
            return lambda: dom.text.__setitem__(cid, old)
        return apply

    def move_point(d, index, dy):
        pts = re.findall(r"[ML][^ML]+", d)
        cmd, xy = pts[index][0], pts[index][1:]
        x, y = xy.split(",")
        pts[index] = f"{cmd}{x},{float(y) + dy:.2f}"
        return "".join(pts)

    def swap_curves():
        a, b = dom.by_id["scal-curve-greedy"], dom.by_id["scal-curve-predicted"]
        da, db = a["d"], b["d"]
        a["d"], b["d"] = db, da

        def undo():
            a["d"], b["d"] = da, db
        return undo

    def off_by_1pct(number, text):
        """The number 1% more (1 for 0 or null), as text."""
        x = float(number) if text not in ("null", "–") else 0.0
        return repr(round(x * 1.01, 12)) if x else "1"

    def unit_swap(text):
        return text.replace(" ms", " µs") if " ms" in text else text.replace(" µs", " ms") \
            if " µs" in text else text.replace(" strands", "") + " s"

    mutations = [
        ("the section hidden", set_attr("scalability", "hidden", lambda v: "")),
        ("no predicted curve", set_attr("scal-curve-predicted", "d", lambda v: "")),
        ("the predicted curve one point short",
         set_attr("scal-curve-predicted", "d", lambda v: "".join(re.findall(r"[ML][^ML]+",
                                                                            v)[:-1]))),
        ("a point of the predicted curve 3 px off",
         set_attr("scal-curve-predicted", "d", lambda v: move_point(v, 200, 3))),
        ("a wrong x axis label", set_text("scal-xtick-8", lambda v: "300")),
        ("an x axis label out of place", set_attr("scal-xtick-4", "x",
                                                  lambda v: f"{float(v) + 4:.2f}")),
        ("a y axis label out of place", set_attr("scal-ytick-p3", "y",
                                                 lambda v: f"{float(v) - 4:.2f}")),
        ("a wrong axis title", set_text("scal-xlabel", lambda v: "threads")),
        ("the work off by 1%", set_attr("scal-work", "data-value",
                                        lambda v: off_by_1pct(v, v))),
        ("the work shown in another unit", set_text("scal-work", unit_swap)),
        ("the span shown off by 1%", set_text(
            "scal-span", lambda v: re.sub(r"^[\d.,]+", lambda m: off_by_1pct(
                m.group(0).replace(",", ""), m.group(0)), v) if v != "–" else "1 s")),
        ("the steal cost's source reversed", set_text(
            "scal-steal-cost-note", lambda v: "as given (not measured)"
            if "not measured" not in v else "measured on this machine")),
        ("a predicted speed-up off by 0.1", set_text(
            "scal-predicted-p256", lambda v: f"{float(v) + 0.1:.2f}")),
        ("forks off by one", set_attr("scal-forks", "data-value", lambda v: str(int(v) + 1))),
        ("the analysis's name", set_text("scal-name-text", lambda v: v + "x")),
    ]
    # Swapping the greedy and predicted curves is a wrong page only where they differ by more
    # than the drawing's tolerance: with a cheap steal and few steals on the span (a measured
    # analysis can have both) the two curves coincide within a pixel.
    greedy, _ = _path_points(dom.by_id["scal-curve-greedy"]["d"], "the greedy curve")
    predicted, _ = _path_points(dom.by_id["scal-curve-predicted"]["d"], "the predicted curve")
    if len(greedy) != len(predicted) or max(
            abs(g[1] - p[1]) for g, p in zip(greedy, predicted)) > 2 * COORD_TOL:
        mutations.append(("the greedy and predicted curves swapped", swap_curves))
    if an["regions"]:
        mutations += [
            ("a region's name", set_text("scal-region-0-name", lambda v: v + "x")),
            ("a region's parallelism", set_attr("scal-region-0-parallelism", "data-value",
                                                lambda v: "2" if v == "null"
                                                else repr(2 * float(v)))),
        ]
    if an["problems"]:
        mutations.append(("a problem's text", set_text("scal-problem-0", lambda v: v[:-1])))
    for what, apply in mutations:
        undo = apply()
        try:
            compare_analysis(an, dom, alone=False)
        except Mismatch:
            pass
        else:
            raise Mismatch(f"the comparison did not notice a page with {what}")
        finally:
            undo()
    compare_analysis(an, dom, alone=False)  # and every mutation was undone
    return f"{len(mutations)} deliberately wrong scalability sections caught"


def main(argv):
    try:
        cmd, args = (argv[0], argv[1:]) if argv else ("", [])
        if cmd == "compare" and len(args) >= 2:
            opts = {}
            while len(args) >= 2 and args[-2] in ("--expected", "--analysis"):
                opts[args[-2]] = args[-1]
                args = args[:-2]
            if len(args) not in (2, 3):
                raise SystemExit(__doc__)
            fixture = None
            if "--expected" in opts:
                with open(opts["--expected"], encoding="utf-8") as f:
                    fixture = json.load(f)
            exp, dom = expected_from_trace(args[0]), read_dom(args[1])
            print("check_page: " + compare(exp, dom, fixture))
            if "--analysis" in opts:
                an = expected_from_analysis(opts["--analysis"])
                print("check_page: " + compare_analysis(an, dom, alone=False))
            else:
                check_no_analysis(dom)
            if len(args) == 3:
                print("check_page: " + check_screenshot(args[2], 1400, 1000, exp, dom))
        elif cmd == "analysis" and len(args) in (2, 3):
            an, dom = expected_from_analysis(args[0]), read_dom(args[1])
            print("check_page: " + compare_analysis(an, dom, alone=True))
            if len(args) == 3:
                print("check_page: " + check_analysis_screenshot(args[2], 1400, 1000, an, dom))
        elif cmd == "rejects" and len(args) == 2:
            print("check_page: " + check_rejects(args[0], args[1]))
        elif cmd == "selftest" and len(args) == 2:
            print("check_page: " + selftest(expected_from_trace(args[0]), read_dom(args[1])))
        elif cmd == "selftest-analysis" and len(args) == 2:
            print("check_page: " + selftest_analysis(expected_from_analysis(args[0]),
                                                     read_dom(args[1])))
        else:
            raise SystemExit(__doc__)
    except Mismatch as e:
        print(f"check_page: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
