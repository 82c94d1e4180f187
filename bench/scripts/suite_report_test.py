"""Checks of bench/scripts/suite_report.py on a small synthetic suite (bench/scripts/suite.py's
JSON): the Markdown tables' medians, spreads, speed-ups, ratios and memory; failed, missing and
skipped cells; the analyzer's columns; and that the HTML page holds well-formed inline SVG charts
and the tables."""
import json
import os
import re
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_report  # noqa: E402

RUNTIMES = [("serial", [1]), ("tine_busy", [1, 2]), ("tine_lazy", [1, 2]), ("tbb", [1, 2]),
            ("gomp", [1, 2]), ("libomp", [1, 2])]

# Median seconds per (program, runtime, P); the three rounds are median x (0.9, 1, 1.2).
TIMES = {
    ("fib", "serial", 1): 0.02,
    ("fib", "tine_busy", 1): 0.4, ("fib", "tine_busy", 2): 0.2,
    ("fib", "tine_lazy", 1): 0.5, ("fib", "tine_lazy", 2): 0.4,
    ("fib", "tbb", 1): 1.6, ("fib", "tbb", 2): 0.8,
    ("fib", "gomp", 1): 1.0, ("fib", "gomp", 2): 4.0,
    ("fib", "libomp", 1): 1.25, ("fib", "libomp", 2): 2.5,
    ("uts", "serial", 1): 0.5,
    ("uts", "tine_busy", 1): 0.75, ("uts", "tine_busy", 2): 0.4,
    ("uts", "tine_lazy", 1): 0.7,  # P=2: every run failed
    ("uts", "tbb", 1): 1.0, ("uts", "tbb", 2): 0.5,
    ("uts", "gomp", 1): 1.0, ("uts", "gomp", 2): 3.0,
    ("uts", "libomp", 1): 1.5, ("uts", "libomp", 2): 1.0,
}


def synthetic():
    runs = []
    for (prog, rt, p), t in TIMES.items():
        inp = "34" if prog == "fib" else "T1"
        for rnd, f in enumerate((0.9, 1.0, 1.2)):
            runs.append({"program": prog, "input": inp, "runtime": rt, "workers": p, "round": rnd,
                         "status": "ok", "seconds": t * f, "max_rss_kib": 1024 * (4 + p + rnd),
                         "wall_s": t * f + 0.01, "loadavg": ["0.5", "0.4", "0.3"]})
    for rnd in range(3):
        runs.append({"program": "uts", "input": "T1", "runtime": "tine_lazy", "workers": 2,
                     "round": rnd, "status": "wrong result: 12 nodes, expected 4130071",
                     "seconds": 0.3, "max_rss_kib": 9000, "output": "uts input=T1 ... 12 nodes"})
    # One failed run beside two good ones: its cell keeps the good runs' median.
    runs.append({"program": "fib", "input": "34", "runtime": "tbb", "workers": 2, "round": 3,
                 "status": "crashed (signal 11)", "seconds": None, "max_rss_kib": None})
    return {
        "command": "python3 bench/scripts/suite.py --rounds 3", "started": "2026-11-28T03:00:00",
        "finished": "2026-11-28T03:10:00", "rounds": 3, "seed": 1,
        "machine": {"Model name": "Test CPU", "CPU(s)": "2", "gcc": "g++ 12", "git": "abc123"},
        "programs": [{"program": "fib", "input": "34"}, {"program": "uts", "input": "T1"}],
        "runtimes": [{"name": n, "workers": ws} for n, ws in RUNTIMES],
        "skipped": [{"program": "cholesky", "why": "build failed"}],
        "runs": runs,
        "analysis": [
            {"program": "fib", "input": "34", "status": "ok", "parallelism": 1234.6,
             "burdened_parallelism": 300.25, "predicted_2": 1.9876},
            {"program": "uts", "input": "T1", "status": "exit status 1", "parallelism": None},
        ],
    }


def rows_of(md, title):
    """The rows of the Markdown table under `## title`, as lists of cells."""
    section = md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    lines = [l for l in section.splitlines() if l.startswith("|")]
    return [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:]]


class MarkdownTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.md = suite_report.markdown(suite_report.Suite(synthetic()))

    def test_median_times_with_their_spread(self):
        rows = rows_of(self.md, "Median time (s)")
        # header: program input P serial tine_busy tine_lazy tbb gomp libomp
        self.assertIn(["fib", "34", "1", "0.0200 (30%)", "0.400 (30%)", "0.500 (30%)", "1.60 (30%)",
                       "1.00 (30%)", "1.25 (30%)"], rows)
        self.assertIn(["fib", "34", "2", "–", "0.200 (30%)", "0.400 (30%)",
                       "0.800 (30%) [1 failed]", "4.00 (30%)", "2.50 (30%)"], rows)
        self.assertIn(["uts", "T1", "2", "–", "0.400 (30%)", "failed (3)", "0.500 (30%)",
                       "3.00 (30%)", "1.00 (30%)"], rows)

    def test_speedups_beside_the_analyzer(self):
        rows = rows_of(self.md, "Speed-up on 2 workers, T(1)/T(2), against the analyzer's")
        # tine_busy tine_lazy tbb gomp libomp | parallelism burdened predicted
        self.assertIn(
            ["fib", "34", "2.00", "1.25", "2.00", "0.250", "0.500", "1235", "300", "1.99"], rows)
        self.assertIn(["uts", "T1", "1.88", "–", "2.00", "0.333", "1.50", "–", "–", "–"], rows)

    def test_one_worker_over_serial(self):
        rows = rows_of(self.md, "One worker against serial, T(1)/T(serial)")
        self.assertIn(["fib", "34", "20.0", "25.0", "80.0", "50.0", "62.5"], rows)

    def test_memory_medians(self):
        rows = rows_of(self.md, "Peak memory (MiB)")
        # rounds use 4 + P + round MiB: the median is round 1's
        self.assertIn(["fib", "34", "1", "6.0", "6.0", "6.0", "6.0", "6.0", "6.0"], rows)
        self.assertIn(["uts", "T1", "2", "–", "7.0", "failed (3)", "7.0", "7.0", "7.0"], rows)

    def test_tine_over_tbb_and_openmp(self):
        rows = rows_of(self.md, "tine against TBB and OpenMP")
        # busy/TBB busy/gomp busy/libomp lazy/TBB lazy/gomp lazy/libomp
        self.assertIn(["fib", "34", "1", "0.250", "0.400", "0.320", "0.312", "0.500", "0.400"],
                      rows)
        self.assertIn(["fib", "34", "2", "0.250", "0.0500", "0.0800", "0.500", "0.100", "0.160"],
                      rows)
        self.assertIn(["uts", "T1", "2", "0.800", "0.133", "0.400", "–", "–", "–"], rows)

    def test_failures_and_skipped_programs_are_listed(self):
        rows = rows_of(self.md, "Runs that failed or were skipped")
        self.assertEqual(sorted(r[4] for r in rows if r[:3] == ["uts", "T1", "tine_lazy"]),
                         ["1", "2", "3"])
        self.assertTrue(any(r[2] == "tbb" and r[5] == "crashed (signal 11)" for r in rows))
        self.assertTrue(any(r[2] == "analyze" and r[5] == "exit status 1" for r in rows))
        self.assertTrue(any(r[0] == "cholesky" and r[5] == "skipped" for r in rows))

    def test_one_worker_times_outside_the_sized_range(self):
        rows = rows_of(self.md, "One-worker times outside 0.200-2.00 s")
        self.assertEqual(sorted((r[0], r[2], r[4]) for r in rows), [("fib", "serial", "below")])

    def test_conditions(self):
        self.assertIn("python3 bench/scripts/suite.py --rounds 3", self.md)
        self.assertIn("load average (1 min) before each run: 0.50 to 0.50", self.md)


class HtmlTest(unittest.TestCase):
    def test_page_holds_well_formed_svg_charts_and_the_tables(self):
        raw = synthetic()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "suite.json")
            with open(path, "w") as f:
                json.dump(raw, f)
            suite_report.main([path])
            with open(os.path.join(d, "suite.html")) as f:
                page = f.read()
            with open(os.path.join(d, "suite.md")) as f:
                self.assertIn("## Median time (s)", f.read())
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertNotIn("<script", page)
        self.assertNotIn("http://", page.replace('xmlns="http://www.w3.org/2000/svg"', ""))
        svgs = re.findall(r"<svg xmlns.*?</svg>", page, re.S)
        # Two across programs, then time, speed-up and memory per program.
        self.assertEqual(len(svgs), 2 + 3 * 2)
        titles = []
        for svg in svgs:
            root = ET.fromstring(svg)  # well-formed XML
            titles.append(root.find("{http://www.w3.org/2000/svg}title").text)
        for name in ("fib 34", "uts T1"):
            for chart in ("time", "speed-up T(1)/T(2)", "peak memory"):
                self.assertIn(f"{name}: {chart}", titles)
        # Bars carry their values; the analyzer's prediction is drawn on fib's speed-up chart.
        self.assertIn("fib 34: speed-up T(1)/T(2)", page)
        fib_speed = next(s for s in svgs if "fib 34: speed-up" in s)
        self.assertIn("tine_busy, T(1)/T(2): 2.00x", fib_speed)
        self.assertIn("analyzer&#x27;s prediction: 1.99", fib_speed)
        uts_time = next(s for s in svgs if "uts T1: time" in s)
        self.assertIn("✗", uts_time)  # tine_lazy at 2 workers: every run failed
        self.assertEqual(uts_time.count("<circle"), 3 * 10)  # every good run a dot
        self.assertIn("<th>busy/TBB</th>", page)
        self.assertIn("<td>0.250</td>", page)


class NumbersTest(unittest.TestCase):
    def test_fmt(self):
        values = (None, 0, 0.02, 1.234, 12.34, 193.4, 4567.8)
        self.assertEqual([suite_report.fmt(x) for x in values],
                         ["–", "0", "0.0200", "1.23", "12.3", "193", "4568"])

    def test_ticks_cover_the_top(self):
        for top in (0.013, 0.9, 1, 2.5, 7, 1234):
            ticks = suite_report.nice_ticks(top)
            self.assertEqual(ticks[0], 0)
            self.assertGreaterEqual(ticks[-1], top)
            self.assertLessEqual(len(ticks), 7)


if __name__ == "__main__":
    unittest.main()
