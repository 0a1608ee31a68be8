# SPDX-License-Identifier: GPL-2.0
"""The verdict (scripts/verdict.py) on recorded consoles: each kind of
failure it must catch, and a clean run whose programs print text that
merely looks like a kernel report."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
import verdict  # noqa: E402

EXPECTED = [('kunit', 'slub_test'), ('test', 'memfd_secret'),
            ('test', 'mremap_test'), ('test', 'protection_keys')]


def run(log, qemu_status=0, timeout=0):
    """parse() of a fixture, and the rows judge() makes of it by name."""
    parsed = verdict.parse(verdict.read_console(os.path.join(HERE, 'fixtures', log)))
    rows, titles = verdict.judge(parsed, EXPECTED, qemu_status, timeout)
    return parsed, {name: (st, detail) for st, _, name, detail in rows}, titles


def failed(rows):
    return sorted(name for name, (st, _) in rows.items() if st == 'FAIL')


class Verdict(unittest.TestCase):
    def test_clean_run(self):
        (results, problems, done), rows, _ = run('pass.log')
        self.assertTrue(done)
        self.assertEqual(problems, [])
        self.assertEqual(failed(rows), [])
        self.assertEqual(results['slub_test']['subtests'], 5)
        self.assertEqual(rows['kernel-reports'][0], 'PASS')

    def test_failing_test(self):
        (results, _, _), rows, _ = run('fail-test.log')
        self.assertEqual(results['mremap_test']['status'], 'FAIL')
        self.assertEqual(results['mremap_test']['detail'], 'exit status 1')
        self.assertEqual(failed(rows), ['mremap_test'])

    def test_failed_subtest_under_ok(self):
        (results, _, _), rows, _ = run('nested-fail.log')
        r = results['mremap_test']
        self.assertEqual(r['status'], 'FAIL')
        self.assertTrue(r['detail'].startswith('subtest failed: 4MB mremap'), r['detail'])
        self.assertEqual(failed(rows), ['mremap_test'])

    def test_missing_suite(self):
        (results, _, done), rows, _ = run('missing-suite.log')
        self.assertNotIn('slub_test', results)
        self.assertTrue(done)
        self.assertEqual(rows['slub_test'], ('FAIL', 'never reported a result'))
        self.assertEqual(failed(rows), ['slub_test'])

    def assertReport(self, log, what, title):
        (_, problems, _), rows, titles = run(log)
        self.assertEqual(len(problems), 1, problems)
        self.assertEqual(problems[0]['what'], what)
        self.assertTrue(problems[0]['title'].startswith(title), problems[0]['title'])
        self.assertEqual(failed(rows), ['kernel-reports'])
        self.assertEqual(len(titles), 1)
        return problems[0]

    def test_kernel_warn(self):
        p = self.assertReport('warn.log', 'WARNING', 'WARNING: CPU: 0 PID: 34 at hugetlb_split')
        self.assertIn('__split_vma+0x12d/0x140', '\n'.join(p['trace']))

    def test_lockdep(self):
        self.assertReport('lockdep.log', 'WARNING',
                          'WARNING: possible circular locking dependency')

    def test_oops(self):
        p = self.assertReport('oops.log', 'kernel fault',
                              'Unable to handle kernel NULL pointer dereference')
        self.assertIn('secretmem_fault', p['trace'][1])

    def test_hung_guest(self):
        (_, _, done), rows, _ = run('hung.log', qemu_status=124, timeout=600)
        self.assertFalse(done)
        self.assertEqual(rows['guest'], ('FAIL', 'hung: killed after 600 s wall-clock limit'))

    def test_crashed_guest(self):
        _, rows, _ = run('hung.log', qemu_status=0)
        self.assertEqual(rows['guest'][0], 'FAIL')
        self.assertTrue(rows['guest'][1].startswith('never finished its manifest'))
        self.assertEqual(failed(rows), ['guest', 'mremap_test', 'protection_keys'])


def run_lines(lines):
    """Rows of a console given as lines, by name."""
    rows, titles = verdict.judge(verdict.parse(lines), EXPECTED)
    return {name: (st, detail) for st, _, name, detail in rows}, titles


class ExpectedReport(unittest.TestCase):
    """A report a test provokes on purpose (guest/tests/usercopy_slab.c)."""

    def setUp(self):
        self.lines = verdict.read_console(
            os.path.join(HERE, 'fixtures', 'expected-report.log'))

    def test_expected_bug_passes(self):
        rows, titles = run_lines(self.lines)
        self.assertEqual(failed(rows), [])
        self.assertEqual(rows['expected-usercopy'][0], 'PASS')
        self.assertTrue(rows['expected-usercopy'][1].startswith('2 expected report'))
        self.assertEqual(rows['kernel-reports'][0], 'PASS')
        self.assertEqual(titles, {})

    def test_outside_the_markers_fails(self):
        lines = [l for l in self.lines if 'guest: expected report' not in l]
        rows, _ = run_lines(lines)
        self.assertEqual(failed(rows), ['kernel-reports'])
        self.assertIn('Kernel BUG at usercopy_abort', rows['kernel-reports'][1])
        self.assertTrue(rows['kernel-reports'][1].startswith('2 report(s)'))

    def test_missing_report_fails(self):
        lines = [l for l in self.lines
                 if 'cut here' not in l and 'Kernel BUG' not in l
                 and 'invalid opcode' not in l]
        rows, _ = run_lines(lines)
        self.assertEqual(failed(rows), ['expected-usercopy'])

    def test_other_report_inside_fails(self):
        i = next(n for n, l in enumerate(self.lines) if 'expected report usercopy end' in l)
        lines = (self.lines[:i]
                 + ['WARNING: CPU: 1 PID: 201 at mm/slub.c:100 f+0x1/0x2']
                 + self.lines[i:])
        rows, _ = run_lines(lines)
        self.assertEqual(failed(rows), ['kernel-reports'])
        self.assertEqual(rows['expected-usercopy'][0], 'PASS')

    def test_marker_after_guest_output(self):
        # The console put the end marker after a partial line of the
        # guest's output (x86_64-kasan, make test of 2026-12-01).
        lines = ['    USERCOPY_SLAB_WHITELIST_TO: ' + l.strip()
                 if 'expected report usercopy end' in l else l
                 for l in self.lines]
        rows, _ = run_lines(lines)
        self.assertEqual(failed(rows), [])
        self.assertEqual(rows['expected-usercopy'][0], 'PASS')

    def test_unclosed_region_fails(self):
        lines = [l for l in self.lines if 'expected report usercopy end' not in l]
        rows, _ = run_lines(lines)
        self.assertEqual(failed(rows), ['expected-usercopy'])
        self.assertIn('never closed', rows['expected-usercopy'][1])

    def test_trap_oops(self):
        # A trap instruction outside the bug table: an x86 oops whose
        # first line is "invalid opcode" (guest/tests/kpkeys_oops_exit.c).
        oops = ['invalid opcode: 0000 [#1] SMP NOPTI',
                'CPU: 0 PID: 914 Comm: kpkeys_oops_exi Tainted: G',
                'RIP: 0010:kpkeys_die_write+0x8/0x20']
        rows, _ = run_lines(self.lines + oops)
        self.assertEqual(failed(rows), ['kernel-reports'])
        self.assertIn('invalid opcode', rows['kernel-reports'][1])
        inside = (['guest: expected report kpkeys_die begin'] + oops
                  + ['guest: expected report kpkeys_die end'])
        rows, _ = run_lines(self.lines + inside)
        self.assertEqual(failed(rows), [])
        self.assertEqual(rows['expected-kpkeys_die'][0], 'PASS')
        # The recursive fault of an exit that cannot raise the level.
        fault = ['BUG: unable to handle page fault for address: ff11000003d9d008',
                 '#PF: error_code(0x0023) - protection keys violation']
        trace = ['Call Trace:', ' <TASK>', ' make_task_dead+0x8a/0xf0',
                 ' rewind_stack_and_make_dead+0x17/0x20', ' </TASK>']
        rows, _ = run_lines(self.lines + inside[:-1] + trace + fault + inside[-1:])
        self.assertEqual(failed(rows), ['kernel-reports'])

    def test_unknown_name_fails(self):
        lines = [l.replace('report usercopy', 'report anything') for l in self.lines]
        rows, _ = run_lines(lines)
        self.assertEqual(failed(rows), ['expected-anything', 'kernel-reports'])


if __name__ == '__main__':
    unittest.main()
