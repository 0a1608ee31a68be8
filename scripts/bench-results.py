#!/usr/bin/env python3
"""Rewrite bench/RESULTS.md after `make bench ARCH`: the preface, then the
sections of each architecture ("## ARCH: ..."), the measured one from its
new tables and every other one as the file already had it, so that a run on
one architecture never drops the other's tables.

Each architecture's attribution matrix ("## ARCH: attribution", the first
section scripts/bench-report.py writes) goes right after the preface, all
architectures' matrices together in scripts/arches' order, before any
architecture's tables: the first thing a reader sees is what each feature
costs on every architecture.  A matrix belongs to its architecture's
sections and is replaced with them, so the two matrices may come from runs
of different days (each says its date and series).

Usage: bench-results.py RESULTS PREFACE ARCH TABLES_MD
"""
import os
import re
import sys

FIRST = "attribution"	# the topic of the sections that go first


def table_arches():
    """The architectures of scripts/arches, in its order."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "arches")) as f:
        return tuple(line.split()[0] for line in f
                     if line.strip() and not line.startswith("#"))


ARCHES = table_arches()


def sections(text):
    """[(arch, topic, text)] of each "## ARCH: topic" section of a known
    architecture, in order; text before the first and sections of other
    names are dropped."""
    out = []
    keep = False
    for line in text.splitlines(keepends=True):
        m = re.match(r"## (\S+): (.*)", line)
        if m:
            keep = m.group(1) in ARCHES
            if keep:
                out.append([m.group(1), m.group(2).strip(), ""])
        if keep:
            out[-1][2] += line
    return [tuple(s) for s in out]


def arch_sections(text):
    """The text of each architecture's sections, by architecture."""
    out = {}
    for arch, _, body in sections(text):
        out[arch] = out.get(arch, "") + body
    return out


def main(results, preface, arch, tables):
    if arch not in ARCHES:
        sys.exit(f"bench-results.py: unknown architecture {arch!r}")
    try:
        with open(results) as f:
            old = sections(f.read())
    except FileNotFoundError:
        old = []
    with open(tables) as f:
        new = sections(f.read() + "\n")	# a blank line between sections
    by_arch = {a: [s for s in old if s[0] == a] for a in ARCHES}
    by_arch[arch] = new
    with open(preface) as f:
        text = f.read()
    for first in (True, False):
        for a in ARCHES:
            text += "".join(body for _, topic, body in by_arch[a]
                            if (topic == FIRST) == first)
    with open(results, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip())
    main(*sys.argv[1:])
