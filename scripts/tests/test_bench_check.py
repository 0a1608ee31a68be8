# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-check.py: two RESULTS.md files compared cell by cell."""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    'bench_check', os.path.join(HERE, '..', 'bench-check.py'))
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

SHA = 'a' * 64
RESULTS = ('# Benchmark results\n\n## x86_64: mseal\n\n'
           'Measured (sha256): base kernel `%s`, patched kernel `%s`.\n\n'
           '### Per-call cost\n\n'
           '| syscall | vmas | t | t_patched | delta | %% |\n'
           '|---|---:|---:|---:|---:|---:|\n'
           '| munmap | 1 | 6634 | 6628 | -6 | -0.09%% |\n'
           '| munmap | 2 | 8131 | 8187 | +56 | +0.69%% |\n\n'
           '### The cost of sealing\n\n| vmas | t | per_vma |\n|---:|---:|---:|\n'
           '| 1 | 3072 | 3072 |\n')


def run(old, new, *opts):
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text in (('old.md', old), ('new.md', new)):
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], 'w') as f:
                f.write(text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = check.main(paths + list(opts))
    return rc, out.getvalue()


class BenchCheck(unittest.TestCase):
    def test_identical(self):
        text = RESULTS % (SHA, SHA)
        rc, out = run(text, text)
        self.assertEqual(rc, 0)
        self.assertIn('inputs identical: base kernel, patched kernel', out)
        self.assertIn('0 differ', out)

    def test_cell_differs(self):
        old = RESULTS % (SHA, SHA)
        new = old.replace('| 8131 | 8187 |', '| 8131 | 8190 |')
        rc, out = run(old, new)
        self.assertEqual(rc, 1)
        self.assertIn('munmap | 2: t_patched 8187 -> 8190', out)

    def test_base_only(self):
        old = RESULTS % (SHA, SHA)
        # The patched kernel changed: its columns, and the t of a table
        # without t_patched, are not the base's.
        new = (RESULTS % (SHA, 'b' * 64)).replace('| 8187 |', '| 8190 |').replace(
            '| 1 | 3072 | 3072 |', '| 1 | 3088 | 3088 |')
        rc, out = run(old, new, '--base-only')
        self.assertEqual(rc, 0, out)
        self.assertIn('different: patched kernel', out)
        # A base figure with another name counts; t_* variants do not.
        pm = ('\n### Page moves\n\n| | t per 512 remaps (ns) | t_patched | t_slab_virtual=off | %% |\n'
              '|---|---:|---:|---:|---:|\n| no seals | %s | 100 | %s | +0.00%% |\n')
        rc, out = run(old + pm % ('100', '90'), new + pm % ('100', '91'), '--base-only')
        self.assertEqual(rc, 0, out)
        rc, out = run(old + pm % ('100', '90'), new + pm % ('101', '90'), '--base-only')
        self.assertEqual(rc, 1, out)
        self.assertIn('t per 512 remaps (ns) 100 -> 101', out)
        rc, out = run(old, new.replace('| 6634 |', '| 6635 |'), '--base-only')
        self.assertEqual(rc, 1)
        self.assertIn('munmap | 1: t 6634 -> 6635', out)


    def test_feature_columns(self):
        """Each kernel's `%` is a cell of its own; a feature boot's column,
        named after its switch, is not the base's."""
        table = ('\n### Slab\n\n| operation | t | t_patched | %% | t_kpkeys=off | %% '
                 '| TLB IPIs base | patched | slab_virtual=off |\n'
                 '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
                 '| fork | 100 | 110 | +10.00%% | %s | %s | 0 | 0 | %s |\n')
        old = RESULTS % (SHA, SHA) + table % ('105', '+5.00%', '0')
        rc, out = run(old, RESULTS % (SHA, SHA) + table % ('106', '+6.00%', '1'))
        self.assertEqual(rc, 1)
        self.assertIn('fork: t_kpkeys=off 105 -> 106', out)
        self.assertIn('fork: % (t_kpkeys=off) +5.00% -> +6.00%', out)
        self.assertIn('fork: slab_virtual=off 0 -> 1', out)
        self.assertIn('3 differ', out)
        rc, out = run(old, RESULTS % (SHA, SHA) + table % ('106', '+6.00%', '1'), '--base-only')
        self.assertEqual(rc, 0, out)


if __name__ == '__main__':
    unittest.main()
