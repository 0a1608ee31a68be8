#!/usr/bin/env python3
"""Compare two bench/RESULTS.md files row by row (issue 35).

Usage: bench-check.py OLD NEW [--arch ARCH] [--base-only]

Each "## ARCH: topic" section's tables are matched by section, table
heading and the row's leading label cells; every cell that differs is
printed.  The "Measured (sha256)" line of each section says which kernels
and initramfs made the figures: when those match and rows differ, the
guest is not deterministic; when they differ, different inputs explain
the rows.  --base-only compares only the base kernel's figures (in rows
with a patched column: t, "t per ...", base...; not t_* variants of the
patched kernel, columns named after a feature boot's switch (with "="),
deltas or percentages), for runs whose patched kernel changed.  A column
name that repeats in a table (each kernel's `%`) is told apart by the t_*
column before it: "% (t_kpkeys=off)".

Exit status: 0 when every compared cell is identical, 1 otherwise.
"""
import re
import sys


def column_names(header):
    """The header's cells, made unique for the cells' keys: a name that
    repeats (the `%` of each kernel's column) is qualified with the
    nearest t_* column before it ("% (t_kpkeys=off)"), or else numbered
    ("patched #2")."""
    out, seen, last_t = [], {}, None
    for h in header:
        if h.startswith("t_"):
            last_t = h
        seen[h] = seen.get(h, 0) + 1
        if seen[h] == 1:
            out.append(h)
        elif last_t:
            out.append(f"{h} ({last_t})")
        else:
            out.append(f"{h} #{seen[h]}")
    return out


def parse(path, arch):
    """{(section, table, label): {column: value}}, {section: {input: sha}}."""
    rows, inputs = {}, {}
    section = table = None
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                section = line[3:].strip()
                table, header = None, None
                continue
            if section is None or (arch and not section.startswith(arch + ":")):
                continue
            if line.startswith("### "):
                table, header = line[4:].strip(), None
                continue
            if line.startswith("Measured (sha256):"):
                inputs[section] = dict(
                    (k.strip(), v) for k, v in
                    re.findall(r"([^,:`]+?) `([0-9a-f]{64})`", line[18:]))
                continue
            if not line.startswith("|"):
                header = None if not line.strip() else header
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = column_names(cells)
                continue
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            # Label cells: the leading cells that are not numbers.
            n = 0
            while n < len(cells) - 1 and not re.fullmatch(r"[-+]?[0-9][0-9.,]*%?", cells[n]):
                n += 1
            n = max(n, 1)
            # Numeric label cells (vmas, pages) are part of the key too:
            # take the cells up to the first header named like a figure.
            for i, h in enumerate(header):
                if re.match(r"(t|t_|base|patched|delta|%|median)", h):
                    n = max(n, i)
                    break
            key = (section, table or "", " | ".join(cells[:n]))
            rows[key] = dict(zip(header[n:], cells[n:]))
    return rows, inputs


def base_column(name, columns):
    """In a row that compares the base with the patched kernel, every
    figure that is not the patched kernel's, a difference or a ratio (nor
    a boot of the series with a feature off: its column is named after a
    switch, kpkeys=off, CONFIG_MSEAL=n)."""
    if not any("patched" in c for c in columns):
        return False
    if name.startswith("t_"):       # t_patched, t_patched-off, t_slab_virtual=off
        return False
    return not any(w in name for w in ("patched", "delta", "%", "per_vma", "="))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    arch = None
    if "--arch" in argv:
        arch = argv[argv.index("--arch") + 1]
        args.remove(arch)
    base_only = "--base-only" in argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    old, old_in = parse(args[0], arch)
    new, new_in = parse(args[1], arch)
    for section in sorted(set(old_in) | set(new_in)):
        a, b = old_in.get(section, {}), new_in.get(section, {})
        same = [k for k in a if b.get(k) == a[k]]
        diff = [k for k in a if k in b and b[k] != a[k]]
        print(f"{section}: inputs identical: {', '.join(same) or 'none'}"
              f"{'; different: ' + ', '.join(diff) if diff else ''}")
    differ = compared = 0
    for key in sorted(set(old) & set(new)):
        for col, val in old[key].items():
            if base_only and not base_column(col, old[key]):
                continue
            if col not in new[key]:
                continue
            compared += 1
            if new[key][col] != val:
                differ += 1
                print(f"  {key[0]} / {key[1][:50]} / {key[2]}: {col} {val} -> {new[key][col]}")
    only = len(set(old) ^ set(new))
    print(f"{compared} cells compared, {differ} differ"
          f"{f'; {only} rows in only one file' if only else ''}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
