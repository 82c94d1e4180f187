#!/usr/bin/python3
"""The classic suite's report: Markdown tables and an offline HTML page from the runs of
bench/scripts/suite.py.

    python3 bench/scripts/suite_report.py [RAW.json] [--md OUT.md] [--html OUT.html]

RAW.json (default bench/results/suite.json) is what bench/scripts/suite.py writes: every timed run
(one process per program x runtime x workers x round, its own reported seconds and
/usr/bin/time -v's maximum RSS) and one tine::analyze run per program. The defaults for the
outputs are RAW's name with .md and .html. Python's standard library only: the charts are SVG
written here, inline in the page, so it opens anywhere without a network or matplotlib.

Tables (the same in both files): median time per program x runtime x workers, with the spread over
the rounds; the speed-up T(1)/T(2) per runtime beside the analyzer's parallelism and predicted
speed-up on 2 workers; time at one worker over serial; the median peak memory; tine's time over
TBB's, libgomp's and libomp's at 1 and 2 workers; runs that failed; one-worker times outside the
0.2-2 s the inputs are sized for. The page adds, per program, charts of time, speed-up and memory
per runtime (every run a dot over its median's bar) and two charts across programs.
"""

import argparse
import html
import json
import math
import os
import re
import statistics
import sys

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(SCRIPTS)
DEFAULT_RAW = os.path.join(BENCH, "results", "suite.json")

COLORS = {"serial": "#777777", "tine_inline": "#9ecae1", "tine_busy": "#08519c",
          "tine_lazy": "#3182bd", "tbb": "#e6550d", "gomp": "#31a354", "libomp": "#756bb1"}
# One-worker times the inputs are sized for (the issue: 0.2 to 2 s on one worker here).
SIZED_FOR = (0.2, 2.0)
DASH = "–"


# ---------------------------------------------------------------------------------------------
# Numbers


def fmt(x, digits=3):
    """x to `digits` significant digits, never in scientific notation; None as a dash."""
    if x is None:
        return DASH
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits:
        return f"{x:.0f}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def ratio(a, b):
    return a / b if a is not None and b else None


class Suite:
    """The raw runs, indexed: medians of seconds and RSS per (program, input, runtime, workers)."""

    def __init__(self, raw):
        self.raw = raw
        self.programs = [(p["program"], p["input"]) for p in raw.get("programs", [])]
        self.runtimes = [r["name"] for r in raw.get("runtimes", [])]
        self.workers_of = {r["name"]: r["workers"] for r in raw.get("runtimes", [])}
        self.worker_counts = sorted({p for ws in self.workers_of.values() for p in ws})
        self.runs = raw.get("runs", [])
        self.ok = {}
        self.bad = {}
        for r in self.runs:
            key = (r["program"], r["input"], r["runtime"], r["workers"])
            (self.ok if r["status"] == "ok" else self.bad).setdefault(key, []).append(r)
        self.analysis = {(a["program"], a["input"]): a for a in raw.get("analysis", [])}

    def seconds(self, program, inp, runtime, p):
        return [r["seconds"] for r in self.ok.get((program, inp, runtime, p), [])]

    def rss_mib(self, program, inp, runtime, p):
        return [r["max_rss_kib"] / 1024 for r in self.ok.get((program, inp, runtime, p), [])
                if r.get("max_rss_kib") is not None]

    def time(self, program, inp, runtime, p):
        xs = self.seconds(program, inp, runtime, p)
        return statistics.median(xs) if xs else None

    def memory(self, program, inp, runtime, p):
        xs = self.rss_mib(program, inp, runtime, p)
        return statistics.median(xs) if xs else None

    def speedup(self, program, inp, runtime):
        """T(1)/T(2) of one runtime's medians."""
        return ratio(self.time(program, inp, runtime, 1), self.time(program, inp, runtime, 2))

    def failed(self, program, inp, runtime, p):
        return len(self.bad.get((program, inp, runtime, p), []))

    def has(self, runtime, p):
        return runtime in self.workers_of and p in self.workers_of[runtime]


# ---------------------------------------------------------------------------------------------
# Tables: (title, text, header, rows); rendered as Markdown and as HTML.


def time_cell(s, program, inp, rt, p):
    if not s.has(rt, p):
        return DASH
    xs = s.seconds(program, inp, rt, p)
    bad = s.failed(program, inp, rt, p)
    if not xs:
        return f"failed ({bad})" if bad else DASH
    med = statistics.median(xs)
    text = fmt(med)
    if len(xs) > 1 and med > 0:
        text += f" ({(max(xs) - min(xs)) / med * 100:.0f}%)"
    if bad:
        text += f" [{bad} failed]"
    return text


def table_times(s):
    rows = []
    for program, inp in s.programs:
        for p in s.worker_counts:
            cells = [time_cell(s, program, inp, rt, p) for rt in s.runtimes]
            if any(c != DASH for c in cells):
                rows.append([program, inp, str(p)] + cells)
    return ("Median time (s)",
            "The program's own seconds for one run (its `--plain` line), median over the rounds; "
            "in parentheses the spread over the rounds, (max − min)/median.",
            ["program", "input", "P"] + s.runtimes, rows)


def table_speedup(s):
    parallel = [rt for rt in s.runtimes if s.has(rt, 1) and s.has(rt, 2)]
    rows = []
    for program, inp in s.programs:
        a = s.analysis.get((program, inp), {})
        ok = a.get("status") == "ok"
        get = lambda k: a.get(k) if ok else None
        rows.append([program, inp] + [fmt(s.speedup(program, inp, rt)) for rt in parallel]
                    + [fmt(get("parallelism")), fmt(get("burdened_parallelism")),
                       fmt(get("predicted_2"))])
    return ("Speed-up on 2 workers, T(1)/T(2), against the analyzer's",
            "Each runtime's median at 1 worker over its median at 2. The last three columns are "
            "tine::analyze's (`--analyze --repeats=3 --workers=2`, tine's task): work/span, "
            "work/burdened span, and its predicted speed-up on 2 workers.",
            ["program", "input"] + parallel + ["parallelism", "burdened parallelism",
                                               "predicted P=2"], rows)


def table_overhead(s):
    one = [rt for rt in s.runtimes if rt != "serial" and s.has(rt, 1)]
    rows = []
    for program, inp in s.programs:
        ts = s.time(program, inp, "serial", 1)
        rows.append([program, inp] + [fmt(ratio(s.time(program, inp, rt, 1), ts)) for rt in one])
    return ("One worker against serial, T(1)/T(serial)",
            "Medians: what a runtime's tasks cost over the serial projection's plain calls.",
            ["program", "input"] + one, rows)


def table_memory(s):
    rows = []
    for program, inp in s.programs:
        for p in s.worker_counts:
            cells = []
            for rt in s.runtimes:
                m = s.memory(program, inp, rt, p) if s.has(rt, p) else None
                cells.append(f"{m:.1f}" if m is not None else
                             (f"failed ({s.failed(program, inp, rt, p)})"
                              if s.has(rt, p) and s.failed(program, inp, rt, p) else DASH))
            if any(c != DASH for c in cells):
                rows.append([program, inp, str(p)] + cells)
    return ("Peak memory (MiB)",
            "Maximum resident set size from `/usr/bin/time -v`, median over the rounds (the whole "
            "process: input, result and the check included).",
            ["program", "input", "P"] + s.runtimes, rows)


RATIOS = [("tine_busy", "tbb"), ("tine_busy", "gomp"), ("tine_busy", "libomp"),
          ("tine_lazy", "tbb"), ("tine_lazy", "gomp"), ("tine_lazy", "libomp")]


def table_ratios(s):
    pairs = [(a, b) for a, b in RATIOS if a in s.runtimes and b in s.runtimes]
    rows = []
    for program, inp in s.programs:
        for p in s.worker_counts:
            cells = [fmt(ratio(s.time(program, inp, a, p), s.time(program, inp, b, p)))
                     for a, b in pairs]
            if any(c != DASH for c in cells):
                rows.append([program, inp, str(p)] + cells)
    names = lambda rt: {"tine_busy": "busy", "tine_lazy": "lazy", "tbb": "TBB"}.get(rt, rt)
    return ("tine against TBB and OpenMP",
            "Ratios of median times at the same worker count; below 1, tine is faster. gomp is "
            "GCC's libgomp (binary W), libomp LLVM's (binary W_libomp, the same object code).",
            ["program", "input", "P"] + [f"{names(a)}/{names(b)}" for a, b in pairs], rows)


def table_failures(s):
    rows = []
    for r in s.runs:
        if r["status"] != "ok":
            rows.append([r["program"], r["input"], r["runtime"], str(r["workers"]),
                         str(r["round"] + 1) if "round" in r else "", r["status"],
                         (r.get("output") or "")[:160]])
    for a in s.raw.get("analysis", []):
        if a.get("status") != "ok":
            rows.append([a["program"], a["input"], "analyze", "2", "", a.get("status", "?"),
                         (a.get("output") or "")[:160]])
    for sk in s.raw.get("skipped", []):
        rows.append([sk["program"], DASH, DASH, DASH, DASH, "skipped", sk.get("why", "")])
    return ("Runs that failed or were skipped", "", ["program", "input", "runtime", "P", "round",
                                                     "status", "output"], rows)


def table_out_of_range(s):
    lo, hi = SIZED_FOR
    rows = []
    for program, inp in s.programs:
        for rt in s.runtimes:
            t = s.time(program, inp, rt, 1)
            if t is not None and not lo <= t <= hi:
                rows.append([program, inp, rt, fmt(t), "below" if t < lo else "above"])
    return (f"One-worker times outside {fmt(lo)}-{fmt(hi)} s",
            "The inputs are each program's main bench input (`bench_inputs()`), sized for 0.2 to "
            "2 s on one worker; these medians fall outside that.",
            ["program", "input", "runtime", "median (s)", ""], rows)


def tables(s):
    return [table_times(s), table_speedup(s), table_overhead(s), table_memory(s), table_ratios(s),
            table_out_of_range(s), table_failures(s)]


def md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(header, rows):
    out = ["| " + " | ".join(md_cell(h) for h in header) + " |",
           "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def html_table(header, rows):
    e = html.escape
    out = ["<table>", "<tr>" + "".join(f"<th>{e(str(h))}</th>" for h in header) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# The run's conditions


def conditions(s):
    raw = s.raw
    m = raw.get("machine", {})
    loads = [float(r["loadavg"][0]) for r in s.runs if r.get("loadavg")]
    walls = [r.get("wall_s") or 0 for r in s.runs]
    lines = [
        f"- command: `{raw.get('command', '?')}`",
        f"- started {raw.get('started', '?')}, finished {raw.get('finished', 'not (interrupted)')}",
        f"- rounds: {raw.get('rounds', '?')} (seed {raw.get('seed', '?')}), "
        f"{len(s.programs)} program inputs of "
        f"{sum(len(v) for v in s.workers_of.values())} cells each, "
        f"{len(s.runs)} runs, {sum(1 for r in s.runs if r['status'] == 'ok')} ok; "
        f"processes' wall time {sum(walls):.0f} s",
        f"- machine: {m.get('Model name', '?')}, {m.get('CPU(s)', '?')} CPUs; {m.get('gcc', '?')}; "
        f"git {m.get('git', '?')}" + (f" with {m['git_modified']} modified files"
                                      if m.get("git_modified") else ""),
    ]
    if loads:
        lines.append(f"- load average (1 min) before each run: {min(loads):.2f} to "
                     f"{max(loads):.2f}, median {statistics.median(loads):.2f}")
    if raw.get("env"):
        lines.append("- environment: "
                     + ", ".join(f"`{k}={v}`" for k, v in sorted(raw["env"].items())))
    return lines


def markdown(s):
    out = ["# The classic suite", ""] + conditions(s) + [""]
    for title, text, header, rows in tables(s):
        if not rows and title.startswith(("Runs that", "One-worker times")):
            out += [f"## {title}", "", "None.", ""]
            continue
        out += ([f"## {title}", ""] + ([text, ""] if text else [])
                + [markdown_table(header, rows), ""])
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# SVG charts


def nice_ticks(top, n=5):
    """Ticks from 0 to at least `top`, steps of 1, 2 or 5 x 10^k."""
    if top <= 0:
        top = 1.0
    raw_step = top / n
    mag = 10 ** math.floor(math.log10(raw_step))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw_step)
    count = math.ceil(top / step - 1e-9)
    return [i * step for i in range(count + 1)]


def bar_chart(title, categories, series, ylabel, hlines=(), width=380, height=250):
    """Grouped bars: one group per category, one bar per series (in order).

    series: [{"name", "values": [per category or None], "points": [[per category]] (optional,
    drawn as dots), "color": a colour or one per category, "opacity", "unit"}].
    hlines: [(y, label, dash)] reference lines across the chart.
    """
    e = html.escape
    left, right, top, bottom = 48, 8, 26, 58
    pw, ph = width - left - right, height - top - bottom
    ys = [v for sr in series for v in sr["values"] if v is not None]
    ys += [x for sr in series for pts in sr.get("points", []) for x in pts]
    ys += [y for y, _, _ in hlines if y is not None]
    ticks = nice_ticks(max(ys) if ys else 1.0)
    ymax = ticks[-1]
    yof = lambda v: top + ph - (v / ymax) * ph
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" '
           f'font-size="10">',
           f'<title>{e(title)}</title>',
           f'<text x="{width / 2:.1f}" y="14" text-anchor="middle" font-size="12" '
           f'font-weight="bold">{e(title)}</text>']
    for t in ticks:
        y = yof(t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" '
                   'stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end">{round(t, 9):g}</text>')
    out.append(f'<text transform="translate(11,{top + ph / 2:.1f}) rotate(-90)" '
               f'text-anchor="middle">{e(ylabel)}</text>')
    ncat = max(1, len(categories))
    gw = pw / ncat
    nser = max(1, len(series))
    bw = gw * 0.8 / nser
    for i, cat in enumerate(categories):
        gx = left + i * gw + gw * 0.1
        for j, sr in enumerate(series):
            v = sr["values"][i]
            x = gx + j * bw
            color = sr["color"][i] if isinstance(sr["color"], list) else sr["color"]
            label = f"{cat}, {sr['name']}"
            if v is None:
                mark = sr.get("missing", [None] * ncat)[i]
                if mark:
                    out.append(f'<text x="{x + bw / 2:.1f}" y="{top + ph - 3:.1f}" '
                               f'text-anchor="middle" fill="#c00">{e(mark)}'
                               f'<title>{e(label)}: {e(mark)}</title></text>')
                continue
            y = yof(v)
            out.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{max(bw - 1, 1):.1f}" '
                       f'height="{top + ph - y:.1f}" fill="{color}" '
                       f'fill-opacity="{sr.get("opacity", 1)}"><title>{e(label)}: {fmt(v)}'
                       f'{e(sr.get("unit", ""))}</title></rect>')
            for pt in sr.get("points", [[]] * ncat)[i]:
                out.append(f'<circle cx="{x + bw / 2:.1f}" cy="{yof(pt):.1f}" r="1.8" '
                           f'fill="#000" fill-opacity="0.6"/>')
        lx, ly = left + i * gw + gw / 2, top + ph + 10
        out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="end" '
                   f'transform="rotate(-35 {lx:.1f} {ly:.1f})">{e(cat)}</text>')
    for k, (y, label, dash) in enumerate(hlines):
        if y is None:
            continue
        out.append(f'<line x1="{left}" y1="{yof(y):.1f}" x2="{left + pw}" y2="{yof(y):.1f}" '
                   f'stroke="#333" stroke-dasharray="{dash}"><title>{e(label)}: {fmt(y)}</title>'
                   f'</line>')
        # Labels alternate right and left, so two lines close together stay readable.
        x, anchor = (left + pw - 2, "end") if k % 2 == 0 else (left + 4, "start")
        out.append(f'<text x="{x}" y="{yof(y) - 3:.1f}" text-anchor="{anchor}" '
                   f'fill="#333">{e(label)}</text>')
    out.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" '
               'stroke="#000"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#000"/>')
    out.append("</svg>")
    return "\n".join(out)


def legend(items):
    """An HTML legend: [(colour, opacity, label)]."""
    e = html.escape
    return '<p class="legend">' + " ".join(
        f'<span><svg width="12" height="12"><rect width="12" height="12" fill="{c}" '
        f'fill-opacity="{o}"/></svg> {e(label)}</span>' for c, o, label in items) + "</p>"


def per_worker_series(s, program, inp, value, points, unit):
    """Bars per runtime, one series per worker count (lighter: fewer workers)."""
    out = []
    for k, p in enumerate(s.worker_counts):
        vals, pts, missing = [], [], []
        for rt in s.runtimes:
            has = s.has(rt, p)
            vals.append(value(program, inp, rt, p) if has else None)
            pts.append(points(program, inp, rt, p) if has else [])
            failed = has and vals[-1] is None and s.failed(program, inp, rt, p)
            missing.append("✗" if failed else None)
        out.append({"name": f"P={p}", "values": vals, "points": pts, "missing": missing,
                    "color": [COLORS.get(rt, "#444") for rt in s.runtimes],
                    "opacity": 0.45 if k + 1 < len(s.worker_counts) else 1.0, "unit": unit})
    return out


def program_charts(s, program, inp):
    name = f"{program} {inp}"
    time_svg = bar_chart(f"{name}: time", s.runtimes,
                         per_worker_series(s, program, inp, s.time, s.seconds, " s"), "seconds")
    parallel = [rt for rt in s.runtimes if s.has(rt, 1) and s.has(rt, 2)]
    a = s.analysis.get((program, inp), {})
    predicted = a.get("predicted_2") if a.get("status") == "ok" else None
    speed_svg = bar_chart(
        f"{name}: speed-up T(1)/T(2)", parallel,
        [{"name": "T(1)/T(2)", "values": [s.speedup(program, inp, rt) for rt in parallel],
          "color": [COLORS.get(rt, "#444") for rt in parallel], "unit": "x"}],
        "speed-up", hlines=[(2.0, "ideal", "2,2"), (predicted, "analyzer's prediction", "6,3")])
    mem_svg = bar_chart(f"{name}: peak memory", s.runtimes,
                        per_worker_series(s, program, inp, s.memory, s.rss_mib, " MiB"), "MiB")
    return [time_svg, speed_svg, mem_svg]


def summary_charts(s):
    names = [f"{p} {i}" for p, i in s.programs]
    parallel = [rt for rt in s.runtimes if s.has(rt, 1) and s.has(rt, 2)]
    width = max(600, 40 + 14 * len(names) * max(1, len(parallel)))
    speed = bar_chart("Speed-up T(1)/T(2), every program", names,
                      [{"name": rt, "values": [s.speedup(p, i, rt) for p, i in s.programs],
                        "color": COLORS.get(rt, "#444"), "unit": "x"} for rt in parallel],
                      "speed-up", hlines=[(2.0, "ideal", "2,2")], width=width, height=300)
    charts = [speed]
    if "tine_busy" in s.runtimes:
        others = [rt for rt in s.runtimes if rt not in ("tine_busy", "serial") and s.has(rt, 2)]
        rel = bar_chart("Time on 2 workers over tine_busy's (above 1: slower than tine_busy)",
                        names,
                        [{"name": rt,
                          "values": [ratio(s.time(p, i, rt, 2), s.time(p, i, "tine_busy", 2))
                                     for p, i in s.programs],
                          "color": COLORS.get(rt, "#444"), "unit": "x"} for rt in others],
                        "T / T(tine_busy)", hlines=[(1.0, "tine_busy", "2,2")], width=width,
                        height=300)
        charts.append(rel)
    return charts


CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 8px; }
.legend span { margin-right: 1em; font-size: 13px; }
"""


def html_page(s):
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>tine: the classic suite</title>", f"<style>{CSS}</style></head><body>",
           "<h1>The classic suite</h1>", "<ul>"]
    out += ["<li>" + re.sub(r"`([^`]*)`", r"<code>\1</code>", e(line[2:])) + "</li>"
            for line in conditions(s)]
    out.append("</ul>")
    out.append(legend([(COLORS.get(rt, "#444"), 1, rt) for rt in s.runtimes]))
    out.append("<p>Per program: lighter bars 1 worker, darker 2; dots are the single runs; "
               "✗ a cell whose every run failed. Hover for values.</p>")
    out.append("<h2>Across programs</h2>")
    out.append('<div class="charts">' + "\n".join(summary_charts(s)) + "</div>")
    out.append("<h2>Per program</h2>")
    for program, inp in s.programs:
        out.append(f'<h3 id="{e(program)}-{e(inp)}">{e(program)} {e(inp)}</h3>')
        out.append('<div class="charts">' + "\n".join(program_charts(s, program, inp)) + "</div>")
    out.append("<h2>Tables</h2>")
    for title, text, header, rows in tables(s):
        out.append(f"<h3>{e(title)}</h3>")
        if text:
            out.append(f"<p>{e(text)}</p>")
        out.append(html_table(header, rows) if rows else "<p>None.</p>")
    out.append("</body></html>")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------


def write_reports(raw, md_path, html_path):
    s = Suite(raw)
    with open(md_path, "w") as f:
        f.write(markdown(s))
    with open(html_path, "w") as f:
        f.write(html_page(s))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw", nargs="?", default=DEFAULT_RAW)
    ap.add_argument("--md")
    ap.add_argument("--html")
    args = ap.parse_args(argv)
    stem = os.path.splitext(args.raw)[0]
    md_path, html_path = args.md or stem + ".md", args.html or stem + ".html"
    with open(args.raw) as f:
        raw = json.load(f)
    write_reports(raw, md_path, html_path)
    print(f"wrote {md_path} and {html_path}")


if __name__ == "__main__":
    sys.exit(main())
