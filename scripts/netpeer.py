#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The network peer of make distro-check's guest (guest/field/network.sh).

QEMU's user networking runs this once per guest connection to 10.0.2.100
(guestfwd=...-cmd:), with the connection on stdin and stdout: no socket is
opened on the host.  A minimal HTTP/1.0 server:

  GET /get/MIB/SEED   MIB MiB of bytes that depend only on MIB and SEED
  GET /sum/MIB/SEED   their sha256, in hex
  POST /put           the sha256 of the body received, in hex
"""
import hashlib
import random
import sys


def data(mib, seed):
    return random.Random(mib * 1000003 + seed).randbytes(mib << 20)


def reply(out, body, ctype='application/octet-stream', status='200 OK'):
    out.write(('HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n'
               'Connection: close\r\n\r\n' % (status, ctype, len(body))).encode())
    out.write(body)
    out.flush()


def main():
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    request = inp.readline().decode('latin-1').split()
    headers = {}
    while True:
        line = inp.readline().decode('latin-1').strip()
        if not line:
            break
        k, _, v = line.partition(':')
        headers[k.strip().lower()] = v.strip()
    if len(request) < 2:
        return
    method, path = request[0], request[1].split('/')
    if method == 'GET' and len(path) == 4 and path[1] in ('get', 'sum'):
        body = data(int(path[2]), int(path[3]))
        if path[1] == 'sum':
            body = hashlib.sha256(body).hexdigest().encode()
            reply(out, body, 'text/plain')
        else:
            reply(out, body)
    elif method == 'POST' and path[1:] == ['put']:
        left = int(headers.get('content-length', '0'))
        h = hashlib.sha256()
        while left > 0:
            chunk = inp.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
        reply(out, h.hexdigest().encode(), 'text/plain')
    else:
        reply(out, b'not found\n', 'text/plain', '404 Not Found')


if __name__ == '__main__':
    main()
