#!/usr/bin/python3
"""The analyzer's predicted speed-up on 2 workers against the speed-up measured on this machine.

    python3 bench/scripts/scaling_check.py                 # build (opt), then 5 rounds
    python3 bench/scripts/scaling_check.py --rounds 9 --no-build --bin DIR

For each program below: tine::analyze's parallelism and predicted speed-up on 2 workers (the
harness's --analyze, each strand's shortest time over 3 runs), then the time of one run on
busy_pool and lazy_pool at 1 and 2 workers (--plain), the runs of all programs and pools
interleaved round by round; the measured speed-up is median(1 worker) / median(2 workers).
Prints a Markdown table (bench/journal/2026-11-28-scalability-analysis.md).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(SCRIPTS)
ROOT = os.path.dirname(BENCH)

# (label, binary, analyze arguments, plain arguments for pool and workers)
def suite_plain(inp):
    """A suite program's --plain arguments on tine's pool and worker count."""
    return lambda pool, w: [f"--lib=tine_{pool}", f"--workers={w}", f"--input={inp}"]


def algorithm_plain(what):
    """An algorithm benchmark's --plain arguments on tine's pool and worker count."""
    return lambda pool, w: [f"--pool={pool}", f"--workers={w}", f"--what={what}"]


PROGRAMS = [
    ("fib(34)", "fib", ["--input=34"], suite_plain("34")),
    ("nqueens(12)", "nqueens", ["--input=12"], suite_plain("12")),
    ("UTS T1", "uts", ["--input=T1"], suite_plain("T1")),
    ("UTS T3", "uts", ["--input=T3"], suite_plain("T3")),
    ("integrate", "integrate", ["--input=1000"], suite_plain("1000")),
    ("tine::sort 10^7", "sort_bench", [], algorithm_plain("random")),
    ("tine::reduce 10^8", "algorithms_bench", ["--what=reduce"], algorithm_plain("reduce")),
]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or " ok" not in p.stdout:
        sys.exit(f"scaling_check: {' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
    return p.stdout


def field(line, key):
    return float(re.search(rf"\b{key}=([0-9.eE+-]+)", line).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--bin", default="", help="directory of the opt benchmark binaries")
    ap.add_argument("--output-base", default=os.path.expanduser("~/.cache/bazel-bench"))
    args = ap.parse_args()
    binaries = sorted({b for _, b, _, _ in PROGRAMS})
    bin_dir = args.bin
    if not bin_dir:
        base = ["bazel", "--output_base=" + args.output_base]
        if not args.no_build:
            subprocess.run(base + ["build", "--config=opt", "--symlink_prefix=/"] +
                           [f"//bench:{b}" for b in binaries], cwd=ROOT, check=True)
        bazel_bin = subprocess.run(base + ["info", "--config=opt", "bazel-bin"], cwd=ROOT,
                                   check=True, capture_output=True, text=True).stdout.strip()
        bin_dir = os.path.join(bazel_bin, "bench")
    exe = lambda b: os.path.join(bin_dir, b)

    predicted = {}
    for label, b, extra, _ in PROGRAMS:
        out = run([exe(b), "--analyze", "--repeats=3", "--workers=2"] + extra)
        line = out.strip().splitlines()[-1]
        predicted[label] = (field(line, "parallelism"), field(line, "burdened_parallelism"),
                            field(line, "predicted_2"), field(line, "run_seconds"))
        print(f"analysed {label}: {line}", file=sys.stderr, flush=True)

    times = {}
    for r in range(args.rounds):
        for label, b, _, plain in PROGRAMS:
            for pool in ("busy", "lazy"):
                for w in (1, 2):
                    out = run([exe(b), "--plain"] + plain(pool, w))
                    seconds = field(out.strip().splitlines()[-1], "seconds")
                    times.setdefault((label, pool, w), []).append(seconds)
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)

    print("| program | parallelism | burdened | predicted P=2 | busy_pool P2/P1 | lazy_pool P2/P1 "
          "| 1-worker time, busy (median) |")
    print("|---|---|---|---|---|---|---|")
    for label, _, _, _ in PROGRAMS:
        par, bpar, p2, _ = predicted[label]
        ratio = lambda pool: (statistics.median(times[(label, pool, 1)])
                              / statistics.median(times[(label, pool, 2)]))
        t1 = statistics.median(times[(label, "busy", 1)])
        print(f"| {label} | {par:.0f} | {bpar:.0f} | {p2:.3f} | {ratio('busy'):.3f} "
              f"| {ratio('lazy'):.3f} | {t1 * 1e3:.0f} ms |")
    print()
    print("| program | analysed run (fastest of 3) | uninstrumented, busy_pool(1) | slowdown |")
    print("|---|---|---|---|")
    for label, _, _, _ in PROGRAMS:
        t = predicted[label][3]
        t1 = statistics.median(times[(label, "busy", 1)])
        print(f"| {label} | {t * 1e3:.0f} ms | {t1 * 1e3:.0f} ms | {t / t1:.2f} |")


if __name__ == "__main__":
    main()
