#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the consoles of two benchmark boots (base, patched) into tables,
and of the boots of the series with one feature off (--without FEATURE
LOG, FEATURE one of FEATURES: kpkeys=off, slab_virtual=off,
secretmem.pool_blocks=0 on the patched kernel's command line, and a kernel
built with CONFIG_MSEAL=n) into one more column per feature in every table
and the attribution matrix that opens the output ("## ARCH: attribution":
each feature's share of each workload's cost; attribution()).

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
--off LOG is --without kpkeys LOG, as before issue 32.

slab_bench prints "BENCH slab <state> <row> <n> <fastest_ns> <median_ns>",
"BENCHSLAB <state> <row> <n> <tlb_ipis_per_op> <sv_flushes_per_op>
<sv_freed_pages_per_op> <sv_pending_pages> <sv_escaped_slabs>" (-1 where a
counter is missing) and one "BENCHSLABMEM ..." line of what SLAB_VIRTUAL's
region costs: they make the slab tables (CSV: -slab.csv).  --slab-off LOG
is --without slab_virtual LOG.

A feature boot may have run only some programs: its columns are in the
tables of those, and "-" in the matrix elsewhere.  Without any feature
boot the tables are those of two kernels, and there is no matrix.

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
KB = re.compile(r'^\s*BENCHKB (\d+) (\d+) (-?\d+)\s*$')
SVMEM = re.compile(r'^\s*BENCHSLABMEM((?: -?\d+){7,8})\s*$')
SVMEM_KEYS = ('metadata_pages', 'table_pages', 'carved_bytes', 'region_bytes',
              'escaped_slabs', 'abandoned_slots', 'slab_kb', 'retained_pages')
# What scripts/boot.sh writes at the top of a console, and what the kernel
# says about parameters it does not know.
CMDLINE = re.compile(r'^# cmdline: (.*?)\s*$')
UNKNOWN = re.compile(r'Unknown kernel command line parameters "(.*?)", will be passed')
# The one line each architecture prints about kpkeys' page tables.
KPKEYS = re.compile(r'kpkeys: page tables (?:are not protected: (.*?)|protected\b.*?)\s*$')
# secretmem_bench, before its fallback rows: the pool's switch as it was.
POOL = re.compile(r'^\s*# /sys/module/secretmem/parameters/pool_blocks: (\S+) at start\s*$')
# The guest's init after each program: "ok N NAME # ...".
RAN = re.compile(r'^(?:not )?ok \d+ (\S+)')

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
    'stressng_bench': dict(reps=5),
    'kbuild_bench': dict(reps=3, files=19),
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
    by ('unknown',); why the kernel does not protect page tables with
    kpkeys by ('kpkeys',) ('' where it does; missing where it did not
    say); secretmem.pool_blocks as secretmem_bench found it by ('pool',);
    the programs the guest ran, in order, by ('ran',)."""
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
            c = KB.match(line)
            if c:
                ins = int(c.group(3))
                rows[('kb', int(c.group(1)))] = (int(c.group(2)), None if ins < 0 else ins)
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
                continue
            c = KPKEYS.search(line)
            if c:
                rows[('kpkeys',)] = c.group(1) or ''
                continue
            c = POOL.match(line)
            if c:
                rows[('pool',)] = c.group(1)
                continue
            c = RAN.match(line)
            if c:
                rows.setdefault(('ran',), []).append(c.group(1))
    return rows


def method(base, patched, program, wo=()):
    """The constants @program ran with (BENCHMETA), METHOD_DEFAULTS for
    what a log lacks.  Both kernels (and each boot of @wo, Without, that
    ran the program) must have run the same method."""
    def of(rows):
        return dict(METHOD_DEFAULTS[program], **rows.get(('meta', program), {}))
    m, b = of(patched), of(base)
    differ = {k: (b[k], m[k]) for k in METHOD_DEFAULTS[program] if b[k] != m[k]}
    if differ:
        sys.exit('bench-report: %s ran with other constants on the base kernel than '
                 'on the patched one (base, patched): %s' % (program, differ))
    for w in wo:
        if ('meta', program) not in w.rows:
            continue
        o = of(w.rows)
        differ = {k: (b[k], o[k]) for k in METHOD_DEFAULTS[program] if b[k] != o[k]}
        if differ:
            sys.exit('bench-report: %s ran with other constants on the base kernel than '
                     'in the %s boot (base, %s): %s' % (program, w.label, w.label, differ))
    return m


def pct(new, old):
    return 100.0 * (new - old) / old if old else float('nan')


# The series' features, each turned off in a boot of its own
# (scripts/bench.sh): (the name --without takes, the switch that turns it
# off, its column in the attribution matrix).  In this order everywhere.
FEATURES = (
    ('kpkeys', 'kpkeys=off', 'kpkeys'),
    ('slab_virtual', 'slab_virtual=off', 'SLAB_VIRTUAL'),
    ('secretmem_pool', 'secretmem.pool_blocks=0', 'secretmem pool'),
    ('mseal', 'CONFIG_MSEAL=n', 'mseal'),
)
SWITCH = {f: sw for f, sw, _ in FEATURES}


def added_words(patched, rows):
    """What a boot added to the patched kernel's command line
    ('kpkeys=off'), from the "# cmdline:" lines of the consoles; '' where
    a console lacks that line."""
    if ('cmdline',) not in patched or ('cmdline',) not in rows:
        return ''
    have = set(patched[('cmdline',)].split())
    return ' '.join(w for w in rows[('cmdline',)].split() if w not in have)


class Without:
    """The series with one feature off: the console of that boot (@rows)
    and the label of its columns, the words its boot added to the patched
    kernel's command line or, where it added none (CONFIG_MSEAL=n, its own
    kernel) or the consoles do not say, the feature's switch."""

    def __init__(self, feature, rows, patched, initramfs=None, kernel=None):
        self.feature, self.rows = feature, rows
        self.switch = SWITCH[feature]
        self.label = added_words(patched, rows) or self.switch
        self.initramfs, self.kernel = initramfs, kernel


# The CSV fields of each feature in the tables with medians.
WO_CSV = ('t', 'percent', 'median', 'median_percent')
# What a table's feature columns are, for its opening sentence.
WO_SENTENCE = (' `t_LABEL`: the series with that one feature off (LABEL: its switch), '
               'and the `%` next to it against the base.')


def measured(wo, keys):
    """The boots of @wo that measured any row of @keys: a table's columns."""
    return [w for w in wo if any(k in w.rows for k in keys)]


def wo_head(wo, median=False, prefix='t_'):
    """Header and rule cells of the columns of @wo (each: t_LABEL, %, and
    median % where @median)."""
    head = ''.join(' | %s%s | %%' % (prefix, w.label) + (' | median %' if median else '')
                   for w in wo)
    rule = ''.join('|---:|---:' + ('|---:' if median else '') for w in wo)
    return head, rule


def wo_cells(wo, key, t, mt=None):
    """The cells of @wo's columns in the BENCH row @key against the base's
    first figure @t and, where @mt (its median) is given, the median's."""
    out = ''
    for w in wo:
        v = w.rows.get(key)
        if v is None:
            out += ' | - | ' + (' | ' if mt is not None else '')
            continue
        out += ' | %d | %+.2f%%' % (v[0], pct(v[0], t))
        if mt is not None:
            out += ' | %+.2f%%' % pct(v[1], mt)
    return out


def wo_csv_head(what):
    """CSV header fields of every feature of FEATURES for @what (a tuple
    of 't', 'percent', 'median', 'median_percent')."""
    names = {'t': 't_no_%s_ns', 'percent': 'percent_no_%s',
             'median': 'median_no_%s_ns', 'median_percent': 'median_percent_no_%s'}
    return ''.join(',' + names[x] % f for f, _, _ in FEATURES for x in what)


def wo_csv(wo, key, t, what, mt=None):
    """The CSV fields of wo_csv_head(@what) in the row @key against the
    base's @t and @mt: empty where a feature has no boot or its boot did
    not measure the row, and percentages where @t (or @mt) is None."""
    by = {w.feature: w for w in wo}
    out = ''
    for f, _, _ in FEATURES:
        v = by[f].rows.get(key) if f in by else None
        for x in what:
            if v is None or (x != 't' and (t is None or (x.startswith('median') and mt is None))):
                out += ','
            elif x == 't':
                out += ',%d' % v[0]
            elif x == 'percent':
                out += ',%.3f' % pct(v[0], t)
            elif x == 'median':
                out += ',%d' % v[1]
            else:
                out += ',%.3f' % pct(v[1], mt)
    return out


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


def counter_row(kind, csv, base, patched, key, wo=()):
    """(base, patched) of one BENCHCYC (@kind 'cyc') or BENCHINS ('ins')
    row, recorded in @csv with the figure and percentage of every feature
    boot of @wo (counter_csv_head()), or None."""
    k = (kind,) + key
    if k not in base or k not in patched:
        return None
    t, tp = base[k], patched[k]
    by = {w.feature: w.rows.get(k) for w in wo}
    csv.append('%s,%s,%s,%d,%d,%d,%d,%.3f' % (key + (t, tp, tp - t, pct(tp, t)))
               + ''.join(',,' if by.get(f) is None else ',%d,%.3f' % (by[f], pct(by[f], t))
                         for f, _, _ in FEATURES))
    return t, tp


def counter_csv_head(what):
    """The CSV header of counter_row()'s rows (@what: refcycles, insns)."""
    return ('table,state,call,n,%s_base,%s_patched,delta,percent' % (what, what)
            + ''.join(',%s_no_%s,percent_no_%s' % (what, f, f) for f, _, _ in FEATURES))


def counter_cells(wo, kind, key, t):
    """The cells of @wo's columns of a BENCHCYC (@kind 'cyc') or BENCHINS
    ('ins') row @key against the base's count @t."""
    out = ''
    for w in wo:
        v = w.rows.get((kind,) + key)
        out += ' | - | ' if v is None else ' | %d | %+.2f%%' % (v, pct(v, t))
    return out


def insns_table(base, patched, wo, p, ins_csv, state, what, m):
    """The companion of a per-call table: kernel instructions (BENCHINS),
    with a column of each feature boot of @wo that counted them."""
    iwo = measured(wo, [('ins',) + k for _, _, _, k in syscall_rows(state)])
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
      'means the patched kernel is slower**.%s'
      % (reads, m['reps'] * m['batch'], m['reps'],
         ' `LABEL`: the series with that one feature off, `%` against the base.'
         if iwo else ''))
    p('')
    head, rule = wo_head(iwo, prefix='')
    p('| syscall | vmas | kernel instructions | patched | delta | per_vma | %' + head + ' |')
    p('|---|---:|---:|---:|---:|---:|---:' + rule + '|')
    for _, name, n, k in syscall_rows(state):
        c = counter_row('ins', ins_csv, base, patched, k, wo)
        if c is None:
            continue
        t, tp = c
        p('| %s | %d | %d | %d | %+d | %+.1f | %+.2f%%%s |'
          % (name, n, t, tp, tp - t, (tp - t) / n, pct(tp, t),
             counter_cells(iwo, 'ins', k, t)))
    p('')


def secretmem_tables(a, base, patched, wo, p, csv, frag_csv, cyc_csv):
    frag = [k for k in patched if k[0] == 'frag']  # in the order they ran
    if not frag and not any(k[0] == 'secretmem' for k in patched):
        return
    m = method(base, patched, 'secretmem_bench', wo)
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
          'own.%s%s' % ('' if any(k[0] == 'frag' for k in base) else
                        ' (The base kernel printed no rows: memfd_secret() was unavailable.)',
                        ' `DirectMap4k LABEL`: the growth of DirectMap4k in the boot of the '
                        'series with that one feature off.' if measured(wo, frag) else ''))
        p('')
        fwo = measured(wo, frag)
        p('| files x pages | DirectMap4k base | patched | DirectMap2M base | patched '
          '| DirectMap1G base | patched | 1G splits base | patched |%s'
          % ''.join(' DirectMap4k %s |' % w.label for w in fwo))
        p('|---|---:|---:|---:|---:|---:|---:|---:|---:|' + '---:|' * len(fwo))

        def l3(v):
            return '-' if v is None else '%+d' % v

        by = {w.feature: w for w in wo}
        for k in frag:
            b = base.get(k, (0, 0, 0, None))
            q = patched[k]
            p('| %d x %d | %+d | %+d | %+d | %+d | %+d | %+d | %s | %s |%s'
              % (k[1], k[2], b[0], q[0], b[1], q[1], b[2], q[2], l3(b[3]), l3(q[3]),
                 ''.join(' %+d |' % w.rows[k][0] if k in w.rows else ' - |' for w in fwo)))
            frag_csv.append('%d,%d,%d,%d,%d,%d,%d,%d,%s,%s'
                            % (k[1], k[2], b[0], q[0], b[1], q[1], b[2], q[2],
                               '' if b[3] is None else b[3], '' if q[3] is None else q[3])
                            + ''.join(',%d' % by[f].rows[k][0]
                                      if f in by and k in by[f].rows else ','
                                      for f, _, _ in FEATURES))
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
        p('The `fallback` rows measure the patched kernel with secretmem.pool_blocks=0 '
          'written at run time: '
          'every secret page is taken and removed from the direct map on its own, as '
          'when no 2 MiB block can be allocated. They are compared with the same base '
          'figures, since that is what the base kernel always does.%s'
          % (' The secretmem.pool_blocks=0 column is a boot with the pool off from the '
             'start, where both kinds of row take that path.'
             if any(w.feature == 'secretmem_pool' for w in wo) else ''))
        p('')
    keys = [('secretmem', state, what, pages) for state in ('all', 'fallback')
            for what in ('fault_per_page', 'cycle_per_page')]
    swo = measured(wo, keys)
    head, rule = wo_head(swo)
    p('| what | t | t_patched | delta | %' + head + ' |')
    p('|---|---:|---:|---:|---:' + rule + '|')
    for kp in keys:
        state, what = kp[1], kp[2]
        k = ('secretmem', 'all', what, pages)
        if k in base and kp in patched:
            t, tp = base[k][0], patched[kp][0]
            name = what if state == 'all' else '%s (fallback)' % what
            p('| %s | %d | %d | %+d | %+.2f%%%s |'
              % (name, t, tp, tp - t, pct(tp, t), wo_cells(swo, kp, t)))
            csv.append('secretmem,%s,%s,%d,%d,%d,%d,%.3f,,,'
                       % (state, what, pages, t, tp, tp - t, pct(tp, t))
                       + wo_csv(wo, kp, t, WO_CSV))
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
        ckeys = [('secretmem', 'all', what, pages) for what in ('fault_per_page', 'cycle_per_page')]
        cwo = measured(wo, [('cyc',) + k for k in ckeys])
        head, rule = wo_head(cwo, prefix='ref-cycles ')
        p('| what | ref-cycles | patched | delta | %' + head + ' |')
        p('|---|---:|---:|---:|---:' + rule + '|')
        for k in ckeys:
            c = counter_row('cyc', cyc_csv, base, patched, k, wo)
            if c:
                t, tp = c
                p('| %s | %d | %d | %+d | %+.2f%%%s |'
                  % (k[2], t, tp, tp - t, pct(tp, t), counter_cells(cwo, 'cyc', k, t)))
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


def pgtable_keys(m):
    """(row, what one operation is, pages, BENCH key) of every row of
    pgtable_bench, in the order it runs them (@m: its method())."""
    rows = [(row, what, (m[size] << 20) // 4096)
            for (row, what), size in zip(pgtable_rows(m),
                                         ('big_mib', 'big_mib', 'small_mib', 'small_mib'))]
    rows += [('vmalloc_p%d' % n, 'vmalloc() of %d page%s, first byte written, vfree() '
              '(test_vmalloc fix_size_alloc_test, p:%d)' % (n, 's' if n > 1 else '', n), n)
             for n in VMALLOC_PAGES]
    return [(row, what, n, ('pgtable', 'all', row, n)) for row, what, n in rows]


def runs_alone(patched, w, program):
    """Whether the boot @w ran @program and fewer programs than the patched
    boot ran (False where the consoles do not say)."""
    ran, all_ = w.rows.get(('ran',)), patched.get(('ran',))
    return bool(ran and all_ and program in ran and set(ran) < set(all_))


def pgtable_tables(a, base, patched, wo, p, pgt_csv):
    """The page-table tables (pgtable_bench), with a column of each boot
    of @wo (the series with one feature off) that ran it."""
    if not any(k[:2] == ('pgtable', 'all') for k in patched):
        return
    m = method(base, patched, 'pgtable_bench', wo)
    rows = pgtable_keys(m)
    has_vmalloc = any(k in patched for _, _, _, k in rows[4:])
    pwo = measured(wo, [k for _, _, _, k in rows])
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
    alone = [w for w in pwo if runs_alone(patched, w, 'pgtable_bench')]
    p('Base: the unpatched kernel. Patched: the series; where it protects page tables '
      'with kernel protection keys (%s), page-table pages are read-only to ordinary '
      'kernel writes, the page-table helpers raise a level (%s) around '
      'each write, and page-table pages come from a '
      'pool of 2 MiB direct-map blocks.%s%s'
      % (mech, write, ' %s: the series with that one feature off (`%s`).'
         % (', '.join('`t_%s`' % w.label for w in pwo),
            '`, `'.join(w.label for w in pwo)) if pwo else '',
         ' %s ran this program alone, in a boot of its own (the base and patched '
         'figures come from the boots that run every program, this one last).'
         % ' and '.join('`%s`' % w.label for w in alone) if alone else ''))
    p('')
    notes = []
    if patched and all(v[0] is None for k, v in patched.items() if k[0] == 'pks'):
        notes.append('The patched kernel has no /sys/kernel/debug/kpkeys/switches: it does not '
                     'protect page tables with kernel protection keys (no %s on this CPU), '
                     'and its %s writes show as -.' % (mech.split(',')[0], reg))
    for w in pwo:
        if w.feature == 'kpkeys' and 'kpkeys' in w.rows.get(('unknown',), ''):
            notes.append('The patched kernel did not know `%s` (it passed "%s" to user space): '
                         'the %s column is the patched kernel as it always runs.'
                         % (w.label, w.rows[('unknown',)], w.label))
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
    head, rule = wo_head(pwo)
    p('| operation | pages | t | t_patched | delta | %' + head + ' |')
    p('|---|---:|---:|---:|---:|---:' + rule + '|')
    done = []
    for row, what, n, k in rows:
        if k not in base or k not in patched:
            continue
        t, tp = base[k][0], patched[k][0]
        p('| %s | %d | %d | %d | %+d | %+.2f%%%s |'
          % (what, n, t, tp, tp - t, pct(tp, t), wo_cells(pwo, k, t)))
        done.append((row, what, n, k))
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
    labels = ''.join(' | %s' % w.label for w in pwo)
    p('| operation | %s writes/op base | patched%s | direct-map splits base | patched%s |'
      % (reg, labels, labels))
    p('|---|---:|---:' + '|---:' * len(pwo) + '|---:|---:' + '|---:' * len(pwo) + '|')
    kernels = [base, patched] + [w.rows for w in pwo]
    by = {w.feature: w.rows for w in wo}
    for row, what, n, k in done:
        line = '| %s | ' % what
        line += ' | '.join(fmt(pks(r, row, n, 0), '%.2f') for r in kernels)
        line += ' | ' + ' | '.join(fmt(pks(r, row, n, 1), '%+d') for r in kernels)
        p(line + ' |')
        t, tp = base[k][0], patched[k][0]

        def c(v, spec='%s'):
            return '' if v is None else spec % v
        fr = [by.get(f, {}) for f, _, _ in FEATURES]
        pgt_csv.append(','.join(
            [row, str(n), c(t), c(tp), '%.3f' % pct(tp, t)]
            + [x for r in fr for x in (c(r[k][0] if k in r else None),
                                       c(pct(r[k][0], t) if k in r else None, '%.3f'))]
            + [c(pks(r, row, n, 0), '%.2f') for r in [base, patched] + fr]
            + [c(pks(r, row, n, 1)) for r in [base, patched] + fr]))
    p('')


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


def slab_tables(a, base, patched, wo, p, slab_csv, slabmem_csv):
    """The slab tables (slab_bench): base, patched and a column of each
    boot of @wo (the series with one feature off) that ran it."""
    if not any(k[0] == 'slab' and len(k) == 4 for k in patched):
        return
    m = method(base, patched, 'slab_bench', wo)
    rows = [r for r in slab_rows(m) if ('slab',) + r[:3] in base and ('slab',) + r[:3] in patched]
    swo = measured(wo, [('slab',) + r[:3] for r in rows])
    alone = [w for w in swo if runs_alone(patched, w, 'slab_bench')]
    p('## %s: slab allocator (SLAB_VIRTUAL)' % a.arch)
    p('')
    p('Base: the unpatched kernel. Patched: the series; with CONFIG_SLAB_VIRTUAL every slab '
      'is mapped at a slot of a virtual region that only its cache ever uses again, and a '
      'freed slab is unmapped, after one TLB flush per batch, by a work item that then frees '
      'its pages.%s%s%s'
      % (' slab_virtual=off: the same patched kernel image booted with `slab_virtual=off` '
         '(every slab in the linear map, as in the base kernel).'
         if any(w.feature == 'slab_virtual' for w in swo) else '',
         ' %s: the series with that one feature off (`%s`).'
         % (', '.join('`t_%s`' % w.label for w in swo), '`, `'.join(w.label for w in swo))
         if swo else '',
         ' %s ran this program alone, in a boot of its own (the base and patched '
         'figures come from the boots that run every program, this one last).'
         % ' and '.join('`%s`' % w.label for w in alone) if alone else ''))
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
    for w in swo:
        if w.feature == 'slab_virtual' and 'slab_virtual' in w.rows.get(('unknown',), ''):
            notes.append('The patched kernel did not know `slab_virtual=off` (it passed "%s" '
                         'to user space): the %s column is the patched kernel as it always '
                         'runs.' % (w.rows[('unknown',)], w.label))
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
    # A median % for every kernel: the bursts' deferred frees land in the
    # medians, and they are what SLAB_VIRTUAL changes most.
    head, rule = wo_head(swo, median=True)
    p('| operation | t | t_patched | % | median %' + head + ' |')
    p('|---|---:|---:|---:|---:' + rule + '|')
    fr = [{w.feature: w.rows for w in wo}.get(f, {}) for f, _, _ in FEATURES]
    for state, row, n, what in rows:
        k = ('slab', state, row, n)
        (t, mt), (tp, mtp) = base[k], patched[k]
        p('| %s | %d | %d | %+.2f%% | %+.2f%%%s |'
          % (what, t, tp, pct(tp, t), pct(mtp, mt), wo_cells(swo, k, t, mt)))

        def c(v, spec='%s'):
            return '' if v is None else spec % v

        def sv(rows, i):
            v = rows.get(('svc', state, row, n))
            return None if v is None else v[i]
        slab_csv.append(','.join(
            [state, row, str(n), str(t), str(tp), '%.3f' % pct(tp, t), str(mt), str(mtp),
             '%.3f' % pct(mtp, mt)])
            + wo_csv(wo, k, t, WO_CSV, mt) + ','
            + ','.join([c(sv(r, 0), '%.4f') for r in [base, patched] + fr]
                       + [c(sv(patched, i), '%.4f') for i in (1, 2)]
                       + [c(sv(patched, i)) for i in (3, 4)]))
    p('')

    def fmt(v, spec):
        return '-' if v is None else spec % v

    kernels = [base, patched] + [w.rows for w in swo]
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
    head = '| operation | TLB IPIs/op base | patched' + ''.join(' | %s' % w.label for w in swo)
    rule = '|---|---:|---:' + '|---:' * len(swo)
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
    names = ['base', 'patched'] + [w.label for w in swo]
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


# stressng_bench's stressors, in the order it runs them.
STRESSORS = ('pagemove', 'mremap', 'mmap', 'madvise', 'fork', 'vm')


def stressng_keys(rows):
    """The BENCH keys of stressng_bench in @rows, in STRESSORS' order."""
    have = {k[2]: k for k in rows if len(k) == 4 and k[:2] == ('stressng', 'all')}
    return [have[s_] for s_ in STRESSORS if s_ in have]


def stressng_tables(a, base, patched, wo, p, sng_csv):
    """The table of Debian's stress-ng (stressng_bench, a boot of its own
    after each kernel's other boot), with a column of each boot of @wo that
    ran it."""
    keys = [k for k in stressng_keys(patched) if k in base]
    if not keys:
        return
    m = method(base, patched, 'stressng_bench', wo)
    swo = measured(wo, keys)
    p('## %s: stress-ng' % a.arch)
    p('')
    p("Debian's own stress-ng (%s), the tool of the regressions the series must not bring "
      'back, run in a boot of its own after each kernel\'s other boot: the same kernel and '
      'command line, an initramfs with the binary, its shared libraries and '
      'guest/bench/stressng_bench (sha256 `%s`). Each run is one stress-ng process with one '
      'worker and a fixed number of bogo operations (`ops`), started with --no-rand-seed; its '
      'time is from fork() to waitpid() of stress-ng, in nanoseconds of %s, start-up and exit '
      'included (the same user-space work on every kernel). `t`: the fastest of %d runs; '
      '`bogo-ops/s` = ops per second of that time (higher is better). `%%` = 100 * '
      '(t_kernel - t) / t against the base: **a positive percentage means that kernel is '
      'slower**; `median %%` the same for the medians.%s'
      % (a.tool_version.get('stressng', 'version unknown'),
         sha256(a.tool_initramfs['stressng']) if 'stressng' in a.tool_initramfs else '-',
         a.clock, m['reps'],
         WO_SENTENCE if swo else ''))
    p('')
    head, rule = wo_head(swo, median=True)
    p('| stressor | ops | t | t_patched | bogo-ops/s | patched | % | median %' + head + ' |')
    p('|---|---:|---:|---:|---:|---:|---:|---:' + rule + '|')
    for k in keys:
        (t, mt), (tp, mtp) = base[k], patched[k]
        ops = k[3]
        p('| %s | %d | %d | %d | %.2f | %.2f | %+.2f%% | %+.2f%%%s |'
          % (k[2], ops, t, tp, ops * 1e9 / t, ops * 1e9 / tp, pct(tp, t), pct(mtp, mt),
             wo_cells(swo, k, t, mt)))
        sng_csv.append('%s,%d,%d,%d,%.3f,%d,%d,%.3f' % (k[2], ops, t, tp, pct(tp, t), mt, mtp,
                                                        pct(mtp, mt))
                       + wo_csv(wo, k, t, WO_CSV, mt))
    p('')


def kbuild_tables(a, base, patched, wo, p, kb_csv):
    """The kernbench-like table (kbuild_bench, a boot of its own after each
    kernel's other boot), with a column of each boot of @wo that ran it."""
    keys = [k for k in patched if len(k) == 4 and k[:3] == ('kbuild', 'all', 'compile')
            and k in base]
    if not keys:
        return
    k = keys[0]
    m = method(base, patched, 'kbuild_bench', wo)
    kwo = measured(wo, keys)
    p('## %s: kbuild' % a.arch)
    p('')
    p("A kernbench-like workload: Debian's gcc-12 (%s) compiles %d C files of the base "
      "kernel's scripts/dtc and scripts/dtc/libfdt (plain C on the C library alone) with "
      '`-O2 -c`, one after the other as make -j1 would, in a boot of its own after each '
      "kernel's other boot: the same kernel and command line, an initramfs with the "
      "compiler, binutils, the C library's headers and guest/bench/kbuild_bench (sha256 "
      '`%s`). `t`: the fastest of %d repetitions, from the first fork() to the last '
      'waitpid(), in nanoseconds of %s: the compilers\' user-space work is the same on '
      'every kernel, so the kernel\'s share shows diluted by it. `%%` = 100 * (t_kernel - t) '
      '/ t against the base: **a positive percentage means that kernel is slower**.%s'
      % (a.tool_version.get('kbuild', 'version unknown'), m['files'],
         sha256(a.tool_initramfs['kbuild']) if 'kbuild' in a.tool_initramfs else '-',
         m['reps'], a.clock, WO_SENTENCE if kwo else ''))
    p('')
    head, rule = wo_head(kwo, median=True)
    p('| workload | files | t | t_patched | % | median %' + head + ' |')
    p('|---|---:|---:|---:|---:|---:' + rule + '|')
    (t, mt), (tp, mtp) = base[k], patched[k]
    p('| compile | %d | %d | %d | %+.2f%% | %+.2f%%%s |'
      % (k[3], t, tp, pct(tp, t), pct(mtp, mt), wo_cells(kwo, k, t, mt)))
    p('')
    kernels = [('base', base), ('patched', patched)] + [(w.label, w.rows) for w in kwo]
    kb = {name: r.get(('kb', k[3])) for name, r in kernels}
    have_ins = any(v and v[1] is not None for v in kb.values())
    p('The kernel\'s share, median of the repetitions: `system time`, the ru_stime wait4() '
      'reported for the compilers (tick-sampled: a coarse figure), and %s. '
      '`%%` against the base.'
      % ('`kernel instructions`, counted by the PMU for the compilers and the program '
         '(an inherited counter, exclude_user): exact' if have_ins else
         'no kernel instruction count (this guest has no PMU)'))
    p('')
    p('| kernel | system time (ms) | %' + (' | kernel instructions | %' if have_ins else '')
      + ' |')
    p('|---|---:|---:' + ('|---:|---:' if have_ins else '') + '|')
    b = kb['base']
    for name, _ in kernels:
        v = kb[name]
        if v is None:
            continue
        line = '| %s | %.1f | %s' % (name, v[0] / 1000.0,
                                     '%+.2f%%' % pct(v[0], b[0]) if b and b[0] else '-')
        if have_ins:
            line += (' | %d | %+.2f%%' % (v[1], pct(v[1], b[1])) if v[1] is not None and b
                     and b[1] is not None else ' | - | ')
        p(line + ' |')
    p('')
    by = {w.feature: w.rows for w in wo}

    def kbv(r, i):
        v = r.get(('kb', k[3])) if r is not None else None
        return '' if v is None or v[i] is None else str(v[i])
    kb_csv.append('%d,%d,%d,%.3f,%d,%d,%.3f' % (k[3], t, tp, pct(tp, t), mt, mtp, pct(mtp, mt))
                  + wo_csv(wo, k, t, WO_CSV, mt)
                  + ',' + ','.join(kbv(r, 0) for r in [base, patched]
                                   + [by.get(f) for f, _, _ in FEATURES])
                  + ',' + ','.join(kbv(r, 1) for r in [base, patched]
                                   + [by.get(f) for f, _, _ in FEATURES]))


# The tools of the boots of their own (scripts/bench.sh): the first words of
# the rows their consoles give.
TOOLS = {'stressng': ('stressng',), 'kbuild': ('kbuild', 'kb')}


# The summary rows of the attribution matrix: (CSV name, workload, program
# whose rows they are).  Their BENCH rows: attribution_groups().
MATRIX_ROWS = (
    ('munmap', 'munmap of 1 to 32 one-page VMAs', 'mseal_bench'),
    ('mprotect', 'mprotect of 1 to 32 one-page VMAs', 'mseal_bench'),
    ('madvise', 'madvise(DONTNEED) of 1 to 32 one-page VMAs', 'mseal_bench'),
    ('mremap', 'mremap of 1 to 32 one-page VMAs', 'mseal_bench'),
    ('pagemove', 'page moves (stress-ng pagemove style)', 'mseal_bench'),
    ('pgtable_fork', 'fork of a process with 1 GiB written', 'pgtable_bench'),
    ('pgtable_munmap', 'munmap of 1 GiB touched', 'pgtable_bench'),
    ('pgtable_touch', 'first write to a page (a page fault)', 'pgtable_bench'),
    ('pgtable_mprotect', 'mprotect of 64 MiB touched', 'pgtable_bench'),
    ('pgtable_vmalloc', 'vmalloc() + vfree() of 1 to 256 pages', 'pgtable_bench'),
    ('slab_pingpong', 'pipe and AF_UNIX ping-pong, tmpfs file create to unlink',
     'slab_bench'),
    ('slab_fork', 'fork + exit + wait of a small static process', 'slab_bench'),
    ('slab_hot', 'a datagram or System V message sent and received', 'slab_bench'),
    ('slab_batch', '512 datagrams or messages sent, then received', 'slab_bench'),
    ('secretmem_fault', 'memfd_secret page fault', 'secretmem_bench'),
    ('secretmem_cycle', 'memfd_secret file created, faulted, unmapped, closed (per page)',
     'secretmem_bench'),
    ('stressng', "Debian's stress-ng: pagemove, mremap, mmap, madvise, fork, vm",
     'stressng_bench'),
    ('kbuild', "compile of the base kernel's scripts/dtc with Debian's gcc (kernbench-like)",
     'kbuild_bench'),
)


def attribution_groups(base, patched):
    """{CSV name: the BENCH keys of that summary row of MATRIX_ROWS} for
    the programs both kernels ran; a key is in a group only where both
    have it (and the base a figure above 0)."""
    def ran(program):
        prefix = {'mseal_bench': 'syscall', 'pgtable_bench': 'pgtable',
                  'slab_bench': 'slab', 'secretmem_bench': 'secretmem',
                  'stressng_bench': 'stressng', 'kbuild_bench': 'kbuild'}[program]
        return any(k[0] == prefix and len(k) == 4 for k in patched)
    keys = {}
    if ran('mseal_bench'):
        m = method(base, patched, 'mseal_bench')
        for call in ('munmap', 'mprotect', 'madvise', 'mremap'):
            keys[call] = [('syscall', state, call, n)
                          for state in ('noseal', 'sealed') for n in SIZES]
        keys['pagemove'] = [('pagemove', state, 'mremap_page', 2 * m['pagemove_pages'])
                            for state in ('noseal', 'sealed')]
    if ran('pgtable_bench'):
        rows = pgtable_keys(method(base, patched, 'pgtable_bench'))
        for row, _, _, k in rows[:4]:
            keys['pgtable_' + row] = [k]
        keys['pgtable_vmalloc'] = [k for _, _, _, k in rows[4:]]
    if ran('slab_bench'):
        rows = [('slab',) + r[:3] for r in slab_rows(method(base, patched, 'slab_bench'))]
        keys['slab_pingpong'] = [k for k in rows
                                 if k[2] in ('unix_pingpong', 'pipe_pingpong', 'tmpfs_file')]
        keys['slab_fork'] = [k for k in rows if k[2] == 'fork']
        keys['slab_hot'] = [k for k in rows if k[1] == 'hot']
        keys['slab_batch'] = [k for k in rows if k[1] == 'batch']
    if ran('secretmem_bench'):
        pages = method(base, patched, 'secretmem_bench')['fault_pages']
        for what in ('fault', 'cycle'):
            keys['secretmem_' + what] = [('secretmem', 'all', what + '_per_page', pages)]
    if ran('stressng_bench'):
        keys['stressng'] = stressng_keys(patched)
    if ran('kbuild_bench'):
        keys['kbuild'] = [k for k in patched if len(k) == 4 and k[:3] == ('kbuild', 'all', 'compile')]
    return {g: [k for k in ks if k in base and k in patched and base[k][0] > 0]
            for g, ks in keys.items()}


def attribution_row(base, patched, wo, keys):
    """(total, {feature: share or None}, rest or None) of one summary row,
    in percent of the base: the mean over @keys of 100 * (patched - base) /
    base, and of 100 * (patched - without the feature) / base for each
    feature whose boot has every one of @keys (None otherwise); rest =
    total - the shares, where every feature has one."""
    def mean(xs):
        return sum(xs) / len(xs)
    total = mean([pct(patched[k][0], base[k][0]) for k in keys])
    shares = {}
    by = {w.feature: w.rows for w in wo}
    for f, _, _ in FEATURES:
        r = by.get(f)
        shares[f] = (mean([100.0 * (patched[k][0] - r[k][0]) / base[k][0] for k in keys])
                     if r is not None and all(k in r for k in keys) else None)
    rest = (total - sum(shares.values())
            if all(v is not None for v in shares.values()) else None)
    return total, shares, rest


def inactive_kpkeys(patched):
    """Why the patched kernel does not protect page tables with kpkeys, from
    its console (None where it does, or did not say)."""
    return patched.get(('kpkeys',)) or None


def boots_text(patched, wo):
    """The sentence that says which boot each feature column comes from."""
    def programs(w):
        ran, all_ = w.rows.get(('ran',)), patched.get(('ran',))
        tools = [t for t in TOOLS if ('meta', t + '_bench') in w.rows]
        then = (', then a boot of its own for each of %s' % ', '.join(tools)) if tools else ''
        if not ran or not all_ or set(ran) >= set(all_):
            return 'every program' + then
        return 'only %s%s' % (', '.join(ran), then)
    parts = []
    for w in wo:
        if w.feature == 'mseal':
            what = ('the series built with CONFIG_MSEAL=n (configs/bench-nomseal.config; mseal '
                    'has no boot switch), booted as the patched kernel%s'
                    % (' with `%s` added' % w.label if w.label != w.switch else ''))
        else:
            what = 'the patched kernel booted with `%s` added to its command line' % w.label
        parts.append('`%s`: %s, %s' % (w.label, what, programs(w)))
    return ('**Feature columns** (`t_LABEL`, and `%%` = 100 * (t_LABEL - t) / t against the '
            'base, as for `t_patched`): the series with one feature off. %s. The first '
            'section, attribution, gives each feature\'s share of each workload.'
            % '; '.join(parts))


def switch_notes(patched, wo):
    """Sentences on feature boots whose switch did not take, or took on a
    feature that was not active anyway."""
    notes = []
    for w in wo:
        if w.feature == 'kpkeys':
            why = inactive_kpkeys(patched)
            if 'kpkeys' in w.rows.get(('unknown',), ''):
                notes.append('The patched kernel did not know `%s`: the %s column is the '
                             'patched kernel as it always runs.' % (w.label, w.label))
            elif why:
                more = ' '.join(x for x in w.label.split() if x != w.switch)
                notes.append('The patched kernel does not protect page tables with kpkeys '
                             'here (its console: "page tables are not protected: %s"), so '
                             '`%s` changes no code path: %s'
                             % (why, w.switch, 'the %s column runs the same code as the '
                                'patched one, and its differences from it are those of '
                                'another boot (a word more on the command line), not a cost '
                                'of the protection (kpkeys\' switched-off branches, in both '
                                'kernels, count in `rest`).' % w.label if not more else
                                'the %s column differs from the patched one by what `%s` '
                                'turns off.' % (w.label, more)))
        elif w.feature == 'slab_virtual':
            if 'slab_virtual' in w.rows.get(('unknown',), ''):
                notes.append('The patched kernel did not know `%s`: the %s column is the '
                             'patched kernel as it always runs.' % (w.label, w.label))
        elif w.feature == 'secretmem_pool':
            if w.rows.get(('pool',), 'N') != 'N':
                notes.append('In the %s boot, secretmem_bench found the pool on '
                             '(pool_blocks=%s): the switch did not take, and its column '
                             'is the pool as it runs.' % (w.label, w.rows[('pool',)]))
        elif w.feature == 'mseal':
            if any(k[0] == 'mseal' and len(k) == 4 for k in w.rows):
                notes.append('The %s kernel has mseal(): its column is the series with '
                             'mseal on.' % w.label)
    return notes


def attribution(a, base, patched, wo, p, att_csv):
    """The matrix that opens an architecture's tables: for each workload
    of MATRIX_ROWS, the series' cost against the base and each feature's
    share of it (attribution_row()).  Nothing without feature boots."""
    if not wo:
        return
    groups = attribution_groups(base, patched)
    why = inactive_kpkeys(patched)
    heads = []
    for f, _, name in FEATURES:
        if f == 'kpkeys' and why:
            name += ' (inactive)'
        heads.append(name)
    p('## %s: attribution' % a.arch)
    p('')
    p('**What each feature of the series costs**, workload by workload, in percent of the '
      'base kernel\'s figure (%s; the series: %s; %s; %s). `total` = 100 * (patched - base) '
      '/ base. A feature\'s column = 100 * (patched - the series with that feature off) / '
      'base: its share of `total`. Off by: %s. `rest` = `total` minus the '
      'four shares: what no switch removes (code of the series that stays with every '
      'feature off, such as the mseal changes to the munmap path, and how the features '
      'interact). A workload of several rows (`rows`) is the mean of its rows\' '
      'percentages; every row, with each kernel\'s own column, is in the tables below. '
      '**A positive figure means that feature makes the workload slower**; - where its '
      'boot was not run or did not run that program.'
      % (a.clock, a.series, a.qemu, datetime.date.today().isoformat(),
         ', '.join('%s `%s`' % (name, w.label if w else sw)
                   for (f, sw, name), w in zip(FEATURES, [
                       {x.feature: x for x in wo}.get(f) for f, _, _ in FEATURES]))))
    p('')
    notes = switch_notes(patched, wo)
    if why and not any(w.feature == 'kpkeys' for w in wo):
        notes.insert(0, 'kpkeys (inactive): the patched kernel does not protect page tables '
                        'with kpkeys here ("%s").' % why)
    notes.append('Resolution: a word added to the command line moves a cell by up to '
                 '0.002%; munmap and mremap rows over 4 or more VMAs carry the allocator\'s '
                 'state after boot, about +-2% (bench/preface.md).')
    for n in notes:
        p(n)
        p('')
    p('| workload | rows | total | %s | rest |' % ' | '.join(heads))
    p('|---|---:|---:|' + '---:|' * len(FEATURES) + '---:|')

    def cell(v):
        # No "-0.00%": a share that rounds to nothing has no sign.
        return '-' if v is None else '%+.2f%%' % (0.0 if abs(v) < 0.005 else v)
    for g, workload, _ in MATRIX_ROWS:
        keys = groups.get(g)
        if not keys:
            continue
        total, shares, rest = attribution_row(base, patched, wo, keys)
        p('| %s | %d | %s | %s | %s |'
          % (workload, len(keys), cell(total),
             ' | '.join(cell(shares[f]) for f, _, _ in FEATURES), cell(rest)))

        def c(v):
            return '' if v is None else '%.3f' % v
        att_csv.append(','.join([g, str(len(keys)), c(total)]
                                + [c(shares[f]) for f, _, _ in FEATURES] + [c(rest)]))
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
    names = ', '.join(f for f, _, _ in FEATURES)
    ap.add_argument('--without', nargs=2, action='append', default=[],
                    metavar=('FEATURE', 'LOG'),
                    help='console of the series with FEATURE (%s) off: a column in '
                         'every table it measured, and the attribution matrix' % names)
    ap.add_argument('--without-initramfs', nargs=2, action='append', default=[],
                    metavar=('FEATURE', 'FILE'),
                    help="the initramfs of FEATURE's boot (sha256 in the header)")
    ap.add_argument('--without-kernel', nargs=2, action='append', default=[],
                    metavar=('FEATURE', 'FILE'),
                    help="the kernel image of FEATURE's boot where it has its own "
                         "(mseal; sha256 in the header)")
    ap.add_argument('--off', metavar='LOG', help='--without kpkeys LOG')
    ap.add_argument('--off-initramfs', metavar='FILE', help='--without-initramfs kpkeys FILE')
    ap.add_argument('--slab-off', metavar='LOG', help='--without slab_virtual LOG')
    ap.add_argument('--slab-off-initramfs', metavar='FILE',
                    help='--without-initramfs slab_virtual FILE')
    ap.add_argument('--tool', nargs=3, action='append', default=[],
                    metavar=('TOOL', 'KERNEL', 'LOG'),
                    help="the console of a boot of TOOL (stressng, kbuild) after KERNEL's: "
                    "base, patched or a feature's name, whose --without boot it follows")
    ap.add_argument('--tool-initramfs', nargs=2, action='append', default=[],
                    metavar=('TOOL', 'FILE'), help="TOOL's boots' initramfs, for its sha256")
    ap.add_argument('--tool-version', nargs=2, action='append', default=[],
                    metavar=('TOOL', 'VERSION'), help="the version of TOOL's Debian package")
    ap.add_argument('base')
    ap.add_argument('patched')
    a = ap.parse_args(argv)
    for opt, feature, attr in (('off', 'kpkeys', 'without'),
                               ('off_initramfs', 'kpkeys', 'without_initramfs'),
                               ('slab_off', 'slab_virtual', 'without'),
                               ('slab_off_initramfs', 'slab_virtual', 'without_initramfs')):
        if getattr(a, opt):
            getattr(a, attr).append([feature, getattr(a, opt)])

    base, patched = load(a.base), load(a.patched)
    if not base or not patched:
        sys.exit('bench-report: no BENCH lines in %s' % (a.base if not base else a.patched))
    files = {}
    for what, pairs in (('log', a.without), ('initramfs', a.without_initramfs),
                        ('kernel', a.without_kernel)):
        for feature, path in pairs:
            if feature not in SWITCH:
                sys.exit('bench-report: no feature %r (%s)' % (feature, names))
            if (feature, what) in files:
                sys.exit('bench-report: two %ss of the %s boot' % (what, feature))
            files[(feature, what)] = path
    wo = []
    for feature, _, _ in FEATURES:
        if (feature, 'log') not in files:
            continue
        rows = load(files[(feature, 'log')])
        if not any(len(k) == 4 for k in rows):
            sys.exit('bench-report: no BENCH lines in %s' % files[(feature, 'log')])
        wo.append(Without(feature, rows, patched, files.get((feature, 'initramfs')),
                          files.get((feature, 'kernel'))))
    # The tools' boots' rows join those of the boot they follow.
    by = dict({'base': base, 'patched': patched}, **{w.feature: w.rows for w in wo})
    for tool, kernel, path in a.tool:
        if tool not in TOOLS:
            sys.exit('bench-report: --tool %s: no such tool (%s)' % (tool, ', '.join(TOOLS)))
        if kernel not in by:
            sys.exit('bench-report: --tool %s %s: no such kernel (base, patched, or the '
                     'feature of a --without boot)' % (tool, kernel))
        if not os.path.exists(path):
            sys.exit('bench-report: --tool %s %s: no console %s' % (tool, kernel, path))
        rows = load(path)
        # The same kernel and command line as the boot it follows.
        here, there = rows.get(('cmdline',)), by[kernel].get(('cmdline',))
        if here and there and here != there:
            sys.exit('bench-report: the %s boot after the %s one had another command line: '
                     '%r, not %r' % (tool, kernel, here, there))
        mine = {k: v for k, v in rows.items()
                if k[0] in TOOLS[tool] or k == ('meta', tool + '_bench')}
        if not any(len(k) == 4 for k in mine):
            sys.exit('bench-report: no %s BENCH lines in %s' % (tool, path))
        by[kernel].update(mine)
    a.tool_initramfs, a.tool_version = dict(a.tool_initramfs), dict(a.tool_version)

    out = []
    csv = ['table,state,call,n,t_base_ns,t_patched_ns,delta_ns,percent,'
           'median_base_ns,median_patched_ns,median_percent' + wo_csv_head(WO_CSV)]
    cyc_csv = [counter_csv_head('refcycles')]
    ins_csv = [counter_csv_head('insns')]
    att_csv = ['workload,rows,total_percent'
               + ''.join(',%s_percent' % f for f, _, _ in FEATURES) + ',rest_percent']
    p = out.append
    attribution(a, base, patched, wo, p, att_csv)
    p('## %s: mseal' % a.arch)
    p('')
    p('Base: Debian %s, unpatched. Patched: the same plus the series (%s). '
      'Both built from the same non-debug configuration (configs/bench.config; '
      '%s). %s, 1 vCPU; %s; %s.'
      % (a.base_version, a.series, kconfig_options(a.kconfig), a.qemu, a.clock,
         datetime.date.today().isoformat()))
    p('')
    if a.images or any(w.initramfs or w.kernel for w in wo):
        inputs = []
        if a.images:
            inputs += ['%s `%s`' % (what, sha256(f)) for what, f in
                       zip(('base kernel', 'patched kernel', 'initramfs'), a.images)]
        for w in wo:
            inputs += ['%s %s `%s`' % (w.label, what, sha256(f)) for what, f in
                       (('kernel', w.kernel), ('initramfs', w.initramfs)) if f]
        p('Measured (sha256): %s.' % ', '.join(inputs))
        p('')
    if wo:
        p(boots_text(patched, wo))
        p('')
        for n in switch_notes(patched, wo):
            p(n)
            p('')
    m = method(base, patched, 'mseal_bench', wo)
    no_cycles_note(a, base, patched, p)

    for state, what in (('noseal', 'a process that has never called mseal()'),
                        ('sealed', 'a process that sealed its own read-only ELF segments '
                                   'first (the ranges timed are not sealed)')):
        p('### Per-call cost, %s' % what)
        p('')
        swo = measured(wo, [k for _, _, _, k in syscall_rows(state)])
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
          'moves with where it lands.%s'
          % (a.clock, m['reps'] * m['batch'], m['reps'], m['batch'], m['reps'],
             m['reps'], m['batch'], WO_SENTENCE if swo else ''))
        p('')
        head, rule = wo_head(swo)
        p('| syscall | vmas | t | t_patched | delta | per_vma | % | median %' + head + ' |')
        p('|---|---:|---:|---:|---:|---:|---:|---:' + rule + '|')
        for call, name, n, k in syscall_rows(state):
            if k not in base or k not in patched:
                continue
            (t, mt), (tp, mtp) = base[k], patched[k]
            p('| %s | %d | %d | %d | %+d | %+.1f | %+.2f%% | %+.2f%%%s |'
              % (name, n, t, tp, tp - t, (tp - t) / n, pct(tp, t), pct(mtp, mt),
                 wo_cells(swo, k, t)))
            csv.append('syscall,%s,%s,%d,%d,%d,%d,%.3f,%d,%d,%.3f'
                       % (state, call, n, t, tp, tp - t, pct(tp, t), mt, mtp, pct(mtp, mt))
                       + wo_csv(wo, k, t, WO_CSV, mt))
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
            cwo = measured(wo, [('cyc',) + k for _, _, _, k in syscall_rows(state)])
            head, rule = wo_head(cwo, prefix='ref-cycles ')
            p('| syscall | vmas | t median | t_patched median | % '
              '| ref-cycles | patched | delta | per_vma | %' + head + ' |')
            p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:' + rule + '|')
            for _, name, n, k in syscall_rows(state):
                if k not in base or k not in patched:
                    continue
                c = counter_row('cyc', cyc_csv, base, patched, k, wo)
                if c is None:
                    continue
                (t, tp), mt, mtp = c, base[k][1], patched[k][1]
                p('| %s | %d | %d | %d | %+.2f%% | %d | %d | %+d | %+.1f | %+.2f%%%s |'
                  % (name, n, mt, mtp, pct(mtp, mt), t, tp, tp - t, (tp - t) / n,
                     pct(tp, t), counter_cells(cwo, 'cyc', k, t)))
            p('')
        if has_counter('ins', base, patched, 'syscall', state):
            insns_table(base, patched, wo, p, ins_csv, state, what, m)

    p('### Page moves (stress-ng pagemove style)')
    p('')
    remaps = 2 * m['pagemove_pages']
    p('A %d-page region walked page by page, each page moved away and back with '
      'mremap(MREMAP_MAYMOVE|MREMAP_FIXED): %d remaps per sample, median of %d samples. '
      '`page_remaps_per_sec` counts remaps per second of %s (higher is better); '
      '`%%` = 100 * (t_patched - t) / t of the time per sample: **positive means the '
      'patched kernel is slower**.%s' % (m['pagemove_pages'], remaps, m['reps'], a.clock,
                                         WO_SENTENCE if measured(wo, [
                                             ('pagemove', s_, 'mremap_page', remaps)
                                             for s_ in ('noseal', 'sealed')]) else ''))
    p('')
    pkeys = [('pagemove', state, 'mremap_page', remaps) for state in ('noseal', 'sealed')]
    pwo = measured(wo, pkeys)
    head, rule = wo_head(pwo)
    p('| process | t per %d remaps (ns) | t_patched | page_remaps_per_sec | patched | %%'
      % remaps + head + ' |')
    p('|---|---:|---:|---:|---:|---:' + rule + '|')
    for k in pkeys:
        state = k[1]
        if k in base and k in patched:
            (t, mt), (tp, mtp) = base[k], patched[k]
            p('| %s | %d | %d | %.0f | %.0f | %+.2f%%%s |'
              % ('no seals' if state == 'noseal' else 'seals elsewhere', t, tp,
                 remaps * 1e9 / t, remaps * 1e9 / tp, pct(tp, t), wo_cells(pwo, k, t)))
            csv.append('pagemove,%s,mremap_page,%d,%d,%d,%d,%.3f,%d,%d,%.3f'
                       % (state, remaps, t, tp, tp - t, pct(tp, t), mt, mtp, pct(mtp, mt))
                       + wo_csv(wo, k, t, WO_CSV, mt))
    p('')
    if has_counter('cyc', base, patched, 'pagemove'):
        p('Kernel ref-cycles of the same samples: %s, per sample of %d remaps, '
          'median of %d.%s **A positive percentage means the patched kernel is '
          'slower**.' % (CYCLES_WHAT, remaps, m['reps'],
                         cycles_overhead(base, patched, 'noseal', 'once per sample', m)))
        p('')
        cwo = measured(wo, [('cyc',) + k for k in pkeys])
        head, rule = wo_head(cwo, prefix='ref-cycles ')
        p('| process | ref-cycles per %d remaps | patched | delta | %%' % remaps + head + ' |')
        p('|---|---:|---:|---:|---:' + rule + '|')
        for k in pkeys:
            c = counter_row('cyc', cyc_csv, base, patched, k, wo)
            if c:
                t, tp = c
                p('| %s | %d | %d | %+d | %+.2f%%%s |'
                  % ('no seals' if k[1] == 'noseal' else 'seals elsewhere', t, tp,
                     tp - t, pct(tp, t), counter_cells(cwo, 'cyc', k, t)))
        p('')

    p('### The cost of sealing')
    p('')
    mkeys = [('mseal', 'noseal', 'mseal', n) for n in SIZES]
    mwo = measured(wo, mkeys)
    p('Median time of one mseal() over `vmas` fresh one-page VMAs on the patched kernel, '
      'in nanoseconds of %s (the base kernel has no mseal()). `per_vma` = t / vmas.%s'
      % (a.clock, ' `t_LABEL`: the series with that one feature off; its `%` = 100 * '
         '(t_LABEL - t) / t against the patched kernel (not the base: it has no '
         'mseal()).' if mwo else ''))
    p('')
    head, rule = wo_head(mwo)
    p('| vmas | t | per_vma' + head + ' |')
    p('|---:|---:|---:' + rule + '|')
    for k in mkeys:
        n = k[3]
        if k in patched:
            t = patched[k][0]
            p('| %d | %d | %.0f%s |' % (n, t, t / n, wo_cells(mwo, k, t)))
            csv.append('mseal,noseal,mseal,%d,,%d,,,,,' % (n, t) + wo_csv(wo, k, None, WO_CSV))
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
                cyc_csv.append('mseal,noseal,mseal,%d,,%d,,' % (n, patched[k])
                               + ',,' * len(FEATURES))
        p('')

    frag_csv = ['files,pages,directmap4k_base_kb,directmap4k_patched_kb,'
                'directmap2m_base_kb,directmap2m_patched_kb,'
                'directmap1g_base_kb,directmap1g_patched_kb,'
                'level3_splits_base,level3_splits_patched'
                + ''.join(',directmap4k_no_%s_kb' % f for f, _, _ in FEATURES)]
    secretmem_tables(a, base, patched, wo, p, csv, frag_csv, cyc_csv)
    fs = [f for f, _, _ in FEATURES]
    pgt_csv = ['operation,pages,t_base_ns,t_patched_ns,percent_patched'
               + ''.join(',t_no_%s_ns,percent_no_%s' % (f, f) for f in fs)
               + ',pkrs_writes_per_op_base,pkrs_writes_per_op_patched'
               + ''.join(',pkrs_writes_per_op_no_%s' % f for f in fs)
               + ',dmap_splits_base,dmap_splits_patched'
               + ''.join(',dmap_splits_no_%s' % f for f in fs)]
    pgtable_tables(a, base, patched, wo, p, pgt_csv)
    slab_csv = ['state,row,n,t_base_ns,t_patched_ns,percent_patched,median_base_ns,'
                'median_patched_ns,median_percent_patched' + wo_csv_head(WO_CSV)
                + ',tlb_ipis_per_op_base,tlb_ipis_per_op_patched'
                + ''.join(',tlb_ipis_per_op_no_%s' % f for f in fs)
                + ',sv_flushes_per_op_patched,sv_freed_pages_per_op_patched,'
                'sv_pending_pages_patched,sv_escaped_slabs_patched']
    slabmem_csv = ['kernel,' + ','.join(SVMEM_KEYS)]
    slab_tables(a, base, patched, wo, p, slab_csv, slabmem_csv)
    sng_csv = ['stressor,ops,t_base_ns,t_patched_ns,percent_patched,median_base_ns,'
               'median_patched_ns,median_percent_patched' + wo_csv_head(WO_CSV)]
    stressng_tables(a, base, patched, wo, p, sng_csv)
    kb_csv = ['files,t_base_ns,t_patched_ns,percent_patched,median_base_ns,'
              'median_patched_ns,median_percent_patched' + wo_csv_head(WO_CSV)
              + ',stime_base_us,stime_patched_us'
              + ''.join(',stime_no_%s_us' % f for f, _, _ in FEATURES)
              + ',kernel_insns_base,kernel_insns_patched'
              + ''.join(',kernel_insns_no_%s' % f for f, _, _ in FEATURES)]
    kbuild_tables(a, base, patched, wo, p, kb_csv)

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
        # Only runs with ref-cycles (instructions, pgtable_bench rows, feature
        # boots) have this file: never leave an older run's next to this
        # run's tables.
        for suffix, rows in (('-cycles.csv', cyc_csv), ('-insns.csv', ins_csv),
                             ('-pgtable.csv', pgt_csv), ('-slab.csv', slab_csv),
                             ('-slabmem.csv', slabmem_csv), ('-attribution.csv', att_csv),
                             ('-stressng.csv', sng_csv), ('-kbuild.csv', kb_csv)):
            path = re.sub(r'\.csv$', '', a.csv) + suffix
            if len(rows) > 1:
                with open(path, 'w') as f:
                    f.write('\n'.join(rows) + '\n')
            elif os.path.exists(path):
                os.remove(path)


if __name__ == '__main__':
    main()
