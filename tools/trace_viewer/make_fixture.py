#!/usr/bin/env python3
"""Writes a deterministic synthetic tine trace, in the shape the trace observer writes, for testing
the viewer, and (optionally) the totals it put into it, tallied while generating; or, with
--analysis, a synthetic tine::analysis (tine::analysis::write_json's shape).

    make_fixture.py OUT.json [--expected EXPECTED.json] [--workers N] [--events M] [--seed S]
    make_fixture.py --analysis OUT.json

Each worker alternates busy spans, stealing spans (ending in a steal from a random victim, or in
failure and sleep) and asleep spans, and starts a little later than the one before (so the start of
its track is "unknown"). Events are shuffled (the viewer must not assume order) and include what a
viewer must tolerate: an instant name it does not know, extra fields, a counter event, and a track
name containing "</script>" (the page must embed it safely).

The analysis counts strands (analysis_options::unit_strands) and holds what the page must show
right: a fractional steal cost, a longest strand of exactly 1 strand, nulls (write_json's "not
finite") in the greedy curve and in a region, a region without span, names and problems with
"</script>", and a key the viewer does not know.
"""

import argparse
import json
import random
import sys

INSTANT_NAMES = ("submission", "stacklet_alloc", "stacklet_free", "join_suspend", "join_resume",
                 "wake")


def us(t_ns):
    return t_ns / 1000  # shortest repr of an exact ns count: round(x * 1000) gives it back


def generate(workers, target_events, seed, plain_names=False):
    rng = random.Random(seed)
    events = []
    exp = {
        "workers": workers,
        "steals": 0,
        "per_worker": [{"busy_ns": 0, "stealing_ns": 0, "asleep_ns": 0, "steals_made": 0,
                        "steals_suffered": 0, "spans": 0, "counts": {}} for _ in range(workers)],
    }

    def instant(w, t, name, args=None):
        e = {"ph": "i", "cat": "event", "name": name, "s": "t", "pid": 1, "tid": w, "ts": us(t)}
        if args is not None:
            e["args"] = args
        events.append(e)
        c = exp["per_worker"][w]["counts"]
        key = name if name in INSTANT_NAMES else "other"
        c[key] = c.get(key, 0) + 1

    def span(w, state, t, d):
        events.append({"ph": "X", "cat": "state", "name": state, "pid": 1, "tid": w, "ts": us(t),
                       "dur": us(d)})
        pw = exp["per_worker"][w]
        pw[state + "_ns"] += d
        pw["spans"] += 1

    for w in range(workers):
        name = f"worker {w}" if w != 2 or plain_names else "worker 2 </script><!-- x"
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": w,
                       "args": {"name": name}})

    clock = [3000 * w + rng.randrange(0, 500) for w in range(workers)]  # ns; staggered starts
    state = ["stealing"] * workers
    steal_id = 0
    # Events per loop step are about 3; run whole rounds over all workers until the target is met.
    while len(events) < target_events:
        for w in range(workers):
            t = clock[w]
            if state[w] == "busy":
                d = rng.randrange(4_000, 90_000)
                span(w, "busy", t, d)
                if rng.random() < 0.15:
                    instant(w, t, "submission")
                if rng.random() < 0.3:
                    instant(w, t + d // 3, "stacklet_alloc", {"bytes": 4096 << rng.randrange(4)})
                    instant(w, t + 2 * d // 3, "stacklet_free", {"bytes": 4096})
                if rng.random() < 0.3:
                    instant(w, t + d // 4, "join_suspend")
                    instant(w, t + d // 2, "join_resume")
                if rng.random() < 0.02:
                    instant(w, t + d // 5, "custom_marker", {"note": "unknown to the viewer"})
                state[w] = "stealing"
            elif state[w] == "stealing":
                d = rng.randrange(500, 12_000)
                span(w, "stealing", t, d)
                if rng.random() < 0.6:
                    v = rng.choice([x for x in range(workers) if x != w]) if workers > 1 else None
                    if v is not None:
                        ts = us(t + d)
                        events.append({"ph": "i", "cat": "steal", "name": "steal", "s": "t",
                                       "pid": 1, "tid": w, "ts": ts, "args": {"victim": v}})
                        events.append({"ph": "s", "cat": "steal", "name": "steal", "id": steal_id,
                                       "pid": 1, "tid": v, "ts": ts})
                        events.append({"ph": "f", "cat": "steal", "name": "steal", "id": steal_id,
                                       "bp": "e", "pid": 1, "tid": w, "ts": ts})
                        steal_id += 1
                        exp["steals"] += 1
                        exp["per_worker"][w]["steals_made"] += 1
                        exp["per_worker"][v]["steals_suffered"] += 1
                    state[w] = "busy"
                else:
                    state[w] = "asleep" if rng.random() < 0.5 else "stealing"
            else:
                d = rng.randrange(2_000, 60_000)
                span(w, "asleep", t, d)
                if workers > 1:
                    waker = (w + 1) % workers
                    instant(waker, t + d, "wake", {"woken": w})
                state[w] = "stealing"
            clock[w] = t + d
    # Not part of the contract but legal Chrome trace format: the viewer must skip it.
    events.append({"ph": "C", "name": "queue_depth", "pid": 1, "tid": 0, "ts": 0,
                   "args": {"depth": 3}})
    rng.shuffle(events)
    trace = {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"producer": "tine", "tine_version": "0.1.0", "workers": workers,
                      "dropped_events": 0, "clock": "steady_clock", "fixture_seed": seed},
    }
    return trace, exp


def graham(work, chain, p):
    """Graham's bound for greedy schedulers: T1 / (T1/P + (1 - 1/P) chain)."""
    return work / (work / p + (1 - 1 / p) * chain)


def analysis():
    """A tine::analysis in strands, computed here as tine::analysis computes its curves."""
    work, span, steal_cost, forks_on_chain = 2 ** 20 - 1, 2000, 2.5, 600
    burdened = span + forks_on_chain * steal_cost
    curve = []
    for p in range(1, 257):
        greedy = None if 100 <= p <= 103 else graham(work, span, p)  # a gap of 4 points
        curve.append({"p": p, "predicted": graham(work, burdened, p), "greedy": greedy,
                      "ceiling": min(p, work / span)})
    return {
        "tine_analysis": 1, "name": "synthetic </script><!-- & \"strands\"", "work": work,
        "span": span, "burdened_span": burdened, "steal_cost": steal_cost,
        "steal_cost_measured": True, "units": "strands", "runs": 1, "forks": 524287,
        "joins": 524287, "critical_strands": span, "longest_strand": 1,
        "parallelism": work / span, "burdened_parallelism": work / burdened,
        "tine_version": "not a key of the format: the viewer ignores it",
        "curve": curve,
        "regions": [
            {"name": "leaves </script>", "count": 4096, "work": 943718, "span": 12,
             "burdened_span": 30.5},
            {"name": "empty", "count": 0, "work": 0, "span": 0, "burdened_span": 0},
            {"name": "overflowed", "count": 1, "work": None, "span": None, "burdened_span": None},
        ],
        "problems": ["region \"inner\" began inside itself: <not measured>",
                     "2 of the 3 runs had another graph than the first: their strands were "
                     "left out"],
    }


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--analysis", action="store_true",
                    help="write a synthetic tine::analysis (strands) instead of a trace")
    ap.add_argument("--expected", help="also write the generator's own totals here")
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--events", type=int, default=1500, help="about this many events")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--plain-names", action="store_true",
                    help="no \"</script>\" in a track name (for pictures)")
    a = ap.parse_args(argv)
    if a.workers < 1:
        ap.error("--workers must be >= 1")
    if a.analysis:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(analysis(), f, indent=1)
        return 0
    trace, exp = generate(a.workers, a.events, a.seed, a.plain_names)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(trace, f, separators=(",", ":"))
    if a.expected:
        with open(a.expected, "w", encoding="utf-8") as f:
            json.dump(exp, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
