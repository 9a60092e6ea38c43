# SPDX-License-Identifier: ISC
# Stand-in for egressd's sandbox-side listeners in the netns fence test: a
# transparent TCP listener that answers with SO_ORIGINAL_DST, a DNS server
# that answers NXDOMAIN to anything (UDP and TCP), and an explicit proxy port.
# It decides nothing and relays nothing; the fence under test is nftables.
#
# Usage: python3 fence_standin.py TRANSPARENT_PORT DNS_PORT PROXY_PORT
# Writes one line per event to stdout: "listening", "ORIG addr port",
# "DNS udp|tcp qname", "PROXY".

import selectors
import socket
import struct
import sys
import threading

SO_ORIGINAL_DST = 80  # linux/netfilter_ipv4.h; IP6T_SO_ORIGINAL_DST is 80 too


def log(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def original_dst(conn):
    """The destination the client dialed, before the nat redirect."""
    if conn.family == socket.AF_INET:
        raw = conn.getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, 16)
        port, addr = struct.unpack_from("!H4s", raw, 2)
        return socket.inet_ntop(socket.AF_INET, addr), port
    raw = conn.getsockopt(socket.IPPROTO_IPV6, SO_ORIGINAL_DST, 28)
    port, = struct.unpack_from("!H", raw, 2)
    return socket.inet_ntop(socket.AF_INET6, raw[8:24]), port


def finish(conn, reply):
    """Writes reply, half-closes, drains until the client closes."""
    try:
        conn.sendall(reply)
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(2)
        while conn.recv(4096):
            pass
    except OSError:
        pass
    finally:
        conn.close()


def dns_answer(query):
    """NXDOMAIN for the first question (RFC 1035 4.1), or None."""
    if len(query) < 12:
        return None, None
    qid, flags, qdcount = struct.unpack_from("!HHH", query)
    if qdcount < 1:
        return None, None
    pos, labels = 12, []
    while pos < len(query) and query[pos] != 0:
        n = query[pos]
        if n > 63 or pos + 1 + n > len(query):
            return None, None
        labels.append(query[pos + 1:pos + 1 + n].decode("ascii", "replace"))
        pos += 1 + n
    end = pos + 5  # root label, QTYPE, QCLASS
    if end > len(query):
        return None, None
    # QR, the query's opcode and RD, RA, RCODE 3 (NXDOMAIN).
    rflags = 0x8000 | (flags & 0x7900) | 0x0080 | 3
    head = struct.pack("!HHHHHH", qid, rflags, 1, 0, 0, 0)
    return head + query[12:end], ".".join(labels) + "."


def serve_transparent(conn):
    try:
        addr, port = original_dst(conn)
        log("ORIG %s %d" % (addr, port))
        finish(conn, ("ORIG %s %d\n" % (addr, port)).encode())
    except OSError as e:
        log("ORIG-ERROR %s" % e)
        conn.close()


def serve_proxy(conn):
    log("PROXY")
    finish(conn, b"PROXY\n")


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def serve_dns_tcp(conn):
    # RFC 1035 4.2.2: two-byte length prefix.
    try:
        conn.settimeout(5)
        head = recv_exact(conn, 2)
        query = head and recv_exact(conn, struct.unpack("!H", head)[0])
        reply, qname = dns_answer(query or b"")
        if reply is None:
            conn.close()
            return
        log("DNS tcp %s" % qname)
        finish(conn, struct.pack("!H", len(reply)) + reply)
    except OSError:
        conn.close()


def main():
    tport, dport, pport = (int(a) for a in sys.argv[1:4])
    sel = selectors.DefaultSelector()
    for family, host in ((socket.AF_INET, "127.0.0.1"),
                         (socket.AF_INET6, "::1")):
        for port, kind in ((tport, serve_transparent),
                           (dport, serve_dns_tcp), (pport, serve_proxy)):
            if kind is serve_proxy and family == socket.AF_INET6:
                continue  # the explicit proxy listens on 127.0.0.1 only
            s = socket.socket(family, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
            s.listen(64)
            sel.register(s, selectors.EVENT_READ, kind)
        u = socket.socket(family, socket.SOCK_DGRAM)
        u.bind((host, dport))
        sel.register(u, selectors.EVENT_READ, None)
    log("listening")
    while True:
        for key, _ in sel.select():
            sock = key.fileobj
            if key.data is None:
                query, peer = sock.recvfrom(4096)
                reply, qname = dns_answer(query)
                if reply is not None:
                    log("DNS udp %s" % qname)
                    sock.sendto(reply, peer)
                continue
            conn, _ = sock.accept()
            threading.Thread(target=key.data, args=(conn,),
                             daemon=True).start()


if __name__ == "__main__":
    main()
