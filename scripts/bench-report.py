#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the consoles of two benchmark boots (base, patched) into tables.

Reads the "BENCH <table> <state> <call> <n> <median_ns>" lines that the
guest benchmark programs print and writes Markdown (stdout and --md) and
CSV (--csv).  Every table opens with a sentence that says what its numbers
are.
"""
import argparse
import datetime
import re
import sys

LINE = re.compile(r'^\s*BENCH (\S+) (\S+) (\S+) (\d+) (\d+) (\d+)\s*$')


def load(path):
    rows = {}
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line.replace('\r', ''))
            if m:
                table, state, call, n, med, mean = m.groups()
                rows[(table, state, call, int(n))] = (int(med), int(mean))
    return rows


def pct(new, old):
    return 100.0 * (new - old) / old if old else float('nan')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--arch', required=True)
    ap.add_argument('--clock', required=True)
    ap.add_argument('--base-version', required=True)
    ap.add_argument('--series', required=True)
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--csv')
    ap.add_argument('--md')
    ap.add_argument('base')
    ap.add_argument('patched')
    a = ap.parse_args()

    base, patched = load(a.base), load(a.patched)
    if not base or not patched:
        sys.exit('bench-report: no BENCH lines in %s' % (a.base if not base else a.patched))

    out = []
    csv = ['table,state,call,n,t_base_ns,t_patched_ns,delta_ns,percent,'
           'mean_base_ns,mean_patched_ns,mean_percent']
    p = out.append
    p('## %s: mseal' % a.arch)
    p('')
    p('Base: Debian %s, unpatched. Patched: the same plus the series (%s). '
      'Both built from the same non-debug configuration (configs/bench.config; '
      'CONFIG_MSEAL=y, CONFIG_MSEAL_SYSTEM_MAPPINGS off). %s, 1 vCPU; %s; %s.'
      % (a.base_version, a.series, a.qemu, a.clock,
         datetime.date.today().isoformat()))
    p('')

    for state, what in (('noseal', 'a process that has never called mseal()'),
                        ('sealed', 'a process that sealed its own read-only ELF segments '
                                   'first (the ranges timed are not sealed)')):
        p('### Per-call cost, %s' % what)
        p('')
        p('Time of one call over a range of `vmas` one-page VMAs, in '
          'nanoseconds of %s: the median of 101 samples, each the mean of 8 calls. '
          '`t` is the unpatched kernel, `t_patched` the series, '
          '`delta` = t_patched - t, `per_vma` = delta / vmas, `%%` = 100 * delta / t. '
          '**A positive percentage means the patched kernel is slower**. mremap moves '
          'one VMA per call, so its row times `vmas` calls.' % a.clock)
        p('')
        p('| syscall | vmas | t | t_patched | delta | per_vma | % |')
        p('|---|---:|---:|---:|---:|---:|---:|')
        for call in ('munmap', 'mprotect', 'madvise', 'mremap'):
            for n in (1, 2, 4, 8, 16, 32):
                k = ('syscall', state, call, n)
                if k not in base or k not in patched:
                    continue
                (t, mt), (tp, mtp) = base[k], patched[k]
                name = 'madvise(DONTNEED)' if call == 'madvise' else call
                p('| %s | %d | %d | %d | %+d | %+.1f | %+.2f%% |'
                  % (name, n, t, tp, tp - t, (tp - t) / n, pct(tp, t)))
                csv.append('syscall,%s,%s,%d,%d,%d,%d,%.3f,%d,%d,%.3f'
                           % (state, call, n, t, tp, tp - t, pct(tp, t), mt, mtp, pct(mtp, mt)))
        p('')

    p('### Page moves (stress-ng pagemove style)')
    p('')
    p('A 256-page region walked page by page, each page moved away and back with '
      'mremap(MREMAP_MAYMOVE|MREMAP_FIXED): 512 remaps per sample, median of 101 samples. '
      '`page_remaps_per_sec` counts remaps per second of %s (higher is better); '
      '`%%` = 100 * (t_patched - t) / t of the time per sample: **positive means the '
      'patched kernel is slower**.' % a.clock)
    p('')
    p('| process | t per 512 remaps (ns) | t_patched | page_remaps_per_sec | patched | % |')
    p('|---|---:|---:|---:|---:|---:|')
    for state in ('noseal', 'sealed'):
        k = ('pagemove', state, 'mremap_page', 512)
        if k in base and k in patched:
            (t, mt), (tp, mtp) = base[k], patched[k]
            p('| %s | %d | %d | %.0f | %.0f | %+.2f%% |'
              % ('no seals' if state == 'noseal' else 'seals elsewhere', t, tp,
                 512e9 / t, 512e9 / tp, pct(tp, t)))
            csv.append('pagemove,%s,mremap_page,512,%d,%d,%d,%.3f,%d,%d,%.3f'
                       % (state, t, tp, tp - t, pct(tp, t), mt, mtp, pct(mtp, mt)))
    p('')

    p('### The cost of sealing')
    p('')
    p('Median time of one mseal() over `vmas` fresh one-page VMAs on the patched kernel, '
      'in nanoseconds of %s (the base kernel has no mseal()). `per_vma` = t / vmas.'
      % a.clock)
    p('')
    p('| vmas | t | per_vma |')
    p('|---:|---:|---:|')
    for n in (1, 2, 4, 8, 16, 32):
        k = ('mseal', 'noseal', 'mseal', n)
        if k in patched:
            t = patched[k][0]
            p('| %d | %d | %.0f |' % (n, t, t / n))
            csv.append('mseal,noseal,mseal,%d,,%d,,,,,' % (n, t))
    p('')

    text = '\n'.join(out)
    print(text)
    if a.md:
        with open(a.md, 'w') as f:
            f.write(text + '\n')
    if a.csv:
        with open(a.csv, 'w') as f:
            f.write('\n'.join(csv) + '\n')


if __name__ == '__main__':
    main()
