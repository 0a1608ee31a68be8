# SPDX-License-Identifier: GPL-2.0
"""bench/RESULTS.md (scripts/bench-results.py): a run on one architecture
replaces that architecture's sections and keeps the other's; every
architecture's attribution matrix comes first."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    'bench_results', os.path.join(HERE, '..', 'bench-results.py'))
results = importlib.util.module_from_spec(spec)
spec.loader.exec_module(results)


class BenchResults(unittest.TestCase):
    def test_keeps_other_arch(self):
        old = ('# old preface\n\n## x86_64: mseal\n\nold x86 table\n\n'
               '## arm64: mseal\n\narm64 table\n\n## arm64: memfd_secret\n\narm64 secret\n\n')
        with tempfile.TemporaryDirectory() as tmp:
            files = {}
            for name, text in (('RESULTS.md', old), ('preface.md', '# Benchmark results\n\n'),
                               ('x86_64.md', '## x86_64: mseal\n\nnew x86 table\n')):
                files[name] = os.path.join(tmp, name)
                with open(files[name], 'w') as f:
                    f.write(text)
            results.main(files['RESULTS.md'], files['preface.md'], 'x86_64', files['x86_64.md'])
            with open(files['RESULTS.md']) as f:
                text = f.read()
        self.assertEqual(results.arch_sections(old)['arm64'],
                         results.arch_sections(text)['arm64'])
        self.assertEqual(text, '# Benchmark results\n\n## x86_64: mseal\n\nnew x86 table\n\n'
                         + results.arch_sections(old)['arm64'])


    def write(self, tmp, name, text):
        path = os.path.join(tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_matrices_first(self):
        """Both architectures' matrices right after the preface, in
        scripts/arches' order, whichever ran last; each kept with its own
        architecture's sections."""
        x86 = ('## x86_64: attribution\n\nx86 matrix\n\n## x86_64: mseal\n\nx86 table\n'
               '\n## x86_64: page tables\n\nx86 pgtable\n')
        arm = '## arm64: attribution\n\narm matrix\n\n## arm64: mseal\n\narm table\n'
        with tempfile.TemporaryDirectory() as tmp:
            res = self.write(tmp, 'RESULTS.md', '# old\n\n## arm64: mseal\n\nold arm table\n\n')
            pre = self.write(tmp, 'preface.md', '# Benchmark results\n\n')
            # A run of x86_64 before arm64 has a matrix: only x86's first.
            results.main(res, pre, 'x86_64', self.write(tmp, 'x86_64.md', x86))
            with open(res) as f:
                self.assertEqual(f.read(), '# Benchmark results\n\n## x86_64: attribution\n\n'
                                 'x86 matrix\n\n## x86_64: mseal\n\nx86 table\n\n'
                                 '## x86_64: page tables\n\nx86 pgtable\n\n'
                                 '## arm64: mseal\n\nold arm table\n\n')
            results.main(res, pre, 'arm64', self.write(tmp, 'arm64.md', arm))
            with open(res) as f:
                text = f.read()
            self.assertEqual(text, '# Benchmark results\n\n'
                             '## x86_64: attribution\n\nx86 matrix\n\n'
                             '## arm64: attribution\n\narm matrix\n\n'
                             '## x86_64: mseal\n\nx86 table\n\n'
                             '## x86_64: page tables\n\nx86 pgtable\n\n'
                             '## arm64: mseal\n\narm table\n\n')
            # The same run again: the same file.
            results.main(res, pre, 'arm64', self.write(tmp, 'arm64.md', arm))
            with open(res) as f:
                self.assertEqual(f.read(), text)
            # A new x86_64 run replaces x86's matrix and keeps arm64's.
            results.main(res, pre, 'x86_64', self.write(
                tmp, 'x86_64.md', x86.replace('x86 matrix', 'new x86 matrix')))
            with open(res) as f:
                self.assertEqual(f.read(), text.replace('x86 matrix', 'new x86 matrix'))


if __name__ == '__main__':
    unittest.main()
