#!/usr/bin/python3
"""Charts from bench/results/results.json (run with Debian's python:
/usr/bin/python3 bench/scripts/plot.py).

Writes speedup.svg, time_per_task.svg, fib_per_task.svg and memory.svg into bench/results/.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(SCRIPTS)
OUT = os.path.join(BENCH, "results")  # generated: ignored by git
COLORS = {"serial": "#777777", "tine_inline": "#9ecae1", "tine_busy": "#08519c",
          "tine_lazy": "#3182bd", "tbb": "#e6550d", "gomp": "#31a354", "libomp": "#756bb1"}


def speedup(m):
    keys = [k for k in report.inputs(m) if not (k[0] == "fib" and k[1] != "32")]
    n = len(keys)
    cols = 4
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, (w, inp) in zip(axes.flat, keys):
        ts = (report.get(m, w, inp, "serial", 1)[0]
              or report.get(m, w, inp.rstrip("*"), "serial", 1)[0])
        for lib in ["tine_busy", "tine_lazy", "tbb", "gomp", "libomp"]:
            ys = [report.get(m, w, inp, lib, p)[0] for p in (1, 2)]
            if ts and all(ys):
                ax.plot([1, 2], [ts / y for y in ys], "o-", color=COLORS[lib], label=lib)
        ax.plot([1, 2], [1, 2], ":", color="#bbbbbb", label="linear")
        ax.set_title(f"{w} {inp}")
        ax.set_xticks([1, 2])
        ax.set_xlabel("workers")
        ax.set_ylabel("speedup Ts/Tp")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Speedup over the serial projection (medians)")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "speedup.svg"))


def per_task(m):
    keys = [k for k in report.inputs(m)
            if not (k[0] == "fib" and k[1] != "32") and not k[1].endswith("*")]
    libs = ["serial", "tine_inline", "tine_busy", "tine_lazy", "tbb", "gomp", "libomp"]
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(libs)
    for i, lib in enumerate(libs):
        ys = [report.get(m, w, inp, lib, 1)[1] or 0 for w, inp in keys]
        ax.bar([x + i * width for x in range(len(keys))], ys, width, color=COLORS[lib], label=lib)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(keys))])
    ax.set_xticklabels([f"{w} {inp}" for w, inp in keys])
    ax.set_yscale("log")
    ax.set_ylabel("ns per task, one worker (log)")
    ax.legend(fontsize=7, ncol=4)
    ax.set_title("Time per task at one worker (medians)")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "time_per_task.svg"))


def fib_table(m):
    fig, ax = plt.subplots(figsize=(6, 4))
    for lib in ["serial", "tine_inline", "tbb"]:
        pts = [(int(inp), report.get(m, "fib", inp, lib, 1)[1])
               for w, inp in report.inputs(m) if w == "fib"]
        pts = [(x, y) for x, y in pts if y]
        ax.plot([x for x, _ in pts], [y for _, y in pts], "o-", color=COLORS[lib],
                label=lib + " (1 thread)")
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("ns per task (log)")
    ax.set_title("fib(n): time per task")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "fib_per_task.svg"))


def memory(res):
    rows = [r for r in res.get("memory", [])
            if r["workers"] == 2 or r["lib"] in ("serial", "tine_inline")]
    inputs = []
    for r in rows:
        if (r["workload"], r["input"]) not in inputs:
            inputs.append((r["workload"], r["input"]))
    libs = ["serial", "tine_inline", "tine_busy", "tine_lazy", "tbb", "gomp", "libomp"]
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(libs)
    for i, lib in enumerate(libs):
        xs, ys, bad = [], [], []
        for j, key in enumerate(inputs):
            for r in rows:
                if (r["workload"], r["input"]) == key and r["lib"] == lib:
                    xs.append(j + i * width)
                    ys.append((r.get("max_rss_kib") or 0) / 1024)
                    if r["status"] != "ok":
                        bad.append((j + i * width, r["status"]))
        ax.bar(xs, ys, width, color=COLORS[lib], label=lib)
        for x, s in bad:
            ax.text(x, 1, s.split()[0], rotation=90, fontsize=7, va="bottom", ha="center",
                    color="red")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(inputs))])
    ax.set_xticklabels([f"{w} {i}" for w, i in inputs])
    ax.set_yscale("log")
    ax.set_ylabel("max RSS, MiB (log)")
    ax.set_title("Peak memory at 2 workers (serial and tine_inline: 1), separate processes")
    ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "memory.svg"))


def main():
    res = report.load(sys.argv[1] if len(sys.argv) > 1 else None)
    m = report.medians(res)
    speedup(m)
    per_task(m)
    fib_table(m)
    memory(res)
    print("wrote speedup.svg, time_per_task.svg, fib_per_task.svg and memory.svg in " + OUT)


if __name__ == "__main__":
    main()
