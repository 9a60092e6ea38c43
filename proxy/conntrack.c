/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "conntrack.h"
#include "nlns.h"

#define CT_RECV_BUF   4096 /* one flow's NEW message is a few hundred */
#define CT_RECV_TRIES 4

struct ct_ctx {
	struct nl_sock *nl;
	uint8_t buf[CT_RECV_BUF];
};

/* ---- the request -------------------------------------------------------
 * Built and read with memcpy(): buffers need no alignment. */

struct ct_writer {
	uint8_t *buf;
	size_t cap, len;
	bool full;
};

/* Reserves NLA_ALIGN(n) zeroed bytes; returns their offset, or SIZE_MAX. */
static size_t
put(struct ct_writer *w, size_t n)
{
	size_t a = NLA_ALIGN(n), at = w->len;

	if (w->full || w->cap - w->len < a) {
		w->full = true;
		return SIZE_MAX;
	}
	memset(w->buf + at, 0, a);
	w->len += a;
	return at;
}

static void
attr_header(struct ct_writer *w, size_t at, uint16_t len, uint16_t type)
{
	struct nlattr h = {len, type};

	memcpy(w->buf + at, &h, sizeof(h));
}

static size_t
attr_open(struct ct_writer *w, uint16_t type)
{
	size_t at = put(w, NLA_HDRLEN);

	if (at != SIZE_MAX)
		attr_header(w, at, 0, type | NLA_F_NESTED);
	return at;
}

static void
attr_close(struct ct_writer *w, size_t at, uint16_t type)
{
	if (!w->full)
		attr_header(
		    w, at, (uint16_t)(w->len - at), type | NLA_F_NESTED);
}

static void
attr_put(struct ct_writer *w, uint16_t type, const void *v, size_t n)
{
	size_t at = put(w, NLA_HDRLEN + n);

	if (at == SIZE_MAX)
		return;
	attr_header(w, at, (uint16_t)(NLA_HDRLEN + n), type);
	memcpy(w->buf + at + NLA_HDRLEN, v, n);
}

size_t
ct_build_get(
    uint8_t *buf, size_t cap, uint32_t seq, const struct ct_tuple *reply)
{
	struct ct_writer w = {buf, cap, 0, false};
	struct nlmsghdr h;
	struct nfgenmsg g;
	size_t hat = put(&w, NLMSG_HDRLEN), gat = put(&w, sizeof(g));
	size_t tuple, ip, proto, alen = reply->family == AF_INET6 ? 16 : 4;
	uint8_t num = IPPROTO_TCP;
	uint16_t sport = htons(reply->sport), dport = htons(reply->dport);
	bool v6 = reply->family == AF_INET6;

	if (w.full || (reply->family != AF_INET && reply->family != AF_INET6))
		return 0;
	tuple = attr_open(&w, CTA_TUPLE_REPLY);
	ip = attr_open(&w, CTA_TUPLE_IP);
	attr_put(&w, v6 ? CTA_IP_V6_SRC : CTA_IP_V4_SRC, reply->src, alen);
	attr_put(&w, v6 ? CTA_IP_V6_DST : CTA_IP_V4_DST, reply->dst, alen);
	attr_close(&w, ip, CTA_TUPLE_IP);
	proto = attr_open(&w, CTA_TUPLE_PROTO);
	attr_put(&w, CTA_PROTO_NUM, &num, 1);
	attr_put(&w, CTA_PROTO_SRC_PORT, &sport, 2);
	attr_put(&w, CTA_PROTO_DST_PORT, &dport, 2);
	attr_close(&w, proto, CTA_TUPLE_PROTO);
	attr_close(&w, tuple, CTA_TUPLE_REPLY);
	if (w.full)
		return 0;
	memset(&h, 0, sizeof(h));
	h.nlmsg_len = (uint32_t)w.len;
	h.nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET;
	h.nlmsg_flags = NLM_F_REQUEST;
	h.nlmsg_seq = seq;
	memcpy(buf + hat, &h, sizeof(h));
	g.nfgen_family = (uint8_t)reply->family;
	g.version = NFNETLINK_V0;
	g.res_id = 0;
	memcpy(buf + gat, &g, sizeof(g));
	return w.len;
}

/* ---- the reply ---------------------------------------------------------- */

struct attr {
	uint16_t type; /* without the flags */
	const uint8_t *data;
	size_t len;
};

/* The next attribute of [*p, end): false at the end, or when malformed
 * (*bad set). */
static bool
attr_next(const uint8_t **p, const uint8_t *end, bool *bad, struct attr *a)
{
	size_t left = (size_t)(end - *p), step;
	struct nlattr h;

	if (left == 0)
		return false;
	if (left < NLA_HDRLEN) {
		*bad = true;
		return false;
	}
	memcpy(&h, *p, sizeof(h));
	if (h.nla_len < NLA_HDRLEN || (size_t)h.nla_len > left) {
		*bad = true;
		return false;
	}
	a->type = h.nla_type & NLA_TYPE_MASK;
	a->data = *p + NLA_HDRLEN;
	a->len = h.nla_len - NLA_HDRLEN;
	step = NLA_ALIGN((size_t)h.nla_len);
	*p += step < left ? step : left;
	return true;
}

/* Each attribute type at most once: a repeated one is ambiguous. */
static bool
once(uint32_t *seen, uint16_t type)
{
	uint32_t bit = type < 32 ? 1u << type : 0;

	if (bit == 0 || (*seen & bit))
		return false;
	*seen |= bit;
	return true;
}

static bool
parse_ip(const uint8_t *p, const uint8_t *end, int family, struct ct_tuple *t)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	uint16_t want_src = family == AF_INET6 ? CTA_IP_V6_SRC : CTA_IP_V4_SRC;
	uint16_t want_dst = family == AF_INET6 ? CTA_IP_V6_DST : CTA_IP_V4_DST;
	struct attr a;
	uint32_t seen = 0;
	bool bad = false;

	while (attr_next(&p, end, &bad, &a)) {
		if (!once(&seen, a.type))
			return false;
		if (a.type != want_src && a.type != want_dst)
			continue;
		if (a.len != alen)
			return false;
		memcpy(a.type == want_src ? t->src : t->dst, a.data, alen);
	}
	return !bad && (seen & (1u << want_src)) && (seen & (1u << want_dst));
}

static bool
parse_proto(const uint8_t *p, const uint8_t *end, struct ct_tuple *t)
{
	struct attr a;
	uint32_t seen = 0;
	bool bad = false;
	uint16_t v;

	while (attr_next(&p, end, &bad, &a)) {
		if (!once(&seen, a.type))
			return false;
		if (a.type == CTA_PROTO_NUM) {
			if (a.len != 1 || a.data[0] != IPPROTO_TCP)
				return false;
		} else if (a.type == CTA_PROTO_SRC_PORT ||
		    a.type == CTA_PROTO_DST_PORT) {
			if (a.len != 2)
				return false;
			memcpy(&v, a.data, 2);
			if (a.type == CTA_PROTO_SRC_PORT)
				t->sport = ntohs(v);
			else
				t->dport = ntohs(v);
		}
	}
	return !bad && (seen & (1u << CTA_PROTO_NUM)) &&
	    (seen & (1u << CTA_PROTO_SRC_PORT)) &&
	    (seen & (1u << CTA_PROTO_DST_PORT));
}

static bool
parse_tuple(
    const uint8_t *p, const uint8_t *end, int family, struct ct_tuple *t)
{
	struct attr a;
	uint32_t seen = 0;
	bool bad = false;

	memset(t, 0, sizeof(*t));
	t->family = family;
	while (attr_next(&p, end, &bad, &a)) {
		if (!once(&seen, a.type))
			return false;
		if (a.type == CTA_TUPLE_IP &&
		    !parse_ip(a.data, a.data + a.len, family, t))
			return false;
		if (a.type == CTA_TUPLE_PROTO &&
		    !parse_proto(a.data, a.data + a.len, t))
			return false;
	}
	return !bad && (seen & (1u << CTA_TUPLE_IP)) &&
	    (seen & (1u << CTA_TUPLE_PROTO));
}

/* A NEW message of len bytes at m: its CTA_TUPLE_ORIG. */
static enum ct_result
parse_new(const uint8_t *m, size_t len, struct ct_tuple *orig)
{
	const uint8_t *p, *end = m + len;
	struct nfgenmsg g;
	struct attr a;
	uint32_t seen = 0;
	bool bad = false, found = false;

	if (len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(g)))
		return CT_MALFORMED;
	memcpy(&g, m + NLMSG_HDRLEN, sizeof(g));
	if (g.nfgen_family != AF_INET && g.nfgen_family != AF_INET6)
		return CT_MALFORMED;
	p = m + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(g));
	while (attr_next(&p, end, &bad, &a)) {
		if (a.type != CTA_TUPLE_ORIG)
			continue;
		if (!once(&seen, a.type) ||
		    !parse_tuple(a.data, a.data + a.len, g.nfgen_family, orig))
			return CT_MALFORMED;
		found = true;
	}
	return !bad && found ? CT_FOUND : CT_MALFORMED;
}

enum ct_result
ct_parse_reply(const uint8_t *buf, size_t len, uint32_t seq,
    struct ct_tuple *orig, int *err)
{
	const uint8_t *p = buf, *end = buf + len;

	*err = 0;
	while ((size_t)(end - p) >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		size_t step;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN ||
		    h.nlmsg_len > (size_t)(end - p))
			return CT_MALFORMED;
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (h.nlmsg_seq == seq) {
			if (h.nlmsg_type == NLMSG_ERROR) {
				int e;

				if (h.nlmsg_len <
				    NLMSG_HDRLEN + sizeof(struct nlmsgerr))
					return CT_MALFORMED;
				memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
				if (e == 0)
					return CT_MALFORMED; /* an ACK: no flow */
				if (e == -ENOENT)
					return CT_NOT_FOUND;
				*err = e < 0 && e > -4096 ? -e : EPROTO;
				return CT_ERROR;
			}
			if (h.nlmsg_type !=
			    ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW))
				return CT_MALFORMED;
			return parse_new(p, h.nlmsg_len, orig);
		}
		if (step >= (size_t)(end - p))
			break;
		p += step;
	}
	return CT_NONE;
}

/* ---- the query ---------------------------------------------------------- */

struct ct_ctx *
conntrack_new(int netns_fd, char *err, size_t errlen)
{
	struct ct_ctx *ct = calloc(1, sizeof(*ct));
	bool stranded;

	if (ct == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* (stranded in the sandbox's namespace: err says so, and the caller
	 * exits on NULL) */
	ct->nl =
	    nlns_socket(netns_fd, NETLINK_NETFILTER, err, errlen, &stranded);
	if (ct->nl == NULL) {
		free(ct);
		return NULL;
	}
	/* The socket opens without ctnetlink; a query for a flow that does
	 * not exist tells whether anything answers. */
	{
		struct sockaddr_in a = {.sin_family = AF_INET};
		struct sockaddr_storage s1, s2;
		int e;

		switch (conntrack_original(ct, (struct sockaddr *)&a,
		    (struct sockaddr *)&a, &s1, &s2, &e)) {
		case CT_FOUND:
		case CT_NOT_FOUND:
			return ct;
		default:
			snprintf(err, errlen, "ctnetlink query: %s",
			    e ? strerror(e) : "malformed answer");
			conntrack_free(ct);
			return NULL;
		}
	}
}

void
conntrack_free(struct ct_ctx *ct)
{
	if (ct == NULL)
		return;
	nl_socket_free(ct->nl);
	free(ct);
}

static bool
tuple_from(const struct sockaddr *sa, uint8_t *addr, uint16_t *port, int *fam)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in =
		    (const struct sockaddr_in *)(const void *)sa;

		memcpy(addr, &in->sin_addr, 4);
		*port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 =
		    (const struct sockaddr_in6 *)(const void *)sa;

		memcpy(addr, &in6->sin6_addr, 16);
		*port = ntohs(in6->sin6_port);
	} else {
		return false;
	}
	*fam = sa->sa_family;
	return true;
}

static void
tuple_to(
    int family, const uint8_t *addr, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)(void *)ss;

		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, addr, 4);
		in->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)ss;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, addr, 16);
		in6->sin6_port = htons(port);
	}
}

enum ct_result
conntrack_original(struct ct_ctx *ct, const struct sockaddr *local,
    const struct sockaddr *peer, struct sockaddr_storage *orig_src,
    struct sockaddr_storage *orig_dst, int *err)
{
	struct ct_tuple reply, orig;
	uint8_t req[CT_MSG_MAX];
	int fam2, fd = nl_socket_get_fd(ct->nl);
	unsigned seq = nl_socket_use_seq(ct->nl);
	size_t n;

	*err = 0;
	memset(&reply, 0, sizeof(reply));
	/* reply direction: from where the flow was redirected to (egressd's
	 * listener) back to the client as egressd sees it */
	if (!tuple_from(local, reply.src, &reply.sport, &reply.family) ||
	    !tuple_from(peer, reply.dst, &reply.dport, &fam2) ||
	    fam2 != reply.family ||
	    (n = ct_build_get(req, sizeof(req), seq, &reply)) == 0) {
		*err = EINVAL;
		return CT_ERROR;
	}
	if (nl_sendto(ct->nl, req, n) < 0) {
		*err = EIO;
		return CT_ERROR;
	}
	/* ctnetlink answers a GET inside sendmsg(): the reply is queued */
	for (int tries = 0; tries < CT_RECV_TRIES; tries++) {
		ssize_t got = recv(fd, ct->buf, sizeof(ct->buf), MSG_DONTWAIT);
		enum ct_result r;

		if (got < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			return CT_ERROR;
		}
		r = ct_parse_reply(ct->buf, (size_t)got, seq, &orig, err);
		if (r == CT_NONE)
			continue; /* an older answer */
		if (r == CT_FOUND) {
			tuple_to(orig.family, orig.src, orig.sport, orig_src);
			tuple_to(orig.family, orig.dst, orig.dport, orig_dst);
		}
		return r;
	}
	*err = ETIMEDOUT;
	return CT_ERROR;
}
