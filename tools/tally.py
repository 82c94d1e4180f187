#!/usr/bin/env python3
"""Count test CASES over one or more `bazel test` invocations.

    bazel test //... --build_event_json_file=/tmp/default.json
    tools/tally.py [--testlogs bazel-testlogs] /tmp/default.json [/tmp/asan.json ...]

Each file is Bazel's build event stream (JSON lines); the run is named after the
file (default.json -> "default"). For every test target, the last attempt of each
run/shard is read from its test.xml: Boost.Test's JUnit logger writes one
<testcase> per case (see tests/boost_main.cpp), Bazel writes one for a plain
test. A case with <failure> or <error> failed, one with <skipped> is not counted
as passed. A target that failed, crashed or timed out without a failed case in
its XML, has no parsable XML, failed to build, or never ran counts as one failed
case; so does any other target that failed to build (benchmarks must not rot),
and an invocation that failed with nothing else to blame.

Prints one line per target and ends with exactly one line `N passed, N failed`.
Exit status 1 if anything failed.
"""

import argparse
import json
import os
import sys
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET


def read_events(path):
    events = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a killed Bazel may leave a truncated last line
    return events


def uri_to_path(uri):
    if uri.startswith("file://"):
        return urllib.request.url2pathname(urllib.parse.urlparse(uri).path)
    return None


def count_xml(path):
    """(passed, failed, skipped) for a JUnit file, or None if unreadable/empty."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def testlogs_xml(testlogs, label, run, shard, runs, shards):
    """Fallback location of test.xml when the event stream has no URI."""
    pkg, _, name = label.lstrip("@").split("//", 1)[-1].partition(":")
    d = os.path.join(testlogs, pkg, name)
    if runs > 1:
        d = os.path.join(d, "run_{}_of_{}".format(run, runs))
    if shards > 1:
        d = os.path.join(d, "shard_{}_of_{}".format(shard, shards))
    return os.path.join(d, "test.xml")


def tally_run(path, testlogs):
    """Returns (rows, passed, failed); a row is (status, label, detail)."""
    events = read_events(path)
    kinds = {}  # label -> rule kind, for every configured target
    is_test = set()
    built = {}  # label -> True/False
    results = {}  # label -> {(run, shard): (attempt, payload)}
    exit_code = None
    for e in events:
        eid = e.get("id", {})
        if "targetConfigured" in eid:
            label = eid["targetConfigured"]["label"]
            conf = e.get("configured", {})
            kinds[label] = conf.get("targetKind", "")
            if "testSize" in conf or kinds[label].endswith("_test rule"):
                is_test.add(label)
            if "aborted" in e:
                built[label] = False
        elif "targetCompleted" in eid:
            label = eid["targetCompleted"]["label"]
            ok = "aborted" not in e and e.get("completed", {}).get("success", False)
            built[label] = built.get(label, True) and ok
        elif "testResult" in eid:
            t = eid["testResult"]
            key = (t.get("run", 1), t.get("shard", 1))
            runs = results.setdefault(t["label"], {})
            if key not in runs or t.get("attempt", 1) > runs[key][0]:
                runs[key] = (t.get("attempt", 1), e.get("testResult", {}))
        elif "buildFinished" in eid:
            exit_code = e.get("finished", {}).get("exitCode", {})

    rows, total_pass, total_fail = [], 0, 0
    for label in sorted(set(kinds) | set(built) | set(results)):
        if label in results:
            runs = results[label]
            n_runs = max(r for r, _ in runs)
            n_shards = max(s for _, s in runs)
            p = f = s = 0
            notes = []
            for (run, shard), (_, res) in sorted(runs.items()):
                status = res.get("status", "NO_STATUS")  # proto3 JSON omits the 0 value, NO_STATUS
                outputs = {o.get("name"): o.get("uri", "") for o in res.get("testActionOutput", [])}
                xml = uri_to_path(outputs.get("test.xml", ""))
                if not xml or not os.path.exists(xml):
                    xml = testlogs_xml(testlogs, label, run, shard, n_runs, n_shards)
                counts = count_xml(xml)
                if counts is None:
                    f += 1
                    notes.append("no parsable test.xml ({})".format(status))
                    continue
                cp, cf, cs = counts
                if status != "PASSED" and cf == 0:
                    cf = 1  # e.g. a leak reported after main(), a timeout, a crash
                    notes.append(status.lower().replace("_", " ") + " with no failed case in XML")
                elif status != "PASSED":
                    notes.append(status.lower())
                p, f, s = p + cp, f + cf, s + cs
            detail = "{} passed, {} failed".format(p, f)
            if s:
                detail += ", {} skipped".format(s)
            if notes:
                detail += "  [" + "; ".join(notes) + "]"
            rows.append(("FAIL" if f else "ok", label, detail))
            total_pass, total_fail = total_pass + p, total_fail + f
        elif built.get(label) is False:
            what = "test" if label in is_test else kinds.get(label, "target").replace(" rule", "")
            rows.append(("FAIL", label, "{} failed to build: 0 passed, 1 failed".format(what)))
            total_fail += 1
        elif label in is_test:
            rows.append(("FAIL", label, "test did not run: 0 passed, 1 failed"))
            total_fail += 1

    code = (exit_code or {}).get("code", 0)
    if exit_code is None:
        rows.append(("FAIL", "(bazel)", "no buildFinished event: bazel was killed or crashed"))
        total_fail += 1
    elif code not in (0, 4) and total_fail == 0:  # 4: no test targets (not a failure)
        rows.append(("FAIL", "(bazel)", "bazel exited {} ({}) with no failed target to blame".format(
            code, exit_code.get("name", "?"))))
        total_fail += 1
    return rows, total_pass, total_fail


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bep", nargs="+", help="--build_event_json_file of a bazel test run")
    parser.add_argument("--testlogs", default="bazel-testlogs",
                        help="fallback directory for test.xml (default: %(default)s)")
    parser.add_argument("--check", action="append", default=[], metavar="NAME=EXIT_CODE",
                        help="a check run outside Bazel (e.g. the consumer workspace): one case, "
                             "passed when its exit code is 0")
    args = parser.parse_args()

    grand_pass = grand_fail = 0
    subtotals = []
    for path in args.bep:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            rows, p, f = tally_run(path, args.testlogs)
        except OSError as e:
            rows, p, f = [("FAIL", "(bazel)", "cannot read {}: {}".format(path, e))], 0, 1
        for status, label, detail in rows:
            print("{:4} [{}] {}  {}".format(status, name, label, detail))
        subtotals.append((name, p, f))
        grand_pass, grand_fail = grand_pass + p, grand_fail + f
    for check in args.check:
        name, _, code = check.partition("=")
        ok = code.strip() == "0"
        print("{:4} [checks] {}  exit code {}".format("PASS" if ok else "FAIL", name, code))
        subtotals.append(("checks:" + name, 1 if ok else 0, 0 if ok else 1))
        grand_pass, grand_fail = grand_pass + (1 if ok else 0), grand_fail + (0 if ok else 1)
    if len(subtotals) > 1:
        for name, p, f in subtotals:
            print("[{}] {} passed, {} failed".format(name, p, f))
    print("{} passed, {} failed".format(grand_pass, grand_fail))
    return 1 if grand_fail else 0


if __name__ == "__main__":
    sys.exit(main())
