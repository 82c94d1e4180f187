#!/usr/bin/python3
"""The classic suite: every program x runtime x worker count, interleaved over rounds, with peak
memory and tine::analyze's parallelism, and a report (bench/README.md).

    python3 bench/scripts/suite.py                # build, 5 rounds of everything, analyze, report
    python3 bench/scripts/suite.py --rounds 1 --only fib,integrate
    python3 bench/scripts/suite.py --dry-run      # the plan: cells, one round's order, no runs

1. Builds each program's two binaries (W with GCC's libgomp, W_libomp with LLVM's libomp) with
   `bazel --output_base=~/.cache/bazel-bench build --config=opt --symlink_prefix=/`, as
   run_suite.py does. A program whose source or target is not there yet, or whose build fails,
   is skipped and named in the report.
2. For each round, every cell (program x runtime x workers) once, in an order shuffled per round
   from a fixed seed, so drift in the machine's state falls on all cells alike: one process per
   cell, `/usr/bin/time -v W --plain --lib=L --workers=P --input=X`, recording the program's own
   seconds (its result line), the maximum RSS, the process's wall time and the load average.
3. Once per program, `W --analyze --input=X --repeats=3 --workers=2`: work, span, parallelism,
   burdened parallelism and the predicted speed-ups.
4. Writes OUT.json (every run; rewritten after each, so an interrupted suite keeps what it ran),
   OUT.md and OUT.html (bench/scripts/suite_report.py; default OUT = bench/results/suite).

Every run must print its result line ending in "ok" (the program's check of its result) for the
runtime asked for: a wrong result, a crash, a timeout or a missing line stops the suite with the
command and its output (exit status 1) after writing what it has; --keep-going records it, goes on
and exits 1 at the end.

Runtimes: serial (1 worker), tine_busy, tine_lazy, tbb, gomp (binary W), libomp (binary
W_libomp), at 1 and 2 workers. Programs and inputs: PROGRAMS below (each program's main
bench_inputs() entry); new programs are one line there.
"""

import argparse
import datetime
import json
import os
import platform
import random
import re
import subprocess
import sys
import time

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(SCRIPTS)
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, SCRIPTS)
import suite_report  # noqa: E402

# (program, inputs): the binary //bench:PROGRAM (and PROGRAM_libomp), each input its own row.
# Each is the program's main bench_inputs() entry, sized for 0.2-2 s on one worker here; fib's 34
# puts every runtime but serial in that range (32 leaves tine below 0.2 s).
PROGRAMS = [
    ("fib", ["34"]),
    ("integrate", ["1000"]),
    ("nqueens", ["12"]),
    ("matmul", ["1024"]),
    ("uts", ["T1", "T3"]),
    ("heat", ["2048"]),
    ("knapsack", ["46"]),
    ("fft", ["22"]),
    ("cilksort", ["10000000"]),
    ("quicksort", ["10000000"]),
    ("primes", ["4000000"]),
    ("mandelbrot", ["1024"]),
    ("strassen", ["1024"]),
    ("lu", ["1024"]),
    ("cholesky", ["2048"]),
]

# (name in the report, binary suffix, --lib, worker counts)
RUNTIMES = [
    ("serial", "", "serial", [1]),
    ("tine_busy", "", "tine_busy", [1, 2]),
    ("tine_lazy", "", "tine_lazy", [1, 2]),
    ("tbb", "", "tbb", [1, 2]),
    ("gomp", "", "gomp", [1, 2]),
    ("libomp", "_libomp", "libomp", [1, 2]),
]

LINE = re.compile(r"^(?P<program>\S+) input=(?P<input>\S+) lib=(?P<lib>\S+) "
                  r"workers=(?P<workers>\d+) seconds=(?P<seconds>[0-9.eE+-]+) "
                  r"ns_per_task=(?P<ns>\S+) (?P<verdict>.*)$")


def log(msg):
    print(msg, flush=True)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[:3]
    except OSError:
        return None


def machine():
    info = {"platform": platform.platform(), "python": platform.python_version()}
    run = lambda *cmd: subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout
    try:
        ls = run("lscpu")
        for key in ["Model name", "CPU(s)", "Thread(s) per core", "L1d cache", "L2 cache",
                    "L3 cache", "Hypervisor vendor"]:
            m = re.search(rf"^{re.escape(key)}:\s*(.*)$", ls, re.M)
            if m:
                info[key] = m.group(1).strip()
        info["gcc"] = (run("g++", "--version").splitlines() or ["?"])[0]
        info["git"] = run("git", "rev-parse", "--short", "HEAD").strip()
        # A shared checkout: what the binaries were built from may differ from HEAD.
        status = run("git", "status", "--porcelain", "-uno")
        info["git_modified"] = len([l for l in status.splitlines() if l])
    except OSError:
        pass
    return info


def environment():
    return {k: v for k, v in os.environ.items()
            if k.startswith(("OMP_", "KMP_", "GOMP_", "TBB_", "TINE_"))}


# ---------------------------------------------------------------------------------------------
# Build


def has_target(program):
    """The program's source and its tine_bench entry exist (new programs land while others work)."""
    if not os.path.exists(os.path.join(BENCH, "suite", program + ".cpp")):
        return False
    with open(os.path.join(BENCH, "BUILD.bazel")) as f:
        return re.search(rf'tine_bench\(\s*name\s*=\s*"{re.escape(program)}"', f.read()) is not None


def bazel(output_base, command, *args, capture=False):
    # --symlink_prefix=/: no bazel-* symlinks in the shared workspace (others' builds own those).
    cmd = ["bazel", "--output_base=" + output_base, command, "--config=opt", "--symlink_prefix=/",
           *args]
    log("$ " + " ".join(cmd))
    p = subprocess.run(cmd, cwd=ROOT, text=True, stdout=subprocess.PIPE if capture else None)
    return p.returncode, p.stdout


def build(output_base, programs):
    """Builds W and W_libomp of every program; returns (built, [(program, why not)])."""
    targets = lambda ps: [t for p in ps for t in (f"//bench:{p}", f"//bench:{p}_libomp")]
    rc, _ = bazel(output_base, "build", *targets(programs))
    if rc == 0:
        return programs, []
    # One at a time, to find which fail (say, a program another engineer is editing).
    built, failed = [], []
    for p in programs:
        rc, _ = bazel(output_base, "build", *targets([p]))
        (built if rc == 0 else failed).append(p)
    log("!! build failed for " + ", ".join(failed) + ": skipped")
    return built, [(p, "build failed") for p in failed]


# ---------------------------------------------------------------------------------------------
# Runs


def cells_of(programs, runtimes, workers):
    """Every (program, input, runtime, P) the suite times, in table order."""
    return [(prog, inp, rt, p) for prog, inputs in programs for inp in inputs
            for rt, _suffix, _lib, ws in runtimes for p in ws if p in workers]


def order(cells, seed, round_):
    rng = random.Random(f"{seed}/{round_}")
    out = list(cells)
    rng.shuffle(out)
    return out


def time_v(stderr, key):
    m = re.search(rf"^\s*{re.escape(key)}: (.*)$", stderr, re.M)
    return m.group(1).strip() if m else None


def wall_seconds(text):
    """/usr/bin/time's "Elapsed (wall clock) time": h:mm:ss or m:ss.ss."""
    if not text:
        return None
    parts = [float(x) for x in text.split(":")]
    return sum(x * 60 ** i for i, x in enumerate(reversed(parts)))


def run(cmd, timeout):
    """(exit status, stdout, stderr) of cmd; on a timeout its whole process group is killed (the
    program under /usr/bin/time too) and subprocess.TimeoutExpired raised, with what it printed."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(cmd, timeout, output=out, stderr=err)
    return proc.returncode, out, err


def home_as_tilde(text):
    """The commands as recorded: the home directory as ~, so the results name no user's paths."""
    return text.replace(os.path.expanduser("~") + "/", "~/")


def run_cell(bin_dir, program, inp, runtime, p, reps, timeout):
    _, suffix, lib, _ = next(r for r in RUNTIMES if r[0] == runtime)
    exe = os.path.join(bin_dir, "bench", program + suffix)
    cmd = ["/usr/bin/time", "-v", exe, "--plain", f"--lib={lib}", f"--workers={p}",
           f"--input={inp}"]
    if reps > 1:
        cmd.append(f"--reps={reps}")
    rec = {"program": program, "input": inp, "runtime": runtime, "workers": p,
           "binary": program + suffix, "cmd": home_as_tilde(" ".join(cmd[2:])),
           "loadavg": loadavg()}
    t0 = time.monotonic()
    try:
        rc, stdout, stderr = run(cmd, timeout)
    except subprocess.TimeoutExpired as ex:
        rec.update(status=f"timeout after {timeout:g} s", seconds=None, max_rss_kib=None,
                   wall_s=round(time.monotonic() - t0, 3), output=(ex.stdout or "")[-300:])
        return rec
    rec["wall_s"] = wall_seconds(time_v(stderr, "Elapsed (wall clock) time (h:mm:ss or m:ss)")) \
        or round(time.monotonic() - t0, 3)
    rss = time_v(stderr, "Maximum resident set size (kbytes)")
    rec["max_rss_kib"] = int(rss) if rss else None
    lines = [LINE.match(l) for l in stdout.splitlines()]
    lines = [m for m in lines if m]
    rec["output"] = (stdout.strip().splitlines() or [""])[-1][:300]
    secs = [float(m["seconds"]) for m in lines]
    rec["all_seconds"] = secs
    # With --reps R > 1 the first run is a warm-up: the cell's time is the median of the others.
    rest = sorted(secs[1:] if len(secs) > 1 else secs)
    rec["seconds"] = rest[len(rest) // 2] if len(rest) % 2 else (
        (rest[len(rest) // 2 - 1] + rest[len(rest) // 2]) / 2 if rest else None)
    signal = re.search(r"Command terminated by signal (\d+)", stderr)
    bad = [m for m in lines if m["verdict"] != "ok"]
    if signal:
        status = f"crashed (signal {signal.group(1)})"
    elif bad:
        status = "wrong result: " + bad[0]["verdict"]
    elif rc != 0:
        status = f"exit status {rc}: " + (stderr.strip().splitlines() or [""])[0][:200]
    elif len(lines) != reps:
        status = f"{len(lines)} result lines, expected {reps}"
    elif any(m["lib"] != runtime or m["input"] != inp or int(m["workers"]) != p for m in lines):
        m = lines[0]
        status = (f"ran lib={m['lib']} input={m['input']} workers={m['workers']}, "
                  f"not {runtime} {inp} {p}")
    else:
        status = "ok"
    rec["status"] = status
    return rec


ANALYSIS_KEYS = {"work_s", "span_s", "burdened_span_s", "parallelism", "burdened_parallelism",
                 "predicted_2", "predicted_256", "steal_cost_s", "forks", "runs", "run_seconds"}


def run_analysis(bin_dir, program, inp, repeats, workers, timeout):
    exe = os.path.join(bin_dir, "bench", program)
    cmd = [exe, "--analyze", f"--input={inp}", f"--repeats={repeats}", f"--workers={workers}"]
    rec = {"program": program, "input": inp, "cmd": home_as_tilde(" ".join(cmd)),
           "loadavg": loadavg()}
    t0 = time.monotonic()
    try:
        rc, stdout, stderr = run(cmd, timeout)
    except subprocess.TimeoutExpired:
        rec.update(status=f"timeout after {timeout:g} s", wall_s=timeout)
        return rec
    rec["wall_s"] = round(time.monotonic() - t0, 3)
    line = next((l for l in stdout.splitlines() if " analysis " in l), "")
    rec["output"] = line[:400] or (stdout + stderr).strip()[-300:]
    for k, v in re.findall(r"(\w+)=(\S+)", line):
        if k in ANALYSIS_KEYS:
            try:
                rec[k] = int(v) if k in ("forks", "runs") else float(v)
            except ValueError:
                rec[k] = None
    if rc != 0 or not line:
        rec["status"] = f"exit status {rc}" + ("" if line else ", no analysis line")
    elif not line.rstrip().endswith(" ok"):
        rec["status"] = "wrong result: " + line.rsplit("run_seconds=", 1)[-1].split(" ", 1)[-1]
    else:
        rec["status"] = "ok"
    return rec


def save(raw, out):
    tmp = out + ".json.tmp"
    with open(tmp, "w") as f:
        json.dump(raw, f, indent=1)
    os.replace(tmp, out + ".json")


def finish(raw, out):
    raw["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    save(raw, out)
    suite_report.write_reports(raw, out + ".md", out + ".html")
    log(f"wrote {out}.json, {out}.md, {out}.html")


def loud(what, rec):
    bar = "!" * 78
    log(f"{bar}\n!! SUITE FAILED: {what}: {rec['status']}\n!! $ {rec['cmd']}\n"
        f"!! {rec.get('output', '')}\n{bar}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5, help="runs of every cell (medians over them)")
    ap.add_argument("--only", default="",
                    help="programs, comma-separated (fib,uts); uts:T1 for one input")
    ap.add_argument("--runtimes", default="", help="runtimes, comma-separated (default: all six)")
    ap.add_argument("--workers", default="1,2", help="worker counts (default 1,2)")
    ap.add_argument("--input", action="append", default=[], metavar="PROGRAM=X[,Y]",
                    help="inputs for a program instead of PROGRAMS' (repeatable), "
                         "e.g. --input fib=32,34")
    ap.add_argument("--reps", type=int, default=1,
                    help="runs per process (--plain --reps); above 1 the first is a warm-up "
                         "and the cell's time is the median of the rest")
    ap.add_argument("--seed", type=int, default=1, help="the rounds' shuffles")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--analyze-repeats", type=int, default=3)
    ap.add_argument("--no-analyze", action="store_true")
    ap.add_argument("--keep-going", action="store_true",
                    help="record failed runs and go on (exit 1 at the end)")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already built")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the cells and round 0's order, run nothing")
    ap.add_argument("--output-base", default=os.path.expanduser("~/.cache/bazel-bench"),
                    help="Bazel --output_base (one per concurrent user of the workspace)")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "suite"),
                    help="writes OUT.json, OUT.md, OUT.html")
    args = ap.parse_args(argv)

    programs = [(p, list(inputs)) for p, inputs in PROGRAMS]
    for spec in args.input:
        name, _, xs = spec.partition("=")
        if name not in [p for p, _ in programs] or not xs:
            ap.error(f"--input {spec}: expected PROGRAM=X with PROGRAM one of the suite's")
        programs = [(p, xs.split(",") if p == name else i) for p, i in programs]
    if args.only:
        want = set(args.only.split(","))
        unknown = {w.split(":")[0] for w in want} - {p for p, _ in programs}
        if unknown:
            ap.error("--only: unknown programs " + ", ".join(sorted(unknown)))
        programs = [(p, [i for i in inputs if p in want or f"{p}:{i}" in want])
                    for p, inputs in programs]
        programs = [(p, i) for p, i in programs if i]
    runtimes = RUNTIMES
    if args.runtimes:
        want = args.runtimes.split(",")
        runtimes = [r for r in RUNTIMES if r[0] in want]
        if len(runtimes) != len(want):
            ap.error("--runtimes: one of " + ", ".join(r[0] for r in RUNTIMES))
    workers = [int(x) for x in args.workers.split(",")]
    runtimes = [(n, s, l, [p for p in ws if p in workers]) for n, s, l, ws in runtimes]
    runtimes = [r for r in runtimes if r[3]]

    skipped = [(p, "no source or tine_bench target yet") for p, _ in programs if not has_target(p)]
    programs = [(p, i) for p, i in programs if has_target(p)]
    cells = cells_of(programs, runtimes, workers)
    if not cells:
        ap.error("nothing to run (--only, --runtimes and --workers leave no cell)")
    if args.dry_run:
        for p, why in skipped:
            log(f"skipped {p}: {why}")
        log(f"{len(cells)} cells a round x {args.rounds} rounds = {len(cells) * args.rounds} runs, "
            f"+ {0 if args.no_analyze else sum(len(i) for _, i in programs)} analyses; "
            "round 0's order:")
        for c in order(cells, args.seed, 0):
            log("  " + " ".join(map(str, c)))
        return 0

    if not args.no_build:
        built, failed = build(args.output_base, [p for p, _ in programs])
        skipped += failed
        programs = [(p, i) for p, i in programs if p in built]
    # BENCH_BIN: skip `bazel info` (which waits while another command holds the same server).
    bin_dir = os.environ.get("BENCH_BIN")
    if not bin_dir:
        rc, out = bazel(args.output_base, "info", "bazel-bin", capture=True)
        if rc != 0:
            log("!! bazel info failed")
            return 1
        bin_dir = out.strip()
    missing = [p for p, _ in programs
               if not all(os.access(os.path.join(bin_dir, "bench", p + s), os.X_OK)
                          for s in ("", "_libomp"))]
    skipped += [(p, "binaries not built") for p in missing]
    programs = [(p, i) for p, i in programs if p not in missing]
    for p, why in skipped:
        log(f"!! skipped {p}: {why}")
    cells = cells_of(programs, runtimes, workers)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    raw = {
        "suite": "tine classic suite (bench/scripts/suite.py)",
        "command": "python3 bench/scripts/suite.py "
                   + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(), "env": environment(), "bin_dir": home_as_tilde(bin_dir),
        "rounds": args.rounds, "seed": args.seed, "reps": args.reps,
        "programs": [{"program": p, "input": i} for p, inputs in programs for i in inputs],
        "runtimes": [{"name": n, "binary_suffix": s, "lib": l, "workers": ws}
                     for n, s, l, ws in runtimes],
        "skipped": [{"program": p, "why": why} for p, why in skipped],
        "runs": [], "analysis": [],
    }
    log(f"{len(cells)} cells a round, {args.rounds} rounds; writing {args.out}.json as it goes")
    failures = 0
    t_start = time.monotonic()
    try:
        for rnd in range(args.rounds):
            for k, (prog, inp, rt, p) in enumerate(order(cells, args.seed, rnd)):
                rec = run_cell(bin_dir, prog, inp, rt, p, args.reps, args.timeout)
                rec.update(round=rnd, position=k)
                raw["runs"].append(rec)
                save(raw, args.out)
                log(f"  [{rnd + 1}/{args.rounds} {k + 1:3}/{len(cells)}] {prog} {inp} {rt} P={p}: "
                    f"{rec['seconds'] if rec['seconds'] is not None else '-'} s, "
                    f"{rec.get('max_rss_kib') or '-'} KiB, {rec['status']}")
                if rec["status"] != "ok":
                    failures += 1
                    loud(f"{prog} {inp} {rt} P={p} round {rnd + 1}", rec)
                    if not args.keep_going:
                        finish(raw, args.out)
                        return 1
            done = time.monotonic() - t_start
            log(f"== round {rnd + 1} of {args.rounds} done, {done:.0f} s so far; "
                f"about {done / (rnd + 1) * (args.rounds - rnd - 1):.0f} s of rounds left")
        if not args.no_analyze:
            for prog, inputs in programs:
                for inp in inputs:
                    rec = run_analysis(bin_dir, prog, inp, args.analyze_repeats, 2,
                                       args.timeout * 4)
                    raw["analysis"].append(rec)
                    save(raw, args.out)
                    log(f"  analyze {prog} {inp}: parallelism {rec.get('parallelism')}, "
                        f"predicted on 2 {rec.get('predicted_2')}, {rec['wall_s']} s, "
                        f"{rec['status']}")
                    if rec["status"] != "ok":
                        failures += 1
                        loud(f"analyze {prog} {inp}", rec)
                        if not args.keep_going:
                            finish(raw, args.out)
                            return 1
    except KeyboardInterrupt:
        log("interrupted: writing the report of what ran")
        finish(raw, args.out)
        return 130
    finish(raw, args.out)
    if failures:
        log(f"!! {failures} runs failed (see the report's last table)")
        return 1
    log(f"all {len(raw['runs'])} runs and {len(raw['analysis'])} analyses ok in "
        f"{time.monotonic() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
