#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# A stand-in for egressd's control socket (docs/control.md) for the egressctl
# golden tests: answers each request line with a canned file. Usage:
#   fake-egressd.py SOCKET MAP LOG
# MAP lines are "REQUEST => FILE" (FILE relative to MAP's folder); a request
# listed several times gets its answers in turn, the last one repeating.
# Unknown requests get {"error":...}. Every request line is appended to LOG.
# The socket appears (atomically renamed into place) once it listens.
import os
import socket
import sys

sock_path, map_path, log_path = sys.argv[1:4]
here = os.path.dirname(map_path)
answers = {}
for line in open(map_path):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    req, f = line.split(" => ")
    answers.setdefault(req, []).append(os.path.join(here, f))
served = {}
tmp = sock_path + ".tmp"
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(tmp)
s.listen(8)
os.rename(tmp, sock_path)
while True:
    c, _ = s.accept()
    with c:
        data = b""
        while b"\n" not in data and len(data) <= 4096:
            chunk = c.recv(4096)
            if not chunk:
                break
            data += chunk
        req = data.split(b"\n")[0].decode("utf-8", "replace")
        with open(log_path, "a") as log:
            log.write(req + "\n")
        files = answers.get(req)
        if files is None:
            c.sendall(b'{"error":"unknown request"}\n')
            continue
        n = served.get(req, 0)
        served[req] = n + 1
        with open(files[min(n, len(files) - 1)], "rb") as f:
            try:
                c.sendall(f.read())
            except BrokenPipeError:
                pass
