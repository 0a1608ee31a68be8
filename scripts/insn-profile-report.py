#!/usr/bin/env python3
"""Compare two whole-run instruction profiles (scripts/insn-profile.sh).

Each profile is a file of "ADDRESS COUNT" lines (hex, decimal) written by
the insncount QEMU plugin: how many times the instruction at ADDRESS ran
over the whole boot.  Prints, for every kernel function whose count
differs by at least --min (default: 0.01% of the base kernel's total),
the instructions each kernel ran in it and the difference, largest first,
then totals: kernel (in System.map's text), other kernel addresses
(modules, vmalloc'd code, BPF), and user space.

Usage: insn-profile-report.py [--min N] [--per N]
       BASE.map BASE.counts PATCHED.map PATCHED.counts
--per N divides every figure by N (the operations the run performed).
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ksyms import Symbols  # noqa: E402

KERNEL_START = 0xffff000000000000


def function(syms, pc):
    if pc < KERNEL_START:
        return "[user]"
    if not syms.in_text(pc):
        return "[other kernel: modules, vmalloc]"
    return syms.name(pc)


def profile(system_map, counts):
    syms = Symbols(system_map)
    per_func = collections.Counter()
    with open(counts) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2:
                per_func[function(syms, int(fields[0], 16))] += int(fields[1])
    return per_func


def main():
    args = sys.argv[1:]
    minimum, per = None, 1.0
    while args and args[0].startswith("--"):
        if args[0] == "--min":
            minimum = float(args[1])
        elif args[0] == "--per":
            per = float(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    if len(args) != 4:
        sys.exit(__doc__)
    base = profile(args[0], args[1])
    patched = profile(args[2], args[3])
    total_b, total_p = sum(base.values()), sum(patched.values())
    if minimum is None:
        minimum = total_b / 10000.0
    print("Instructions executed per function over the whole boot (QEMU "
          "plugin insncount)%s;\ndelta = patched - base; functions whose "
          "delta is under %.0f left out.\n"
          % (", divided by %g" % per if per != 1 else "", minimum))
    print("%-44s %14s %14s %12s" % ("function", "base", "patched", "delta"))
    names = set(base) | set(patched)
    for name in sorted(names, key=lambda n: (-abs(patched[n] - base[n]), n)):
        d = patched[name] - base[name]
        if abs(d) >= minimum:
            print("%-44s %14.1f %14.1f %+12.1f"
                  % (name, base[name] / per, patched[name] / per, d / per))
    print()
    for label in ("[user]", "[other kernel: modules, vmalloc]"):
        print("%-44s %14.1f %14.1f %+12.1f" % (label, base[label] / per,
              patched[label] / per, (patched[label] - base[label]) / per))
    print("%-44s %14.1f %14.1f %+12.1f" % ("total", total_b / per, total_p / per,
                                            (total_p - total_b) / per))


if __name__ == "__main__":
    main()
