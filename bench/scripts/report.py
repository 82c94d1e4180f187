#!/usr/bin/python3
"""Reads bench/results/results.json and prints its tables (markdown) to stdout: medians, ratios,
fib per task and peak memory (the tables of bench/journal/2026-11-22-first-suite.md).

    python3 bench/scripts/report.py [results.json]
"""

import json
import os
import sys
from collections import defaultdict

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(SCRIPTS)


def load(path=None):
    with open(path or os.path.join(BENCH, "results", "results.json")) as f:
        return json.load(f)


def medians(res):
    """{(workload, input, lib, workers, binary): (median ms, median ns/task)}."""
    out = {}
    for b in res["timing"]:
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        w, inp, lib, workers = b["run_name"].split("/")[:4]
        p = int(workers.split(":")[1])
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        out[(w, inp, lib, p, b["binary"])] = (b["real_time"] * scale, b.get("ns_per_task"))
    return out


def get(m, w, inp, lib, p, binary=None):
    """Median ms for a row; tine rows come from the workload's main (libgomp) binary."""
    binary = binary or (w + "_libomp" if lib == "libomp" else w)
    return m.get((w, inp, lib, p, binary), (None, None))


def fmt(x, digits=3):
    if x is None:
        return "–"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:.0f}"


def inputs(m):
    seen = []
    for (w, inp, *_rest) in m:
        if (w, inp) not in seen:
            seen.append((w, inp))
    order = ["fib", "integrate", "nqueens", "matmul", "uts"]
    return sorted(seen, key=lambda k: (order.index(k[0]) if k[0] in order else 99,
                                       int(k[1]) if k[1].isdigit() else 0, k[1]))


LIBS = ["serial", "tine_inline", "tine_busy", "tine_lazy", "tbb", "gomp", "libomp"]


def table_medians(m):
    print("| workload | input | P | " + " | ".join(LIBS) + " |")
    print("|---|---|---|" + "---|" * len(LIBS))
    for w, inp in inputs(m):
        for p in (1, 2):
            cells = []
            for lib in LIBS:
                ms, ns = get(m, w, inp, lib, p)
                cells.append(f"{fmt(ms)} ms ({fmt(ns)} ns)" if ms is not None else "–")
            if any(c != "–" for c in cells):
                print(f"| {w} | {inp} | {p} | " + " | ".join(cells) + " |")


def table_ratios(m):
    print("| workload | input | P | busy/TBB | busy/gomp | busy/libomp* | lazy/TBB | T1/Ts busy |"
          " T1/Ts inline | P2/P1 busy | P2/P1 lazy | P2/P1 TBB | P2/P1 gomp | P2/P1 libomp |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    r = lambda a, b: (a / b) if a and b else None
    for w, inp in inputs(m):
        ts = get(m, w, inp, "serial", 1)[0]
        if ts is None and inp.endswith("*"):
            ts = get(m, w, inp[:-1], "serial", 1)[0]
        for p in (1, 2):
            busy = get(m, w, inp, "tine_busy", p)[0]
            lazy = get(m, w, inp, "tine_lazy", p)[0]
            if busy is None:
                continue
            tbb = get(m, w, inp, "tbb", p)[0]
            gomp = get(m, w, inp, "gomp", p)[0]
            # libomp is compared with the tine_busy run of the same (libomp) process.
            lo = get(m, w, inp, "libomp", p)[0]
            busy_lo = get(m, w, inp, "tine_busy", p, w + "_libomp")[0]
            sp = lambda lib: r(
                get(m, w, inp, lib, 1, w + "_libomp" if lib == "libomp" else None)[0],
                get(m, w, inp, lib, 2, w + "_libomp" if lib == "libomp" else None)[0])
            row = [r(busy, tbb), r(busy, gomp), r(busy_lo, lo), r(lazy, tbb)]
            if p == 1:
                row += [r(busy, ts), r(get(m, w, inp, "tine_inline", 1)[0], ts)]
                row += [sp(x) for x in ("tine_busy", "tine_lazy", "tbb", "gomp", "libomp")]
            else:
                row += [None] * 7
            print(f"| {w} | {inp} | {p} | " + " | ".join(fmt(x) for x in row) + " |")


def table_fib(m):
    print("| n | tasks | serial ns/task | tine inline ns/task | TBB P=1 ns/task | tine/TBB |"
          " tine/serial |")
    print("|---|---|---|---|---|---|---|")
    for w, inp in inputs(m):
        if w != "fib":
            continue
        s = get(m, w, inp, "serial", 1)
        t = get(m, w, inp, "tine_inline", 1)
        b = get(m, w, inp, "tbb", 1)
        if None in (s[0], t[0], b[0]):
            continue
        n = int(inp)
        f = [0, 1]
        for _ in range(n + 1):
            f.append(f[-1] + f[-2])
        tasks = 2 * f[n + 1] - 1
        print(f"| {inp} | {tasks:,} | {fmt(s[1])} | {fmt(t[1])} | {fmt(b[1])} | "
              f"{t[0] / b[0]:.3f} | {t[0] / s[0]:.1f} |")


def table_memory(res):
    rows = defaultdict(dict)
    for r in res.get("memory", []):
        key = (r["workload"], r["input"], r["workers"])
        if r["status"] == "ok":
            rows[key][r["lib"]] = f"{r['max_rss_kib'] / 1024:.1f}"
        else:
            rss = f" ({r['max_rss_kib'] / 1024:.1f})" if r.get("max_rss_kib") else ""
            rows[key][r["lib"]] = r["status"] + rss
    print("| workload | input | P | " + " | ".join(LIBS) + " |")
    print("|---|---|---|" + "---|" * len(LIBS))
    for (w, inp, p), libs in rows.items():
        print(f"| {w} | {inp} | {p} | " + " | ".join(libs.get(l, "–") for l in LIBS) + " |")


def main():
    res = load(sys.argv[1] if len(sys.argv) > 1 else None)
    m = medians(res)
    print("### Medians (wall time per run, ns per task in parentheses)\n")
    table_medians(m)
    print("\n### Ratios of medians\n")
    table_ratios(m)
    print("\n### fib, the first targets' table\n")
    table_fib(m)
    print("\n### Peak memory (maximum RSS, MiB)\n")
    table_memory(res)


if __name__ == "__main__":
    main()
