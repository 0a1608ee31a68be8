#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the series' cover letter, 0000-cover-letter.patch, into DIR.

The prose is docs/cover-letter.md; every count and figure in the letter
comes from the repository: the patches in DIR (and DIR/series), the
topics of scripts/topics (or $TOPICS_FILE), bench/RESULTS.md, distro/RESULTS.md,
bisect/RESULTS.md, guest/manifest, and the diffstat of build/linux
(base..HEAD).
scripts/export.sh calls this, so that the letter is regenerated with the
patches and make check-exported finds a stale one.

Usage: cover-letter.py DIR [KSRC]
       cover-letter.py --series DIR   (mark the topics in DIR/series)
       cover-letter.py --topics DIR   (for topic-check: a line per topic,
                                       "ID FIRST LAST NEEDS...", 1-based)
"""
import os
import re
import subprocess
import sys
import textwrap

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def _subject_reader():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        'readme_check', os.path.join(os.path.dirname(__file__), 'readme-check.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.subject


subject = _subject_reader()


def die(msg):
    sys.exit('cover-letter.py: ' + msg)


def series(d):
    with open(os.path.join(d, 'series')) as f:
        names = [l.split('#')[0].strip() for l in f]
    return [n for n in names if n]


def header(path, name):
    """A header of a patch, unfolded (None if it has none)."""
    val = None
    with open(path, encoding='utf-8', errors='replace') as f:
        next(f)
        for line in f:
            if not line.strip():
                break
            if val is not None and line[0] in ' \t':
                val += ' ' + line.strip()
            elif val is not None:
                break
            elif line.startswith(name + ': '):
                val = line[len(name) + 2:].rstrip('\n')
    return val


def read_topics():
    """[(id, title, first subject, [prerequisite ids])] of scripts/topics."""
    out = []
    path = os.environ.get('TOPICS_FILE') or os.path.join(ROOT, 'scripts', 'topics')
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            f4 = [x.strip() for x in line.split('|')]
            if len(f4) != 4:
                die('scripts/topics: not ID | TITLE | SUBJECT | NEEDS: ' + line)
            out.append((f4[0], f4[1], f4[2],
                        [] if f4[3] == '-' else f4[3].split()))
    return out


def topics(subjects):
    """[(title, first index, last index, id, needs)] of the series."""
    marks = []
    for tid, title, first, needs in read_topics():
        if first not in subjects:
            die('scripts/topics: no patch "%s"' % first)
        marks.append((subjects.index(first), title, tid, needs))
    marks.sort()
    if not marks or marks[0][0] != 0:
        die('scripts/topics: the first patch begins no topic')
    out = []
    for i, (start, title, tid, needs) in enumerate(marks):
        end = marks[i + 1][0] - 1 if i + 1 < len(marks) else len(subjects) - 1
        out.append((title, start, end, tid, needs))
    return out


def tables(text, section):
    """The markdown tables under '## SECTION', as (heading, header, rows)."""
    m = re.search(r'^## %s\n(.*?)(?=^## |\Z)' % re.escape(section), text,
                  re.M | re.S)
    if not m:
        return []
    out, heading, cur = [], None, None
    for line in m.group(1).splitlines():
        if line.startswith('### '):
            heading = line[4:]
        if line.startswith('|'):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if cur is None:
                cur = (heading, cells, [])
            elif not set(''.join(cells)) <= set('-:'):
                cur[2].append(cells)
        elif cur is not None:
            out.append(cur)
            cur = None
    if cur is not None:
        out.append(cur)
    return out


def pct(cell):
    m = re.fullmatch(r'([+-]?\d+(?:\.\d+)?)%', cell.replace('**', ''))
    return float(m.group(1)) if m else None


def span(values):
    if not values:
        return '-'
    lo, hi = min(values), max(values)
    f = lambda v: '%+.2f%%' % v
    return f(lo) if lo == hi else '%s..%s' % (f(lo), f(hi))


# (label, section suffix, table heading prefix or None for the first
#  table, row filter on the first cell, which '%' column: 0 = the first)
ROWS = [
    ('munmap, 1-32 VMAs', 'mseal', 'Per-call cost, a process that has never', r'munmap'),
    ('mprotect, 1-32 VMAs', 'mseal', 'Per-call cost, a process that has never', r'mprotect'),
    ('madvise(DONTNEED), 1-32 VMAs', 'mseal', 'Per-call cost, a process that has never', r'madvise'),
    ('mremap, 1-32 VMAs', 'mseal', 'Per-call cost, a process that has never', r'mremap'),
    ('pagemove (stress-ng style)', 'mseal', 'Page moves', r'no seals'),
    ('fork of 1 GiB', 'page tables', None, r'fork'),
    ('munmap of 1 GiB', 'page tables', None, r'munmap of 1 GiB'),
    ('first write to a page', 'page tables', None, r'first write'),
    ('mprotect of 64 MiB', 'page tables', None, r'mprotect of 64 MiB'),
    ('vmalloc, 1-256 pages', 'page tables', None, r'vmalloc'),
    ('slab operations (every row)', 'slab allocator (SLAB_VIRTUAL)', None, r'.'),
]


def cost(results):
    with open(results) as f:
        text = f.read()
    arches = [a for a in ('x86_64', 'arm64') if '## %s: mseal' % a in text]
    lines = ['| workload | ' + ' | '.join(arches) + ' |',
             '|---|' + '---:|' * len(arches)]
    for label, sect, heading, rowpat in ROWS:
        cells = []
        for arch in arches:
            vals = []
            for head, hdr, rows in tables(text, '%s: %s' % (arch, sect)):
                if heading and not (head or '').startswith(heading):
                    continue
                if '%' not in hdr:
                    continue
                col = hdr.index('%')
                vals += [v for r in rows if re.match(rowpat, r[0])
                         for v in [pct(r[col])] if v is not None]
                break
            cells.append(span(vals))
        lines.append('| %s | %s |' % (label, ' | '.join(cells)))
    return '\n'.join('    ' + l for l in lines)


def wrap(text, indent):
    return textwrap.fill(text, 72, initial_indent=indent,
                         subsequent_indent=' ' * len(indent))


def tests():
    """The KUnit suites and guest programs of guest/manifest, as
    scripts/manifest.sh (the manifest's one parser) gives them to each
    kernel label the manifest names (arm64-scratch counts as arm64)."""
    seen = {'kunit': {}, 'run': {}}
    for label in labels():
        for what in ('kunit', 'init'):
            out = subprocess.run([os.path.join(ROOT, 'scripts', 'manifest.sh'), what, label],
                                 check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                w = line.split()
                kind, name = ('kunit', w[0]) if what == 'kunit' else (w[0], w[1])
                if kind in seen:
                    seen[kind].setdefault(name, set()).add(label.split('-')[0])
    kinds = {k: [n + (' (%s only)' % min(a) if len(a) == 1 else '')
                 for n, a in v.items()] for k, v in seen.items()}
    return '\n'.join([wrap('KUnit: ' + ', '.join(kinds['kunit']) + ';', '  - '),
                      wrap('programs: ' + ', '.join(kinds['run']) + '.', '  - ')])


def labels():
    """Every kernel label guest/manifest's third column names."""
    found = []
    for line in open(os.path.join(ROOT, 'guest', 'manifest')):
        w = line.split()
        if len(w) >= 3 and w[0] in ('kunit', 'run', 'skip'):
            for a in w[2].split(','):
                if a.lstrip('=!') not in found:
                    found.append(a.lstrip('=!'))
    return found


def distro():
    latest = {}
    with open(os.path.join(ROOT, 'distro', 'RESULTS.md')) as f:
        for line in f:
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            if len(c) >= 7 and re.match(r'\d{4}-\d\d-\d\dT', c[0]):
                latest[c[2]] = c
    out = []
    for k in sorted(latest):
        c = latest[k]
        out.append(wrap('%s (Debian %s, QEMU %s): %s on %s' %
                        (k, c[3], c[4].split(' ')[0], c[5].replace('**', ''),
                         c[0][:10]), '  - '))
    return '\n'.join(out)


def git(ksrc, *args, env=None):
    return subprocess.run(['git', '-C', ksrc] + list(args), check=True,
                          capture_output=True, text=True, env=env).stdout.strip()


def topic_tree(ksrc, d, names, picks):
    """The tree of the base with the patches @picks (indices into @names)
    applied, as topic-check's git am makes it; in a scratch index.  None
    if they do not apply (make check names such a topic)."""
    idx = os.path.join(d, '.topic-index')
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    try:
        git(ksrc, 'read-tree', 'base', env=env)
        git(ksrc, 'apply', '--cached',
            *[os.path.abspath(os.path.join(d, names[i])) for i in picks], env=env)
        return git(ksrc, 'write-tree', env=env)
    except subprocess.CalledProcessError:
        return None
    finally:
        if os.path.exists(idx):
            os.unlink(idx)


def checked(ksrc, d, names, subjects):
    """What bisect/RESULTS.md says of this series: which patches' trees and
    which topics' trees (base plus prerequisites) passed on each arch."""
    passed = set()
    with open(os.path.join(ROOT, 'bisect', 'RESULTS.md')) as f:
        for line in f:
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            if len(c) >= 6 and c[5] == 'pass' and re.match(r'\d{4}-', c[0]):
                passed.add((c[1], c[3]))
    commits = git(ksrc, 'rev-list', '--reverse', 'base..HEAD').split()
    if len(commits) != len(names):
        die('build/linux has %d commits over base, the series %d' %
            (len(commits), len(names)))
    trees = [git(ksrc, 'rev-parse', c + '^{tree}')[:12] for c in commits]
    tops = topics(subjects)
    ttrees = {}
    for _, _, _, tid, needs in tops:
        picks = [i for _, a, b, u, _ in tops if u in needs or u == tid
                 for i in range(a, b + 1)]
        ttrees[tid] = (topic_tree(ksrc, d, names, picks) or '')[:12]
    out = []
    for arch in ('x86_64', 'arm64'):
        np = sum((arch, t) in passed for t in trees)
        missing = [tid for tid, t in ttrees.items() if (arch, t) not in passed]
        out.append(wrap('%s: %s patches and %s topics passed%s' % (
            arch, 'all %d' % len(trees) if np == len(trees)
            else '%d of %d' % (np, len(trees)),
            'all %d' % len(ttrees) if not missing
            else '%d of %d' % (len(ttrees) - len(missing), len(ttrees)),
            '' if not missing else ' (not yet: %s)' % ' '.join(missing)),
            '  - '))
    return '\n'.join(out)


def shortlog(d, names):
    authors = {}
    for n in names:
        a = header(os.path.join(d, n), 'From') or '?'
        authors.setdefault(re.sub(r'\s*<.*', '', a), []).append(
            subject(os.path.join(d, n)))
    out = []
    for a, subs in authors.items():
        out.append('%s (%d):' % (a, len(subs)))
        out += ['  ' + s for s in subs]
    return '\n'.join(out)


def mark_series(d):
    """Put a comment line before each topic's first patch in DIR/series."""
    path = os.path.join(d, 'series')
    lines = [l for l in open(path).read().splitlines()
             if not l.startswith('# Topic: ')]
    names = series(d)
    firsts = {names[t[1]]: t[0] for t in
              topics([subject(os.path.join(d, n)) for n in names])}
    out = []
    for l in lines:
        if l.strip() in firsts:
            out.append('# Topic: ' + firsts[l.strip()])
        out.append(l)
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    if len(sys.argv) < 2:
        die('usage: cover-letter.py DIR [KSRC] | --series DIR')
    if sys.argv[1] == '--series':
        mark_series(sys.argv[2])
        return
    if sys.argv[1] == '--topics':
        names = series(sys.argv[2])
        for _, a, b, tid, needs in topics(
                [subject(os.path.join(sys.argv[2], n)) for n in names]):
            print(tid, a + 1, b + 1, *needs)
        return
    d = sys.argv[1]
    ksrc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, 'build', 'linux')
    names = series(d)
    subjects = [subject(os.path.join(d, n)) for n in names]
    n = len(names)
    with open(os.path.join(ROOT, 'docs', 'cover-letter.md')) as f:
        tmpl = re.sub(r'\A<!--.*?-->\n', '', f.read(), flags=re.S)
    title, body = tmpl.split('\n', 1)
    body = body.lstrip('\n')
    topic_lines = []
    for t, a, b, _, _ in topics(subjects):
        rng = names[a][:4] if a == b else '%s-%s' % (names[a][:4], names[b][:4])
        topic_lines.append('- %s: %s' % (rng, t))
    stat = subprocess.run(
        ['git', '-C', ksrc, 'diff', '--stat=72', '--summary', 'base..HEAD'],
        check=True, capture_output=True, text=True).stdout.rstrip('\n')
    base = subprocess.run(
        ['git', '-C', ksrc, 'log', '-1', '--format=%s', 'base'],
        check=True, capture_output=True, text=True).stdout.strip()
    fields = {
        'BASE': base,
        'TOPICS': '\n'.join(topic_lines),
        'COST': cost(os.path.join(ROOT, 'bench', 'RESULTS.md')),
        'TESTS': tests(),
        'DISTRO': distro(),
        'CHECKED': checked(ksrc, d, names, subjects),
        'SHORTLOG': shortlog(d, names),
        'DIFFSTAT': stat,
    }
    body = re.sub(r'@@([A-Z]+)@@', lambda m: fields[m.group(1)], body)
    first = os.path.join(d, names[0])
    out = ['From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
           'From: ' + header(first, 'From'),
           'Date: ' + header(os.path.join(d, names[-1]), 'Date'),
           'Subject: [PATCH 00/%02d] %s' % (n, title),
           '', body.rstrip('\n')]
    with open(os.path.join(d, '0000-cover-letter.patch'), 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
