# SPDX-License-Identifier: GPL-2.0
"""bench/RESULTS.md (scripts/bench-results.py): a run on one architecture
replaces that architecture's sections and keeps the other's."""
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


if __name__ == '__main__':
    unittest.main()
