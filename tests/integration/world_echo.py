#!/usr/bin/python3
# SPDX-License-Identifier: ISC
# CGI program behind every world origin's /echo: reports the request it got
# (method, target, headers, body length and sha256) as text/plain, so tests
# can see what arrived after egressd. Serving and TLS are nginx's business.
#
# Output, one item per line:
#   method M / uri U / scheme S / server ADDR:PORT / host H /
#   header NAME VALUE (from the HTTP_* variables, sorted) /
#   body_length N / body_sha256 HEX
# Header names come back as nginx/CGI expose them (HTTP_USER_AGENT ->
# user-agent): case and '_' vs '-' of the original are not preserved.

import hashlib
import os
import sys


def main():
    env = os.environ
    want = int(env.get("CONTENT_LENGTH") or 0)
    h = hashlib.sha256()
    got = 0
    stdin = sys.stdin.buffer
    while got < want:
        chunk = stdin.read(min(65536, want - got))
        if not chunk:
            break
        h.update(chunk)
        got += len(chunk)
    lines = [
        "method %s" % env.get("REQUEST_METHOD", ""),
        "uri %s" % env.get("REQUEST_URI", ""),
        "scheme %s" % env.get("REQUEST_SCHEME", ""),
        "server %s:%s" % (env.get("SERVER_ADDR", ""),
                          env.get("SERVER_PORT", "")),
        "host %s" % env.get("HTTP_HOST", ""),
    ]
    for k in sorted(env):
        if k.startswith("HTTP_"):
            name = k[5:].lower().replace("_", "-")
            lines.append("header %s %s" % (name, env[k]))
    lines.append("body_length %d" % got)
    lines.append("body_sha256 %s" % h.hexdigest())
    body = ("\n".join(lines) + "\n").encode("utf-8", "replace")
    out = sys.stdout.buffer
    out.write(b"Status: 200 OK\r\nContent-Type: text/plain\r\n"
              b"Cache-Control: no-store\r\n")
    out.write(b"Content-Length: %d\r\n\r\n" % len(body))
    out.write(body)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
