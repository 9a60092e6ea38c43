# SPDX-License-Identifier: ISC
# Client side of the netns fence test: one network operation per run, from
# inside the sandbox, printing one line that the test compares. It owns no
# policy; every address it is given is loopback or a documentation address,
# and the sandbox has no route that leaves the machine anyway.
#
# Usage: python3 fence_probe.py MODE ARGS...
#   tcp HOST PORT [DEV]  connect (bound to DEV if given), print
#                        "OK <what the server sent>" | "ERR <errno>"
#   udp HOST PORT        connected send then recv:
#                        "SEND ok|<errno> RECV REPLY ..|<errno>|TIMEOUT"
#   udpburst HOST N      N connected sockets to ports 20000.., one datagram
#                        each: "REFUSED k/N" (k sockets saw ECONNREFUSED)
#   dns udp|tcp HOST     an A query for fence-probe.example:
#                        "DNS rcode=N" | "ERR <errno>"
#   icmp HOST            raw ICMP/ICMPv6 echo (root): "ICMP type/code" of
#                        the answer | "ERR <errno>"
#   raw HOST PROTO       raw socket of IP protocol PROTO (root): like icmp
#   ping HOST            unprivileged ICMP socket: "ERR <errno>" | "REPLY"
#   mcast HOST PORT      unconnected UDP send: "SENT" | "ERR <errno>"
# "TIMEOUT" after 2 s means nothing came back: the fence failed to answer.

import errno
import os
import select
import socket
import struct
import sys
import time

WAIT_S = 2.0


def ename(e):
    return errno.errorcode.get(e.errno, str(e.errno))


def family_of(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def sockaddr(host, port):
    """(family, address tuple), with %scope for IPv6 link-local."""
    fam = family_of(host)
    if fam == socket.AF_INET:
        return fam, (host, port)
    return fam, socket.getaddrinfo(host, port, fam, 0, 0,
                                   socket.AI_NUMERICHOST)[0][4]


def mode_tcp(host, port, dev=None):
    fam, addr = sockaddr(host, int(port))
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(WAIT_S)
    if dev:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev.encode())
    try:
        s.connect(addr)
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return "OK " + data.decode().strip()
    except socket.timeout:
        return "TIMEOUT"
    except OSError as e:
        return "ERR " + ename(e)


def mode_udp(host, port):
    """Connected UDP: the send's outcome, then what a recv gets."""
    fam, addr = sockaddr(host, int(port))
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(WAIT_S)
    s.connect(addr)
    try:
        s.send(b"fence-probe")
        sent = "ok"
    except OSError as e:
        sent = ename(e)
    try:
        got = "REPLY " + s.recv(4096).decode(errors="replace")
    except socket.timeout:
        got = "TIMEOUT"
    except OSError as e:
        got = ename(e)
    return "SEND %s RECV %s" % (sent, got)


def mode_udpburst(host, count):
    """N connected sockets, one datagram each, sent back to back: every
    one must see its ICMP error (ECONNREFUSED), none may be rate-limited."""
    n = int(count)
    socks = []
    for i in range(n):
        fam, addr = sockaddr(host, 20000 + i)
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.setblocking(False)
        s.connect(addr)
        try:
            s.send(b"x")
        except OSError:
            pass  # EPERM from the reject verdict; the ICMP error follows
        socks.append(s)
    refused, pending = 0, set(socks)
    deadline = time.monotonic() + WAIT_S
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select(list(pending), [], [],
                                    deadline - time.monotonic())
        for s in ready:
            pending.discard(s)
            try:
                s.recv(16)
            except OSError as e:
                if e.errno == errno.ECONNREFUSED:
                    refused += 1
    return "REFUSED %d/%d" % (refused, n)


def dns_query(qid):
    name = b"".join(bytes([len(p)]) + p
                    for p in (b"fence-probe", b"example")) + b"\0"
    return struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + name + \
        struct.pack("!HH", 1, 1)


def mode_dns(transport, host):
    qid = int.from_bytes(os.urandom(2), "big")
    query = dns_query(qid)
    fam, addr = sockaddr(host, 53)
    try:
        if transport == "udp":
            s = socket.socket(fam, socket.SOCK_DGRAM)
            s.settimeout(WAIT_S)
            s.connect(addr)
            s.send(query)
            reply = s.recv(4096)
        else:
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.settimeout(WAIT_S)
            s.connect(addr)
            s.sendall(struct.pack("!H", len(query)) + query)
            reply = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
            reply = reply[2:]
    except socket.timeout:
        return "TIMEOUT"
    except OSError as e:
        return "ERR " + ename(e)
    rid, flags = struct.unpack_from("!HH", reply)
    if rid != qid or not flags & 0x8000:
        return "BAD-REPLY"
    return "DNS rcode=%d" % (flags & 0xF)


def icmp_errors(fam):
    """A raw socket that sees ICMP(v6) answers addressed to us."""
    proto = socket.IPPROTO_ICMP if fam == socket.AF_INET else \
        socket.IPPROTO_ICMPV6
    return socket.socket(fam, socket.SOCK_RAW, proto)


def wait_icmp(listener, fam):
    """The first ICMP error (not our own echo request) within WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([listener], [], [],
                                    deadline - time.monotonic())
        if not ready:
            break
        pkt = listener.recv(4096)
        if fam == socket.AF_INET:
            pkt = pkt[(pkt[0] & 0x0F) * 4:]  # raw IPv4 includes the header
        icmp_type, code = pkt[0], pkt[1]
        if icmp_type in (8, 128):  # our own echo request looping back
            continue
        return "ICMP %d/%d" % (icmp_type, code)
    return "TIMEOUT"


def mode_icmp(host):
    fam, addr = sockaddr(host, 0)
    listener = icmp_errors(fam)
    echo = struct.pack("!BBHHH", 8 if fam == socket.AF_INET else 128, 0, 0,
                       os.getpid() & 0xFFFF, 1) + b"fence-probe"
    if fam == socket.AF_INET:
        csum = checksum(echo)
        echo = echo[:2] + struct.pack("!H", csum) + echo[4:]
    # The kernel fills in the ICMPv6 checksum on raw ICMPv6 sockets.
    try:
        listener.sendto(echo, addr)
    except OSError as e:
        return "ERR " + ename(e)
    return wait_icmp(listener, fam)


def mode_raw(host, proto):
    fam, addr = sockaddr(host, 0)
    listener = icmp_errors(fam)
    s = socket.socket(fam, socket.SOCK_RAW, int(proto))
    try:
        s.sendto(b"fence-probe raw payload", addr)
    except OSError as e:
        return "ERR " + ename(e)
    return wait_icmp(listener, fam)


def mode_ping(host):
    fam, addr = sockaddr(host, 0)
    proto = socket.IPPROTO_ICMP if fam == socket.AF_INET else \
        socket.IPPROTO_ICMPV6
    try:
        s = socket.socket(fam, socket.SOCK_DGRAM, proto)
        s.settimeout(WAIT_S)
        s.connect(addr)
        s.send(struct.pack("!BBHHH", 8 if fam == socket.AF_INET else 128,
                           0, 0, 0, 1))
        s.recv(4096)
        return "REPLY"
    except socket.timeout:
        return "TIMEOUT"
    except OSError as e:
        return "ERR " + ename(e)


def mode_mcast(host, port):
    fam, addr = sockaddr(host, int(port))
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    try:
        s.sendto(b"fence-probe", addr)
        return "SENT"
    except OSError as e:
        return "ERR " + ename(e)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


MODES = {"tcp": mode_tcp, "udp": mode_udp, "udpburst": mode_udpburst,
         "dns": mode_dns, "icmp": mode_icmp, "raw": mode_raw,
         "ping": mode_ping, "mcast": mode_mcast}

if __name__ == "__main__":
    print(MODES[sys.argv[1]](*sys.argv[2:]))
