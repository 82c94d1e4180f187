#!/usr/bin/python3
"""Runs tine's benchmark suite (bench/README.md) and writes bench/results/results.json.

    python3 bench/scripts/run_suite.py            # build (--config=opt), time everything, memory
    python3 bench/scripts/run_suite.py --full     # also T1L and T3L (minutes per library)
    python3 bench/scripts/run_suite.py --only fib,uts --reps 3 --no-memory

Timing: each workload's Google Benchmark binary runs every library side by side in one process
(OpenMP = libgomp), then the libomp binary runs tine_busy and libomp side by side. Memory: every
library x worker count runs once in its own process under /usr/bin/time -v (maximum RSS).
Prints a line per benchmark; raw Google Benchmark JSON goes to bench/results/raw/.
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(SCRIPTS)
ROOT = os.path.dirname(BENCH)
RESULTS = os.path.join(BENCH, "results")

# Google Benchmark filters (regexes on "workload/input/library/workers:P").
TIMING = {
    # Issue 2's table (fib 30..38: serial, tine inline, TBB one thread) plus the whole matrix at 32.
    "fib": r"^fib/(30|34|36|38)/(serial|tine_inline|tbb)/workers:1/|^fib/32/",
    "integrate": r"",
    "nqueens": r"",
    "matmul": r"",
    "uts": r"^uts/(T1|T1\*|T3|T3\*)/",
    "heat": r"",
    "knapsack": r"",
    "fft": r"",
    "cilksort": r"",
    "quicksort": r"",
    "primes": r"",
    "mandelbrot": r"",
    "strassen": r"",
    "lu": r"",
    "cholesky": r"",
}
TIMING_FULL = {"uts": r"^uts/(T1L|T1L\*|T3L|T3L\*)/"}
LIBOMP_FILTER = r"(tine_busy|libomp)/"

# (workload, input) measured for peak RSS; T1L/T3L only with --full.
MEMORY = [("fib", "32"), ("uts", "T1"), ("uts", "T3"), ("heat", "2048"), ("knapsack", "46"),
          ("fft", "22"), ("cilksort", "10000000"), ("quicksort", "10000000"),
          ("primes", "4000000"), ("mandelbrot", "1024"), ("strassen", "1024"), ("lu", "1024"),
          ("cholesky", "2048")]
MEMORY_FULL = [("uts", "T1L"), ("uts", "T3L")]
LIBS = [("serial", [1]), ("tine_inline", [1]), ("tine_busy", [1, 2]), ("tine_lazy", [1, 2]),
        ("tbb", [1, 2]), ("gomp", [1, 2]), ("libomp", [1, 2])]


def log(msg):
    print(msg, flush=True)


BIN = None  # bazel-bin of the opt config under our output base


def bazel(output_base, *args):
    # --symlink_prefix=/: no bazel-* symlinks in the workspace (others' builds own those).
    cmd = ["bazel", "--output_base=" + output_base, args[0], "--config=opt", "--symlink_prefix=/",
           *args[1:]]
    log("$ " + " ".join(cmd))
    return subprocess.run(cmd, cwd=ROOT, check=True,
                          stdout=subprocess.PIPE if args[0] == "info" else None, text=True).stdout


def binary(name):
    return os.path.join(BIN, "bench", name)


def run_timing(workload, flt, reps, min_time, raw_dir, tag):
    """Runs one binary, streaming Google Benchmark's console output (a line per benchmark)."""
    out = os.path.join(raw_dir, f"{workload}{tag}.json")
    exe = binary(workload + ("_libomp" if tag.startswith("_libomp") else ""))
    cmd = [exe, f"--benchmark_repetitions={reps}", "--benchmark_display_aggregates_only=true",
           f"--benchmark_min_time={min_time}", f"--benchmark_out={out}",
           "--benchmark_out_format=json", "--benchmark_counters_tabular=false"]
    if flt:
        cmd.append(f"--benchmark_filter={flt}")
    if "full" in tag:
        cmd.append("--full")
    log("$ " + " ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        # One progress line per benchmark: its median.
        if ("_median" in line or (reps == 1 and line.startswith(workload + "/")) or "ERROR" in line
                or "error" in line):
            log(f"  [{datetime.datetime.now():%H:%M:%S}] " + re.sub(r"\s+", " ", line.strip()))
    if proc.wait() != 0:
        log(f"  {workload}{tag}: exit status {proc.returncode}")
    try:
        with open(out) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"benchmarks": []}


def run_memory(workload, inp, lib, workers, timeout):
    exe = binary(workload + ("_libomp" if lib == "libomp" else ""))
    cmd = ["/usr/bin/time", "-v", exe, "--plain", f"--lib={lib}", f"--workers={workers}",
           f"--input={inp}"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": timeout}
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    status = "ok" if p.returncode == 0 and " ok" in p.stdout else (
        f"exit {p.returncode}" + (" (signal)" if "signal" in p.stderr else ""))
    tail = (p.stdout.strip().splitlines() or [""])[-1]
    if p.returncode != 0:
        m = re.search(r"Command terminated by signal (\d+)", p.stderr)
        if m:
            status = f"crashed (signal {m.group(1)})"
    return {"status": status, "max_rss_kib": int(rss.group(1)) if rss else None,
            "seconds": round(time.time() - t0, 3), "output": tail}


def machine():
    info = {"platform": platform.platform()}
    try:
        ls = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for key in ["Model name", "CPU(s)", "Thread(s) per core", "L1d cache", "L2 cache",
                    "L3 cache", "Hypervisor vendor"]:
            m = re.search(rf"^{re.escape(key)}:\s*(.*)$", ls, re.M)
            if m:
                info[key] = m.group(1).strip()
        info["gcc"] = subprocess.run(["g++", "--version"], capture_output=True,
                                     text=True).stdout.splitlines()[0]
        info["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                     capture_output=True, text=True).stdout.strip()
        info["loadavg_at_start"] = open("/proc/loadavg").read().split()[:3]
    except OSError:
        pass
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="also T1L/T3L (timing and memory)")
    ap.add_argument("--only", default="",
                    help="comma-separated workloads (fib,integrate,nqueens,matmul,uts)")
    ap.add_argument("--reps", type=int, default=5,
                    help="Google Benchmark repetitions (medians are reported)")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="--benchmark_min_time per repetition")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--memory-timeout", type=float, default=600)
    ap.add_argument("--big-trees", default="T1L,T3L",
                    help="with --full: which big UTS trees to measure")
    ap.add_argument("--output-base", default=os.path.expanduser("~/.cache/bazel-bench"),
                    help="Bazel --output_base (one per concurrent user of the workspace)")
    ap.add_argument("--out", default=os.path.join(RESULTS, "results.json"))
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    want = lambda w: not only or w in only

    global BIN
    if not args.no_build:
        bazel(args.output_base, "build", "//bench/...")
    # BENCH_BIN: skip `bazel info` (which waits while another command holds the same server).
    BIN = os.environ.get("BENCH_BIN") or bazel(args.output_base, "info", "bazel-bin").strip()
    raw_dir = os.path.join(RESULTS, "raw")
    os.makedirs(raw_dir, exist_ok=True)

    results = {"machine": machine(),
               "started": datetime.datetime.now().isoformat(timespec="seconds"),
               "command": " ".join(sys.argv), "reps": args.reps, "timing": [], "memory": []}
    if os.path.exists(args.out):  # keep what this run does not redo (e.g. --only, --no-memory)
        with open(args.out) as f:
            old = json.load(f)
    else:
        old = {}

    if not args.no_timing:
        for w, flt in TIMING.items():
            if not want(w):
                continue
            jobs = [("", flt), ("_libomp", f"({flt}).*" + LIBOMP_FILTER if flt else LIBOMP_FILTER)]
            if args.full and w in TIMING_FULL:
                jobs += [("_full", TIMING_FULL[w]),
                         ("_libomp_full", TIMING_FULL[w] + ".*" + LIBOMP_FILTER)]
            for tag, f in jobs:
                log(f"== timing {w}{tag}")
                data = run_timing(w, f, args.reps, args.min_time, raw_dir, tag)
                results.setdefault("context", data.get("context"))
                for b in data["benchmarks"]:
                    b["binary"] = w + ("_libomp" if tag.startswith("_libomp") else "")
                    results["timing"].append(b)
    else:
        results["timing"] = old.get("timing", [])

    if not args.no_memory:
        big = [(w, i) for w, i in MEMORY_FULL if i in args.big_trees.split(",")]
        for w, inp in MEMORY + (big if args.full else []):
            if not want(w):
                continue
            for lib, ws in LIBS:
                for p in ws:
                    if inp in ("T1L", "T3L") and p == 1 and lib not in ("serial",):
                        continue  # the big trees: 2 workers (and the serial baseline) only
                    r = run_memory(w, inp, lib, p, args.memory_timeout)
                    r.update({"workload": w, "input": inp, "lib": lib, "workers": p})
                    results["memory"].append(r)
                    log(f"  memory {w} {inp} {lib} P={p}: {r['status']} max RSS "
                        f"{r.get('max_rss_kib')} KiB in {r['seconds']} s")
    else:
        results["memory"] = old.get("memory", [])

    if only and old:  # merge: keep other workloads' rows from the previous results file
        keep = lambda rows, key: [r for r in rows if r.get(key, "").split("/")[0] not in only]
        if not args.no_timing:
            results["timing"] = keep(old.get("timing", []), "name") + results["timing"]
        if not args.no_memory:
            results["memory"] = ([r for r in old.get("memory", []) if r["workload"] not in only]
                                 + results["memory"])
    results["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
