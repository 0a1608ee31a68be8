#!/usr/bin/env python3
"""Rewrite bench/RESULTS.md after `make bench ARCH`: the preface, then the
sections of each architecture ("## ARCH: ..."), the measured one from its
new tables and every other one as the file already had it, so that a run on
one architecture never drops the other's tables.

Usage: bench-results.py RESULTS PREFACE ARCH TABLES_MD
"""
import os
import re
import sys


def table_arches():
    """The architectures of scripts/arches, in its order."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "arches")) as f:
        return tuple(line.split()[0] for line in f
                     if line.strip() and not line.startswith("#"))


ARCHES = table_arches()


def arch_sections(text):
    """The text of each architecture's sections, by architecture."""
    out, cur = {}, None
    for line in text.splitlines(keepends=True):
        m = re.match(r"## (\S+): ", line)
        if m:
            cur = m.group(1) if m.group(1) in ARCHES else None
        if cur:
            out[cur] = out.get(cur, "") + line
    return out


def main(results, preface, arch, tables):
    if arch not in ARCHES:
        sys.exit(f"bench-results.py: unknown architecture {arch!r}")
    try:
        with open(results) as f:
            sections = arch_sections(f.read())
    except FileNotFoundError:
        sections = {}
    with open(tables) as f:
        sections[arch] = f.read() + "\n"	# a blank line between sections
    with open(preface) as f:
        text = f.read()
    for a in ARCHES:
        text += sections.get(a, "")
    with open(results, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip())
    main(*sys.argv[1:])
