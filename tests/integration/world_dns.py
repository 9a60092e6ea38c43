#!/usr/bin/python3
# SPDX-License-Identifier: ISC
# The integration world's DNS: an authoritative test server that answers from
# a small zone file and logs every query it receives, plus a query client
# that prints the exact reply. It owns the DNS wire format for the tests;
# addresses, namespaces and the zone's content are world.sh's business.
#
#   world_dns.py serve --zone FILE --log FILE --listen ADDR [--listen ADDR]
#                      [--port 53]
#   world_dns.py query [--tcp] [--port 53] [--timeout S] [--edns] [--no-rd]
#                      [--raw HEX] SERVER NAME [TYPE]
#   world_dns.py batch [--tcp] [--port 53] [--timeout S] [--edns] SERVER
#
# query prints "rcode R", "flags qr aa ...", then "question NAME TYPE" and
# "answer|authority|additional NAME TTL TYPE DATA" lines; exit 0 on a reply,
# 1 on none ("timeout", "closed", "error ..."), 2 on a malformed one. UDP
# replies with a foreign ID are skipped ("ignored-bad-id"). --raw sends the
# given bytes as the query and also prints "raw HEX" of the reply.
# batch reads "NAME TYPE" lines and prints one "NAME TYPE RCODE[+tc]
# TYPE=DATA..." line each (answers sorted), for many checks in one process.
#
# Zone file: one record per line, "NAME TTL TYPE DATA...", '#' comments.
#   NAME   lowercase, no trailing dot; "*.suffix" matches any name with at
#          least one more label (a simplified RFC 4592 wildcard).
#   A, AAAA    one address per line; several lines form an RRset.
#   CNAME      one target; the server follows chains inside the zone.
#   SEQ-A, SEQ-AAAA  ADDR1 ADDR2 ...: the n-th query of that type for that
#          name gets ADDRn, the last one repeating (DNS rebinding: TTL 0,
#          first a public answer, then an internal one).
#   DROP       never reply (a blackholed server); TTL is ignored ("-").
#   SERVFAIL, REFUSED   reply with that rcode.
#   GARBAGE    reply with a truncated, malformed answer section.
#   BADID      reply with a transaction ID that does not match the query.
# Any other name is NXDOMAIN; a known name without records of the asked type
# is NODATA. SIGHUP reloads the zone and resets the SEQ counters.
#
# Log: one line per query, written and flushed BEFORE the reply is sent, so
# a test that got an answer can grep the log without racing:
#   query PROTO CLIENT QNAME QTYPE RESULT [TYPE=DATA ...]
# QNAME is lowercased with non-LDH bytes escaped as \DDD (RFC 1035 §5.1);
# RESULT is an rcode (NOERROR+TC when truncated) or DROP, GARBAGE, BADID.
# Unparseable queries log "- -" for name and type and FORMERR with a reason,
# SHORT len=N when even the header is incomplete, IGNORED-RESPONSE for a
# message with QR set (neither gets a reply). Other lines:
# "ready ...", "reload gen=N records=M", "reload-failed ...", "error ...".

import argparse
import os
import signal
import socket
import struct
import sys
import threading

TYPES = {1: "A", 5: "CNAME", 28: "AAAA", 41: "OPT", 255: "ANY"}
TYPE_NUM = {v: k for k, v in TYPES.items()}
RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN",
          4: "NOTIMP", 5: "REFUSED"}
BEHAVIORS = ("DROP", "SERVFAIL", "REFUSED", "GARBAGE", "BADID")
MAX_CNAME_CHAIN = 8
UDP_PLAIN_MAX = 512  # RFC 1035 §4.2.1, without EDNS
UDP_EDNS_MAX = 4096


class WireError(Exception):
    pass


def addr_text(rdata):
    """inet_ntop, so IPv4-mapped addresses print as ::ffff:a.b.c.d."""
    fam = socket.AF_INET if len(rdata) == 4 else socket.AF_INET6
    return socket.inet_ntop(fam, rdata)


def type_name(t):
    return TYPES.get(t, "TYPE%d" % t)


def type_num(s):
    s = s.upper()
    if s in TYPE_NUM:
        return TYPE_NUM[s]
    if s.startswith("TYPE") and s[4:].isdigit():
        return int(s[4:])
    raise ValueError("unknown type %r" % s)


def escape_label(label):
    out = []
    for b in label:
        c = chr(b)
        if c.isascii() and (c.isalnum() or c in "-_*"):
            out.append(c)
        else:
            out.append("\\%03d" % b)
    return "".join(out)


def name_text(labels):
    if not labels:
        return "."
    return ".".join(escape_label(lab) for lab in labels)


def encode_name(labels):
    out = bytearray()
    for lab in labels:
        if not 0 < len(lab) < 64:
            raise WireError("label length")
        out.append(len(lab))
        out += lab
    out.append(0)
    if len(out) > 255:
        raise WireError("name too long")
    return bytes(out)


def text_labels(name):
    name = name.rstrip(".")
    return [lab.encode("ascii") for lab in name.split(".")] if name else []


def decode_name(msg, off):
    """Returns (labels, offset after the name); follows RFC 1035 §4.1.4
    pointers with a hop limit so a pointer loop cannot spin."""
    labels = []
    end = None
    hops = 0
    total = 0
    while True:
        if off >= len(msg):
            raise WireError("name past end")
        n = msg[off]
        if n & 0xC0 == 0xC0:
            if off + 1 >= len(msg):
                raise WireError("pointer past end")
            if end is None:
                end = off + 2
            hops += 1
            if hops > 64:
                raise WireError("pointer loop")
            off = ((n & 0x3F) << 8) | msg[off + 1]
            continue
        if n & 0xC0:
            raise WireError("bad label type")
        off += 1
        if n == 0:
            break
        if off + n > len(msg):
            raise WireError("label past end")
        labels.append(bytes(msg[off:off + n]))
        total += n + 1
        if total > 255:
            raise WireError("name too long")
        off += n
    return labels, (end if end is not None else off)


def rdata_for(rtype, data):
    if rtype == "A":
        return 1, socket.inet_pton(socket.AF_INET, data)
    if rtype == "AAAA":
        return 28, socket.inet_pton(socket.AF_INET6, data)
    if rtype == "CNAME":
        return 5, encode_name(text_labels(data))
    raise ValueError(rtype)


class Zone:
    def __init__(self, path):
        self.path = path
        self.names = {}
        self.count = 0
        with open(path, encoding="ascii") as f:
            for lineno, line in enumerate(f, 1):
                line = line.split("#", 1)[0].split()
                if not line:
                    continue
                try:
                    self._add(line)
                except (ValueError, IndexError, OSError) as e:
                    raise SystemExit("%s:%d: %s" % (path, lineno, e))

    def _add(self, f):
        name = f[0].lower().rstrip(".")
        ttl = 0 if f[1] == "-" else int(f[1])
        if not 0 <= ttl < 2**31:
            raise ValueError("ttl out of range")
        rtype = f[2].upper()
        data = f[3:]
        ent = self.names.setdefault(name, [])
        if rtype in BEHAVIORS:
            if data:
                raise ValueError("%s takes no data" % rtype)
            ent.append((rtype, ttl, None))
        elif rtype in ("SEQ-A", "SEQ-AAAA"):
            if not data:
                raise ValueError("%s needs addresses" % rtype)
            ent.append((rtype, ttl, [rdata_for(rtype[4:], d) for d in data]))
        elif rtype in ("A", "AAAA", "CNAME"):
            if len(data) != 1:
                raise ValueError("%s takes exactly one value" % rtype)
            ent.append((rtype, ttl, rdata_for(rtype, data[0])))
        else:
            raise ValueError("unsupported type %r" % rtype)
        self.count += 1

    def lookup(self, labels):
        """Exact match first, then the closest "*.suffix" wildcard."""
        try:
            key = b".".join(labels).lower().decode("ascii")
        except UnicodeDecodeError:
            return None, None
        if key in self.names:
            return key, self.names[key]
        parts = key.split(".")
        for i in range(1, len(parts)):
            wild = "*." + ".".join(parts[i:])
            if wild in self.names:
                return wild, self.names[wild]
        return None, None


class Server:
    def __init__(self, zone_path, log_path):
        self.zone_path = zone_path
        self.zone = Zone(zone_path)
        self.lock = threading.Lock()
        self.seq = {}
        self.gen = 0
        # Appending lets a test truncate the log (": > log") while we run.
        self.log = open(log_path, "a", encoding="ascii", errors="replace")

    def logline(self, text):
        with self.lock:
            self.log.write(text + "\n")
            self.log.flush()

    def reload(self, *_):
        try:
            zone = Zone(self.zone_path)
        except SystemExit as e:
            self.logline("reload-failed %s" % e)
            return
        with self.lock:
            self.zone = zone
            self.seq = {}
            self.gen += 1
            gen = self.gen
        self.logline("reload gen=%d records=%d" % (gen, zone.count))

    def answer(self, labels, qtype):
        """Returns (rcode, behavior, [(owner_labels_or_None, type, ttl,
        rdata)]); owner None means "the question name"."""
        with self.lock:
            zone = self.zone
        key, ent = zone.lookup(labels)
        if ent is None:
            return 3, None, []
        for kind, _, _ in ent:
            if kind in BEHAVIORS:
                return {"SERVFAIL": 2, "REFUSED": 5}.get(kind, 0), kind, []
        rrs = []
        owner = None
        for _ in range(MAX_CNAME_CHAIN):
            cname = [e for e in ent if e[0] == "CNAME"]
            if cname and qtype != 5:
                _, ttl, (t, rdata) = cname[0]
                rrs.append((owner, t, ttl, rdata))
                owner, _ = decode_name(rdata, 0)
                key, ent = zone.lookup(owner)
                if ent is None:
                    break
                continue
            for kind, ttl, data in ent:
                if type_num(kind.replace("SEQ-", "")) != qtype:
                    continue
                if kind.startswith("SEQ-"):
                    with self.lock:
                        n = self.seq.get((key, kind), 0)
                        self.seq[(key, kind)] = n + 1
                    t, rdata = data[min(n, len(data) - 1)]
                else:
                    t, rdata = data
                rrs.append((owner, t, ttl, rdata))
            break
        return 0, None, rrs

    def handle(self, msg, proto, client):
        """Returns the reply bytes, or None to stay silent."""
        if len(msg) < 12:
            self.logline("query %s %s - - SHORT len=%d" % (proto, client,
                                                          len(msg)))
            return None
        qid, flags, qd, an, ns, ar = struct.unpack("!6H", msg[:12])
        if flags & 0x8000:
            # A response sent to us: never answer it (no reflection loops).
            self.logline("query %s %s - - IGNORED-RESPONSE" % (proto, client))
            return None
        opcode = (flags >> 11) & 0xF
        rd = flags & 0x0100

        def bare(rcode):
            return struct.pack("!6H", qid, 0x8000 | (opcode << 11) | rd |
                               0x0080 | rcode, 0, 0, 0, 0)

        try:
            if qd != 1:
                raise WireError("qdcount %d" % qd)
            labels, off = decode_name(msg, 12)
            if off + 4 > len(msg):
                raise WireError("question past end")
            qtype, qclass = struct.unpack("!HH", msg[off:off + 4])
            off += 4
            edns = None
            for i in range(an + ns + ar):
                _, off = decode_name(msg, off)
                if off + 10 > len(msg):
                    raise WireError("rr past end")
                rtype, rclass, _, rdlen = struct.unpack("!HHIH",
                                                        msg[off:off + 10])
                off += 10 + rdlen
                if off > len(msg):
                    raise WireError("rdata past end")
                if i >= an + ns and rtype == 41:
                    edns = rclass
        except WireError as e:
            self.logline("query %s %s - - FORMERR %s" % (proto, client, e))
            return bare(1)
        qname = name_text([lab.lower() for lab in labels])
        line = "query %s %s %s %s " % (proto, client, qname,
                                       type_name(qtype))
        if opcode != 0:
            self.logline(line + "NOTIMP opcode=%d" % opcode)
            return bare(4)
        if qclass != 1:
            self.logline(line + "REFUSED class=%d" % qclass)
            return bare(5)
        rcode, behavior, rrs = self.answer(labels, qtype)
        question = encode_name(labels) + struct.pack("!HH", qtype, qclass)
        if behavior == "DROP":
            self.logline(line + "DROP")
            return None
        if behavior == "GARBAGE":
            self.logline(line + "GARBAGE")
            return (struct.pack("!6H", qid, 0x8480 | rd, 1, 1, 0, 0) +
                    question + b"\xc0\x0c\x00\x01\x00")
        if behavior == "BADID":
            self.logline(line + "BADID")
            return (struct.pack("!6H", qid ^ 0x5A5A, 0x8480 | rd, 1, 0, 0, 0)
                    + question)
        body = bytearray()
        shown = []
        for owner, t, ttl, rdata in rrs:
            body += b"\xc0\x0c" if owner is None else encode_name(owner)
            body += struct.pack("!HHIH", t, 1, ttl, len(rdata)) + rdata
            if t == 5:
                shown.append("CNAME=" + name_text(decode_name(rdata, 0)[0]))
            else:
                shown.append("%s=%s" % (type_name(t), addr_text(rdata)))
        opt = b""
        limit = UDP_PLAIN_MAX
        if edns is not None:
            opt = b"\x00" + struct.pack("!HHIH", 41, 1232, 0, 0)
            limit = max(UDP_PLAIN_MAX, min(edns, UDP_EDNS_MAX))
        aa = 0x0400 if rcode in (0, 3) else 0
        hflags = 0x8000 | aa | rd | 0x0080 | rcode
        reply = (struct.pack("!6H", qid, hflags, 1, len(rrs), 0,
                             1 if opt else 0) + question + bytes(body) + opt)
        result = RCODES[rcode]
        if proto == "udp" and len(reply) > limit:
            # RFC 2181 §9: set TC and let the client retry over TCP.
            reply = (struct.pack("!6H", qid, hflags | 0x0200, 1, 0, 0,
                                 1 if opt else 0) + question + opt)
            result += "+TC"
            shown = []
        self.logline(" ".join([line + result] + shown))
        return reply

    def serve_udp(self, sock):
        while True:
            msg, peer = sock.recvfrom(65535)
            try:
                reply = self.handle(msg, "udp", peer[0])
            except Exception as e:  # keep serving; the log shows it
                self.logline("error udp %s %r" % (peer[0], e))
                continue
            if reply is not None:
                sock.sendto(reply, peer)

    def serve_tcp_conn(self, conn, peer):
        conn.settimeout(30)
        try:
            while True:
                hdr = recv_exact(conn, 2)
                if hdr is None:
                    return
                msg = recv_exact(conn, struct.unpack("!H", hdr)[0])
                if msg is None:
                    return
                reply = self.handle(msg, "tcp", peer[0])
                if reply is not None:
                    conn.sendall(struct.pack("!H", len(reply)) + reply)
        except (OSError, WireError):
            pass
        finally:
            conn.close()

    def serve_tcp(self, sock):
        while True:
            conn, peer = sock.accept()
            threading.Thread(target=self.serve_tcp_conn, args=(conn, peer),
                             daemon=True).start()


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def cmd_serve(args):
    srv = Server(args.zone, args.log)
    socks = []
    for addr in args.listen:
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        u = socket.socket(fam, socket.SOCK_DGRAM)
        u.bind((addr, args.port))
        t = socket.socket(fam, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((addr, args.port))
        t.listen(64)
        socks += [(srv.serve_udp, u), (srv.serve_tcp, t)]
    signal.signal(signal.SIGHUP, srv.reload)
    for fn, s in socks:
        threading.Thread(target=fn, args=(s,), daemon=True).start()
    srv.logline("ready pid=%d records=%d" % (os.getpid(), srv.zone.count))
    while True:
        signal.pause()


def make_query(name, qtype, rd=True, edns=False):
    qid = struct.unpack("!H", os.urandom(2))[0]
    msg = struct.pack("!6H", qid, 0x0100 if rd else 0, 1, 0, 0,
                      1 if edns else 0)
    msg += encode_name(text_labels(name)) + struct.pack("!HH", qtype, 1)
    if edns:
        msg += b"\x00" + struct.pack("!HHIH", 41, 1232, 0, 0)
    return msg


def exchange(args, msg, notes):
    """Sends msg to args.server; returns the reply, or None after writing
    why into notes ("timeout", "closed", "error ..."). Over UDP, replies
    whose ID does not match are noted ("ignored-bad-id") and skipped."""
    fam = socket.AF_INET6 if ":" in args.server else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM if args.tcp else
                      socket.SOCK_DGRAM)
    s.settimeout(args.timeout)
    try:
        s.connect((args.server, args.port))
        if args.tcp:
            s.sendall(struct.pack("!H", len(msg)) + msg)
            hdr = recv_exact(s, 2)
            reply = recv_exact(s, struct.unpack("!H", hdr)[0]) if hdr else None
            if reply is None:
                notes.append("closed")
            return reply
        s.send(msg)
        while True:
            reply = s.recv(65535)
            if len(msg) < 2 or reply[:2] == msg[:2]:
                return reply
            notes.append("ignored-bad-id")
    except socket.timeout:
        notes.append("timeout")
    except OSError as e:
        notes.append("error %s" % (e.strerror or e))
    finally:
        s.close()
    return None


def parse_reply(reply):
    """Returns (rcode name, [flag names], [(section, name, ttl, type,
    data)]); raises WireError on a malformed message."""
    if len(reply) < 12:
        raise WireError("short reply")
    _, flags, qd, an, ns, ar = struct.unpack("!6H", reply[:12])
    names = [(0x8000, "qr"), (0x0400, "aa"), (0x0200, "tc"),
             (0x0100, "rd"), (0x0080, "ra")]
    rrs = []
    off = 12
    for _ in range(qd):
        labels, off = decode_name(reply, off)
        if off + 4 > len(reply):
            raise WireError("question past end")
        qtype = struct.unpack("!H", reply[off:off + 2])[0]
        rrs.append(("question", name_text(labels), None, type_name(qtype),
                    None))
        off += 4
    for i in range(an + ns + ar):
        labels, off = decode_name(reply, off)
        if off + 10 > len(reply):
            raise WireError("rr past end")
        rtype, _, ttl, rdlen = struct.unpack("!HHIH", reply[off:off + 10])
        off += 10
        rdata = reply[off:off + rdlen]
        if len(rdata) != rdlen:
            raise WireError("rdata past end")
        if rtype in (1, 28) and rdlen in (4, 16):
            data = addr_text(rdata)
        elif rtype == 5:
            data = name_text(decode_name(reply, off)[0])
        else:
            data = rdata.hex() or "-"
        off += rdlen
        sect = "answer" if i < an else "authority" if i < an + ns \
            else "additional"
        rrs.append((sect, name_text(labels), ttl, type_name(rtype), data))
    rcode = RCODES.get(flags & 0xF, str(flags & 0xF))
    return rcode, [n for bit, n in names if flags & bit], rrs


def cmd_query(args):
    if args.raw is not None:
        msg = bytes.fromhex(args.raw)
    else:
        msg = make_query(args.name, type_num(args.type), not args.no_rd,
                         args.edns)
    notes = []
    reply = exchange(args, msg, notes)
    for n in notes:
        print(n)
    if reply is None:
        return 1
    if args.raw is not None:
        print("raw " + reply.hex())
    try:
        rcode, flags, rrs = parse_reply(reply)
    except WireError as e:
        print("malformed %s" % e)
        return 2
    print("rcode %s" % rcode)
    print("flags " + " ".join(flags))
    for sect, name, ttl, t, data in rrs:
        if sect == "question":
            print("question %s %s" % (name, t))
        else:
            print("%s %s %d %s %s" % (sect, name, ttl, t, data))
    return 0


def cmd_batch(args):
    """One line per "NAME TYPE" read from stdin:
    NAME TYPE RCODE[+tc] TYPE=DATA... (answers sorted), or NAME TYPE
    followed by timeout/closed/error/malformed."""
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        name, t = f[0], (f[1] if len(f) > 1 else "A")
        notes = []
        reply = exchange(args, make_query(name, type_num(t),
                                          edns=args.edns), notes)
        out = [name, t.upper()]
        if reply is None:
            out.append(notes[-1])
        else:
            try:
                rcode, flags, rrs = parse_reply(reply)
                out.append(rcode + ("+tc" if "tc" in flags else ""))
                out += sorted("%s=%s" % (r[3], r[4]) for r in rrs
                              if r[0] == "answer")
            except WireError:
                out.append("malformed")
        print(" ".join(out))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve")
    sp.add_argument("--zone", required=True)
    sp.add_argument("--log", required=True)
    sp.add_argument("--listen", action="append", required=True)
    sp.add_argument("--port", type=int, default=53)
    for name in ("query", "batch"):
        qp = sub.add_parser(name)
        qp.add_argument("--tcp", action="store_true")
        qp.add_argument("--port", type=int, default=53)
        qp.add_argument("--timeout", type=float, default=2.0)
        qp.add_argument("--edns", action="store_true")
        qp.add_argument("server")
        if name == "query":
            qp.add_argument("--no-rd", action="store_true")
            qp.add_argument("--raw", metavar="HEX")
            qp.add_argument("name", nargs="?", default="")
            qp.add_argument("type", nargs="?", default="A")
    args = ap.parse_args()
    return {"serve": cmd_serve, "query": cmd_query,
            "batch": cmd_batch}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
