/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for proxy/conntrack.c: the ctnetlink GET request for a reply
 * tuple (IPv4 and IPv6, byte for byte where it matters) and the parser of
 * the kernel's answer: the original tuple of a NEW message, ENOENT, other
 * errors, answers to other requests, and a table of malformed messages
 * (truncations at every length, bad lengths, missing or repeated
 * attributes, wrong protocol or family). Every parse runs on a guard page.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdint.h>

#include "conntrack.h"
#include "tap.h"

static struct tap_guard guard;

/* ---- a small writer for the kernel's side of the conversation ---------- */

struct msg {
	uint8_t b[512];
	size_t len;
	size_t open[8];
	int depth;
};

static void
m_put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	memset(m->b + m->len + n, 0, NLA_ALIGN(n) - n);
	m->len += NLA_ALIGN(n);
}

static void
m_attr(struct msg *m, uint16_t type, const void *v, size_t n)
{
	struct nlattr a = {(uint16_t)(NLA_HDRLEN + n), type};

	m_put(m, &a, sizeof(a));
	m->len -= NLA_ALIGN(sizeof(a)) - NLA_HDRLEN;
	memcpy(m->b + m->len, v, n);
	memset(m->b + m->len + n, 0, NLA_ALIGN(n) - n);
	m->len += NLA_ALIGN(n);
}

static void
m_nest(struct msg *m, uint16_t type)
{
	struct nlattr a = {0, (uint16_t)(type | NLA_F_NESTED)};

	m->open[m->depth++] = m->len;
	m_put(m, &a, sizeof(a));
}

static void
m_end(struct msg *m)
{
	size_t at = m->open[--m->depth];

	((struct nlattr *)(void *)(m->b + at))->nla_len =
	    (uint16_t)(m->len - at);
}

static void
m_head(struct msg *m, uint16_t type, uint32_t seq, uint8_t family)
{
	struct nlmsghdr h = {0, type, 0, seq, 0};
	struct nfgenmsg g = {family, NFNETLINK_V0, 0};

	m->len = 0;
	m->depth = 0;
	m_put(m, &h, sizeof(h));
	m_put(m, &g, sizeof(g));
}

static void
m_done(struct msg *m)
{
	((struct nlmsghdr *)(void *)m->b)->nlmsg_len = (uint32_t)m->len;
}

static void
m_tuple(struct msg *m, uint16_t which, int family, const char *src,
    const char *dst, uint16_t sport, uint16_t dport)
{
	uint8_t a[16], b[16];
	size_t alen = family == AF_INET6 ? 16 : 4;
	uint8_t proto = IPPROTO_TCP;
	uint16_t sp = htons(sport), dp = htons(dport);

	inet_pton(family, src, a);
	inet_pton(family, dst, b);
	m_nest(m, which);
	m_nest(m, CTA_TUPLE_IP);
	m_attr(m, family == AF_INET6 ? CTA_IP_V6_SRC : CTA_IP_V4_SRC, a, alen);
	m_attr(m, family == AF_INET6 ? CTA_IP_V6_DST : CTA_IP_V4_DST, b, alen);
	m_end(m);
	m_nest(m, CTA_TUPLE_PROTO);
	m_attr(m, CTA_PROTO_NUM, &proto, 1);
	m_attr(m, CTA_PROTO_SRC_PORT, &sp, 2);
	m_attr(m, CTA_PROTO_DST_PORT, &dp, 2);
	m_end(m);
	m_end(m);
}

#define CT_NEW ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW)

/* What the kernel answers for a redirected flow: the client 10.0.0.2:40000
 * to 198.18.0.10:443, redirected to 127.0.0.1:15001, source port remapped
 * to 20012 in the reply direction. */
static void
m_flow4(struct msg *m, uint32_t seq)
{
	uint32_t status = htonl(0x1ba), mark = 0;

	m_head(m, CT_NEW, seq, AF_INET);
	m_tuple(
	    m, CTA_TUPLE_ORIG, AF_INET, "10.0.0.2", "198.18.0.10", 40000, 443);
	m_tuple(
	    m, CTA_TUPLE_REPLY, AF_INET, "127.0.0.1", "10.0.0.2", 15001, 20012);
	m_attr(m, CTA_STATUS, &status, 4);
	m_attr(m, CTA_MARK, &mark, 4);
	m_done(m);
}

static void
m_flow6(struct msg *m, uint32_t seq)
{
	m_head(m, CT_NEW, seq, AF_INET6);
	m_tuple(m, CTA_TUPLE_REPLY, AF_INET6, "::1", "fd00::2", 15001, 3514);
	m_tuple(
	    m, CTA_TUPLE_ORIG, AF_INET6, "fd00::2", "2001:db8::10", 51000, 443);
	m_done(m);
}

static void
m_error(struct msg *m, uint32_t seq, int error)
{
	struct nlmsgerr e;

	memset(&e, 0, sizeof(e));
	e.error = error;
	m_head(m, NLMSG_ERROR, seq, 0);
	m->len = NLMSG_HDRLEN;
	m_put(m, &e, sizeof(e));
	m_done(m);
}

static enum ct_result
parse(
    const struct msg *m, size_t len, uint32_t seq, struct ct_tuple *t, int *err)
{
	const uint8_t *g = tap_guard_copy(&guard, m->b, len);

	return ct_parse_reply(g, len, seq, t, err);
}

static bool
tuple_is(const struct ct_tuple *t, int family, const char *src, const char *dst,
    uint16_t sport, uint16_t dport)
{
	uint8_t a[16] = {0}, b[16] = {0};
	size_t alen = family == AF_INET6 ? 16 : 4;

	inet_pton(family, src, a);
	inet_pton(family, dst, b);
	return t->family == family && memcmp(t->src, a, alen) == 0 &&
	    memcmp(t->dst, b, alen) == 0 && t->sport == sport &&
	    t->dport == dport;
}

/* ---- the request -------------------------------------------------------- */

static void
test_build(void)
{
	struct ct_tuple r;
	uint8_t buf[CT_MSG_MAX];
	const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;
	const struct nfgenmsg *g;
	struct msg m;
	size_t n;

	memset(&r, 0, sizeof(r));
	r.family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", r.src);
	inet_pton(AF_INET, "10.0.0.2", r.dst);
	r.sport = 15001;
	r.dport = 20012;
	n = ct_build_get(buf, sizeof(buf), 77, &r);
	tap_ok(n > 0 && n == h->nlmsg_len, "IPv4 request built (%zu bytes)", n);
	tap_ok(h->nlmsg_type ==
	            ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET) &&
	        h->nlmsg_flags == NLM_F_REQUEST && h->nlmsg_seq == 77,
	    "...a ctnetlink GET, request only (no dump), our sequence");
	g = (const struct nfgenmsg *)(const void *)(buf + NLMSG_HDRLEN);
	tap_ok(g->nfgen_family == AF_INET && g->version == NFNETLINK_V0,
	    "...IPv4 nfgenmsg, version 0");
	/* the same bytes as the kernel's own encoding of that tuple */
	m_head(
	    &m, (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET, 77, AF_INET);
	m_tuple(&m, CTA_TUPLE_REPLY, AF_INET, "127.0.0.1", "10.0.0.2", 15001,
	    20012);
	m_done(&m);
	((struct nlmsghdr *)(void *)m.b)->nlmsg_flags = NLM_F_REQUEST;
	tap_ok(n == m.len && memcmp(buf, m.b, n) == 0,
	    "...CTA_TUPLE_REPLY{IP{V4_SRC,V4_DST},PROTO{NUM,SRC,DST}} exactly");

	r.family = AF_INET6;
	inet_pton(AF_INET6, "::1", r.src);
	inet_pton(AF_INET6, "fd00::2", r.dst);
	n = ct_build_get(buf, sizeof(buf), 78, &r);
	m_head(
	    &m, (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET, 78, AF_INET6);
	m_tuple(&m, CTA_TUPLE_REPLY, AF_INET6, "::1", "fd00::2", 15001, 20012);
	m_done(&m);
	((struct nlmsghdr *)(void *)m.b)->nlmsg_flags = NLM_F_REQUEST;
	tap_ok(n == m.len && memcmp(buf, m.b, n) == 0,
	    "IPv6 request: the same shape with V6 addresses (%zu bytes)", n);

	for (size_t cap = 0; cap < n; cap++)
		if (ct_build_get(buf, cap, 1, &r) != 0) {
			tap_ok(false, "a %zu-byte buffer must be refused", cap);
			return;
		}
	tap_ok(true, "every buffer shorter than the request is refused");
	r.family = AF_UNIX;
	tap_ok(ct_build_get(buf, sizeof(buf), 1, &r) == 0,
	    "a family other than IPv4/IPv6 is refused");
}

/* ---- the answers -------------------------------------------------------- */

static void
test_answers(void)
{
	struct ct_tuple t;
	struct msg m, two;
	int err;

	m_flow4(&m, 9);
	tap_ok(parse(&m, m.len, 9, &t, &err) == CT_FOUND &&
	        tuple_is(&t, AF_INET, "10.0.0.2", "198.18.0.10", 40000, 443),
	    "IPv4: the original tuple, with the client's own port 40000");
	m_flow6(&m, 10);
	tap_ok(parse(&m, m.len, 10, &t, &err) == CT_FOUND &&
	        tuple_is(&t, AF_INET6, "fd00::2", "2001:db8::10", 51000, 443),
	    "IPv6: the original tuple (reply tuple first in the message)");
	tap_ok(parse(&m, m.len, 11, &t, &err) == CT_NONE,
	    "an answer to another request is not ours");

	m_error(&m, 12, -ENOENT);
	tap_ok(parse(&m, m.len, 12, &t, &err) == CT_NOT_FOUND,
	    "ENOENT: no such flow");
	m_error(&m, 13, -EPERM);
	tap_ok(parse(&m, m.len, 13, &t, &err) == CT_ERROR && err == EPERM,
	    "another error is reported with its errno");
	m_error(&m, 14, 0);
	tap_ok(parse(&m, m.len, 14, &t, &err) == CT_MALFORMED,
	    "an ACK instead of the flow is not an answer");

	/* an older answer first, then ours, in one datagram */
	m_flow6(&two, 20);
	m_flow4(&m, 21);
	memcpy(two.b + two.len, m.b, m.len);
	tap_ok(parse(&two, two.len + m.len, 21, &t, &err) == CT_FOUND &&
	        tuple_is(&t, AF_INET, "10.0.0.2", "198.18.0.10", 40000, 443),
	    "an older answer is skipped by sequence number");
}

/* ---- malformed ---------------------------------------------------------- */

struct bad_case {
	const char *name;
	void (*make)(struct msg *m);
};

static void
bad_type(struct msg *m)
{
	m_flow4(m, 1);
	((struct nlmsghdr *)(void *)m->b)->nlmsg_type =
	    (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE;
}

static void
bad_family(struct msg *m)
{
	m_flow4(m, 1);
	m->b[NLMSG_HDRLEN] = AF_UNIX;
}

static void
no_orig(struct msg *m)
{
	m_head(m, CT_NEW, 1, AF_INET);
	m_tuple(m, CTA_TUPLE_REPLY, AF_INET, "127.0.0.1", "10.0.0.2", 1, 2);
	m_done(m);
}

static void
two_origs(struct msg *m)
{
	m_head(m, CT_NEW, 1, AF_INET);
	m_tuple(m, CTA_TUPLE_ORIG, AF_INET, "10.0.0.2", "1.2.3.4", 1, 443);
	m_tuple(m, CTA_TUPLE_ORIG, AF_INET, "10.0.0.3", "1.2.3.4", 1, 443);
	m_done(m);
}

/* An IPv4 CTA_TUPLE_ORIG spelled out: protocol, source address length, and
 * how many source and destination ports it carries. */
static void
orig_raw(struct msg *m, uint8_t proto, size_t src_len, int nsport, int ndport)
{
	uint8_t a[4] = {10, 0, 0, 2};
	uint16_t port = htons(443);

	m_head(m, CT_NEW, 1, AF_INET);
	m_nest(m, CTA_TUPLE_ORIG);
	m_nest(m, CTA_TUPLE_IP);
	m_attr(m, CTA_IP_V4_SRC, a, src_len);
	m_attr(m, CTA_IP_V4_DST, a, 4);
	m_end(m);
	m_nest(m, CTA_TUPLE_PROTO);
	m_attr(m, CTA_PROTO_NUM, &proto, 1);
	for (int i = 0; i < nsport; i++)
		m_attr(m, CTA_PROTO_SRC_PORT, &port, 2);
	for (int i = 0; i < ndport; i++)
		m_attr(m, CTA_PROTO_DST_PORT, &port, 2);
	m_end(m);
	m_end(m);
	m_done(m);
}

static void
well_formed(struct msg *m)
{
	orig_raw(m, IPPROTO_TCP, 4, 1, 1);
}

static void
udp(struct msg *m)
{
	orig_raw(m, IPPROTO_UDP, 4, 1, 1);
}

static void
no_dport(struct msg *m)
{
	orig_raw(m, IPPROTO_TCP, 4, 1, 0);
}

static void
short_addr(struct msg *m)
{
	orig_raw(m, IPPROTO_TCP, 3, 1, 1);
}

static void
dup_port(struct msg *m)
{
	orig_raw(m, IPPROTO_TCP, 4, 2, 1);
}

static void
v4_addr_in_v6(struct msg *m)
{
	m_head(m, CT_NEW, 1, AF_INET6);
	m_tuple(m, CTA_TUPLE_ORIG, AF_INET, "10.0.0.2", "1.2.3.4", 1, 443);
	m_done(m);
}

static void
attr_overruns(struct msg *m)
{
	m_flow4(m, 1);
	/* the first attribute claims more than the message holds */
	((struct nlattr *)(void *)(m->b + NLMSG_HDRLEN + 4))->nla_len = 500;
}

static void
attr_too_short(struct msg *m)
{
	m_flow4(m, 1);
	((struct nlattr *)(void *)(m->b + NLMSG_HDRLEN + 4))->nla_len = 2;
}

static void
msg_overruns(struct msg *m)
{
	m_flow4(m, 1);
	((struct nlmsghdr *)(void *)m->b)->nlmsg_len = (uint32_t)m->len + 4;
}

static const struct bad_case bad[] = {
    {"a message other than NEW", bad_type},
    {"a family other than IPv4/IPv6", bad_family},
    {"no CTA_TUPLE_ORIG", no_orig},
    {"two CTA_TUPLE_ORIG", two_origs},
    {"a UDP flow", udp},
    {"no destination port", no_dport},
    {"a 3-byte IPv4 address", short_addr},
    {"IPv4 addresses in an IPv6 message", v4_addr_in_v6},
    {"a repeated source port", dup_port},
    {"an attribute longer than the message", attr_overruns},
    {"an attribute shorter than its header", attr_too_short},
    {"a message longer than the datagram", msg_overruns},
};

static void
test_malformed(void)
{
	struct ct_tuple t;
	struct msg m;
	int err;

	well_formed(&m);
	tap_ok(parse(&m, m.len, 1, &t, &err) == CT_FOUND,
	    "the spelled-out tuple the malformed cases vary is well formed");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ct_result r;

		bad[i].make(&m);
		r = parse(&m, m.len, 1, &t, &err);
		tap_ok(r == CT_MALFORMED, "malformed: %s (got %d)", bad[i].name,
		    (int)r);
	}
	/* every truncation of a good answer: never FOUND, never a crash */
	m_flow4(&m, 5);
	for (size_t n = 0; n < m.len; n++) {
		enum ct_result r = parse(&m, n, 5, &t, &err);

		if (r == CT_FOUND) {
			tap_ok(false,
			    "a %zu-byte prefix was taken as an answer", n);
			return;
		}
	}
	tap_ok(
	    true, "no prefix of an answer (%zu bytes) is taken for it", m.len);
}

int
main(void)
{
	test_build();
	test_answers();
	test_malformed();
	tap_guard_free(&guard);
	return tap_done();
}
