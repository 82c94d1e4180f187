#!/usr/bin/env python3
"""Times observer_overhead binaries interleaved (the machine is shared and noisy: a round runs every
variant once, in a random order, rounds repeat) and prints medians and ratios as markdown tables.
See bench/journal/2026-11-23-observer-overhead.md.

  python3 bench/scripts/observer_overhead.py --before BIN_OF_MAIN --after BIN_OF_BRANCH \
      [--after-none BIN_OF_BRANCH_WITHOUT_OBSERVERS] [--rounds 15]
"""
import argparse
import random
import statistics
import subprocess
import sys


def run(binary, workload, pool, observer, workers, reps):
    out = subprocess.run([binary, workload, pool, observer, str(workers), str(reps)],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split()
        extra = dict(kv.split('=') for kv in f[6:])
        rows.append((float(f[4]), int(f[5]), extra))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--before', required=True, help='built against main (no observers)')
    ap.add_argument('--after', required=True, help='built against this branch (observers)')
    ap.add_argument('--after-none', help='built against this branch with -DTINE_BENCH_NO_OBSERVERS '
                    '(a program that uses no observer), for the "after, no observer" column; '
                    'default: --after')
    ap.add_argument('--after-stats', help='built with -DTINE_BENCH_ONLY_STATS (default: --after)')
    ap.add_argument('--after-trace', help='built with -DTINE_BENCH_ONLY_TRACE (default: --after)')
    ap.add_argument('--rounds', type=int, default=15)
    ap.add_argument('--reps', type=int, default=1, help='timed runs per variant and round')
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--workloads', default='fib,reduce,uts')
    ap.add_argument('--pools', default='lazy,busy')
    a = ap.parse_args()
    variants = [('before', a.before, 'none'), ('after', a.after_none or a.after, 'none'),
                ('after', a.after_stats or a.after, 'stats'),
                ('after', a.after_trace or a.after, 'trace')]
    times = {}
    extras = {}
    rng = random.Random(1)
    jobs = [(w, p, v) for w in a.workloads.split(',') for p in a.pools.split(',') for v in variants]
    for r in range(a.rounds):
        rng.shuffle(jobs)
        for w, p, (tag, binary, obs) in jobs:
            for secs, tasks, extra in run(binary, w, p, obs, a.workers, a.reps):
                times.setdefault((w, p, tag, obs), []).append(secs)
                if extra:
                    extras.setdefault((w, p), []).append((tasks, extra))
        print(f'round {r + 1}/{a.rounds} done', file=sys.stderr)
    # Medians only: on a shared virtual machine some single runs measure impossibly short times.
    for label, stat in [('median', statistics.median)]:
        print(f'\n{label}s:\n')
        print('| workload | pool | before (main) | after, no observer | ratio | stats | ratio '
              '| trace | ratio |')
        print('|---|---|---|---|---|---|---|---|---|')
        for w in a.workloads.split(','):
            for p in a.pools.split(','):
                med = {k[2:]: stat(v) for k, v in times.items() if k[:2] == (w, p)}
                base = med[('before', 'none')]
                cells = [f'{base * 1e3:.1f} ms']
                for key in [('after', 'none'), ('after', 'stats'), ('after', 'trace')]:
                    cells += [f'{med[key] * 1e3:.1f} ms', f'{med[key] / base:.3f}']
                print(f'| {w} | {p} | ' + ' | '.join(cells) + ' |')
    n = len(next(iter(times.values())))
    print(f'\n{n} timed runs per cell ({a.rounds} rounds x {a.reps}), {a.workers} workers.')
    print('\n| workload | pool | tasks | trace events (median) | events per million tasks '
          '| trace bytes (median) | bytes per event |')
    print('|---|---|---|---|---|---|---|')
    for (w, p), rows in extras.items():
        tasks = rows[0][0]
        ev = statistics.median(int(e['events']) for _, e in rows)
        by = statistics.median(int(e['bytes']) for _, e in rows)
        dropped = max(int(e['dropped']) for _, e in rows)
        print(f'| {w} | {p} | {tasks} | {ev:.0f} | {ev / tasks * 1e6:.0f} | {by:.0f} '
              f'| {by / ev:.0f} |' + (f' (dropped up to {dropped})' if dropped else ''))


if __name__ == '__main__':
    main()
