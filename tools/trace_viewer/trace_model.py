"""Reads a tine scheduler trace (Chrome trace event format, object form) or a tine::analysis JSON
(what tine::analysis::write_json writes) and checks it against the contract in
docs/trace_viewer.md; returns the compact model the page embeds.

Only the Python standard library is used. Errors are raised as TraceError with a message that names
the offending event by its index in traceEvents, or the analysis's field by its path (such as
curve[3].predicted), and what is wrong with it.
"""

import json
import math

STATES = ("busy", "stealing", "asleep")  # index = state code in the page's data
# Instants counted per worker and shown as their own columns; other names are counted as "other".
KNOWN_INSTANTS = ("submission", "stacklet_alloc", "stacklet_free", "join_suspend", "join_resume",
                  "wake")
# A span may start this much (µs) before the previous one ends without being an overlap: a
# producer that rounds "ts" and "dur" to whole nanoseconds separately can be 1 ns off. Such a span
# is moved to start where the previous one ends.
OVERLAP_TOLERANCE_US = 0.002


class TraceError(Exception):
    """The input is not a tine trace (or tine analysis) in the contract's shape."""


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def read_json(path):
    """The parsed JSON document at path."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise TraceError(f"cannot read: {e.strerror}") from None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TraceError(f"not valid JSON: {e}") from None


def is_analysis(doc):
    """A tine::analysis document is an object with the key "tine_analysis"; anything else is read
    as a trace."""
    return isinstance(doc, dict) and "tine_analysis" in doc


def load(path):
    """Parses and validates the trace at path; returns the model (a dict ready for json.dumps)."""
    return build_model(read_json(path))


def load_any(path):
    """Parses and validates the trace or analysis at path; returns ("trace", model) or
    ("analysis", model)."""
    doc = read_json(path)
    if is_analysis(doc):
        return "analysis", build_analysis(doc)
    return "trace", build_model(doc)


def load_analysis(path):
    """Parses and validates the analysis at path; returns its model."""
    doc = read_json(path)
    if not is_analysis(doc):
        raise TraceError("not a tine analysis: expected a JSON object with \"tine_analysis\": 1, "
                         "as tine::analysis::write_json writes")
    return build_analysis(doc)


def _top_level(doc):
    if isinstance(doc, list):
        raise TraceError("top level is a JSON array (the array form of a Chrome trace); a tine "
                         "trace is an object with \"traceEvents\" and \"otherData\"")
    if not isinstance(doc, dict):
        raise TraceError(f"top level is a JSON {type(doc).__name__}, expected an object with "
                         "\"traceEvents\" and \"otherData\"")
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError("\"traceEvents\" is missing or not an array")
    other = doc.get("otherData")
    if not isinstance(other, dict):
        raise TraceError("\"otherData\" is missing or not an object (a tine trace names its "
                         "producer and worker count there)")
    if other.get("producer") != "tine":
        raise TraceError(f"otherData.producer is {json.dumps(other.get('producer'))}, "
                         "expected \"tine\"")
    workers = other.get("workers")
    if not _is_int(workers) or workers < 1:
        raise TraceError(f"otherData.workers is {json.dumps(workers)}, expected an integer >= 1")
    dropped = other.get("dropped_events", 0)
    if not _is_int(dropped) or dropped < 0:
        raise TraceError(f"otherData.dropped_events is {json.dumps(dropped)}, "
                         "expected an integer >= 0")
    return events, other, workers, dropped


def build_model(doc):
    """Validates a parsed trace document and reduces it to per-worker arrays (see viewer.js)."""
    events, other, workers, dropped = _top_level(doc)

    names = [f"worker {i}" for i in range(workers)]
    spans = [[] for _ in range(workers)]  # (ts, end, state code, event index)
    steals = []  # (ts, thief, victim)
    counts = [dict() for _ in range(workers)]
    flows = {"s": 0, "f": 0}
    ignored = 0
    t_min = 0.0
    t_max = 0.0

    for i, e in enumerate(events):
        where = f"traceEvents[{i}]"
        if not isinstance(e, dict):
            raise TraceError(f"{where} is not an object")
        ph = e.get("ph")
        if not isinstance(ph, str):
            raise TraceError(f"{where}: \"ph\" is missing or not a string")
        if ph not in ("M", "X", "i", "s", "f"):
            ignored += 1  # other phases are legal Chrome trace events; tine does not write them
            continue
        if e.get("pid") != 1:
            raise TraceError(f"{where}: \"pid\" is {json.dumps(e.get('pid'))}, expected 1")
        tid = e.get("tid")
        if not _is_int(tid) or not 0 <= tid < workers:
            raise TraceError(f"{where}: \"tid\" is {json.dumps(tid)}, expected a worker index "
                             f"0..{workers - 1} (otherData.workers is {workers})")
        name = e.get("name")
        if not isinstance(name, str):
            raise TraceError(f"{where}: \"name\" is missing or not a string")
        if ph == "M":
            if name == "thread_name":
                args = e.get("args")
                if not isinstance(args, dict) or not isinstance(args.get("name"), str):
                    raise TraceError(f"{where}: thread_name metadata needs args.name (a string)")
                names[tid] = args["name"]
            continue
        ts = e.get("ts")
        if not _is_number(ts):
            raise TraceError(f"{where}: \"ts\" is {json.dumps(ts)}, "
                             "expected a number (microseconds)")
        t_min = min(t_min, ts)
        t_max = max(t_max, ts)
        cat = e.get("cat")
        if ph == "X":
            if cat != "state":
                ignored += 1
                continue
            if name not in STATES:
                raise TraceError(f"{where}: state span named {json.dumps(name)}, expected one of "
                                 + ", ".join(json.dumps(s) for s in STATES))
            dur = e.get("dur")
            if not _is_number(dur) or dur < 0:
                raise TraceError(f"{where}: \"dur\" is {json.dumps(dur)}, expected a number >= 0")
            spans[tid].append((ts, ts + dur, STATES.index(name), i))
            t_max = max(t_max, ts + dur)
        elif ph == "i":
            if cat == "steal":
                args = e.get("args")
                victim = args.get("victim") if isinstance(args, dict) else None
                if not _is_int(victim) or not 0 <= victim < workers:
                    raise TraceError(f"{where}: steal needs args.victim, a worker index "
                                     f"0..{workers - 1}; got {json.dumps(victim)}")
                if victim == tid:
                    raise TraceError(f"{where}: worker {tid} steals from itself")
                steals.append((ts, tid, victim))
            elif cat == "event":
                key = name if name in KNOWN_INSTANTS else "other"
                counts[tid][key] = counts[tid].get(key, 0) + 1
            else:
                ignored += 1
        else:  # flow start/finish: drawn from the steal instants, only counted here
            if "id" not in e:
                raise TraceError(f"{where}: flow event (ph \"{ph}\") without \"id\"")
            flows[ph] += 1

    origin = t_min  # 0 unless the producer wrote negative times
    end = t_max

    def ns(t):
        return round((t - origin) * 1000)

    out_spans = []
    for w in range(workers):
        s = sorted(spans[w])
        for a, b in zip(s, s[1:]):
            if b[0] < a[1] - OVERLAP_TOLERANCE_US:
                raise TraceError(f"traceEvents[{b[3]}]: state span of worker {w} starts at "
                                 f"{b[0]} us, inside the span traceEvents[{a[3]}] "
                                 f"({a[0]} to {round(a[1], 6)} us); a worker's state spans "
                                 "must not overlap")
        starts, durs, prev = [], [], 0
        for (a, b, _, _) in s:
            sa = ns(a)
            sa = max(sa, prev) if starts else sa  # rounding must not reorder touching spans
            sb = max(ns(b), sa)
            starts.append(sa)
            durs.append(sb - sa)
            prev = sb
        out_spans.append({
            "s": _deltas(starts),
            "d": durs,
            "k": "".join(str(k) for (_, _, k, _) in s),
        })

    steals.sort()
    return {
        "meta": {
            "producer": "tine",
            "tine_version": str(other.get("tine_version", "?")),
            "clock": str(other.get("clock", "?")),
            "workers": workers,
            "dropped_events": dropped,
            "events": len(events),
            "ignored_events": ignored,
            "flow_starts": flows["s"],
            "flow_finishes": flows["f"],
            "origin_us": origin,
            "end_ns": ns(end),
        },
        "states": list(STATES),
        "instants": list(KNOWN_INSTANTS) + ["other"],
        "names": names,
        "spans": out_spans,
        "steals": {
            "t": _deltas([ns(t) for (t, _, _) in steals]),
            "thief": [th for (_, th, _) in steals],
            "victim": [v for (_, _, v) in steals],
        },
        "counts": counts,
    }


def _deltas(sorted_ints):
    """Delta-encodes a non-decreasing list: small numbers keep the embedded JSON small."""
    out, prev = [], 0
    for v in sorted_ints:
        out.append(v - prev)
        prev = v
    return out


# ---- tine::analysis (tine::analysis::write_json) -----------------------------------------------

ANALYSIS_VERSION = 1
CURVE_POINTS = 256  # P = 1 to 256
# Numbers in the analysis's units (or plain numbers); write_json writes null for one that is not
# finite, and the page shows it as such.
ANALYSIS_NUMBERS = ("work", "span", "burdened_span", "steal_cost", "longest_strand", "parallelism",
                    "burdened_parallelism")
ANALYSIS_COUNTS = ("forks", "joins", "critical_strands")
CURVES = ("predicted", "greedy", "ceiling")
REGION_NUMBERS = ("work", "span", "burdened_span")


def _shown(v):
    """A value as JSON, cut short: messages name it, not dump it."""
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


class _Fields:
    """Reads one object's fields, naming each by its path in the document in errors."""

    def __init__(self, obj, where):
        self.obj, self.where = obj, where

    def _path(self, key):
        return f"{self.where}.{key}" if self.where else key

    def _fail(self, key, expected):
        if key not in self.obj:
            raise TraceError(f"{self._path(key)} is missing, expected {expected}")
        raise TraceError(f"{self._path(key)} is {_shown(self.obj[key])}, expected {expected}")

    def number(self, key):
        """A finite number, or None (null): write_json's form of a number that is not finite."""
        v = self.obj.get(key)
        if key not in self.obj or not (v is None or _is_number(v)):
            self._fail(key, "a number")
        return v

    def count(self, key, minimum=0):
        v = self.obj.get(key)
        if not _is_int(v) or v < minimum:
            self._fail(key, f"an integer >= {minimum}")
        return v

    def string(self, key):
        v = self.obj.get(key)
        if not isinstance(v, str):
            self._fail(key, "a string")
        return v

    def boolean(self, key):
        v = self.obj.get(key)
        if not isinstance(v, bool):
            self._fail(key, "true or false")
        return v

    def one_of(self, key, choices):
        v = self.obj.get(key)
        if not isinstance(v, str) or v not in choices:
            self._fail(key, " or ".join(json.dumps(c) for c in choices))
        return v

    def array(self, key):
        v = self.obj.get(key)
        if not isinstance(v, list):
            self._fail(key, "an array")
        return v


def _object(v, where):
    if not isinstance(v, dict):
        raise TraceError(f"{where} is {_shown(v)}, expected an object")
    return _Fields(v, where)


def build_analysis(doc):
    """Validates a parsed tine::analysis document (the keys analysis/analysis.hpp lists for
    write_json); returns the model the page embeds: the same fields, unknown keys left out."""
    if not isinstance(doc, dict):
        raise TraceError(f"top level is a JSON {type(doc).__name__}, expected an object")
    f = _Fields(doc, "")
    version = doc.get("tine_analysis")
    if not _is_int(version) or version != ANALYSIS_VERSION:
        raise TraceError(f"tine_analysis is {_shown(version)}, expected {ANALYSIS_VERSION} (the "
                         "version of tine::analysis::write_json's format this viewer reads)")
    out = {
        "name": f.string("name"),
        "units": f.one_of("units", ("seconds", "strands")),
        "runs": f.count("runs"),
    }
    for key in ANALYSIS_NUMBERS:
        out[key] = f.number(key)
    out["steal_cost_measured"] = f.boolean("steal_cost_measured")
    for key in ANALYSIS_COUNTS:
        out[key] = f.count(key)

    curve = f.array("curve")
    if len(curve) != CURVE_POINTS:
        raise TraceError(f"curve has {len(curve)} entries, expected {CURVE_POINTS} "
                         f"(P = 1 to {CURVE_POINTS})")
    out["curve"] = {"p": [], **{c: [] for c in CURVES}}
    for i, point in enumerate(curve):
        pf = _object(point, f"curve[{i}]")
        p = point.get("p")
        if not _is_int(p) or p != i + 1:
            pf._fail("p", str(i + 1))
        out["curve"]["p"].append(p)
        for c in CURVES:
            out["curve"][c].append(pf.number(c))

    out["regions"] = []
    for i, region in enumerate(f.array("regions")):
        rf = _object(region, f"regions[{i}]")
        r = {"name": rf.string("name"), "count": rf.count("count")}
        for key in REGION_NUMBERS:
            r[key] = rf.number(key)
        out["regions"].append(r)

    out["problems"] = []
    for i, problem in enumerate(f.array("problems")):
        if not isinstance(problem, str):
            raise TraceError(f"problems[{i}] is {_shown(problem)}, expected a string")
        out["problems"].append(problem)
    return out
