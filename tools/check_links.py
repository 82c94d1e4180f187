#!/usr/bin/env python3
"""Checks that every relative Markdown link of the pages given resolves: the file exists and, for
a link with an anchor (`page.md#some-heading` or `#some-heading`), the page has a heading whose
GitHub anchor that is. Links to web addresses are not checked; links inside code are not links.

usage: check_links.py [PAGE.md...]   (default: README.md and docs/*.md, from the repository root)
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\[[^\[\]]*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")


def prose(text):
    """The page without fenced blocks and inline code (their brackets are not links)."""
    return CODE.sub("", FENCE.sub("", text))


def anchors(path):
    """The GitHub anchors of a page's headings: lower case, punctuation dropped but for hyphens
    and underscores, spaces as hyphens; a repeated heading gets -1, -2, ..."""
    seen = {}
    result = set()
    for line in FENCE.sub("", open(path, encoding="utf-8").read()).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else f"{slug}-{n}")
    return result


def main():
    pages = sys.argv[1:] or ["README.md"] + sorted(glob.glob("docs/*.md"))
    failures = 0
    checked = 0
    cache = {}
    for page in pages:
        for m in LINK.finditer(prose(open(page, encoding="utf-8").read())):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto: and the like
            checked += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                print(f"{page}: {target}: no file {dest}")
                failures += 1
                continue
            if anchor and dest.endswith(".md"):
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if anchor not in cache[dest]:
                    print(f"{page}: {target}: {dest} has no heading #{anchor}")
                    failures += 1
    print(f"{len(pages)} pages, {checked} links, {failures} broken")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
