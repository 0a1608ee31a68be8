#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the harness's Python tests (scripts/tests/test_*.py) and print one
line per test, as scripts/tests/run.sh does for its shell cases; with
RESULTS, also append "PASS|FAIL host:harness:MODULE.TEST DETAIL" lines to it.

Usage: unittests.py [RESULTS]     Exit status: 1 when a test failed.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def first_line(err):
    """'ExceptionType: first line of its message' of an exc_info triple."""
    return '%s: %s' % (err[0].__name__, (str(err[1]).splitlines() or [''])[0])


class Recorder(unittest.TestResult):
    def __init__(self, results):
        super().__init__()
        self.results = results

    def record(self, status, test, detail, trace=''):
        # test_verdict.Verdict.test_oops: harness:verdict.oops
        parts = test.id().split('.')
        name = 'harness:%s.%s' % (parts[0].removeprefix('test_'),
                                  parts[-1].removeprefix('test_'))
        print('  %-4s  %-28s %s' % (status, name, detail))
        for line in trace.splitlines():
            print('        ' + line)
        if self.results:
            with open(self.results, 'a') as f:
                f.write('%s host:%s %s\n' % (status, name, detail))

    def addSuccess(self, test):
        super().addSuccess(test)
        self.record('PASS', test, (test.shortDescription() or 'ok'))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.record('FAIL', test, first_line(err), self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.record('FAIL', test, first_line(err), self.errors[-1][1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.record('SKIP', test, reason)


def main():
    suite = unittest.defaultTestLoader.discover(HERE, pattern='test_*.py')
    result = Recorder(sys.argv[1] if len(sys.argv) > 1 else None)
    suite.run(result)
    # A test module that does not import is a failure too, not "0 tests".
    return 0 if result.wasSuccessful() and result.testsRun else 1


if __name__ == '__main__':
    sys.exit(main())
