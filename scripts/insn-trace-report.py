#!/usr/bin/env python3
"""Compare two instruction traces of one system call (scripts/insn-trace.sh).

Each trace is a file of program counters, one per executed instruction.
Prints, for every kernel function whose count differs, how many
instructions each kernel executed in it and the difference, largest first,
then the totals; then the visits that differ: a visit is a run of
instructions in one function, keyed by the function the run came from (for
a leaf such as memset(), its caller), shown as count x length (this is how
a memset() whose cost depends on the alignment of its destination shows
up).  At most 40 such lines.

Usage: insn-trace-report.py BASE.map BASE.trace PATCHED.map PATCHED.trace
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ksyms import Symbols  # noqa: E402


def profile(system_map, trace):
    """Instructions per function, and per (function, caller) visit lengths."""
    syms = Symbols(system_map)
    with open(trace) as f:
        names = [syms.name(int(line, 16)) for line in f if line.strip()]
    per_func = collections.Counter(names)
    visits = collections.defaultdict(collections.Counter)
    caller, current, run = None, None, 0
    for prev, name in zip(["?"] + names, names):
        if name != current:
            if current is not None:
                visits[(current, caller)][run] += 1
            caller, current, run = prev, name, 0
        run += 1
    if current is not None:
        visits[(current, caller)][run] += 1
    return len(names), per_func, visits


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    bt, bf, bv = profile(sys.argv[1], sys.argv[2])
    pt, pf, pv = profile(sys.argv[3], sys.argv[4])
    print("Instructions executed per function for one call (single-stepped "
          "under QEMU);\ndelta = patched - base.\n")
    print("%-40s %9s %9s %8s" % ("function", "base", "patched", "delta"))
    for name in sorted(set(bf) | set(pf), key=lambda n: (-abs(pf[n] - bf[n]), n)):
        if pf[name] != bf[name]:
            print("%-40s %9d %9d %+8d" % (name, bf[name], pf[name], pf[name] - bf[name]))
    print("%-40s %9d %9d %+8d" % ("total", bt, pt, pt - bt))
    # Same function, same caller, different length per visit: data or
    # alignment dependent paths (a leaf function's visit is one call).
    lines = []
    for key in sorted(set(bv) | set(pv)):
        if bv[key] != pv[key]:
            fmt = lambda c: " ".join("%dx%d" % (n, ln) for ln, n in sorted(c.items())) or "-"
            lines.append("  %s from %s: base %s, patched %s" % (key + (fmt(bv[key]), fmt(pv[key]))))
    if lines:
        print("\nVisits that differ (count x instructions per visit):")
        print("\n".join(lines[:40]))


if __name__ == "__main__":
    main()
