#!/usr/bin/env python3
"""Copy Debian's stress-ng and the shared libraries it loads into a guest
root, from packages unpacked (dpkg -x) into one directory.

Usage: stressng-guest.py UNPACKED GUESTROOT

UNPACKED holds stress-ng's package and those of its libraries, unpacked
(scripts/lib.sh's stressng_guest).  Writes GUESTROOT/stressng/stress-ng,
every library of its DT_NEEDED closure as GUESTROOT/stressng/lib/SONAME
(the file itself, not a link), and the dynamic loader at the path the
binary's PT_INTERP names.  Links in UNPACKED are resolved inside it, never
on the host.  Exits non-zero, naming them, when libraries are missing.
"""
import os
import re
import shutil
import subprocess
import sys


def readelf(args, path):
    return subprocess.run(['readelf'] + args + [path], check=True,
                          capture_output=True, text=True).stdout


def resolve(root, path):
    """@path (absolute, in the guest's view) as a real file under @root,
    following every link, of a directory on the way or of the file, inside
    @root: the path is walked one component at a time, so that the host's
    own links are never followed.  None if it is not there."""
    parts = [p for p in path.split('/') if p]
    cur = ''
    for _ in range(200):
        if not parts:
            host = os.path.join(root, cur.lstrip('/'))
            return host if os.path.isfile(host) and not os.path.islink(host) else None
        comp = parts.pop(0)
        if comp == '.':
            continue
        if comp == '..':
            cur = os.path.dirname(cur)
            continue
        host = os.path.join(root, (cur + '/' + comp).lstrip('/'))
        if os.path.islink(host):
            target = os.readlink(host)
            if target.startswith('/'):
                cur = ''
            parts = [p for p in target.split('/') if p] + parts
            continue
        if not os.path.exists(host):
            return None
        cur = cur + '/' + comp
    return None


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    root, guest = argv[1], argv[2]
    binary = os.path.join(root, 'usr/bin/stress-ng')
    if not os.path.isfile(binary):
        sys.exit('stressng-guest: no usr/bin/stress-ng in %s' % root)
    interp = re.search(r'\[Requesting program interpreter: (\S+)\]',
                       readelf(['-l'], binary)).group(1)
    triplets = sorted({d for top in ('lib', 'usr/lib')
                       for d in (os.listdir(os.path.join(root, top))
                                 if os.path.isdir(os.path.join(root, top)) else [])
                       if d.endswith('-linux-gnu')})
    dirs = ['/%s/%s' % (top, t) for t in triplets for top in ('lib', 'usr/lib')]
    dirs += ['/lib', '/usr/lib']
    out = os.path.join(guest, 'stressng')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, 'lib'))
    shutil.copy(binary, os.path.join(out, 'stress-ng'))
    todo, done, missing = [binary], set(), []
    while todo:
        f = todo.pop()
        for soname in re.findall(r'\(NEEDED\)\s+Shared library: \[([^]]+)\]',
                                 readelf(['-d'], f)):
            if soname in done:
                continue
            done.add(soname)
            host = next((h for h in (resolve(root, '%s/%s' % (d, soname)) for d in dirs)
                         if h), None)
            if host is None:
                missing.append(soname)
                continue
            if os.path.basename(interp) == soname:
                continue
            shutil.copy(host, os.path.join(out, 'lib', soname))
            todo.append(host)
    loader = resolve(root, interp)
    if loader is None:
        missing.append(interp)
    if missing:
        sys.exit('stressng-guest: not in %s: %s (a package outside '
                 'stressng_guest\'s closure in scripts/lib.sh?)' % (root, ', '.join(sorted(missing))))
    os.makedirs(os.path.dirname(os.path.join(guest, interp.lstrip('/'))), exist_ok=True)
    shutil.copy(loader, os.path.join(guest, interp.lstrip('/')))
    print('%d libraries, loader %s' % (len(os.listdir(os.path.join(out, 'lib'))), interp))


if __name__ == '__main__':
    main(sys.argv)
