#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""README.md's example of what `make run` prints: real output, kept current.

The example sits between two markers in README.md:

    <!-- make-run-example: begin -->  ...  <!-- make-run-example: end -->

update LOG   replace it with the x86_64 run in LOG, the standard output of
             `make run` (or of `make test`, whose x86_64 part is the same)
check        fail unless the example is a run of today's series: as many
             patches as patches/series lists, and a result line for every
             KUnit suite and test guest/manifest runs on x86_64, and for
             nothing else

Usage: readme-example.py update LOG | check   [ROOT]
"""
import os
import re
import subprocess
import sys

BEGIN = '<!-- make-run-example: begin -->'
END = '<!-- make-run-example: end -->'
# The boot's own checks, besides the manifest's entries.
BOOT_RESULTS = {'guest', 'kernel-reports',
                'expected-usercopy', 'expected-kpkeys_die'}


def series_count(root):
    with open(os.path.join(root, 'patches', 'series'), encoding='utf-8') as f:
        return sum(1 for l in f if l.strip() and not l.lstrip().startswith('#'))


def manifest_names(root, arch='x86_64'):
    """Names of the KUnit suites and tests the main kernel of @arch reports,
    as scripts/manifest.sh (the manifest's one parser) lists them."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([os.path.join(here, 'manifest.sh'), 'expect', arch,
                          os.path.join(root, 'guest', 'manifest')],
                         check=True, capture_output=True, text=True).stdout
    return {line.split()[1] for line in out.splitlines() if line.strip()}


def run_block(log):
    """The x86_64 run of a make run/make test log: streamed lines and summary."""
    lines = open(log, encoding='utf-8', errors='replace').read().splitlines()
    start = next((i for i, l in enumerate(lines)
                  if re.match(r'==> building x86_64 kernel in build/x86_64 ', l)), None)
    if start is None:
        sys.exit(f'{log}: no x86_64 build of the test kernel in it')
    head = next((i for i in range(start, len(lines))
                 if re.match(r'x86_64: Linux ', lines[i])), None)
    if head is None:
        sys.exit(f'{log}: no x86_64 summary in it')
    end = head + 1
    while end < len(lines) and re.match(r'  (console:|PASS|FAIL|SKIP) ', lines[end]):
        end += 1
    block = lines[start:end]
    if any(l.startswith('  FAIL') for l in block):
        sys.exit(f'{log}: the x86_64 run failed; the example shows a passing one')
    return block


def split(readme):
    text = open(readme, encoding='utf-8').read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        sys.exit(f'{readme}: want one {BEGIN} and one {END}')
    a = text.index(BEGIN) + len(BEGIN)
    b = text.index(END)
    return text[:a], text[a:b], text[b:]


def update(root, log):
    readme = os.path.join(root, 'README.md')
    pre, _, post = split(readme)
    block = run_block(log)
    m = re.search(r'x86_64-test-(\d{4})(\d\d)(\d\d)-\d+\.log', '\n'.join(block))
    when = f'{m.group(1)}-{m.group(2)}-{m.group(3)}' if m else 'an unrecorded date'
    body = (f'\nWhat `make run` prints on x86_64, from a run on {when} (`make test`\n'
            'runs the same; captured by `scripts/readme-example.py update LOG`,\n'
            'and `make check` checks that it is a run of today\'s series).  The\n'
            '`make deps` and `make tree` steps print nothing when there is\n'
            'nothing to do; the indented `ok` lines stream while the guest runs,\n'
            'and the summary follows:\n\n'
            + '\n'.join('    ' + l if l else '' for l in block) + '\n\n')
    with open(readme, 'w', encoding='utf-8') as f:
        f.write(pre + body + post)


def check(root):
    _, body, _ = split(os.path.join(root, 'README.md'))
    errors = []
    m = re.search(r'x86_64: Linux \S+ = .* \+ (\d+) patch\(es\) of patches/series', body)
    want = series_count(root)
    if not m:
        errors.append('the example has no "x86_64: Linux ..." summary line')
    elif int(m.group(1)) != want:
        errors.append(f'the example is a run of {m.group(1)} patches, patches/series has {want}')
    seen = set(re.findall(r'^ {6}(?:PASS|SKIP|FAIL) +\S+ +(\S+)', body, re.M))
    expected = manifest_names(root)
    if seen - BOOT_RESULTS != expected:
        missing = sorted(expected - seen)
        extra = sorted(seen - BOOT_RESULTS - expected)
        errors.append(f'the example\'s results differ from guest/manifest (x86_64): '
                      f'missing {missing}, not in the manifest {extra}')
    for e in errors:
        print(f'README.md make-run example: {e}; run scripts/readme-example.py update LOG')
    return not errors


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ('update', 'check'):
        sys.exit(__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.argv[1] == 'update':
        if len(sys.argv) < 3:
            sys.exit(__doc__)
        root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(here)
        update(root, sys.argv[2])
        return 0 if check(root) else 1
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(here)
    return 0 if check(root) else 1


if __name__ == '__main__':
    sys.exit(main())
