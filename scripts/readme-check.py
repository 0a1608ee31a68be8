#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that README.md's table of patches is what patches/ holds.

README.md's "What is in patches/" section says how many patches there are
and has one row per patch: its number and subject, as in patches/series
and each patch's Subject: line.  The Kconfig column is prose and is not
checked.  Prints what differs; exit status 1 if anything does.

Usage: readme-check.py [ROOT]
"""
import email.header
import os
import re
import sys

NUMBERS = ('zero one two three four five six seven eight nine ten eleven twelve '
           'thirteen fourteen fifteen sixteen seventeen eighteen nineteen').split()
TENS = 'twenty thirty forty fifty sixty seventy eighty ninety'.split()


def words(n):
    if n < 20:
        return NUMBERS[n]
    t, u = divmod(n, 10)
    return TENS[t - 2] + ('-' + NUMBERS[u] if u else '')


def subject(path):
    lines, grab = [], False
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('Subject: '):
                grab = True
                lines.append(line[len('Subject: '):].rstrip('\n'))
            elif grab and line.startswith((' ', '\t')):
                lines.append(line.rstrip('\n'))
            elif grab:
                break
    s = ''.join(str(email.header.make_header(email.header.decode_header(l))) for l in lines)
    return re.sub(r'^\[PATCH[^\]]*\]\s*', '', ' '.join(s.split()))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    with open(os.path.join(root, 'patches', 'series')) as f:
        series = [l.split('#')[0].strip() for l in f]
    series = [p for p in series if p]
    want = [(p[:4], subject(os.path.join(root, 'patches', p))) for p in series]
    with open(os.path.join(root, 'README.md')) as f:
        readme = f.read()
    sect = readme.split('## What is in `patches/`', 1)[1].split('\n## ', 1)[0]
    got = re.findall(r'^\| (\d{4}) \| (.*?) \| .*\|$', sect, re.M)
    bad = []
    m = re.search(r'^(\S+) patches, in the order', sect, re.M)
    if not m or m.group(1).lower() != words(len(series)):
        bad.append('the count says %r, patches/series has %d (%s)'
                   % (m.group(1) if m else None, len(series), words(len(series)).capitalize()))
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w != g:
            bad.append('row %d: README has %s, patches/ has %s' % (i + 1, g, w))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
