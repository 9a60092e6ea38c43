#!/usr/bin/python3
# SPDX-License-Identifier: ISC
# A TLS client for the integration tests that controls how its ClientHello
# travels: whole, one byte per TCP segment, re-framed into one-byte TLS
# records, or both; or an oversized fake hello. After the handshake it sends
# "GET / HTTP/1.1" and prints the status line (or the error).
#
# usage: tls_client.py ADDR PORT SNI CAFILE MODE
#   MODE: whole | segments | records | both | oversize
import socket
import ssl
import sys
import time


def frame_records(hello, size):
    """Re-frames the handshake bytes of TLS records into records of `size`
    bytes of payload each (RFC 8446 section 5.1 allows it)."""
    out = b""
    off = 0
    while off < len(hello):
        ctype, ver, length = hello[off], hello[off + 1:off + 3], \
            int.from_bytes(hello[off + 3:off + 5], "big")
        payload = hello[off + 5:off + 5 + length]
        off += 5 + length
        for i in range(0, len(payload), size):
            chunk = payload[i:i + size]
            out += bytes([ctype]) + ver + len(chunk).to_bytes(2, "big") + chunk
    return out


def main():
    addr, port, sni, cafile, mode = sys.argv[1:6]
    sock = socket.create_connection((addr, int(port)), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if mode == "oversize":
        # a handshake header announcing 40000 bytes of ClientHello
        body = b"\x03\x03" + b"\x00" * 40000
        msg = b"\x01" + len(body).to_bytes(3, "big") + body
        recs = frame_records(b"\x16\x03\x01" + (16384).to_bytes(2, "big") +
                             msg[:16384], 16384)
        try:
            sock.sendall(recs)
            sock.sendall(b"\x16\x03\x01\x40\x00" + msg[16384:32768])
            data = sock.recv(100)
            print("closed" if not data else "answered")
        except (ConnectionResetError, BrokenPipeError):
            print("reset")
        return
    ctx = ssl.create_default_context(cafile=cafile)
    inc, outg = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, outg, server_hostname=sni)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outg.read()
    if mode in ("records", "both"):
        hello = frame_records(hello, 1)
    if mode in ("segments", "both"):
        for b in hello:
            sock.sendall(bytes([b]))
            time.sleep(0.0005)  # separate segments, not a readiness wait
    else:
        sock.sendall(hello)
    try:
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                pending = outg.read()
                if pending:
                    sock.sendall(pending)
                data = sock.recv(65536)
                if not data:
                    print("closed")
                    return
                inc.write(data)
        pending = outg.read()
        if pending:
            sock.sendall(pending)
        tls.write(("GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                   % sni).encode())
        sock.sendall(outg.read())
        resp = b""
        while b"\r\n" not in resp:
            try:
                resp += tls.read(4096)
            except ssl.SSLWantReadError:
                data = sock.recv(65536)
                if not data:
                    break
                inc.write(data)
        print(resp.split(b"\r\n")[0].decode())
    except ConnectionResetError:
        print("reset")
    except ssl.SSLError as e:
        print("tls error: %s" % e.reason)


main()
