#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one VM console log into a verdict.

The console holds the kernel's messages, the KTAP of the KUnit suites that
ran at boot, and the KTAP that guest/init.c prints for each test program
(program output indented by four spaces).  A run fails when

  - an expected KUnit suite or test program reports "not ok" or never
    reports at all,
  - a test that said "ok" has a nested "not ok" (a failed subtest),
  - the kernel printed an oops, BUG, WARNING, lockdep, KASAN or UBSAN
    report, or panicked, even if every test passed,
  - the guest never reached the end of its manifest (crash or hang).

A test that provokes a report on purpose (guest/tests/usercopy_slab.c)
writes "guest: expected report NAME begin" and "... end" to /dev/kmsg
around it.  Between the two, reports whose title matches EXPECTED[NAME]
are counted, not failed; any other report still fails the run, and so does
a region in which the expected report never appeared or that never ends.

Usage: verdict.py --arch ARCH --expect FILE [--qemu-status N] [--results F] LOG
FILE has "kunit NAME" / "test NAME" lines.  --results appends one
"PASS|FAIL|SKIP <arch>:<kind>:<name> <detail>" line per item to F.
Exit status: 0 when nothing failed, 1 otherwise, 2 when no verdict could
be made (bad arguments, unreadable files, a bug here: run-arch.sh then
reports the verdict step as failed).
"""
import argparse
import re
import sys
import traceback

TIMESTAMP = r'(?:\[\s*\d+\.\d+\]\s?)?'
RESULT = re.compile(r'^' + TIMESTAMP + r'(not ok|ok) (\d+) (\S+)\s*(?:#\s*(.*))?$')
NESTED = re.compile(r'^' + TIMESTAMP + r'(\s+)(not ok|ok) (\d+)\s*(.*?)\s*(?:#\s*(.*))?$')
DONE = '# guest: all tests done'

# Kernel reports.  printk lines start at column 0; guest program output is
# indented by init, so a test that prints "WARNING:" cannot trip this.
PROBLEMS = [
    (r'-+\[ cut here \]-+', 'WARNING/BUG report'),
    (r'WARNING: ', 'WARNING'),
    (r'BUG: ', 'BUG'),
    (r'[Kk]ernel BUG at ', 'BUG'),
    (r'BUG \S+ \(.*\): ', 'slab corruption report'),
    (r'(Internal error: )?Oops\b', 'Oops'),
    # x86: a trap instruction outside the bug table (an oops with no
    # "kernel BUG at" line before it).
    (r'invalid opcode: ', 'Oops'),
    (r'general protection fault', 'general protection fault'),
    (r'Unable to handle kernel ', 'kernel fault'),
    (r'Kernel panic', 'panic'),
    (r'KASAN: ', 'KASAN report'),
    (r'UBSAN: ', 'UBSAN report'),
    (r'INFO: (possible|inconsistent|suspicious|trying to register)', 'lockdep report'),
    (r'(possible circular locking|possible recursive locking|inconsistent lock state)',
     'lockdep report'),
]
PROBLEM_RES = [(re.compile(r'^' + TIMESTAMP + p), what) for p, what in PROBLEMS]

# Reports a test provokes on purpose, by the name its /dev/kmsg lines give.
EXPECTED = {
    # Hardened usercopy refusing a copy past a slab object: BUG() in
    # usercopy_abort() (its file and line without DEBUG_BUGVERBOSE).
    'usercopy': re.compile(r'[Kk]ernel BUG at (mm/usercopy\.c:\d+!|usercopy_abort\+)'),
    # A trap inside a lazy-MMU section (guest/tests/kpkeys_oops_exit.c):
    # x86's invalid-opcode oops.
    'kpkeys_die': re.compile(r'^' + TIMESTAMP + r'invalid opcode: '),
}
# Searched, not matched: the kernel prints the marker as a line of its own,
# but the console interleaves it with the guest's output, so it may follow
# a partial line of that (seen: "    USERCOPY_SLAB_WHITELIST_TO: guest:
# expected report usercopy end", the rest of the guest's line after it).
EXPECT_MARK = re.compile(r'guest: expected report (\S+) (begin|end)$')


def call_trace(lines, start):
    """The first frames of the call trace that follows a report."""
    frames = []
    for line in lines[start:start + 60]:
        if frames and (not line.startswith(' ') or '</TASK>' in line
                       or line.strip().startswith('---[')):
            break
        if frames or re.match(TIMESTAMP + r'Call [Tt]race:', line):
            frames.append(line.rstrip())
        if len(frames) > 8:
            break
    return frames


def read_console(path):
    """The lines of a console log, without the serial line's CRs."""
    with open(path, errors='replace') as f:
        return [l.rstrip('\r\n').replace('\r', '') for l in f]


def parse(lines):
    """Return (results, problems, done).

    results: name -> dict(status, detail, nested_failures, subtests)
    problems: list of dicts (what, title, trace), one per report
    """
    results = {}
    problems = []
    nested_fail = []
    subtests = 0
    done = False
    expecting = None
    for i, line in enumerate(lines):
        if line.strip() == DONE:
            done = True
        m = EXPECT_MARK.search(line)
        if m:
            name, edge = m.groups()
            expecting = name if edge == 'begin' else None
            if edge == 'begin':
                problems.append(dict(what='expected', title=name, last=-10,
                                     trace=[], region=name, closed=False))
            else:
                for p in reversed(problems):
                    if p.get('region') == name:
                        p['closed'] = True
                        break
            continue
        m = RESULT.match(line)
        if m:
            status, _, name, directive = m.groups()
            directive = (directive or '').strip()
            if status == 'ok' and directive.upper().startswith('SKIP'):
                st = 'SKIP'
            elif status == 'ok':
                st = 'PASS'
            else:
                st = 'FAIL'
            if st == 'PASS' and nested_fail:
                st = 'FAIL'
                directive = 'subtest failed: ' + '; '.join(nested_fail[:3])
            results[name] = dict(status=st, detail=directive, subtests=subtests)
            nested_fail = []
            subtests = 0
            continue
        m = NESTED.match(line)
        if m:
            indent, status, _, desc, directive = m.groups()
            if len(indent) == 4:
                subtests += 1
            directive = (directive or '').strip().upper()
            if status == 'not ok' and not directive.startswith(('SKIP', 'TODO')):
                nested_fail.append(desc or 'unnamed')
            continue
        for rx, what in PROBLEM_RES:
            if rx.match(line):
                # One report matches several patterns ("cut here", then
                # "WARNING:"): lines within 3 of the last one belong to it.
                if problems and problems[-1]['last'] >= i - 3:
                    problems[-1]['last'] = i
                    if re.sub(r'^' + TIMESTAMP, '', problems[-1]['title']).startswith('-'):
                        problems[-1]['title'] = line.strip()
                        problems[-1]['what'] = what
                    break
                problems.append(dict(what=what, title=line.strip(), last=i,
                                     trace=call_trace(lines, i),
                                     expected=expecting))
                break
    return results, problems, done


def excuse(problems):
    """Split what parse() found into (reports, regions).

    reports: the reports that fail the run; regions: [name, count of
    expected reports seen in it, whether its end marker came], one per
    expected-report region.
    """
    reports, regions = [], []
    for p in problems:
        if 'region' in p:
            regions.append([p['region'], 0, p['closed']])
            continue
        rx = EXPECTED.get(p.get('expected'))
        if rx and regions and rx.search(p['title']):
            regions[-1][1] += 1
            continue
        reports.append(p)
    return reports, regions


def judge(parsed, expected, qemu_status=0, timeout=0):
    """Return (rows, titles) for what parse() returned.

    rows: (status, kind, name, detail), one per expected suite or test, per
    result nobody expected, for the boot and for the kernel's reports;
    titles: the reports grouped by title (the same WARN once per process
    is one group), in the order they first appeared.
    """
    results, problems, done = parsed
    problems, regions = excuse(problems)
    results = dict(results)
    rows = []  # (status, kind, name, detail)
    for kind, name in expected:
        r = results.pop(name, None)
        if r is None:
            rows.append(('FAIL', kind, name, 'never reported a result'))
            continue
        detail = r['detail']
        if r['subtests']:
            detail = ('%d subtests' % r['subtests']) + (', ' + detail if detail else '')
        rows.append((r['status'], kind, name, detail))
    for name, r in results.items():
        rows.append((r['status'], 'extra', name, r['detail']))

    if qemu_status == 124:
        rows.append(('FAIL', 'boot', 'guest',
                     'hung: killed after %d s wall-clock limit' % timeout))
    elif not done:
        rows.append(('FAIL', 'boot', 'guest',
                     'never finished its manifest (qemu exit status %d)' % qemu_status))
    else:
        rows.append(('PASS', 'boot', 'guest', 'ran its manifest and stopped'))
    # The same report repeated (one WARN per process, say) is shown once.
    titles = {}
    for p in problems:
        key = re.sub(r'(CPU: \d+ PID: \d+|\[#\d+\])', '', p['title'])
        titles.setdefault(key, []).append(p)
    for name, seen, closed in regions:
        if not closed:
            rows.append(('FAIL', 'console', 'expected-' + name,
                         'the region was never closed (no end marker)'))
        elif seen:
            rows.append(('PASS', 'console', 'expected-' + name,
                         '%d expected report(s) (%s)' % (seen, EXPECTED[name].pattern)))
        else:
            rows.append(('FAIL', 'console', 'expected-' + name,
                         'the expected report never appeared'
                         if name in EXPECTED else 'no such expected report'))
    if problems:
        rows.append(('FAIL', 'console', 'kernel-reports',
                     '%d report(s), %d distinct; first: %s'
                     % (len(problems), len(titles), problems[0]['title'])))
    else:
        rows.append(('PASS', 'console', 'kernel-reports', 'no oops/BUG/WARNING/lockdep/KASAN'))
    return rows, titles


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--arch', required=True)
    ap.add_argument('--expect', required=True)
    ap.add_argument('--qemu-status', type=int, default=0)
    ap.add_argument('--timeout', type=int, default=0)
    ap.add_argument('--results')
    ap.add_argument('log')
    a = ap.parse_args()

    lines = read_console(a.log)
    expected = []
    with open(a.expect) as f:
        for l in f:
            parts = l.split()
            if len(parts) == 2:
                expected.append((parts[0], parts[1]))

    rows, titles = judge(parse(lines), expected, a.qemu_status, a.timeout)
    width = max(len(r[2]) for r in rows)
    for st, kind, name, detail in rows:
        print('  %-4s  %-7s %-*s  %s' % (st, kind, width, name, detail))
    for key, group in list(titles.items())[:5]:
        p = group[0]
        print('  -- %s, %d time(s) in the console:' % (p['what'], len(group)))
        for q in [p['title']] + p['trace']:
            print('     | ' + q)
    failed = [r for r in rows if r[0] == 'FAIL']
    if failed:
        print('  console log: %s' % a.log)
    if a.results:
        with open(a.results, 'a') as f:
            for st, kind, name, detail in rows:
                f.write('%s %s:%s:%s %s\n' % (st, a.arch, kind, name, detail))
    return 1 if failed else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception:  # a traceback, and not the exit status of a failed run
        traceback.print_exc()
        sys.exit(2)
