#!/usr/bin/env python3
"""Checks that docs/structure.md describes the library as it is.

1. Every library source file (the headers and sources of the layers below, and tine.hpp) has a
   line in the annotated tree, and every file the tree names under those layers exists.
2. The table "Layer dependencies" states exactly the layers each layer's files include
   (`#include <tine/LAYER/...>`): a dependency in the code but not in the table, or in the table
   but not in the code, fails. Forwarders and umbrellas (a comment beginning "Moved:" or
   "Umbrella:", as core/core.hpp) gather layers for users and are not counted.
3. No file of the repository includes a forwarding header (one whose comment begins "Moved:",
   kept for users' old include paths): the tree uses the new paths (but for the test of the
   forwarders themselves).
4. No library file includes another layer's `detail/` folder (a layer that builds on another's
   internals does so through the seam that layer offers, as algorithms/extension.hpp).
5. The wings of distributed/ depend one way: foundation/ includes neither wing, pool/ includes
   nothing of memory/, and memory/ includes of pool/ only pool_hooks.hpp, where the two meet
   (the pool announces its acquire points to memory and lends it its ranks there).

usage: check_structure.py [docs/structure.md]   (run from the repository's root)
"""
import re
import subprocess
import sys

LAYERS = ["core", "application", "reducers", "policies", "schedulers", "algorithms", "analysis",
          "execution", "testing", "distributed"]
SOURCE = re.compile(r"\.(hpp|cpp|h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*<tine/([a-z_]+)/')
# The wings of a layer (sub-folders with a Bazel package each) and what of the other wings each
# may include: a whole wing, or one file of it (a seam, with a Bazel target of its own).
WINGS = {
    "distributed/foundation": set(),
    "distributed/pool": {"distributed/foundation"},
    "distributed/memory": {"distributed/foundation", "distributed/pool/pool_hooks.hpp"},
}


def repo_files():
    """The repository's files as the other style checks see them (tools/repo_files.sh)."""
    return subprocess.check_output(["tools/repo_files.sh"], text=True).split("\n")[:-1]


def library_files(files):
    return sorted(f for f in files if f.split("/")[0] in LAYERS and SOURCE.search(f))


def tree_entries(text):
    """The paths the first fenced block names: two spaces of indent per folder level."""
    block = re.search(r"```\n(.*?)```", text, re.S).group(1)
    folders, paths = [], set()
    for line in block.splitlines():
        if line.lstrip().startswith("//"):
            continue  # a group's heading within a folder
        # "NAME  description", "A.hpp, B.hpp  description" or "NAME.hpp/.cpp  description"
        m = re.match(r"^( *)([^\s,]+(?:, [^\s,]+)*)(?: |$)", line)
        if not m or len(m.group(1)) % 2:
            continue  # a continuation line of a description
        depth = len(m.group(1)) // 2
        if depth > len(folders):
            continue  # deeper than any open folder: description text
        del folders[depth:]
        names = m.group(2).split(", ")
        if len(names) == 1 and names[0].endswith("/"):
            folders.append(names[0])
            continue
        for name in names:
            stem, both = (name[:-len("/.cpp")], True) if name.endswith("/.cpp") else (name, False)
            paths.add("".join(folders) + stem)
            if both:
                paths.add("".join(folders) + re.sub(r"\.hpp$", ".cpp", stem))
    return paths


def stated_dependencies(text):
    section = re.search(r"^## Layer dependencies\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit("docs/structure.md: no '## Layer dependencies' section")
    stated = {}
    for row in re.findall(r"^\| *`([a-z_]+)/` *\|([^|\n]*)\|", section.group(1), re.M):
        stated[row[0]] = set(re.findall(r"`([a-z_]+)/`", row[1]))
    return stated


def marked(f, *kinds):
    """Whether header `f`'s comment begins with one of `kinds`: "Moved" (a forwarder, kept for an
    old include path) or "Umbrella" (core.hpp: gathers other layers for users)."""
    return f.endswith(".hpp") and re.search(rf"^/// ({'|'.join(kinds)}):",
                                            open(f, encoding="utf-8").read(), re.M)


def real_dependencies(files):
    real = {layer: set() for layer in LAYERS}
    for f in files:
        if marked(f, "Moved", "Umbrella"):
            continue
        layer = f.split("/")[0]
        for line in open(f, encoding="utf-8"):
            m = INCLUDE.match(line)
            if m and m.group(1) != layer:
                real[layer].add(m.group(1))
    return real


def foreign_details(files):
    found = []
    for f in files:
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            m = re.match(r'^\s*#\s*include\s*<tine/([a-z_]+)/detail/', line)
            if m and m.group(1) != f.split("/")[0]:
                found.append(f"{f}:{n}: includes {m.group(1)}/detail/, the internals of another "
                             "layer (use the seam it offers)")
    return found


def wing_of(path):
    return next((w for w in WINGS if path.startswith(w + "/")), None)


def wrong_way_wings(files):
    found = []
    for f in files:
        wing = wing_of(f)
        if wing is None:
            continue
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            m = re.match(r'^\s*#\s*include\s*<tine/([\w/]+\.hpp)>', line)
            other = wing_of(m.group(1)) if m else None
            if other not in (None, wing) and not {other, m.group(1)} & WINGS[wing]:
                found.append(f"{f}:{n}: includes {m.group(1)}: {wing}/ may include only "
                             f"{', '.join(sorted(WINGS[wing])) or 'no other wing'}")
    return found


def forwarders(files):
    """Library headers kept only to forward an old include path to a moved file."""
    return {f for f in files if marked(f, "Moved")}


def includes_of_forwarders(moved, every_file):
    found = []
    for f in every_file:
        if not SOURCE.search(f) and not f.endswith(".md") or "forwarding_headers_test" in f:
            continue  # (that test includes the forwarders on purpose)
        for n, line in enumerate(open(f, encoding="utf-8", errors="replace"), 1):
            m = re.match(r'^\s*#\s*include\s*<tine/([\w/]+\.hpp)>', line)
            if m and m.group(1) in moved:
                found.append(f"{f}:{n}: includes {m.group(1)}, which only forwards to its new path")
    return found


def main():
    page = sys.argv[1] if len(sys.argv) > 1 else "docs/structure.md"
    text = open(page, encoding="utf-8").read()
    every_file = repo_files()
    files = library_files(every_file)
    listed = tree_entries(text)
    failures = []
    for f in files:
        if f not in listed:
            failures.append(f"{f}: a library file the tree in {page} does not list")
    for p in sorted(listed):
        if p.split("/")[0] in LAYERS and SOURCE.search(p) and p not in files:
            failures.append(f"{p}: listed in {page} but no such file")
    stated, real = stated_dependencies(text), real_dependencies(files)
    for layer in LAYERS:
        if layer not in stated:
            failures.append(f"{layer}/: no row in {page}'s layer dependencies")
            continue
        for dep in sorted(real[layer] - stated[layer]):
            failures.append(f"{layer}/ includes {dep}/, which {page}'s table does not state")
        for dep in sorted(stated[layer] - real[layer]):
            failures.append(f"{layer}/: {page}'s table says it uses {dep}/, but no file does")
    failures += includes_of_forwarders(forwarders(files), every_file)
    failures += foreign_details(files)
    failures += wrong_way_wings(files)
    for f in failures:
        print(f)
    print(f"check_structure: {len(files)} library files, {len(LAYERS)} layers, "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
