# SPDX-License-Identifier: GPL-2.0
"""The bench report (scripts/bench-report.py): what load() reads from
recorded benchmark consoles, the companion tables it adds only for logs
that have counter lines, and the method constants it takes from the
programs' BENCHMETA lines (or, for older logs, the defaults)."""
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
            self.assertIn('syscall,noseal,madvise,32,37122,36772,-350,-0.943\n', f.read())
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
        self.assertIn('Patched-off: the same patched kernel image booted with `kpkeys=off`, '
                      'in a boot of its own that runs only this program', text)
        t = self.table(text, '| operation | pages |')
        self.assertEqual(t[0], '| operation | pages | t | t_patched | delta | % '
                               '| t_patched-off | delta | % |')
        self.assertEqual(t[4], '| first write to a page of a fresh 64 MiB mapping | 16384 '
                               '| 5664 | 5690 | +26 | +0.46% | 5665 | +1 | +0.02% |')
        self.assertEqual(self.table(text, '| operation | PKRS')[:3], [
            '| operation | PKRS writes/op base | patched | patched-off '
            '| direct-map splits base | patched | patched-off |',
            '|---|---:|---:|---:|---:|---:|---:|',
            '| fork of a process with 1 GiB written; child exits; wait '
            '| - | 4102.50 | 0.00 | +0 | +2 | +0 |'])
        # Only pgtable rows in the third boot: no table of other rows.
        self.assertNotIn('### Other rows', text)
        # The other tables stay as they are with two kernels.
        self.assertEqual(text.split('## x86_64: page tables')[0],
                         self.run_report(base, patched).split('## x86_64: page tables')[0])

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
        """A third boot that ran more than pgtable_bench: its other rows in a
        table of their own."""
        base, patched = self.logs('kvm')
        off = self.log('off.log', '# cmdline: x kpkeys=off\n'
                       + fixture('bench-kvm-patched.log').replace(' 2536 2610', ' 2600 2610'))
        text = self.run_report(base, patched, '--off', off)
        self.assertIn('### Other rows of the patched kernel booted with `kpkeys=off`', text)
        self.assertRegex(text, r'\| syscall \| noseal \| mprotect \| 1 \| \d+ \| 2600 \|')
        self.assertNotIn('## x86_64: page tables', text)

    def test_csv(self):
        base, patched, off = self.pg()
        csv = os.path.join(self.tmp.name, 'b.csv')
        pgt = os.path.join(self.tmp.name, 'b-pgtable.csv')
        self.run_report(base, patched, '--off', off, '--csv', csv)
        with open(pgt) as f:
            self.assertIn('fork,262144,77510570,78021002,77512000,0.659,0.002,,4102.50,0.00,'
                          '0,2,0\n', f.read())
        self.run_report(*self.logs('kvm'), '--csv', csv)
        self.assertFalse(os.path.exists(pgt))

    def test_off_ran_another_method(self):
        base, patched, off = self.pg(lambda text: text.replace('reps=11', 'reps=5'))
        with self.assertRaises(SystemExit) as e:
            self.run_report(base, patched, '--off', off)
        self.assertIn('pgtable_bench ran with other constants on the base kernel than in the '
                      "patched-off boot (base, patched-off): {'reps': (11, 5)}", str(e.exception))


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
        self.assertEqual(text.split('## x86_64: slab allocator')[0],
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
            self.assertIn('batch,dgram,16384,30000,33000,30100,10.000,0.333,30100,33100,30200,'
                          '9.967,0.332,0.0000,0.0000,0.0000,0.0300,0.6000,16,0\n', f.read())
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
                      "patched-off boot (base, patched-off): {'reps': (101, 11)}",
                      str(e.exception))

    def test_kpkeys_off_table_unchanged(self):
        """The kpkeys=off boot's tables ignore the slab_virtual=off console."""
        base, patched = self.logs('pgtable')
        off = self.log('pgtable-off.log', fixture('bench-pgtable-off.log'))
        self.assertEqual(self.run_report(base, patched, '--off', off),
                         self.run_report(base, patched, '--off', off,
                                         '--slab-off', self.sl()[2]))


if __name__ == '__main__':
    unittest.main()
