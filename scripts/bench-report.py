#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the consoles of two benchmark boots (base, patched) into tables,
and optionally of a third (--off: the patched kernel booted with kpkeys=off).

Reads the "BENCH <table> <state> <call> <n> <figure_ns> <median_ns>" lines
(guest/bench/mseal_bench.c says what the figure is for each table) that the
guest benchmark programs print and writes Markdown (stdout and --md) and
CSV (--csv; the fragmentation table, whose columns differ, goes to the same
name with -frag.csv).  Every table opens with a sentence that says what its numbers
are.

Under KVM (make bench ACCEL=kvm) the programs run with --cycles and also
print "BENCHCYC <table> <state> <call> <n> <median_cycles>": the kernel's
reference cycles.  Where they are present, each table gets a companion
table of them (CSV: -cycles.csv); where a program could not open the
counter, the report says why.

Under -icount (make bench) mseal_bench runs with --insns and, where the
guest has an instruction counter (arm64's PMU under TCG; x86 TCG has
none), prints "BENCHINS syscall <state> <call> <n> <fewest_instructions>":
the fewest kernel instructions of any call of the row.  Where both logs
have them, each per-call table gets a companion table (CSV: -insns.csv).

Logs without BENCHCYC or BENCHINS lines give the same tables as before.

pgtable_bench prints "BENCH pgtable all <row> <pages> <median_ns> <median_ns>"
and "BENCHPKS pgtable <row> <pages> <switches_per_op> <dmap_splits>" (PKRS
writes per operation, direct-map splits over the row; -1 where the kernel
has no such counter): they make the page-table tables (CSV: -pgtable.csv).
With --off, those tables get a patched-off column, and every other row the
third boot measured goes into one table of its own, so that the tables of
two kernels stay as they were.

slab_bench prints "BENCH slab <state> <row> <n> <fastest_ns> <median_ns>",
"BENCHSLAB <state> <row> <n> <tlb_ipis_per_op> <sv_flushes_per_op>
<sv_freed_pages_per_op> <sv_pending_pages> <sv_escaped_slabs>" (-1 where a
counter is missing) and one "BENCHSLABMEM ..." line of what SLAB_VIRTUAL's
region costs: they make the slab tables (CSV: -slab.csv).  With --slab-off
(the patched kernel booted with slab_virtual=off, running slab_bench
alone) those tables get a third kernel's columns.

The method's constants (samples, calls per sample, sleeps, read pairs)
come from the programs' "BENCHMETA <program> key=value ..." lines; a log
from before those lines gets the constants the programs had then
(METHOD_DEFAULTS).
"""
import argparse
import datetime
import hashlib
import os
import re
import sys

LINE = re.compile(r'^\s*BENCH (\S+) (\S+) (\S+) (\d+) (\d+) (\d+)\s*$')
FRAG = re.compile(r'^\s*BENCHFRAG (\d+) (\d+) (-?\d+) (-?\d+) (-?\d+)(?: (-?\d+))?\s*$')
CYC = re.compile(r'^\s*BENCHCYC (\S+) (\S+) (\S+) (\d+) (\d+)\s*$')
NOCYC = re.compile(r'^\s*# no kernel ref-cycles counter: (.*?)\s*$')
INS = re.compile(r'^\s*BENCHINS (\S+) (\S+) (\S+) (\d+) (-?\d+)\s*$')
META = re.compile(r'^\s*BENCHMETA (\S+)((?: \w+=\d+)*)\s*$')
PKS = re.compile(r'^\s*BENCHPKS (\S+) (\S+) (\d+) (-?\d+(?:\.\d+)?) (-?\d+)\s*$')
SVC = re.compile(r'^\s*BENCHSLAB (\S+) (\S+) (\d+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) '
                 r'(-?\d+(?:\.\d+)?) (-?\d+) (-?\d+)\s*$')
# retained_pages: missing in consoles of before it existed (None then).
SVMEM = re.compile(r'^\s*BENCHSLABMEM((?: -?\d+){7,8})\s*$')
SVMEM_KEYS = ('metadata_pages', 'table_pages', 'carved_bytes', 'region_bytes',
              'escaped_slabs', 'abandoned_slots', 'slab_kb', 'retained_pages')
# What scripts/boot.sh writes at the top of a console, and what the kernel
# says about parameters it does not know.
CMDLINE = re.compile(r'^# cmdline: (.*?)\s*$')
UNKNOWN = re.compile(r'Unknown kernel command line parameters "(.*?)", will be passed')

# What the programs printed on their BENCHMETA lines, as they were before
# they printed them: the values a log without those lines was measured with.
METHOD_DEFAULTS = {
    'mseal_bench': dict(reps=101, batch=8, pagemove_pages=256,
                        cyc_read_pairs=101, ins_read_pairs=100),
    'secretmem_bench': dict(reps=21, fault_pages=64, sleep_us=20000,
                            cyc_read_pairs=101),
    'pgtable_bench': dict(reps=11, big_reps=5, big_mib=1024, small_mib=64,
                          settle_us=20000, vmalloc_ops=0),
    # Always printed its BENCHMETA line: what the others share with it.
    'slab_bench': dict(reps=101, batch=8, big_reps=11, batch_msgs=512, settle_us=20000),
}


def load(path):
    """BENCH rows by (table, state, call, n); BENCHFRAG rows by ('frag',
    files, pages), as (4k, 2M, 1G, level3 splits or None); BENCHCYC rows by ('cyc', table, state, call, n);
    BENCHINS rows by ('ins', table, state, call, n); ('nocyc',): why a
    program had no cycle counter; BENCHMETA lines by ('meta', program),
    as a dict of int values; BENCHPKS rows by ('pks', table, row, n), as
    (switches per operation, direct-map splits), None where -1; BENCHSLAB
    rows by ('svc', state, row, n), as (TLB IPIs per operation, slab_virtual
    flushes per operation, freed pages per operation, pending pages, escaped
    slabs), None where -1; the BENCHSLABMEM line by ('svmem',), as a dict
    of SVMEM_KEYS, None where -1; the kernel
    command line by ('cmdline',) and the parameters the kernel did not know
    by ('unknown',)."""
    rows = {}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.replace('\r', '')
            f_ = FRAG.match(line)
            if f_:
                files, pages, d4, d2, d1 = map(int, f_.groups()[:5])
                l3 = f_.group(6)
                l3 = int(l3) if l3 is not None and int(l3) >= 0 else None
                rows[('frag', files, pages)] = (d4, d2, d1, l3)
                continue
            m = LINE.match(line)
            if m:
                table, state, call, n, fig, med = m.groups()
                rows[(table, state, call, int(n))] = (int(fig), int(med))
                continue
            c = CYC.match(line)
            if c:
                table, state, call, n, med = c.groups()
                rows[('cyc', table, state, call, int(n))] = int(med)
                continue
            c = INS.match(line)
            if c:
                table, state, call, n, fewest = c.groups()
                rows[('ins', table, state, call, int(n))] = int(fewest)
                continue
            c = NOCYC.match(line)
            if c:
                rows[('nocyc',)] = c.group(1)
                continue
            c = META.match(line)
            if c:
                rows[('meta', c.group(1))] = {
                    k: int(v) for k, v in (kv.split('=') for kv in c.group(2).split())}
                continue
            c = PKS.match(line)
            if c:
                table, row, n, sw, splits = c.groups()
                rows[('pks', table, row, int(n))] = (
                    None if float(sw) < 0 else float(sw),
                    None if int(splits) < 0 else int(splits))
                continue
            c = SVC.match(line)
            if c:
                state, row, n = c.groups()[:3]
                vals = [float(x) if '.' in x else int(x) for x in c.groups()[3:]]
                rows[('svc', state, row, int(n))] = tuple(
                    None if x < 0 else x for x in vals)
                continue
            c = SVMEM.match(line)
            if c:
                vals = c.group(1).split()
                vals += ['-1'] * (len(SVMEM_KEYS) - len(vals))
                rows[('svmem',)] = {k: (None if int(x) < 0 else int(x))
                                    for k, x in zip(SVMEM_KEYS, vals)}
                continue
            c = CMDLINE.match(line)
            if c and ('cmdline',) not in rows:
                rows[('cmdline',)] = c.group(1)
                continue
            c = UNKNOWN.search(line)
            if c:
                rows[('unknown',)] = c.group(1)
    return rows


def method(base, patched, program, off=None):
    """The constants @program ran with (BENCHMETA), METHOD_DEFAULTS for
    what a log lacks.  Both kernels (and the patched-off boot, @off, where
    it ran the program) must have run the same method."""
    def of(rows):
        return dict(METHOD_DEFAULTS[program], **rows.get(('meta', program), {}))
    m, b = of(patched), of(base)
    differ = {k: (b[k], m[k]) for k in METHOD_DEFAULTS[program] if b[k] != m[k]}
    if differ:
        sys.exit('bench-report: %s ran with other constants on the base kernel than '
                 'on the patched one (base, patched): %s' % (program, differ))
    if off and ('meta', program) in off:
        o = of(off)
        differ = {k: (b[k], o[k]) for k in METHOD_DEFAULTS[program] if b[k] != o[k]}
        if differ:
            sys.exit('bench-report: %s ran with other constants on the base kernel than '
                     'in the patched-off boot (base, patched-off): %s' % (program, differ))
    return m


def pct(new, old):
    return 100.0 * (new - old) / old if old else float('nan')


CYCLES_WHAT = ('reference cycles the CPU spent in the kernel for the benchmark '
               'thread, counted by its PMU (perf_event_open, '
               'PERF_COUNT_HW_REF_CPU_CYCLES, exclude_user and exclude_hv: '
               'user space, including the clock reads, is left out; reference '
               'cycles tick at a constant rate whatever the core clock does)')


def has_counter(kind, base, patched, *prefix):
    """Whether both logs have BENCHCYC (@kind 'cyc') or BENCHINS ('ins')
    rows whose key starts with @prefix."""
    def has(rows):
        return any(k[0] == kind and k[1:1 + len(prefix)] == prefix for k in rows)
    return has(base) and has(patched)


def cycles_overhead(base, patched, state, where, m):
    """The sentence on what reading the counter adds to each counted
    interval, from the programs' "BENCHCYC overhead" lines (@m: the
    program's method())."""
    k = ('cyc', 'overhead', state, 'counter_read', 1)
    if k not in base or k not in patched:
        return ''
    return (' Each counted interval also holds the end of one read() of the counter '
            'and the start of the next, the same code on both kernels: %d reference '
            'cycles on the base kernel, %d on the patched one (median of %d '
            'back-to-back reads), %s.' % (base[k], patched[k], m['cyc_read_pairs'], where))


def no_cycles_note(a, base, patched, p):
    """Say why there are no ref-cycles tables when a program tried (--cycles)
    and could not open the counter."""
    why = patched.get(('nocyc',)) or base.get(('nocyc',))
    if why and not has_counter('cyc', base, patched):
        p('Kernel ref-cycles: not measured. The benchmark programs could not open '
          'the counter in the %s guest (perf_event_open: %s); the tables give time '
          'only. The ref-cycles event exists on Intel CPUs; the AMD and arm64 PMU '
          'drivers of Linux 6.1 have none, and the guest needs a virtual PMU.'
          % (a.arch, why))
        p('')


SIZES = (1, 2, 4, 8, 16, 32)


def syscall_rows(state):
    """(call, name in the tables, vmas, key) of each per-call row, in order."""
    for call in ('munmap', 'mprotect', 'madvise', 'mremap'):
        name = 'madvise(DONTNEED)' if call == 'madvise' else call
        for n in SIZES:
            yield call, name, n, ('syscall', state, call, n)


def counter_row(kind, csv, base, patched, key):
    """(base, patched) of one BENCHCYC (@kind 'cyc') or BENCHINS ('ins')
    row, recorded in @csv, or None."""
    k = (kind,) + key
    if k not in base or k not in patched:
        return None
    t, tp = base[k], patched[k]
    csv.append('%s,%s,%s,%d,%d,%d,%d,%.3f' % (key + (t, tp, tp - t, pct(tp, t))))
    return t, tp


def insns_table(base, patched, p, ins_csv, state, what, m):
    """The companion of a per-call table: kernel instructions (BENCHINS)."""
    k = ('ins', 'overhead', state, 'counter_read', 1)
    reads = ''
    if k in base and k in patched:
        reads = (': %d instructions on the base kernel, %d on the patched one, the '
                 'fewest of %d back-to-back read pairs'
                 % (base[k], patched[k], m['ins_read_pairs']))
    p('#### Kernel instructions (fewest), %s' % what)
    p('')
    p('**Instructions the kernel executed for one call**, counted by the guest PMU\'s '
      'instruction counter for the benchmark thread (perf_event_open, '
      'PERF_COUNT_HW_INSTRUCTIONS, exclude_user and exclude_hv; QEMU TCG under -icount '
      'counts instructions exactly): user space, including the clock reads, is left '
      'out, and what the two counter reads around each call count (the end of one '
      'read() and the start of the next%s) is subtracted. Each figure is the fewest '
      'over the same %d calls as the time above (mremap: the sum over the `vmas` '
      'moves of each move\'s fewest of %d), and is exact to one instruction where '
      'the time moves in steps of the guest clock. `delta` = patched - base, '
      '`per_vma` = delta / vmas, `%%` = 100 * delta / base. **A positive percentage '
      'means the patched kernel is slower**.' % (reads, m['reps'] * m['batch'], m['reps']))
    p('')
    p('| syscall | vmas | kernel instructions | patched | delta | per_vma | % |')
    p('|---|---:|---:|---:|---:|---:|---:|')
    for _, name, n, k in syscall_rows(state):
        c = counter_row('ins', ins_csv, base, patched, k)
        if c is None:
            continue
        t, tp = c
        p('| %s | %d | %d | %d | %+d | %+.1f | %+.2f%% |'
          % (name, n, t, tp, tp - t, (tp - t) / n, pct(tp, t)))
    p('')


def secretmem_tables(a, base, patched, p, csv, frag_csv, cyc_csv):
    frag = [k for k in patched if k[0] == 'frag']  # in the order they ran
    if not frag and not any(k[0] == 'secretmem' for k in patched):
        return
    m = method(base, patched, 'secretmem_bench')
    pages = m['fault_pages']
    p('## %s: memfd_secret' % a.arch)
    p('')
    p('Base: the unpatched kernel, where every secret page leaves the direct map on its '
      'own. Patched: secret pages come from the pool of 2 MiB blocks '
      '(CONFIG_SECRETMEM_POOL=y).')
    p('')
    p('### Direct-map fragmentation')
    p('')
    if not frag:
        p('Not measured: this architecture reports no DirectMap lines in /proc/meminfo '
          '(the arm64 linear map is page granular whenever memfd_secret is available, '
          'so there is nothing to split).')
        p('')
    else:
        p('`files` processes each fault `pages` pages of their own memfd_secret file, with '
          '2 MiB + 4 KiB of other memory allocated before each file so that, without a '
          'pool, the secret pages land in different 2 MiB blocks. Figures are the change of '
          'the DirectMap4k, DirectMap2M and DirectMap1G lines of /proc/meminfo, in kB, while '
          'all files hold their pages, compared with just before the row. Growth of '
          'DirectMap4k is the fragmentation: 2 MiB entries split into 4 KiB ones. '
          '`1G splits` is the change of direct_map_level3_splits in /proc/vmstat: 1 GiB '
          'entries split into 2 MiB ones (- where a log lacks it). Rows ran '
          'in this order in one boot; on the base kernel splits are permanent, so a later '
          'row may reuse entries an earlier one split and grow less than it would on its '
          'own.%s' % ('' if any(k[0] == 'frag' for k in base) else
                      ' (The base kernel printed no rows: memfd_secret() was unavailable.)'))
        p('')
        p('| files x pages | DirectMap4k base | patched | DirectMap2M base | patched '
          '| DirectMap1G base | patched | 1G splits base | patched |')
        p('|---|---:|---:|---:|---:|---:|---:|---:|---:|')

        def l3(v):
            return '-' if v is None else '%+d' % v

        for k in frag:
            b = base.get(k, (0, 0, 0, None))
            q = patched[k]
            p('| %d x %d | %+d | %+d | %+d | %+d | %+d | %+d | %s | %s |'
              % (k[1], k[2], b[0], q[0], b[1], q[1], b[2], q[2], l3(b[3]), l3(q[3])))
            frag_csv.append('%d,%d,%d,%d,%d,%d,%d,%d,%s,%s'
                            % (k[1], k[2], b[0], q[0], b[1], q[1], b[2], q[2],
                               '' if b[3] is None else b[3], '' if q[3] is None else q[3]))
        p('')
    p('### Cost of a secret page')
    p('')
    p('One process maps a %d-page memfd_secret file and touches each page once: '
      '`fault_per_page` is the mean time of one such page fault, `cycle_per_page` the '
      'time of memfd_secret + ftruncate + mmap + %d faults + munmap + close divided by %d; '
      'medians of %d files, in nanoseconds of %s. The pool zeroes reused pages in a work '
      'item after close, which the program lets run between samples (%g ms sleep), '
      'so that cost is in neither figure. **A positive percentage means the patched '
      'kernel is slower**.'
      % (pages, pages, pages, m['reps'], a.clock, m['sleep_us'] / 1000))
    p('')
    if any(k[:2] == ('secretmem', 'fallback') for k in patched):
        p('The `fallback` rows measure the patched kernel with secretmem.pool_blocks=0: '
          'every secret page is taken and removed from the direct map on its own, as '
          'when no 2 MiB block can be allocated. They are compared with the same base '
          'figures, since that is what the base kernel always does.')
        p('')
    p('| what | t | t_patched | delta | % |')
    p('|---|---:|---:|---:|---:|')
    for state in ('all', 'fallback'):
        for what in ('fault_per_page', 'cycle_per_page'):
            k = ('secretmem', 'all', what, pages)
            kp = ('secretmem', state, what, pages)
            if k in base and kp in patched:
                t, tp = base[k][0], patched[kp][0]
                name = what if state == 'all' else '%s (fallback)' % what
                p('| %s | %d | %d | %+d | %+.2f%% |' % (name, t, tp, tp - t, pct(tp, t)))
                csv.append('secretmem,%s,%s,%d,%d,%d,%d,%.3f,,,'
                           % (state, what, pages, t, tp, tp - t, pct(tp, t)))
    p('')
    if has_counter('cyc', base, patched, 'secretmem'):
        p('Kernel ref-cycles of the same samples, per page: %s; median of %d files. '
          'The %d faults of a file are counted together, so the per-fault clock reads '
          '(user space) are not in `fault_per_page`; the two counter reads around them '
          'are in `cycle_per_page`.%s **A positive percentage means the patched kernel '
          'is slower**.' % (CYCLES_WHAT, m['reps'], pages, cycles_overhead(
              base, patched, 'all', 'once per file for `fault_per_page` and three times '
              'for `cycle_per_page` (whose interval holds the two reads around the '
              'faults), that is 1/%d and 3/%d of it per page' % (pages, pages), m)))
        p('')
        p('| what | ref-cycles | patched | delta | % |')
        p('|---|---:|---:|---:|---:|')
        for what in ('fault_per_page', 'cycle_per_page'):
            c = counter_row('cyc', cyc_csv, base, patched, ('secretmem', 'all', what, pages))
            if c:
                t, tp = c
                p('| %s | %d | %d | %+d | %+.2f%% |' % (what, t, tp, tp - t, pct(tp, t)))
        p('')


def mib_text(mib):
    return '%d GiB' % (mib // 1024) if mib % 1024 == 0 else '%d MiB' % mib


VMALLOC_PAGES = (1, 4, 16, 64, 256)


def pgtable_rows(m):
    """(row, what one operation is) of pgtable_bench, in the order it runs
    them (@m: its method())."""
    big, small = m['big_mib'], m['small_mib']
    size = mib_text
    return (('fork', 'fork of a process with %s written; child exits; wait' % size(big)),
            ('munmap', 'munmap of %s touched' % size(big)),
            ('touch', 'first write to a page of a fresh %s mapping' % size(small)),
            ('mprotect', 'mprotect of %s touched, RW to RO or back' % size(small)))


def off_params(patched, off):
    """What the patched-off boot added to the patched kernel's command line
    ('kpkeys=off'), from the "# cmdline:" lines of the consoles."""
    if ('cmdline',) not in patched or ('cmdline',) not in off:
        return 'kpkeys=off'
    have = set(patched[('cmdline',)].split())
    extra = [w for w in off.get(('cmdline',), '').split() if w not in have]
    return ' '.join(extra) or 'kpkeys=off'


def pgtable_tables(a, base, patched, off, p, pgt_csv):
    """The page-table tables (pgtable_bench), with a patched-off column
    where @off (the patched kernel booted with kpkeys=off) has the row."""
    if not any(k[:2] == ('pgtable', 'all') for k in patched):
        return
    m = method(base, patched, 'pgtable_bench', off)
    off = off or {}
    params = off_params(patched, off)
    rows = [(row, what, (m[size] << 20) // 4096)
            for (row, what), size in zip(pgtable_rows(m),
                                         ('big_mib', 'big_mib', 'small_mib', 'small_mib'))]
    rows += [('vmalloc_p%d' % n, 'vmalloc() of %d page%s, first byte written, vfree() '
              '(test_vmalloc fix_size_alloc_test, p:%d)' % (n, 's' if n > 1 else '', n), n)
             for n in VMALLOC_PAGES]
    has_vmalloc = any(('pgtable', 'all', row, n) in patched for row, _, n in rows[4:])
    has_off = any(('pgtable', 'all', row, n) in off for row, _, n in rows)
    alone = not other_rows(off)
    # What a level switch is on each architecture.
    # What a write costs is what the CPU does for it: an ISB on arm64 (the
    # accesses after an MSR to POR_EL1 see the new permissions only after a
    # context synchronization); on x86 a WRMSR to IA32_PKRS is not
    # serializing, but, as WRPKRU, it orders the accesses after it.
    mech, write, reg, insn, regname, cost = {
        'arm64': ('arm64 POE, the stage 1 permission overlay', 'a write of POR_EL1 and an ISB',
                  'POR_EL1', 'an MSR', 'POR_EL1',
                  'where each is an MSR followed by an ISB, a context synchronization '
                  'that the accesses after it wait for'),
    }.get(a.arch, ('x86 PKS', 'a WRMSR of IA32_PKRS, batched inside lazy-MMU sections',
                   'PKRS', 'a WRMSR', 'IA32_PKRS',
                   'where each is a WRMSR of IA32_PKRS: not a serializing one (unlike most '
                   'WRMSRs), but, like WRPKRU, one that the accesses after it wait for'))
    p('## %s: page tables' % a.arch)
    p('')
    p('Base: the unpatched kernel. Patched: the series; where it protects page tables '
      'with kernel protection keys (%s), page-table pages are read-only to ordinary '
      'kernel writes, the page-table helpers raise a level (%s) around '
      'each write, and page-table pages come from a '
      'pool of 2 MiB direct-map blocks.%s'
      % (mech, write, ' Patched-off: the same patched kernel image booted with `%s`%s.'
         % (params, ', in a boot of its own that runs only this program (the base and '
            'patched figures come from the boots that run every program, this one last)'
            if alone else '') if has_off else ''))
    p('')
    notes = []
    if patched and all(v[0] is None for k, v in patched.items() if k[0] == 'pks'):
        notes.append('The patched kernel has no /sys/kernel/debug/kpkeys/switches: it does not '
                     'protect page tables with kernel protection keys (no %s on this CPU), '
                     'and its %s writes show as -.' % (mech.split(',')[0], reg))
    if has_off and 'kpkeys' in off.get(('unknown',), ''):
        notes.append('The patched kernel did not know `%s` (it passed "%s" to user space): '
                     'the patched-off column is the patched kernel as it always runs.'
                     % (params, off[('unknown',)]))
    for n in notes:
        p(n)
        p('')
    p('Each figure is the median of %d repetitions of one operation (%d for the %s rows), '
      'in nanoseconds of %s; '
      'every region is madvise(MADV_NOHUGEPAGE), so that its page tables are 4 KiB PTE '
      'pages (the bench kernels have THP "always"). `pages`: the 4 KiB pages the '
      'operation covers. fork: per fork of a process whose %s were all written just '
      'before (so each fork write-protects as many writable PTEs in the parent as it '
      'copies), including the child\'s _exit() and the parent\'s waitpid(). munmap: per '
      'call, on a fresh mapping touched untimed. First write: the time of writing one '
      'byte of every page of a fresh mapping, divided by its pages (a page fault each). '
      'mprotect: the time of a PROT_READ and a PROT_READ|PROT_WRITE call over the touched '
      'region, divided by 2.%s Each repetition starts after a %g ms sleep, free under '
      '-icount sleep=off, so that deferred work of the previous one is done. `%%` = 100 * '
      '(t_kernel - t) / t against the base. **A positive percentage means that kernel is '
      'slower than the base**.'
      % (m['reps'], m['big_reps'], mib_text(m['big_mib']) + (' and vmalloc' if has_vmalloc else ''),
         a.clock, mib_text(m['big_mib']),
         (' vmalloc: one loop of the kernel\'s own test_vmalloc module (6.1 has no '
          'vm_map_ram test), one thread, loaded once per repetition with %d / pages loops; '
          'its time is the one the module reports for the loops (module loading left out), '
          'divided by the loops, so it includes the lazy vfree() purges (a TLB flush every '
          'few thousand pages) and timer ticks that land in them; `pages` is its nr_pages.'
          % m['vmalloc_ops']) if has_vmalloc else '',
         m['settle_us'] / 1000))
    p('')
    head = '| operation | pages | t | t_patched | delta | %'
    rule = '|---|---:|---:|---:|---:|---:'
    if has_off:
        head += ' | t_patched-off | delta | %'
        rule += '|---:|---:|---:'
    p(head + ' |')
    p(rule + '|')
    cells = {}
    for row, what, n in rows:
        k = ('pgtable', 'all', row, n)
        if k not in base or k not in patched:
            continue
        t, tp = base[k][0], patched[k][0]
        line = '| %s | %d | %d | %d | %+d | %+.2f%%' % (what, n, t, tp, tp - t, pct(tp, t))
        to = off[k][0] if k in off else None
        if has_off:
            line += (' | %d | %+d | %+.2f%%' % (to, to - t, pct(to, t)) if to is not None
                     else ' | - | | ')
        p(line + ' |')
        cells[row] = (t, tp, to)
    p('')

    def pks(rows, row, n, i):
        v = rows.get(('pks', 'pgtable', row, n))
        return None if v is None else v[i]

    def fmt(v, spec):
        return '-' if v is None else spec % v

    p('**%s writes per operation: what real hardware pays for; under -icount %s '
      'counts as one instruction**, so the time above cannot show what these writes cost '
      'on a CPU, %s. Each figure is the change of '
      '/sys/kernel/debug/kpkeys/switches (level switches, that is %s writes, on '
      'all CPUs) over the row\'s timed operations divided by their number (- where the '
      'kernel has no such counter; with kpkeys=off the patched kernel may have none, and '
      'makes no such writes). **Direct-map splits**: the change of '
      'direct_map_level2_splits + direct_map_level3_splits in /proc/vmstat over the whole '
      'row, setup included: 2 MiB and 1 GiB direct-map entries split into smaller ones '
      '(the pool takes page-table pages from 2 MiB blocks; - where the counters are '
      'missing). Rows ran in this order in one boot, so a later row may reuse blocks or '
      'entries an earlier row split.%s' % (reg, insn, cost, regname, (
          ' vmalloc rows: the switches of the module loads that ran the test, less those of '
          'as many loads that ran none (loading maps the module with vmalloc too), divided by '
          'the loops.' if has_vmalloc else '')))
    p('')
    head = '| operation | %s writes/op base | patched' % reg
    rule = '|---|---:|---:'
    if has_off:
        head += ' | patched-off'
        rule += '|---:'
    head += ' | direct-map splits base | patched'
    rule += '|---:|---:'
    if has_off:
        head += ' | patched-off'
        rule += '|---:'
    p(head + ' |')
    p(rule + '|')
    kernels = (base, patched, off) if has_off else (base, patched)
    for row, what, n in rows:
        if row not in cells:
            continue
        line = '| %s | ' % what
        line += ' | '.join(fmt(pks(r, row, n, 0), '%.2f') for r in kernels)
        line += ' | ' + ' | '.join(fmt(pks(r, row, n, 1), '%+d') for r in kernels)
        p(line + ' |')
        t, tp, to = cells[row]

        def c(v, spec='%s'):
            return '' if v is None else spec % v
        pgt_csv.append(','.join([row, str(n), c(t), c(tp), c(to), '%.3f' % pct(tp, t),
                                 c(None if to is None else pct(to, t), '%.3f')]
                                + [c(pks(r, row, n, 0), '%.2f') for r in (base, patched, off)]
                                + [c(pks(r, row, n, 1)) for r in (base, patched, off)]))
    p('')
    off_other_table(a, base, off, p, params)


SLAB_SIZES = (64, 512, 4096, 16384)


def slab_rows(m):
    """(state, row, n, what one operation is) of slab_bench, in the order it
    runs them (@m: its method())."""
    k = m['batch_msgs']
    rows = [('all', 'unix_pingpong', 64, 'AF_UNIX stream socketpair ping-pong between two '
             'processes, 64 bytes, per round trip'),
            ('all', 'pipe_pingpong', 64, 'pipe ping-pong between two processes, 64 bytes, '
             'per round trip'),
            ('all', 'fork', 1, 'fork + _exit + waitpid of a small static process'),
            ('all', 'tmpfs_file', 1, 'tmpfs file create + close + stat + unlink')]
    rows += [('hot', 'dgram', n, 'AF_UNIX datagram send + recv, %d bytes' % n)
             for n in SLAB_SIZES]
    rows += [('batch', 'dgram', n, '%d AF_UNIX datagrams of %d bytes sent, then received; '
              'per datagram' % (k, n)) for n in SLAB_SIZES]
    rows += [('hot', 'msg', n, 'System V message msgsnd + msgrcv, %d bytes' % n)
             for n in SLAB_SIZES]
    rows += [('batch', 'msg', n, '%d System V messages of %d bytes sent, then received; '
              'per message' % (k, n)) for n in SLAB_SIZES]
    return rows


def slab_tables(a, base, patched, svoff, p, slab_csv, slabmem_csv):
    """The slab tables (slab_bench): base, patched and, where @svoff (the
    patched kernel booted with slab_virtual=off) has the row, a third
    column."""
    if not any(k[0] == 'slab' and len(k) == 4 for k in patched):
        return
    m = method(base, patched, 'slab_bench', svoff)
    svoff = svoff or {}
    rows = [r for r in slab_rows(m) if ('slab',) + r[:3] in base and ('slab',) + r[:3] in patched]
    has_off = any(('slab',) + r[:3] in svoff for r in rows)
    p('## %s: slab allocator (SLAB_VIRTUAL)' % a.arch)
    p('')
    p('Base: the unpatched kernel. Patched: the series; with CONFIG_SLAB_VIRTUAL every slab '
      'is mapped at a slot of a virtual region that only its cache ever uses again, and a '
      'freed slab is unmapped, after one TLB flush per batch, by a work item that then frees '
      'its pages.%s'
      % (' slab_virtual=off: the same patched kernel image booted with `slab_virtual=off` '
         '(every slab in the linear map, as in the base kernel), in a boot of its own that '
         'runs only this program; the base and patched figures come from the boots that run '
         'every program, this one last.' if has_off else ''))
    p('')
    notes = []
    if not all(('slab', 'all', 'unix_pingpong', 64) in r for r in (base, patched)):
        notes.append('No AF_UNIX rows: the bench kernels have no AF_UNIX sockets (%s). '
                     'The System V message rows are the same measure with another object.'
                     % ('socketpair() failed; CONFIG_UNIX needs CONFIG_NET, which the '
                        'tinyconfig-based bench configuration leaves off'))
    if any(k[0] == 'svc' for k in patched) and \
            all(v[1] is None for k, v in patched.items() if k[0] == 'svc'):
        notes.append('The patched kernel has no /sys/kernel/debug/slab_virtual (it does not '
                     'have SLAB_VIRTUAL on, or did not create the file): its flush, freed-page, '
                     'pending and escaped figures show as -.')
    if has_off and 'slab_virtual' in svoff.get(('unknown',), ''):
        notes.append('The patched kernel did not know `slab_virtual=off` (it passed "%s" to '
                     'user space): the slab_virtual=off column is the patched kernel as it '
                     'always runs.' % svoff[('unknown',)])
    for n in notes:
        p(n)
        p('')
    p('**Instructions per operation**: nanoseconds of %s, user and kernel (the user-space '
      'part is the same binary on every kernel). `t`: the fastest single operation of the '
      'row: each operation is timed on its own, %d samples of %d operations, each sample '
      'after a %g ms sleep (free under -icount sleep=off) so that the deferred work of the '
      'previous one (RCU callbacks, the SLAB_VIRTUAL work item) is done; the batch rows are '
      '%d samples of one burst of %d operations, timed together and divided by %d. '
      '`median %%`: the same comparison for the median over the samples of their mean per '
      'operation, which includes the periodic and deferred work that lands in the timed '
      'operations. `%%` = 100 * (t_kernel - t) / t against the base. **A positive '
      'percentage means that kernel is slower than the base**.'
      % (a.clock, m['reps'], m['batch'], m['settle_us'] / 1000, m['big_reps'],
         m['batch_msgs'], m['batch_msgs']))
    p('')
    head = '| operation | t | t_patched | % | median %'
    rule = '|---|---:|---:|---:|---:'
    if has_off:
        head += ' | t_slab_virtual=off | % | median %'
        rule += '|---:|---:|---:'
    p(head + ' |')
    p(rule + '|')
    for state, row, n, what in rows:
        k = ('slab', state, row, n)
        (t, mt), (tp, mtp) = base[k], patched[k]
        line = '| %s | %d | %d | %+.2f%% | %+.2f%%' % (what, t, tp, pct(tp, t), pct(mtp, mt))
        to = mto = None
        if k in svoff:
            to, mto = svoff[k]
        if has_off:
            line += (' | %d | %+.2f%% | %+.2f%%' % (to, pct(to, t), pct(mto, mt))
                     if to is not None else ' | - | | ')
        p(line + ' |')

        def c(v, spec='%s'):
            return '' if v is None else spec % v

        def sv(rows, i):
            v = rows.get(('svc', state, row, n))
            return None if v is None else v[i]
        slab_csv.append(','.join(
            [state, row, str(n), str(t), str(tp), c(to), '%.3f' % pct(tp, t),
             c(None if to is None else pct(to, t), '%.3f'), str(mt), str(mtp), c(mto),
             '%.3f' % pct(mtp, mt), c(None if mto is None else pct(mto, mt), '%.3f')]
            + [c(sv(r, 0), '%.4f') for r in (base, patched, svoff)]
            + [c(sv(patched, i), '%.4f') for i in (1, 2)]
            + [c(sv(patched, i)) for i in (3, 4)]))
    p('')

    def fmt(v, spec):
        return '-' if v is None else spec % v

    kernels = (base, patched, svoff) if has_off else (base, patched)
    ipis = any(v[0] is not None for r in kernels for k, v in r.items() if k[0] == 'svc')
    p('**What the rows made the kernel flush and free, per operation.** Counters read outside '
      'every timed interval, once after the row\'s set-up and once after its last sample and '
      'a further sleep, so that they include the deferred frees of the row\'s operations; '
      'divided by the row\'s operations. `TLB IPIs`: the change of the "TLB:" line of '
      '/proc/interrupts, TLB shootdown interrupts received, summed over the CPUs%s; the '
      'benchmark guests have one vCPU, where every flush is local, so this is 0 there. '
      '`flushes`: the change of tlb_flushes in /sys/kernel/debug/slab_virtual, one per batch '
      'of freed slabs the work item unmapped; with more CPUs each is an IPI to every other '
      'CPU. `freed pages`: the change of freed_pages there, pages of freed slabs given back '
      'to the page allocator. `pending`: pending_pages right after the last timed sample: '
      'pages of freed slabs the work item had not unmapped yet, whose unmapping was '
      'therefore left out of the time (it ran in the sleep). `escaped`: the change of '
      'escaped_slabs over the row, slabs whose physical address was taken (counted only: '
      'they are freed like any other). The slab_virtual figures exist only where '
      'SLAB_VIRTUAL is on (- '
      'elsewhere).'
      % ('' if ipis else ' (- where there is no such line: arm64 flushes with broadcast '
         'instructions, without IPIs)'))
    p('')
    head = '| operation | TLB IPIs/op base | patched'
    rule = '|---|---:|---:'
    if has_off:
        head += ' | slab_virtual=off'
        rule += '|---:'
    p(head + ' | flushes/op patched | freed pages/op patched | pending patched '
      '| escaped patched |')
    p(rule + '|---:|---:|---:|---:|')
    for state, row, n, what in rows:
        def sv(rows, i):
            v = rows.get(('svc', state, row, n))
            return None if v is None else v[i]
        p('| %s | %s | %s | %s | %s | %s |'
          % (what, ' | '.join(fmt(sv(r, 0), '%.4f') for r in kernels),
             fmt(sv(patched, 1), '%.4f'), fmt(sv(patched, 2), '%.4f'),
             fmt(sv(patched, 3), '%d'), fmt(sv(patched, 4), '%+d')))
    p('')
    names = ('base', 'patched', 'slab_virtual=off')
    mem = [(name, r[('svmem',)]) for name, r in zip(names, kernels) if ('svmem',) in r]
    if mem:
        pm = patched.get(('svmem',), {})

        def size(v):
            if v is None:
                return '-'
            if v and v % (1 << 30) == 0:
                return '%d GiB' % (v >> 30)
            return '%.1f MiB' % (v / (1 << 20))
        p('**Memory**, at the end of the program: the Slab line of /proc/meminfo (%s)%s'
          % (', '.join('%s %s' % (name, fmt(v['slab_kb'], '%d kB')) for name, v in mem),
             '.' if pm.get('region_bytes') is None else
             '; on the patched kernel, /sys/kernel/debug/slab_virtual: a region of %s of '
             'slab addresses, %s of it carved into slots, %s metadata pages and %s '
             'page-table pages (never freed), %s escaped slabs and %s abandoned slots; '
             '%s pages of freed slabs retained in their slots for their caches\' next '
             'slabs (reclaimable, counted in the Slab line; by default at most a 256th '
             'of the RAM, up to 64 MiB; given back after 1 to 2 s unused, or to reclaim).'
             % (size(pm['region_bytes']), size(pm['carved_bytes']),
                fmt(pm['metadata_pages'], '%d'), fmt(pm['table_pages'], '%d'),
                fmt(pm['escaped_slabs'], '%d'), fmt(pm['abandoned_slots'], '%d'),
                fmt(pm.get('retained_pages'), '%d'))))
        p('')
        for name, v in mem:
            slabmem_csv.append(','.join([name] + ['' if v[k] is None else str(v[k])
                                                  for k in SVMEM_KEYS]))


def other_rows(off):
    """The BENCH rows of a console that are not pgtable_bench's."""
    return [k for k in (off or {}) if len(k) == 4 and k[0] not in
            ('pgtable', 'frag', 'cyc', 'ins', 'pks', 'meta', 'svc')]


def off_other_table(a, base, off, p, params):
    """Every row but pgtable_bench's that the patched-off boot measured,
    against the base, in one table of its own (the other tables compare two
    kernels and stay as they are)."""
    keys = [k for k in other_rows(off) if k in base]
    if not keys:
        return
    p('### Other rows of the patched kernel booted with `%s`' % params)
    p('')
    p('The first figure of each BENCH row the patched-off boot measured, against the base '
      'kernel\'s (the per-call tables\' fastest call, the memfd_secret table\'s median), '
      'in nanoseconds of %s. `%%` = 100 * (t_patched-off - t) / t. **A positive '
      'percentage means the patched-off kernel is slower**.' % a.clock)
    p('')
    p('| table | state | call | n | t | t_patched-off | delta | % |')
    p('|---|---|---|---:|---:|---:|---:|---:|')
    for k in keys:
        t, to = base[k][0], off[k][0]
        p('| %s | %s | %s | %d | %d | %d | %+d | %+.2f%% |'
          % (k + (t, to, to - t, pct(to, t))))
    p('')


# The series' options the header states, as the patched kernel was built.
HEADER_OPTIONS = ('CONFIG_MSEAL', 'CONFIG_MSEAL_SYSTEM_MAPPINGS')


def kconfig_options(path):
    """'CONFIG_X=y, CONFIG_Y off' for HEADER_OPTIONS in the .config @path;
    without one, what the bench kernels were built with before the
    report read it."""
    if not path:
        return 'CONFIG_MSEAL=y, CONFIG_MSEAL_SYSTEM_MAPPINGS off'
    values = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'(CONFIG_\w+)=(.*)', line)
            if m:
                values[m.group(1)] = m.group(2)
    return ', '.join('%s=%s' % (o, values[o]) if o in values else '%s off' % o
                     for o in HEADER_OPTIONS)


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--arch', required=True)
    ap.add_argument('--clock', required=True)
    ap.add_argument('--base-version', required=True)
    ap.add_argument('--series', required=True)
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--kconfig', help="the patched kernel's .config")
    ap.add_argument('--images', nargs=3, metavar=('BASE', 'PATCHED', 'INITRAMFS'),
                    help='the kernel images and the initramfs measured (sha256 in the header)')
    ap.add_argument('--csv')
    ap.add_argument('--md')
    ap.add_argument('--off', metavar='LOG',
                    help='console of the patched kernel booted with kpkeys=off '
                         '(a patched-off column where it has the row)')
    ap.add_argument('--off-initramfs', metavar='FILE',
                    help='the initramfs of the patched-off boot (sha256 in the header)')
    ap.add_argument('--slab-off', metavar='LOG',
                    help='console of the patched kernel booted with slab_virtual=off '
                         '(a third column in the slab tables)')
    ap.add_argument('--slab-off-initramfs', metavar='FILE',
                    help='the initramfs of the slab_virtual=off boot (sha256 in the header)')
    ap.add_argument('base')
    ap.add_argument('patched')
    a = ap.parse_args(argv)

    base, patched = load(a.base), load(a.patched)
    if not base or not patched:
        sys.exit('bench-report: no BENCH lines in %s' % (a.base if not base else a.patched))
    off = None
    if a.off:
        off = load(a.off)
        if not any(len(k) == 4 for k in off):
            sys.exit('bench-report: no BENCH lines in %s' % a.off)
    svoff = None
    if a.slab_off:
        svoff = load(a.slab_off)
        if not any(k[0] == 'slab' and len(k) == 4 for k in svoff):
            sys.exit('bench-report: no slab_bench rows in %s' % a.slab_off)

    out = []
    csv = ['table,state,call,n,t_base_ns,t_patched_ns,delta_ns,percent,'
           'median_base_ns,median_patched_ns,median_percent']
    cyc_csv = ['table,state,call,n,refcycles_base,refcycles_patched,delta,percent']
    ins_csv = ['table,state,call,n,insns_base,insns_patched,delta,percent']
    p = out.append
    p('## %s: mseal' % a.arch)
    p('')
    p('Base: Debian %s, unpatched. Patched: the same plus the series (%s). '
      'Both built from the same non-debug configuration (configs/bench.config; '
      '%s). %s, 1 vCPU; %s; %s.'
      % (a.base_version, a.series, kconfig_options(a.kconfig), a.qemu, a.clock,
         datetime.date.today().isoformat()))
    p('')
    if a.images:
        p('Measured (sha256): base kernel `%s`, patched kernel `%s`, initramfs `%s`%s%s.'
          % (tuple(sha256(f) for f in a.images)
             + ((', patched-off initramfs `%s`' % sha256(a.off_initramfs))
                if a.off_initramfs else '',
                (', slab_virtual=off initramfs `%s`' % sha256(a.slab_off_initramfs))
                if a.slab_off_initramfs else '')))
        p('')
    m = method(base, patched, 'mseal_bench')
    no_cycles_note(a, base, patched, p)

    for state, what in (('noseal', 'a process that has never called mseal()'),
                        ('sealed', 'a process that sealed its own read-only ELF segments '
                                   'first (the ranges timed are not sealed)')):
        p('### Per-call cost, %s' % what)
        p('')
        p('Time of one call over a range of `vmas` one-page VMAs, in '
          'nanoseconds of %s: the fastest of %d calls (%d samples of %d), that is '
          'the cost of the call\'s own code path without the periodic kernel work '
          '(timer ticks, RCU callbacks, per-CPU list refills) that lands in some calls. '
          'mremap moves one VMA per call, so its row is the sum of `vmas` moves, each '
          'the fastest of %d. '
          '`t` is the unpatched kernel, `t_patched` the series, '
          '`delta` = t_patched - t, `per_vma` = delta / vmas, `%%` = 100 * delta / t. '
          '**A positive percentage means the patched kernel is slower**. `median %%`: '
          'the same comparison for the median of %d samples, each the mean of %d calls '
          '(mremap: of one batch), which includes that periodic work and therefore '
          'moves with where it lands.'
          % (a.clock, m['reps'] * m['batch'], m['reps'], m['batch'], m['reps'],
             m['reps'], m['batch']))
        p('')
        p('| syscall | vmas | t | t_patched | delta | per_vma | % | median % |')
        p('|---|---:|---:|---:|---:|---:|---:|---:|')
        for call, name, n, k in syscall_rows(state):
            if k not in base or k not in patched:
                continue
            (t, mt), (tp, mtp) = base[k], patched[k]
            p('| %s | %d | %d | %d | %+d | %+.1f | %+.2f%% | %+.2f%% |'
              % (name, n, t, tp, tp - t, (tp - t) / n, pct(tp, t), pct(mtp, mt)))
            csv.append('syscall,%s,%s,%d,%d,%d,%d,%.3f,%d,%d,%.3f'
                       % (state, call, n, t, tp, tp - t, pct(tp, t), mt, mtp, pct(mtp, mt)))
        p('')
        if has_counter('cyc', base, patched, 'syscall', state):
            p('#### Kernel ref-cycles (median), %s' % what)
            p('')
            p('The same calls, in %s. Each figure is the median of %d samples, each '
              'the mean of %d calls counted one by one (mremap: the sum of `vmas` moves '
              'counted together), next to the median time of the same samples in '
              'nanoseconds of %s. `delta` = patched - base, `per_vma` = delta / vmas, '
              '`%%` = 100 * delta / base. **A positive percentage means the patched '
              'kernel is slower**.%s'
              % (CYCLES_WHAT, m['reps'], m['batch'], a.clock,
                 cycles_overhead(base, patched, state,
                                 'once per call (mremap: once per sample)', m)))
            p('')
            p('| syscall | vmas | t median | t_patched median | % '
              '| ref-cycles | patched | delta | per_vma | % |')
            p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
            for _, name, n, k in syscall_rows(state):
                if k not in base or k not in patched:
                    continue
                c = counter_row('cyc', cyc_csv, base, patched, k)
                if c is None:
                    continue
                (t, tp), mt, mtp = c, base[k][1], patched[k][1]
                p('| %s | %d | %d | %d | %+.2f%% | %d | %d | %+d | %+.1f | %+.2f%% |'
                  % (name, n, mt, mtp, pct(mtp, mt), t, tp, tp - t, (tp - t) / n,
                     pct(tp, t)))
            p('')
        if has_counter('ins', base, patched, 'syscall', state):
            insns_table(base, patched, p, ins_csv, state, what, m)

    p('### Page moves (stress-ng pagemove style)')
    p('')
    remaps = 2 * m['pagemove_pages']
    p('A %d-page region walked page by page, each page moved away and back with '
      'mremap(MREMAP_MAYMOVE|MREMAP_FIXED): %d remaps per sample, median of %d samples. '
      '`page_remaps_per_sec` counts remaps per second of %s (higher is better); '
      '`%%` = 100 * (t_patched - t) / t of the time per sample: **positive means the '
      'patched kernel is slower**.' % (m['pagemove_pages'], remaps, m['reps'], a.clock))
    p('')
    p('| process | t per %d remaps (ns) | t_patched | page_remaps_per_sec | patched | %% |'
      % remaps)
    p('|---|---:|---:|---:|---:|---:|')
    for state in ('noseal', 'sealed'):
        k = ('pagemove', state, 'mremap_page', remaps)
        if k in base and k in patched:
            (t, mt), (tp, mtp) = base[k], patched[k]
            p('| %s | %d | %d | %.0f | %.0f | %+.2f%% |'
              % ('no seals' if state == 'noseal' else 'seals elsewhere', t, tp,
                 remaps * 1e9 / t, remaps * 1e9 / tp, pct(tp, t)))
            csv.append('pagemove,%s,mremap_page,%d,%d,%d,%d,%.3f,%d,%d,%.3f'
                       % (state, remaps, t, tp, tp - t, pct(tp, t), mt, mtp, pct(mtp, mt)))
    p('')
    if has_counter('cyc', base, patched, 'pagemove'):
        p('Kernel ref-cycles of the same samples: %s, per sample of %d remaps, '
          'median of %d.%s **A positive percentage means the patched kernel is '
          'slower**.' % (CYCLES_WHAT, remaps, m['reps'],
                         cycles_overhead(base, patched, 'noseal', 'once per sample', m)))
        p('')
        p('| process | ref-cycles per %d remaps | patched | delta | %% |' % remaps)
        p('|---|---:|---:|---:|---:|')
        for state in ('noseal', 'sealed'):
            c = counter_row('cyc', cyc_csv, base, patched,
                            ('pagemove', state, 'mremap_page', remaps))
            if c:
                t, tp = c
                p('| %s | %d | %d | %+d | %+.2f%% |'
                  % ('no seals' if state == 'noseal' else 'seals elsewhere', t, tp,
                     tp - t, pct(tp, t)))
        p('')

    p('### The cost of sealing')
    p('')
    p('Median time of one mseal() over `vmas` fresh one-page VMAs on the patched kernel, '
      'in nanoseconds of %s (the base kernel has no mseal()). `per_vma` = t / vmas.'
      % a.clock)
    p('')
    p('| vmas | t | per_vma |')
    p('|---:|---:|---:|')
    for n in SIZES:
        k = ('mseal', 'noseal', 'mseal', n)
        if k in patched:
            t = patched[k][0]
            p('| %d | %d | %.0f |' % (n, t, t / n))
            csv.append('mseal,noseal,mseal,%d,,%d,,,,,' % (n, t))
    p('')
    if any(k[:3] == ('cyc', 'mseal', 'noseal') for k in patched):
        p('Kernel ref-cycles of the same calls on the patched kernel: %s; median '
          'of %d calls, each including the counter reads once. '
          '`per_vma` = ref-cycles / vmas.' % (CYCLES_WHAT, m['reps']))
        p('')
        p('| vmas | ref-cycles | per_vma |')
        p('|---:|---:|---:|')
        for n in SIZES:
            k = ('cyc', 'mseal', 'noseal', 'mseal', n)
            if k in patched:
                p('| %d | %d | %.0f |' % (n, patched[k], patched[k] / n))
                cyc_csv.append('mseal,noseal,mseal,%d,,%d,,' % (n, patched[k]))
        p('')

    frag_csv = ['files,pages,directmap4k_base_kb,directmap4k_patched_kb,'
                'directmap2m_base_kb,directmap2m_patched_kb,'
                'directmap1g_base_kb,directmap1g_patched_kb,'
                'level3_splits_base,level3_splits_patched']
    secretmem_tables(a, base, patched, p, csv, frag_csv, cyc_csv)
    pgt_csv = ['operation,pages,t_base_ns,t_patched_ns,t_patched_off_ns,percent_patched,'
               'percent_patched_off,pkrs_writes_per_op_base,pkrs_writes_per_op_patched,'
               'pkrs_writes_per_op_patched_off,dmap_splits_base,dmap_splits_patched,'
               'dmap_splits_patched_off']
    pgtable_tables(a, base, patched, off, p, pgt_csv)
    if off and not any(k[:2] == ('pgtable', 'all') for k in patched):
        off_other_table(a, base, off, p, off_params(patched, off))
    slab_csv = ['state,row,n,t_base_ns,t_patched_ns,t_slab_virtual_off_ns,percent_patched,'
                'percent_slab_virtual_off,median_base_ns,median_patched_ns,'
                'median_slab_virtual_off_ns,median_percent_patched,'
                'median_percent_slab_virtual_off,tlb_ipis_per_op_base,tlb_ipis_per_op_patched,'
                'tlb_ipis_per_op_slab_virtual_off,sv_flushes_per_op_patched,'
                'sv_freed_pages_per_op_patched,sv_pending_pages_patched,'
                'sv_escaped_slabs_patched']
    slabmem_csv = ['kernel,' + ','.join(SVMEM_KEYS)]
    slab_tables(a, base, patched, svoff, p, slab_csv, slabmem_csv)

    text = '\n'.join(out)
    print(text)
    if a.md:
        with open(a.md, 'w') as f:
            f.write(text + '\n')
    if a.csv:
        with open(a.csv, 'w') as f:
            f.write('\n'.join(csv) + '\n')
        if len(frag_csv) > 1:
            with open(re.sub(r'\.csv$', '', a.csv) + '-frag.csv', 'w') as f:
                f.write('\n'.join(frag_csv) + '\n')
        # Only runs with ref-cycles (instructions, pgtable_bench rows) have
        # this file: never leave an older run's next to this run's tables.
        for suffix, rows in (('-cycles.csv', cyc_csv), ('-insns.csv', ins_csv),
                             ('-pgtable.csv', pgt_csv), ('-slab.csv', slab_csv),
                             ('-slabmem.csv', slabmem_csv)):
            path = re.sub(r'\.csv$', '', a.csv) + suffix
            if len(rows) > 1:
                with open(path, 'w') as f:
                    f.write('\n'.join(rows) + '\n')
            elif os.path.exists(path):
                os.remove(path)


if __name__ == '__main__':
    main()
