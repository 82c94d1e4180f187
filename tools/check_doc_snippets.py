#!/usr/bin/env python3
"""Checks that documentation examples are real, tested code.

Every region of a source file between the lines `// [docs:NAME]` and `// [docs:NAME end]` must
appear, verbatim after removing the common indentation, inside a fenced code block of one of the
Markdown pages given; and every ```cpp block of those pages must consist of such regions only
(#include lines aside). Blocks fenced ```c++ instead are synopses (declarations quoted from the
headers), not examples, and are not checked. The
sources are compiled and run by the test suite, so a page that passes this check shows only code
that builds and works.

usage: check_doc_snippets.py --docs PAGE.md... --sources FILE...
"""
import argparse
import re
import sys
import textwrap

START = re.compile(r"^\s*// \[docs:([\w.-]+)\]\s*$")


def regions(path):
    """Yields (name, text) for each marked region of a source file."""
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group(1)
        end = f"// [docs:{name} end]"
        j = i + 1
        while j < len(lines) and lines[j].strip() != end:
            j += 1
        if j == len(lines):
            raise SystemExit(f"{path}: region '{name}' has no end marker")
        yield name, textwrap.dedent("\n".join(lines[i + 1 : j])).strip("\n")
        i = j + 1


def code_blocks(path, language=None):
    text = open(path, encoding="utf-8").read()
    pattern = r"```" + (re.escape(language) if language else r"[\w+]*") + r"\n(.*?)```"
    return [textwrap.dedent(b).strip("\n") for b in re.findall(pattern, text, re.S)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", nargs="+", required=True)
    ap.add_argument("--sources", nargs="+", required=True)
    args = ap.parse_args()
    blocks = [(d, b) for d in args.docs for b in code_blocks(d)]
    failures = 0
    count = 0
    all_regions = [(src, name, text) for src in args.sources for name, text in regions(src)]
    for doc in args.docs:
        for block in code_blocks(doc, "cpp"):
            rest = block
            for _, _, text in sorted(all_regions, key=lambda r: -len(r[2])):
                rest = rest.replace(text, "")
            # #include lines say where names come from; the test file has its own.
            rest = "\n".join(l for l in rest.splitlines() if not l.strip().startswith("#include"))
            if rest.strip():
                failures += 1
                first = next(line for line in rest.splitlines() if line.strip())
                print(f"FAIL {doc}: a cpp block is not made of tested regions; untested line: {first.strip()}")
    missing = 0
    for src, name, text in all_regions:
        count += 1
        where = [d for d, b in blocks if text in b]
        if where:
            print(f"ok   {name}: {src} -> {where[0]}")
        else:
            missing += 1
            print(f"FAIL {name}: the region from {src} is not in any code block of {args.docs}")
    if count == 0:
        print("FAIL no [docs:...] regions found")
        return 1
    print(f"{count - missing} of {count} tested regions found verbatim; {failures} untested cpp blocks")
    return 1 if failures or missing else 0


if __name__ == "__main__":
    sys.exit(main())
