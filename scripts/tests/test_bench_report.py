# SPDX-License-Identifier: GPL-2.0
"""The bench report (scripts/bench-report.py): what load() reads from
recorded benchmark consoles, the companion tables it adds only for logs
that have counter lines, the method constants it takes from the
programs' BENCHMETA lines (or, for older logs, the defaults), and the
column of each boot of the series with one feature off with the
attribution matrix made of them (issue 32)."""
import contextlib
import importlib.util
import io
import os
import re
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FX = os.path.join(HERE, 'fixtures')
spec = importlib.util.spec_from_file_location(
    'bench_report', os.path.join(HERE, '..', 'bench-report.py'))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def fixture(name):
    with open(os.path.join(FX, name)) as f:
        return f.read()


class Logs(unittest.TestCase):
    """Writes consoles derived from the fixtures into a scratch directory."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def log(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def logs(self, kind, edit=lambda text: text):
        """(base, patched) consoles of fixture @kind, passed through @edit."""
        return tuple(self.log('%s-%s.log' % (kind, k), edit(fixture('bench-%s-%s.log' % (kind, k))))
                     for k in ('base', 'patched'))

    def run_report(self, base, patched, *args):
        """The Markdown main() prints for two consoles."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.main(['--arch', 'x86_64', '--clock', 'CLOCK', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q'] + list(args) + [base, patched])
        return out.getvalue()


def drop(*patterns):
    """An edit that removes the lines matching any of @patterns."""
    return lambda text: ''.join(l for l in text.splitlines(True)
                                if not any(re.search(p, l) for p in patterns))


def without_features(text):
    """The report without what feature boots add outside their columns:
    the attribution section and the paragraph on the feature columns."""
    text = re.sub(r'(?s)^## \S+: attribution\n.*?(?=^## )', '', text, flags=re.M)
    return re.sub(r'(?m)^\*\*Feature columns\*\*.*\n\n', '', text)


def no_counter(kind, what):
    """An edit that turns a console with counter lines into one whose
    program could not open the counter (it says why, once)."""
    def edit(text):
        text = re.sub(r'(?m)^( *)%s overhead.*$' % kind,
                      r'\1# no kernel %s counter: No such file or directory' % what, text)
        return drop('^ *%s ' % kind)(text)
    return edit


class Load(Logs):
    def test_kvm_cycles(self):
        rows = report.load(os.path.join(FX, 'bench-kvm-patched.log'))
        self.assertEqual(rows[('syscall', 'noseal', 'mprotect', 1)], (2536, 2610))
        self.assertEqual(rows[('cyc', 'syscall', 'noseal', 'mprotect', 1)], 6060)
        self.assertEqual(rows[('cyc', 'overhead', 'all', 'counter_read', 1)], 402)
        self.assertEqual(rows[('secretmem', 'all', 'fault_per_page', 64)], (2100, 2100))
        self.assertNotIn(('nocyc',), rows)

    def test_no_counter_reason(self):
        _, patched = self.logs('kvm', no_counter('BENCHCYC', 'ref-cycles'))
        rows = report.load(patched)
        self.assertEqual(rows[('nocyc',)], 'No such file or directory')
        self.assertFalse(any(k[0] == 'cyc' for k in rows))

    def test_icount_insns(self):
        rows = report.load(os.path.join(FX, 'bench-icount-base.log'))
        self.assertEqual(rows[('ins', 'syscall', 'noseal', 'mprotect', 1)], 2375)
        self.assertEqual(rows[('ins', 'overhead', 'noseal', 'counter_read', 1)], 875)
        self.assertEqual(rows[('pagemove', 'noseal', 'mremap_page', 512)], (8138736, 8138736))

    def test_meta(self):
        path = self.log('meta.log', '    BENCHMETA mseal_bench reps=11 batch=4 insns=1\r\n')
        self.assertEqual(report.load(path)[('meta', 'mseal_bench')],
                         dict(reps=11, batch=4, insns=1))


class Tables(Logs):
    def test_cycles_tables_only_with_benchcyc(self):
        self.assertIn('#### Kernel ref-cycles (median)', self.run_report(*self.logs('kvm')))
        text = self.run_report(*self.logs('kvm', drop('BENCHCYC')))
        self.assertNotIn('ref-cycles', text)

    def test_no_counter_says_why(self):
        text = self.run_report(*self.logs('kvm', no_counter('BENCHCYC', 'ref-cycles')))
        self.assertIn('Kernel ref-cycles: not measured. The benchmark programs could not open '
                      'the counter in the x86_64 guest (perf_event_open: No such file or '
                      'directory)', text)

    def test_insns_tables_only_with_benchins(self):
        text = self.run_report(*self.logs('icount'))
        self.assertIn('#### Kernel instructions (fewest)', text)
        self.assertIn('875 instructions on the base kernel, 875 on the patched one', text)
        text = self.run_report(*self.logs('icount', no_counter('BENCHINS', 'instruction')))
        self.assertNotIn('Kernel instructions', text)

    def test_insns_csv_written_and_removed(self):
        csv = os.path.join(self.tmp.name, 'b.csv')
        insns = os.path.join(self.tmp.name, 'b-insns.csv')
        self.run_report(*self.logs('icount'), '--csv', csv)
        with open(insns) as f:
            # Four features, two empty fields each: no feature boots.
            self.assertIn('syscall,noseal,madvise,32,37122,36772,-350,-0.943,,,,,,,,\n',
                          f.read())
        self.run_report(*self.logs('icount', no_counter('BENCHINS', 'instruction')), '--csv', csv)
        self.assertFalse(os.path.exists(insns))


class Method(Logs):
    """The method's constants: from BENCHMETA where the logs have it."""

    META = ('BENCHMETA mseal_bench reps=11 batch=4 pagemove_pages=128 cycles=1 insns=0 '
            'cyc_read_pairs=31 ins_read_pairs=100\n'
            'BENCHMETA secretmem_bench reps=5 fault_pages=64 sleep_us=5000 cycles=1 '
            'cyc_read_pairs=31\n')

    def with_meta(self, text):
        # A 256-remap pagemove row, as 128 pages give.
        return self.META + text.replace('mremap_page 512', 'mremap_page 256')

    def test_defaults_without_meta(self):
        base, patched = self.logs('kvm')
        self.assertEqual(report.method(report.load(base), report.load(patched), 'mseal_bench'),
                         report.METHOD_DEFAULTS['mseal_bench'])
        text = self.run_report(base, patched)
        self.assertIn('the fastest of 808 calls (101 samples of 8)', text)
        self.assertIn('(20 ms sleep)', text)
        self.assertIn('median of 101 back-to-back reads', text)

    def test_from_meta(self):
        text = self.run_report(*self.logs('kvm', self.with_meta))
        self.assertIn('the fastest of 44 calls (11 samples of 4)', text)
        self.assertIn('each the fastest of 11.', text)
        self.assertIn('256 remaps per sample, median of 11 samples', text)
        self.assertIn('| process | t per 256 remaps (ns) |', text)
        self.assertIn('(5 ms sleep)', text)
        self.assertIn('medians of 5 files', text)
        self.assertIn('median of 31 back-to-back reads', text)
        self.assertNotIn('808', text)
        self.assertNotIn('of 101', text)

    def test_kernels_ran_different_methods(self):
        base, patched = self.logs('kvm')
        other = self.log('other.log', self.with_meta(fixture('bench-kvm-patched.log')))
        with self.assertRaises(SystemExit) as e:
            self.run_report(base, other)
        self.assertIn("mseal_bench ran with other constants on the base kernel than on the patched one (base, patched): {'reps': (101, 11)", str(e.exception))

    def test_meta_of_the_old_constants_matches_an_old_log(self):
        base, _ = self.logs('kvm')
        patched = self.log('new.log', 'BENCHMETA mseal_bench reps=101 batch=8 pagemove_pages=256 '
                           'cycles=1 insns=0 cyc_read_pairs=101 ins_read_pairs=100\n'
                           + fixture('bench-kvm-patched.log'))
        self.assertIn('the fastest of 808 calls', self.run_report(base, patched))

    def test_header_from_kconfig_and_images(self):
        base, patched = self.logs('kvm')
        config = self.log('config', 'CONFIG_MSEAL=y\nCONFIG_MSEAL_SYSTEM_MAPPINGS=y\n')
        text = self.run_report(base, patched, '--kconfig', config,
                               '--images', base, patched, config)
        self.assertIn('(configs/bench.config; CONFIG_MSEAL=y, CONFIG_MSEAL_SYSTEM_MAPPINGS=y)',
                      text)
        self.assertIn('Measured (sha256): base kernel `%s`' % report.sha256(base), text)
        self.assertIn('(configs/bench.config; CONFIG_MSEAL=y, CONFIG_MSEAL_SYSTEM_MAPPINGS off)',
                      self.run_report(base, patched))


class PgTable(Logs):
    """pgtable_bench's tables: two kernels, or three with --off."""

    def pg(self, edit_off=lambda text: text):
        """(base, patched, off) consoles of the pgtable fixtures."""
        base, patched = self.logs('pgtable')
        return base, patched, self.log('pgtable-off.log', edit_off(fixture('bench-pgtable-off.log')))

    def table(self, text, first):
        """The rows of the Markdown table whose header starts with @first."""
        lines = text.splitlines()
        i = next(i for i, l in enumerate(lines) if l.startswith(first))
        rows = []
        for l in lines[i:]:
            if not l.startswith('|'):
                break
            rows.append(l)
        return rows

    def test_load(self):
        rows = report.load(os.path.join(FX, 'bench-pgtable-patched.log'))
        self.assertEqual(rows[('pgtable', 'all', 'fork', 262144)], (78021002, 78021002))
        self.assertEqual(rows[('pks', 'pgtable', 'fork', 262144)], (4102.5, 2))
        rows = report.load(os.path.join(FX, 'bench-pgtable-base.log'))
        self.assertEqual(rows[('pks', 'pgtable', 'touch', 16384)], (None, 0))
        self.assertEqual(rows[('meta', 'pgtable_bench')]['big_mib'], 1024)
        rows = report.load(os.path.join(FX, 'bench-pgtable-off.log'))
        self.assertTrue(rows[('cmdline',)].endswith('random.trust_cpu=on kpkeys=off'))

    def test_two_kernels(self):
        text = self.run_report(*self.logs('pgtable'))
        self.assertNotIn('patched-off', text.lower())
        self.assertEqual(self.table(text, '| operation | pages |')[:3], [
            '| operation | pages | t | t_patched | delta | % |',
            '|---|---:|---:|---:|---:|---:|',
            '| fork of a process with 1 GiB written; child exits; wait | 262144 | 77510570 '
            '| 78021002 | +510432 | +0.66% |'])
        self.assertIn('**PKRS writes per operation: what real hardware pays for; under '
                      '-icount a WRMSR counts as one instruction**', text)
        self.assertEqual(self.table(text, '| operation | PKRS')[2],
                         '| fork of a process with 1 GiB written; child exits; wait '
                         '| - | 4102.50 | +0 | +2 |')

    def test_three_kernels(self):
        base, patched, off = self.pg()
        text = self.run_report(base, patched, '--off', off)
        self.assertIn('`t_kpkeys=off`: the series with that one feature off (`kpkeys=off`).',
                      text)
        t = self.table(text, '| operation | pages |')
        self.assertEqual(t[0], '| operation | pages | t | t_patched | delta | % '
                               '| t_kpkeys=off | % |')
        self.assertEqual(t[4], '| first write to a page of a fresh 64 MiB mapping | 16384 '
                               '| 5664 | 5690 | +26 | +0.46% | 5665 | +0.02% |')
        self.assertEqual(self.table(text, '| operation | PKRS')[:3], [
            '| operation | PKRS writes/op base | patched | kpkeys=off '
            '| direct-map splits base | patched | kpkeys=off |',
            '|---|---:|---:|---:|---:|---:|---:|',
            '| fork of a process with 1 GiB written; child exits; wait '
            '| - | 4102.50 | 0.00 | +0 | +2 | +0 |'])
        self.assertNotIn('### Other rows', text)
        # The other tables stay as they are with two kernels.
        self.assertEqual(without_features(text).split('## x86_64: page tables')[0],
                         self.run_report(base, patched).split('## x86_64: page tables')[0])
        # --off is --without kpkeys.
        self.assertEqual(text, self.run_report(base, patched, '--without', 'kpkeys', off))

    def test_no_kpkeys_in_patched(self):
        base, patched, off = self.pg()
        patched = self.log('nopks.log', re.sub(r'(BENCHPKS \S+ \S+ \d+) \S+', r'\1 -1',
                                                fixture('bench-pgtable-patched.log')))
        text = self.run_report(base, patched)
        self.assertIn('The patched kernel has no /sys/kernel/debug/kpkeys/switches', text)

    def test_off_param_unknown(self):
        unknown = ('Unknown kernel command line parameters "kpkeys=off", '
                   'will be passed to user space.\n')
        base, patched, off = self.pg(lambda text: text.replace('KTAP', unknown + 'KTAP', 1))
        text = self.run_report(base, patched, '--off', off)
        self.assertIn('The patched kernel did not know `kpkeys=off`', text)
        self.assertNotIn('did not know', self.run_report(base, patched, '--off', self.pg()[2]))

    def test_off_other_rows(self):
        """A kpkeys=off boot that ran more than pgtable_bench: its other rows
        are columns of their own tables (before issue 32: a table of their
        own)."""
        base, patched = self.logs('kvm')
        off = self.log('off.log', '# cmdline: x kpkeys=off\n'
                       + fixture('bench-kvm-patched.log').replace(' 2536 2610', ' 2600 2610'))
        text = self.run_report(base, patched, '--off', off)
        self.assertNotIn('### Other rows', text)
        self.assertEqual(self.table(text, '| syscall | vmas | t |')[2],
                         '| mprotect | 1 | 2529 | 2536 | +7 | +7.0 | +0.28% | +0.38% '
                         '| 2600 | +2.81% |')
        self.assertIn('| fault_per_page | 7045 | 2100 | -4945 | -70.19% | 2100 | -70.19% |',
                      text)
        self.assertNotIn('## x86_64: page tables', text)

    def test_csv(self):
        base, patched, off = self.pg()
        csv = os.path.join(self.tmp.name, 'b.csv')
        pgt = os.path.join(self.tmp.name, 'b-pgtable.csv')
        self.run_report(base, patched, '--off', off, '--csv', csv)
        with open(pgt) as f:
            # t and % of each feature, then PKRS writes and splits of
            # base, patched and each feature.
            self.assertIn('fork,262144,77510570,78021002,0.659,77512000,0.002,,,,,,,'
                          ',4102.50,0.00,,,,0,2,0,,,\n', f.read())
        self.run_report(*self.logs('kvm'), '--csv', csv)
        self.assertFalse(os.path.exists(pgt))

    def test_off_ran_another_method(self):
        base, patched, off = self.pg(lambda text: text.replace('reps=11', 'reps=5'))
        with self.assertRaises(SystemExit) as e:
            self.run_report(base, patched, '--off', off)
        self.assertIn('pgtable_bench ran with other constants on the base kernel than in the '
                      "kpkeys=off boot (base, kpkeys=off): {'reps': (11, 5)}", str(e.exception))


class Slab(Logs):
    """slab_bench's tables: two kernels, or three with --slab-off."""

    table = PgTable.table

    def sl(self, edit_off=lambda text: text):
        """(base, patched, slab_virtual=off) consoles of the slab fixtures."""
        base, patched = self.logs('slab')
        return base, patched, self.log('slab-svoff.log', edit_off(fixture('bench-slab-svoff.log')))

    def test_load(self):
        rows = report.load(os.path.join(FX, 'bench-slab-patched.log'))
        self.assertEqual(rows[('slab', 'batch', 'dgram', 16384)], (33000, 33100))
        self.assertEqual(rows[('svc', 'batch', 'dgram', 16384)], (0.0, 0.03, 0.6, 16, 0))
        self.assertEqual(rows[('svmem',)]['region_bytes'], 12884901888)
        self.assertEqual(rows[('svmem',)]['retained_pages'], 700)
        self.assertEqual(rows[('meta', 'slab_bench')]['batch_msgs'], 512)
        rows = report.load(os.path.join(FX, 'bench-slab-base.log'))
        self.assertEqual(rows[('svc', 'all', 'fork', 1)], (0.0, None, None, None, None))
        self.assertIsNone(rows[('svmem',)]['metadata_pages'])
        self.assertEqual(rows[('svmem',)]['slab_kb'], 5400)
        # A console of before retained_pages existed: 7 fields.
        self.assertIsNone(rows[('svmem',)]['retained_pages'])

    def test_two_kernels(self):
        text = self.run_report(*self.logs('slab'))
        self.assertIn('## x86_64: slab allocator (SLAB_VIRTUAL)', text)
        self.assertNotIn('slab_virtual=off', text)
        self.assertEqual(self.table(text, '| operation | t |')[:3], [
            '| operation | t | t_patched | % | median % |',
            '|---|---:|---:|---:|---:|',
            '| AF_UNIX stream socketpair ping-pong between two processes, 64 bytes, per '
            'round trip | 12000 | 12060 | +0.50% | +0.48% |'])
        self.assertIn('**A positive percentage means that kernel is slower than the base**',
                      text)
        self.assertEqual(self.table(text, '| operation | TLB IPIs')[5],
                         '| 512 AF_UNIX datagrams of 16384 bytes sent, then received; per '
                         'datagram | 0.0000 | 0.0000 | 0.0300 | 0.6000 | 16 | +0 |')

    def test_three_kernels(self):
        base, patched, svoff = self.sl()
        text = self.run_report(base, patched, '--slab-off', svoff)
        self.assertIn('slab_virtual=off: the same patched kernel image booted with '
                      '`slab_virtual=off`', text)
        t = self.table(text, '| operation | t |')
        self.assertEqual(t[0], '| operation | t | t_patched | % | median % '
                               '| t_slab_virtual=off | % | median % |')
        self.assertEqual(t[3], '| fork + _exit + waitpid of a small static process | 300000 '
                               '| 303000 | +1.00% | +0.97% | 300300 | +0.10% | +0.10% |')
        self.assertEqual(self.table(text, '| operation | TLB IPIs')[0],
                         '| operation | TLB IPIs/op base | patched | slab_virtual=off '
                         '| flushes/op patched | freed pages/op patched | pending patched '
                         '| escaped patched |')
        self.assertIn('(base 5400 kB, patched 6900 kB, slab_virtual=off 5420 kB); on the '
                      'patched kernel, /sys/kernel/debug/slab_virtual: a region of 12 GiB of '
                      'slab addresses, 20.0 MiB of it carved into slots, 4100 metadata pages '
                      'and 12 page-table pages', text)
        # The other tables stay as they are.
        self.assertEqual(without_features(text).split('## x86_64: slab allocator')[0],
                         self.run_report(base, patched).split('## x86_64: slab allocator')[0])

    def test_notes(self):
        base, patched = self.logs('slab', drop('unix_pingpong'))
        text = self.run_report(base, patched)
        self.assertIn('No AF_UNIX rows: the bench kernels have no AF_UNIX sockets', text)
        self.assertNotIn('has no /sys/kernel/debug/slab_virtual', text)
        base, patched = self.logs('slab', lambda text: re.sub(
            r'(BENCHSLAB \S+ \S+ \d+ \S+) .*', r'\1 -1 -1 -1 -1', text))
        text = self.run_report(base, patched)
        self.assertIn('The patched kernel has no /sys/kernel/debug/slab_virtual', text)
        self.assertNotIn('No AF_UNIX rows', text)

    def test_no_tlb_line(self):
        """arm64: no "TLB:" line in /proc/interrupts, no slab_virtual."""
        base, patched = self.logs('slab', lambda text: re.sub(
            r'(BENCHSLAB \S+ \S+ \d+) \S+ .*', r'\1 -1 -1 -1 -1 -1', text))
        text = self.run_report(base, patched)
        self.assertIn('(- where there is no such line: arm64 flushes with broadcast '
                      'instructions, without IPIs)', text)
        self.assertEqual(self.table(text, '| operation | TLB IPIs')[3],
                         '| fork + _exit + waitpid of a small static process | - | - | - | - '
                         '| - | - |')

    def test_svoff_not_off(self):
        base, patched, svoff = self.sl(lambda text: text.replace(
            'KTAP', 'Unknown kernel command line parameters "slab_virtual=off", will be '
            'passed to user space.\nKTAP', 1))
        self.assertIn('The patched kernel did not know `slab_virtual=off`',
                      self.run_report(base, patched, '--slab-off', svoff))

    def test_csv(self):
        base, patched, svoff = self.sl()
        csv = os.path.join(self.tmp.name, 'b.csv')
        slab = os.path.join(self.tmp.name, 'b-slab.csv')
        mem = os.path.join(self.tmp.name, 'b-slabmem.csv')
        self.run_report(base, patched, '--slab-off', svoff, '--csv', csv)
        with open(slab) as f:
            # base and patched, then t, %, median, median % of each
            # feature, TLB IPIs of base, patched and each feature, and
            # the patched kernel's slab_virtual counters.
            self.assertIn('batch,dgram,16384,30000,33000,10.000,30100,33100,9.967,,,,,30100,'
                          '0.333,30200,0.332,,,,,,,,,0.0000,0.0000,,0.0000,,,0.0300,0.6000,'
                          '16,0\n', f.read())
        with open(mem) as f:
            self.assertEqual(f.read().splitlines()[1:], [
                'base,,,,,,,5400,', 'patched,4100,12,20971520,12884901888,3,0,6900,700',
                'slab_virtual=off,,,,,,,5420,'])
        self.run_report(*self.logs('kvm'), '--csv', csv)
        self.assertFalse(os.path.exists(slab) or os.path.exists(mem))

    def test_svoff_ran_another_method(self):
        base, patched, svoff = self.sl(lambda text: text.replace('reps=101', 'reps=11'))
        with self.assertRaises(SystemExit) as e:
            self.run_report(base, patched, '--slab-off', svoff)
        self.assertIn('slab_bench ran with other constants on the base kernel than in the '
                      "slab_virtual=off boot (base, slab_virtual=off): {'reps': (101, 11)}",
                      str(e.exception))

    def test_kpkeys_off_table_unchanged(self):
        """A feature boot that ran only slab_bench adds nothing to the page-table
        tables."""
        base, patched = self.logs('pgtable')
        off = self.log('pgtable-off.log', fixture('bench-pgtable-off.log'))

        def pgtable(text):
            return text.split('## x86_64: page tables')[1]
        self.assertEqual(pgtable(self.run_report(base, patched, '--off', off)),
                         pgtable(self.run_report(base, patched, '--off', off,
                                                 '--slab-off', self.sl()[2])))


def console(words, rows, programs, extra=()):
    """A benchmark console: the "# cmdline:" line scripts/boot.sh writes
    (the bench command line and @words), @extra kernel lines, the BENCH
    rows of @rows ({(table, state, call, n): (figure, median)}) and an "ok"
    line for each of @programs."""
    lines = ['# cmdline: console=ttyS0 panic=-1 rdinit=/init secretmem.enable=1 '
             'norandmaps random.trust_cpu=on' + (' ' + words if words else '')]
    lines += list(extra)
    lines += ['    BENCH %s %s %s %d %d %d' % (k + v) for k, v in rows.items()]
    lines += ['ok %d %s # 1.0 s' % (i + 1, p) for i, p in enumerate(programs)]
    return '\n'.join(lines) + '\n'


MPROTECT1 = ('syscall', 'noseal', 'mprotect', 1)
MPROTECT1_SEALED = ('syscall', 'sealed', 'mprotect', 1)
FAULT = ('secretmem', 'all', 'fault_per_page', 64)
ALL = ('mseal_bench', 'mseal_bench_sealed', 'secretmem_bench')
PROTECTED = 'kpkeys: page tables protected: 102 tables from boot given the key, 0 failed'
NO_POE = ('kpkeys: page tables are not protected: no FEAT_S1POE and FEAT_TCR2 on every '
          'CPU (POE unsupported)')


class Attribution(Logs):
    """The feature columns and the matrix (issue 32), on consoles whose
    figures give round shares: mprotect over 1 VMA costs the series +10%
    without seals (kpkeys 5, SLAB_VIRTUAL 2, pool 0, mseal 1: rest 2) and
    +5% with seals elsewhere (all of it kpkeys); a secret page fault
    -70%, -71.43% of it the pool's."""

    FIGURES = {  # kernel: (mprotect noseal, mprotect sealed, fault)
        'base': (1000, 2000, 7000),
        'patched': (1100, 2100, 2100),
        'kpkeys': (1050, 2000, 2100),
        'slab_virtual': (1080, 2100, 2100),
        'secretmem_pool': (1100, 2100, 7100),
        'mseal': (1090, 2100, 2100),
    }
    WORDS = {'kpkeys': 'kpkeys=off', 'slab_virtual': 'slab_virtual=off',
             'secretmem_pool': 'secretmem.pool_blocks=0', 'mseal': ''}

    def boot(self, kernel, extra=(), programs=ALL, drop=()):
        """The console of @kernel ('base', 'patched' or a feature's boot)."""
        a, b, c = self.FIGURES[kernel]
        rows = {MPROTECT1: (a, a + 10), MPROTECT1_SEALED: (b, b + 10), FAULT: (c, c)}
        for k in drop:
            del rows[k]
        if kernel == 'patched':
            extra = (PROTECTED,) + tuple(extra)
        return self.log('%s.log' % kernel,
                        console(self.WORDS.get(kernel, ''), rows, programs, extra))

    def report(self, *features, arch='x86_64', patched_extra=(), **boots):
        """The report of the base, the patched kernel (its console with
        @patched_extra lines) and the boots of @features (a console from
        @boots where given); (Markdown, attribution CSV lines)."""
        args = []
        for f in features:
            args += ['--without', f, boots.get(f) or self.boot(f)]
        csv = os.path.join(self.tmp.name, 'r.csv')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.main(['--arch', arch, '--clock', 'CLOCK', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q', '--csv', csv] + args
                        + [self.boot('base'), self.boot('patched', patched_extra)])
        path = os.path.join(self.tmp.name, 'r-attribution.csv')
        att = None
        if os.path.exists(path):
            with open(path) as f:
                att = f.read().splitlines()
        return out.getvalue(), att

    table = PgTable.table

    def test_load_feature_lines(self):
        rows = report.load(self.boot('patched', ('    # /sys/module/secretmem/parameters/'
                                                 'pool_blocks: N at start',)))
        self.assertEqual(rows[('kpkeys',)], '')
        self.assertEqual(rows[('pool',)], 'N')
        self.assertEqual(rows[('ran',)], list(ALL))
        self.assertEqual(report.load(self.boot('base', (NO_POE,)))[('kpkeys',)],
                         'no FEAT_S1POE and FEAT_TCR2 on every CPU (POE unsupported)')

    def test_matrix(self):
        """Each feature's share = (patched - without it) / base, the mean over
        a workload's rows; rest = total - the shares."""
        text, att = self.report('kpkeys', 'slab_virtual', 'secretmem_pool', 'mseal')
        self.assertTrue(text.startswith('## x86_64: attribution\n'))
        self.assertLess(text.index('## x86_64: attribution'), text.index('## x86_64: mseal'))
        self.assertEqual(self.table(text, '| workload |'), [
            '| workload | rows | total | kpkeys | SLAB_VIRTUAL | secretmem pool | mseal | rest |',
            '|---|---:|---:|---:|---:|---:|---:|---:|',
            # (10 + 5) / 2; (5 + 5) / 2; (2 + 0) / 2; 0; (1 + 0) / 2; 7.5 - 6.5
            '| mprotect of 1 to 32 one-page VMAs | 2 | +7.50% | +5.00% | +1.00% | +0.00% '
            '| +0.50% | +1.00% |',
            # (2100 - 7100) / 7000; the rest: -70 + 71.43
            '| memfd_secret page fault | 1 | -70.00% | +0.00% | +0.00% | -71.43% | +0.00% '
            '| +1.43% |'])
        self.assertIn('Off by: kpkeys `kpkeys=off`, SLAB_VIRTUAL `slab_virtual=off`, '
                      'secretmem pool `secretmem.pool_blocks=0`, mseal `CONFIG_MSEAL=n`.', text)
        self.assertNotIn('(inactive)', text)
        self.assertEqual(att, [
            'workload,rows,total_percent,kpkeys_percent,slab_virtual_percent,'
            'secretmem_pool_percent,mseal_percent,rest_percent',
            'mprotect,2,7.500,5.000,1.000,0.000,0.500,1.000',
            'secretmem_fault,1,-70.000,0.000,0.000,-71.429,0.000,1.429'])

    def test_columns(self):
        """Every table gets a t_LABEL and % column of each feature boot, in
        FEATURES' order, against the base."""
        text, _ = self.report('mseal', 'secretmem_pool', 'slab_virtual', 'kpkeys')
        t = self.table(text, '| syscall | vmas | t |')
        self.assertEqual(t[0], '| syscall | vmas | t | t_patched | delta | per_vma | % | median % '
                               '| t_kpkeys=off | % | t_slab_virtual=off | % '
                               '| t_secretmem.pool_blocks=0 | % | t_CONFIG_MSEAL=n | % |')
        self.assertEqual(t[2], '| mprotect | 1 | 1000 | 1100 | +100 | +100.0 | +10.00% | +9.90% '
                               '| 1050 | +5.00% | 1080 | +8.00% | 1100 | +10.00% | 1090 | +9.00% |')
        self.assertIn('| fault_per_page | 7000 | 2100 | -4900 | -70.00% | 2100 | -70.00% '
                      '| 2100 | -70.00% | 7100 | +1.43% | 2100 | -70.00% |', text)
        # The mseal=n kernel has its own image: no words on its command line.
        self.assertIn('`CONFIG_MSEAL=n`: the series built with CONFIG_MSEAL=n '
                      '(configs/bench-nomseal.config; mseal has no boot switch), booted as '
                      'the patched kernel, every program', text)
        with open(os.path.join(self.tmp.name, 'r.csv')) as f:
            self.assertIn('syscall,noseal,mprotect,1,1000,1100,100,10.000,1010,1110,9.901,'
                          '1050,5.000,1060,4.950,1080,8.000,1090,7.921,1100,10.000,1110,9.901,'
                          '1090,9.000,1100,8.911\n', f.read())

    def test_missing_boot(self):
        """A feature without a boot: no column in the tables, - in its
        matrix column and in rest."""
        text, att = self.report('kpkeys', 'slab_virtual', 'secretmem_pool')
        self.assertEqual(self.table(text, '| workload |')[2],
                         '| mprotect of 1 to 32 one-page VMAs | 2 | +7.50% | +5.00% | +1.00% '
                         '| +0.00% | - | - |')
        self.assertNotIn('t_CONFIG_MSEAL=n', text)
        self.assertIn('mseal `CONFIG_MSEAL=n`', text)
        self.assertEqual(att[1], 'mprotect,2,7.500,5.000,1.000,0.000,,')
        # A boot that ran some programs only: - for the others' workloads.
        text, _ = self.report('kpkeys', 'slab_virtual', 'secretmem_pool', 'mseal',
                              secretmem_pool=self.boot('secretmem_pool',
                                                       programs=('secretmem_bench',),
                                                       drop=(MPROTECT1, MPROTECT1_SEALED)))
        m = self.table(text, '| workload |')
        self.assertEqual(m[2], '| mprotect of 1 to 32 one-page VMAs | 2 | +7.50% | +5.00% '
                               '| +1.00% | - | +0.50% | - |')
        self.assertEqual(m[3], '| memfd_secret page fault | 1 | -70.00% | +0.00% | +0.00% '
                               '| -71.43% | +0.00% | +1.43% |')
        self.assertNotIn('t_secretmem.pool_blocks=0', self.table(text, '| syscall |')[0])
        self.assertIn('`secretmem.pool_blocks=0`: the patched kernel booted with '
                      '`secretmem.pool_blocks=0` added to its command line, only secretmem_bench',
                      text)
        # A row the boot lacks in a workload of several: - too.
        text, _ = self.report('kpkeys', kpkeys=self.boot('kpkeys', drop=(MPROTECT1_SEALED,)))
        self.assertEqual(self.table(text, '| workload |')[2],
                         '| mprotect of 1 to 32 one-page VMAs | 2 | +7.50% | - | - | - | - | - |')
        # No feature boot at all: the tables of two kernels, no matrix.
        text, att = self.report()
        self.assertNotIn('attribution', text)
        self.assertIsNone(att)

    def test_arm64_inactive_kpkeys(self):
        """arm64 on a CPU without POE: kpkeys=off changes no code path; the
        column stays kpkeys=off alone and says so."""
        text, _ = self.report('kpkeys', 'slab_virtual', 'secretmem_pool', 'mseal',
                              arch='arm64', patched_extra=(NO_POE,),
                              kpkeys=self.boot('kpkeys', ('kpkeys: page tables are not '
                                                          'protected: kpkeys=off',)))
        self.assertIn('| workload | rows | total | kpkeys (inactive) | SLAB_VIRTUAL '
                      '| secretmem pool | mseal | rest |', text)
        note = ('The patched kernel does not protect page tables with kpkeys here (its '
                'console: "page tables are not protected: no FEAT_S1POE and FEAT_TCR2 on '
                'every CPU (POE unsupported)"), so `kpkeys=off` changes no code path: the '
                'kpkeys=off column runs the same code as the patched one')
        # In the matrix's section and in the tables' header.
        self.assertEqual(text.count(note), 2)
        self.assertIn('Off by: kpkeys `kpkeys=off`, SLAB_VIRTUAL', text)
        self.assertIn('| t_kpkeys=off | % |', text)
        # The old combined boot: the column is what the other word turns off.
        text, _ = self.report('kpkeys', arch='arm64', patched_extra=(NO_POE,),
                              kpkeys=self.log('both.log', console(
                                  'kpkeys=off slab_virtual=off',
                                  {MPROTECT1: (1080, 1090)}, ALL)))
        self.assertIn('so `kpkeys=off` changes no code path: the kpkeys=off slab_virtual=off '
                      'column differs from the patched one by what `slab_virtual=off` turns '
                      'off.', text)
        self.assertIn('| kpkeys (inactive) |', text)
        # No kpkeys boot at all: the matrix still says why the header says so.
        text, _ = self.report('mseal', arch='arm64', patched_extra=(NO_POE,))
        self.assertIn('kpkeys (inactive): the patched kernel does not protect page tables '
                      'with kpkeys here ("no FEAT_S1POE', text)

    def test_switch_did_not_take(self):
        pool = self.boot('secretmem_pool', ('    # /sys/module/secretmem/parameters/'
                                            'pool_blocks: Y at start',))
        text, _ = self.report('secretmem_pool', 'mseal', secretmem_pool=pool,
                              mseal=self.log('m.log', console('', {
                                  ('mseal', 'noseal', 'mseal', 1): (3000, 3000)}, ALL)))
        self.assertIn('In the secretmem.pool_blocks=0 boot, secretmem_bench found the pool on '
                      '(pool_blocks=Y)', text)
        self.assertIn('The CONFIG_MSEAL=n kernel has mseal()', text)
        text, _ = self.report('kpkeys', kpkeys=self.boot('kpkeys', (
            'Unknown kernel command line parameters "kpkeys=off", will be passed to user '
            'space.',)))
        self.assertIn('The patched kernel did not know `kpkeys=off`', text)

    def test_header_hashes(self):
        """Each feature boot's initramfs, and the mseal kernel's image, in
        the Measured line (sha256)."""
        kernel = self.log('nomseal.img', 'image')
        initrd = self.log('off.cpio', 'cpio')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q',
                         '--images', kernel, kernel, initrd,
                         '--without', 'mseal', self.boot('mseal'),
                         '--without-kernel', 'mseal', kernel,
                         '--without-initramfs', 'mseal', initrd,
                         '--without', 'kpkeys', self.boot('kpkeys'),
                         '--off-initramfs', initrd,
                         self.boot('base'), self.boot('patched')])
        self.assertIn(', initramfs `%s`, kpkeys=off initramfs `%s`, CONFIG_MSEAL=n kernel '
                      '`%s`, CONFIG_MSEAL=n initramfs `%s`.'
                      % (report.sha256(initrd), report.sha256(initrd), report.sha256(kernel),
                         report.sha256(initrd)), out.getvalue())

    def test_bad_feature(self):
        with self.assertRaises(SystemExit) as e:
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q', '--without', 'pks',
                         self.boot('kpkeys'), self.boot('base'), self.boot('patched')])
        self.assertIn("no feature 'pks'", str(e.exception))

    def test_no_negative_zero(self):
        """A share that rounds to nothing shows as +0.00%, whatever its sign."""
        def log(name, figure):
            return self.log(name, console('kpkeys=off' if name == 'k.log' else '',
                                          {MPROTECT1: (figure, figure)}, ALL))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q', '--without', 'kpkeys',
                         log('k.log', 1000001), log('b.log', 1000000),
                         log('p.log', 1000000)])
        # (1000000 - 1000001) / 1000000 = -0.0001%
        self.assertIn('| 1 | +0.00% | +0.00% | - |', out.getvalue())

    def test_same_inputs_same_tables(self):
        a = self.report('kpkeys', 'slab_virtual', 'secretmem_pool', 'mseal')
        self.assertEqual(a, self.report('kpkeys', 'slab_virtual', 'secretmem_pool', 'mseal'))


class Tools(Logs):
    """The boots of the seeds' own tools (issue 32 item 3): stress-ng and
    the kernbench-like compile, each console joined to the kernel whose
    boot it follows (--tool TOOL KERNEL LOG)."""

    FIGURES, WORDS = Attribution.FIGURES, Attribution.WORDS
    boot = Attribution.boot
    table = PgTable.table

    def tool_log(self, tool, kernel, scale):
        """A console of @tool after @kernel's boot, its times scaled by
        @scale per mille over the base's."""
        def t(v):
            return v * (1000 + scale) // 1000
        if tool == 'stressng':
            lines = ['BENCHMETA stressng_bench reps=5',
                     'BENCH stressng all pagemove 2 %d %d' % (t(200000000), t(201000000)),
                     'BENCH stressng all fork 20 %d %d' % (t(100000000), t(100000000))]
        else:
            lines = ['BENCHMETA kbuild_bench reps=3 files=19',
                     'BENCH kbuild all compile 19 %d %d' % (t(10000000000), t(10000000000)),
                     'BENCHKB 19 %d %d' % (t(3000000), t(2000000000) if scale != 7 else -1)]
        return self.log('%s-%s.log' % (tool, kernel),
                        ''.join('    %s\n' % l for l in ['# running %s_bench' % tool] + lines))

    def tool_report(self, tools, features=('kpkeys',), scales=None):
        scales = scales or {'base': 0, 'patched': 20, 'kpkeys': 10}
        args = []
        for f in features:
            args += ['--without', f, self.boot(f)]
        for tool in tools:
            for kernel in ('base', 'patched') + tuple(features):
                args += ['--tool', tool, kernel, self.tool_log(tool, kernel, scales[kernel])]
            args += ['--tool-version', tool, '1.0-1']
        csv = os.path.join(self.tmp.name, 'r.csv')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.main(['--arch', 'x86_64', '--clock', 'CLOCK', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q', '--csv', csv] + args
                        + [self.boot('base'), self.boot('patched')])
        return out.getvalue()

    def test_stressng(self):
        text = self.tool_report(['stressng'])
        self.assertIn('## x86_64: stress-ng', text)
        self.assertIn("Debian's own stress-ng (1.0-1)", text)
        self.assertEqual(self.table(text, '| stressor |'), [
            '| stressor | ops | t | t_patched | bogo-ops/s | patched | % | median % '
            '| t_kpkeys=off | % | median % |',
            '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
            '| pagemove | 2 | 200000000 | 204000000 | 10.00 | 9.80 | +2.00% | +2.00% '
            '| 202000000 | +1.00% | +1.00% |',
            '| fork | 20 | 100000000 | 102000000 | 200.00 | 196.08 | +2.00% | +2.00% '
            '| 101000000 | +1.00% | +1.00% |'])
        # The matrix: +2% in all, kpkeys' share (204 - 202) / 200 = 1%.
        self.assertIn("| Debian's stress-ng: pagemove, mremap, mmap, madvise, fork, vm | 2 "
                      "| +2.00% | +1.00% | - | - | - | - |", text)
        self.assertNotIn('## x86_64: kbuild', text)

    def test_kbuild(self):
        text = self.tool_report(['kbuild'])
        self.assertEqual(self.table(text, '| workload | files |'), [
            '| workload | files | t | t_patched | % | median % | t_kpkeys=off | % | median % |',
            '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
            '| compile | 19 | 10000000000 | 10200000000 | +2.00% | +2.00% | 10100000000 '
            '| +1.00% | +1.00% |'])
        self.assertEqual(self.table(text, '| kernel | system time'), [
            '| kernel | system time (ms) | % | kernel instructions | % |',
            '|---|---:|---:|---:|---:|',
            '| base | 3000.0 | +0.00% | 2000000000 | +0.00% |',
            '| patched | 3060.0 | +2.00% | 2040000000 | +2.00% |',
            '| kpkeys=off | 3030.0 | +1.00% | 2020000000 | +1.00% |'])
        self.assertIn("| compile of the base kernel's scripts/dtc with Debian's gcc "
                      "(kernbench-like) | 1 | +2.00% | +1.00% |", text)

    def test_kbuild_without_counter(self):
        """A guest without a PMU: no instruction column."""
        text = self.tool_report(['kbuild'], scales={'base': 7, 'patched': 7, 'kpkeys': 7})
        self.assertIn('no kernel instruction count (this guest has no PMU)', text)
        self.assertEqual(self.table(text, '| kernel | system time')[0],
                         '| kernel | system time (ms) | % |')

    def test_tool_of_no_boot(self):
        """A tool's console after a boot the report does not have."""
        with self.assertRaises(SystemExit) as e:
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q',
                         '--tool', 'stressng', 'slab_virtual',
                         self.tool_log('stressng', 'slab_virtual', 0),
                         self.boot('base'), self.boot('patched')])
        self.assertIn('--tool stressng slab_virtual: no such kernel', str(e.exception))

    def test_tool_other_cmdline(self):
        """A tool's boot must have had its kernel's command line."""
        log = self.tool_log('stressng', 'kpkeys', 0)
        with open(log) as f:
            text = f.read()
        with open(log, 'w') as f:
            f.write('# cmdline: console=ttyS0 panic=-1 rdinit=/init secretmem.enable=1 '
                    'norandmaps random.trust_cpu=on\n' + text)
        with self.assertRaises(SystemExit) as e:
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q', '--without', 'kpkeys',
                         self.boot('kpkeys'), '--tool', 'stressng', 'kpkeys', log,
                         self.boot('base'), self.boot('patched')])
        self.assertIn('the stressng boot after the kpkeys one had another command line',
                      str(e.exception))

    def test_tool_missing_console(self):
        with self.assertRaises(SystemExit) as e:
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q', '--tool', 'kbuild', 'base',
                         os.path.join(self.tmp.name, 'none.log'),
                         self.boot('base'), self.boot('patched')])
        self.assertIn('--tool kbuild base: no console', str(e.exception))

    def test_tool_without_rows(self):
        """A tool's console without its rows (the boot ran something else)."""
        with self.assertRaises(SystemExit) as e:
            report.main(['--arch', 'x86_64', '--clock', 'C', '--base-version', 'b',
                         '--series', 's', '--qemu', 'q',
                         '--tool', 'kbuild', 'base', self.tool_log('stressng', 'base', 0),
                         self.boot('base'), self.boot('patched')])
        self.assertIn('no kbuild BENCH lines', str(e.exception))


if __name__ == '__main__':
    unittest.main()
