/* SPDX-License-Identifier: ISC */
/*
 * The transparent listener. Owns naming a redirected connection from its
 * first bytes; leaves deciding and dialing to target.c and relaying to the
 * session.
 *
 *   accept --SO_ORIGINAL_DST, identity--> sniff first bytes
 *     0x16...      TLS: ClientHello reassembled, SNI names it
 *     "GET / ..."  HTTP/1: the Host header names it
 *     other/none   raw TCP: the policy DNS record of the address, else the
 *                  address (allowed only by `protocol: tcp` endpoints)
 *   --> target (dials a validated answer; the original destination only if
 *       it is one of them) --> relay, or reset
 */
#include <errno.h>
#include <event2/event.h>
#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "audit.h"
#include "clock.h"
#include "conntrack.h"
#include "daemon.h"
#include "dns_map.h"
#include "http_parse.h"
#include "log.h"
#include "policy.h"
#include "session.h"
#include "sni.h"
#include "target.h"
#include "transparent.h"

#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80 /* linux/netfilter_ipv6/ip6_tables.h */
#endif

#define TP_HEAD_MAX 16384

enum tp_kind { TP_UNKNOWN, TP_TLS, TP_HTTP, TP_RAW };

struct transparent {
	struct session *s;
	struct event *rd, *timer;
	uint8_t *buf;
	size_t len, cap;
	enum tp_kind kind;
	struct sni_reader sni;
	uint8_t *sni_scratch;
	struct http_head_scan scan;
	struct addr orig;
	uint16_t orig_port;
	struct hostname host;
	struct target *target;
	bool deadline_set;
};

void
transparent_free(struct transparent *t)
{
	if (t == NULL)
		return;
	if (t->rd)
		event_free(t->rd);
	if (t->timer)
		event_free(t->timer);
	target_cancel(t->target);
	free(t->buf);
	free(t->sni_scratch);
	free(t);
}

/* Refused before or without a policy decision: log, then reset. */
static void
tp_refuse(struct transparent *t, enum reason why, const char *detail)
{
	struct session *s = t->s;
	struct audit_record r;
	bool audit = s->d->cfg.override == DECIDE_MODE_AUDIT;

	session_record(s, AUDIT_OPEN, &r);
	r.dst = &t->orig;
	r.verdict = VERDICT_DENY;
	r.reason = why;
	r.mode = ENFORCE_ENFORCE;
	r.reason_text = reason_text(why);
	r.detail = detail;
	/* Unparseable input is refused in every mode: there is nothing that
	 * could be forwarded faithfully (fail closed). */
	(void)audit;
	audit_log(s->d->audit, &r);
	s->d->stats.denied++;
	s->reset = true;
	session_close(s, why);
}

static void
target_cb(struct target_result *res, void *arg)
{
	struct transparent *t = arg;
	struct session *s = t->s;

	t->target = NULL;
	session_adopt(s, res);
	if (!res->connected) {
		/* refused, or failed after the decision: reset (the
		 * decision or failure record is already written) */
		s->reset = true;
		session_close(s,
		    res->dec.verdict == VERDICT_DENY ? res->dec.reason :
		                                       res->reason);
		return;
	}
	s->ufd = res->fd;
	res->fd = -1;
	s->dst = res->dst;
	s->dialed = true;
	if (res->dec.verdict == VERDICT_ALLOW &&
	    res->dec.protocol == PROTO_REST) {
		/* the endpoint inspects requests: terminate the TLS whose
		 * ClientHello is already here, or decide plain HTTP requests
		 * one by one from the first one, already here */
		session_intercept(
		    s, &t->host, t->buf, t->len, t->kind == TP_TLS);
		return;
	}
	if (!session_start_relay(s))
		return;
	s->state = SESSION_RELAY;
	relay_release_up(s->relay, t->buf, t->len);
	s->tp = NULL;
	transparent_free(t);
}

static void
tp_decide(struct transparent *t, enum decide_source source)
{
	struct session *s = t->s;
	struct target_req tr;

	event_del(t->rd);
	event_del(t->timer);
	free(s->host);
	if ((s->host = strdup(t->host.name)) == NULL)
		fatal("out of memory");
	s->state = SESSION_TARGET;
	s->source = source;
	session_target_req(s, &t->host, t->orig_port, source, &tr);
	tr.orig_dst = &t->orig;
	t->target = target_start(s->d, &s->caller, &tr, target_cb, t);
}

/* Names the connection by its destination address alone. */
static void
name_by_address(struct transparent *t, const char *ingress)
{
	struct session *s = t->s;
	char name[HOSTNAME_MAX + 1];

	s->ingress = ingress;
	if (s->d->dnsmap &&
	    dns_map_lookup(s->d->dnsmap, &t->orig, clock_ms(), name) &&
	    hostname_normalize(name, strlen(name), &t->host) == HOSTNAME_OK) {
		tp_decide(t, DECIDE_SRC_DNS);
		return;
	}
	memset(&t->host, 0, sizeof(t->host));
	t->host.kind =
	    t->orig.family == AF_INET ? HOSTNAME_IPV4 : HOSTNAME_IPV6;
	t->host.addr = t->orig;
	addr_format(&t->orig, t->host.name);
	t->host.len = strlen(t->host.name);
	tp_decide(t, DECIDE_SRC_ADDR);
}

/* Could an endpoint allow this destination as raw TCP (protocol: tcp),
 * named by its DNS record or by address? */
static bool
raw_possible(struct transparent *t)
{
	struct session *s = t->s;
	const struct policy *p = s->d->policy;
	char name[HOSTNAME_MAX + 1];
	struct hostname byname, byaddr;
	bool have_name = false;
	size_t i, j;

	if (s->d->cfg.override == DECIDE_MODE_AUDIT)
		return true; /* everything passes: name it without delay */

	memset(&byaddr, 0, sizeof(byaddr));
	byaddr.kind = t->orig.family == AF_INET ? HOSTNAME_IPV4 : HOSTNAME_IPV6;
	byaddr.addr = t->orig;
	if (s->d->dnsmap &&
	    dns_map_lookup(s->d->dnsmap, &t->orig, clock_ms(), name) &&
	    hostname_normalize(name, strlen(name), &byname) == HOSTNAME_OK)
		have_name = true;
	for (i = 0; i < p->nblocks; i++)
		for (j = 0; j < p->blocks[i].nendpoints; j++) {
			const struct policy_endpoint *e =
			    &p->blocks[i].endpoints[j];

			if (e->protocol != PROTO_TCP ||
			    !port_ranges_match(
			        e->ports, e->nports, t->orig_port))
				continue;
			if (host_pattern_match(&e->host, &byaddr) ||
			    (have_name &&
			        host_pattern_match(&e->host, &byname)))
				return true;
		}
	return false;
}

static void
set_deadline(struct transparent *t, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	event_add(t->timer, &tv);
	t->deadline_set = true;
}

static bool
looks_like_http(const uint8_t *p, size_t n)
{
	size_t i;

	/* an uppercase token followed by a space: "GET ", "POST " */
	for (i = 0; i < n && i < 16; i++) {
		if (p[i] == ' ')
			return i > 0;
		if (p[i] < 'A' || p[i] > 'Z')
			return false;
	}
	return i == n; /* undecided yet: all uppercase so far */
}

/* Classifies and, when possible, names the connection. */
static void
sniff(struct transparent *t)
{
	struct session *s = t->s;
	enum sni_result sr;
	struct sni_info info;
	enum http_result hr;
	struct http_request *req;
	size_t head_len;

	if (t->len == 0)
		return;
	if (t->kind == TP_UNKNOWN) {
		if (t->buf[0] == 0x16)
			t->kind = TP_TLS;
		else if (looks_like_http(t->buf, t->len)) {
			if (t->len < 2 || memchr(t->buf, ' ', t->len) == NULL)
				return; /* not sure yet */
			t->kind = TP_HTTP;
		} else
			t->kind = TP_RAW;
	}
	switch (t->kind) {
	case TP_TLS:
		s->ingress = "tls";
		if (t->sni_scratch == NULL) {
			if ((t->sni_scratch = malloc(SNI_HELLO_MAX)) == NULL)
				fatal("out of memory");
			sni_reader_init(&t->sni, t->sni_scratch, SNI_HELLO_MAX);
		}
		sr = sni_reader_feed(&t->sni, t->buf, t->len, &info, NULL);
		if (sr == SNI_NEED_MORE) {
			if (!t->deadline_set)
				set_deadline(t, s->d->cfg.hello_timeout_ms);
			return;
		}
		if (sr == SNI_ERR_NOT_TLS) {
			t->kind = TP_RAW;
			name_by_address(t, "tcp");
			return;
		}
		if (sr != SNI_OK) {
			tp_refuse(t,
			    sr == SNI_ERR_TOO_LARGE ?
			        REASON_TLS_HELLO_TOO_LARGE :
			        REASON_TLS_HELLO_INVALID,
			    sni_reader_detail(&t->sni)[0] ?
			        sni_reader_detail(&t->sni) :
			        sni_strerror(sr));
			return;
		}
		if (!info.has_sni || info.sni_is_ip) {
			/* no name: IP rules only (the address decides) */
			memset(&t->host, 0, sizeof(t->host));
			t->host.kind = t->orig.family == AF_INET ?
			    HOSTNAME_IPV4 :
			    HOSTNAME_IPV6;
			t->host.addr = t->orig;
			addr_format(&t->orig, t->host.name);
			t->host.len = strlen(t->host.name);
		} else {
			t->host = info.host;
		}
		tp_decide(t, DECIDE_SRC_SNI);
		return;
	case TP_HTTP:
		s->ingress = "http";
		hr = http_head_scan(
		    &t->scan, t->buf, t->len, TP_HEAD_MAX, &head_len, NULL);
		if (hr == HTTP_NEED_MORE) {
			if (!t->deadline_set)
				set_deadline(t, s->d->cfg.head_timeout_ms);
			return;
		}
		if (hr != HTTP_OK) {
			tp_refuse(t, REASON_BAD_REQUEST, http_strerror(hr));
			return;
		}
		if ((req = malloc(sizeof(*req))) == NULL)
			fatal("out of memory");
		hr = http_parse_request(t->buf, t->len, TP_HEAD_MAX, req, NULL);
		if (hr != HTTP_OK || !req->has_host ||
		    req->form != HTTP_TARGET_ORIGIN) {
			tp_refuse(t, REASON_BAD_REQUEST,
			    hr != HTTP_OK ?
			        http_strerror(hr) :
			        !req->has_host ?
			        "no Host header to name the destination" :
			        "a redirected connection carries origin-form requests only");
			free(req);
			return;
		}
		t->host = req->host_hdr;
		free(req);
		tp_decide(t, DECIDE_SRC_HTTP);
		return;
	case TP_RAW:
	case TP_UNKNOWN:
		break;
	}
	name_by_address(t, "tcp");
}

static void
read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct transparent *t = arg;
	ssize_t n;

	if (what & EV_TIMEOUT) {
		if (t->len == 0) {
			/* the client waits for the server to speak first */
			name_by_address(t, "tcp");
			return;
		}
		tp_refuse(t, REASON_TIMEOUT,
		    t->kind == TP_TLS ?
		        "no complete TLS ClientHello before the deadline" :
		        "no complete request head before the deadline");
		return;
	}
	for (;;) {
		if (t->len == t->cap) {
			size_t ncap = t->cap * 2;
			uint8_t *nb;

			if (ncap > SNI_RAW_MAX) {
				/* full and still undecided: sniff decides */
				break;
			}
			if ((nb = realloc(t->buf, ncap)) == NULL)
				fatal("out of memory");
			t->buf = nb;
			t->cap = ncap;
		}
		n = read(fd, t->buf + t->len, t->cap - t->len);
		if (n > 0) {
			t->len += (size_t)n;
			/* short: the socket is empty for now */
			if (t->len < t->cap)
				break;
			continue;
		}
		if (n == 0) {
			/* The client half-closed. With nothing sent, it is a
			 * server-speaks-first protocol (or a probe): name it
			 * by address; the relay passes the EOF on. */
			struct session *s = t->s;

			event_del(t->rd);
			if (t->len == 0) {
				name_by_address(t, "tcp");
				return;
			}
			sniff(t);
			if (s->state == SESSION_HEAD && s->tp == t)
				tp_refuse(t, REASON_BAD_REQUEST,
				    "the client closed in the middle of its first message");
			return;
		}
		if (errno == EAGAIN || errno == EINTR)
			break;
		session_close(t->s, REASON_BAD_REQUEST);
		return;
	}
	sniff(t);
}

/* SO_ORIGINAL_DST: where the client meant to connect before the redirect. */
static bool
original_dst(int fd, int family, struct addr *a, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int r;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6)
		r = getsockopt(fd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, &ss, &len);
	else
		r = getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, &ss, &len);
	return r == 0 && addr_from_sockaddr((struct sockaddr *)&ss, a, port);
}

/*
 * The client socket's own address, for the caller lookup. The peer address
 * egressd sees is the client's unless NAT changed its source port to keep
 * the redirected flow apart from an earlier one (the client reusing a port
 * towards another destination while conntrack still holds the old flow):
 * then only conntrack knows the client's port. Its original tuple is
 * used when it names the destination SO_ORIGINAL_DST gave. Without it (no
 * such flow, an answer that does not match) there is no address to look
 * up: NULL, and the connection is refused (the port egressd sees could be
 * another socket's).
 */
static const struct sockaddr *
client_address(struct transparent *t, const struct listener *l, int fd,
    const struct addr *local, const struct sockaddr *peer,
    struct sockaddr_storage *client)
{
	struct daemon *d = l->d;
	const struct sockaddr *self = (const struct sockaddr *)&l->addr;
	struct sockaddr_storage bound, odst;
	socklen_t len = sizeof(bound);
	struct addr oa, ca;
	uint16_t oport, cport;
	int err;

	if (d->ct == NULL)
		return NULL; /* (never: a transparent listener needs it) */
	if (addr_classify(local) == ADDR_UNSPECIFIED) {
		/* a wildcard listener: the address this flow came to */
		if (getsockname(fd, (struct sockaddr *)&bound, &len) != 0)
			return NULL;
		self = (const struct sockaddr *)&bound;
	}
	if (conntrack_original(d->ct, self, peer, client, &odst, &err) !=
	        CT_FOUND ||
	    !addr_from_sockaddr((struct sockaddr *)&odst, &oa, &oport) ||
	    !addr_equal(&oa, &t->orig) || oport != t->orig_port ||
	    !addr_from_sockaddr((struct sockaddr *)client, &ca, &cport))
		return NULL;
	t->s->src = ca;
	t->s->src_port = cport;
	return (struct sockaddr *)client;
}

void
transparent_accept(struct listener *l, int fd, const struct sockaddr *peer)
{
	struct daemon *d = l->d;
	struct session *s = session_new(l, fd);
	struct transparent *t = calloc(1, sizeof(*t));
	struct sockaddr_storage orig, client;
	struct addr local;
	uint16_t local_port;

	if (t == NULL)
		fatal("out of memory");
	s->ingress = "tcp";
	s->tp = t;
	t->s = s;
	t->cap = 4096;
	if ((t->buf = malloc(t->cap)) == NULL)
		fatal("out of memory");
	http_head_scan_init(&t->scan, HTTP_HEAD_REQUEST);
	t->rd = event_new(d->base, fd, EV_READ | EV_PERSIST, read_cb, t);
	t->timer = evtimer_new(d->base, read_cb, t);
	if (t->rd == NULL || t->timer == NULL)
		fatal("out of memory");
	/* TCP_NODELAY comes from the listener */
	addr_from_sockaddr(peer, &s->src, &s->src_port);
	addr_from_sockaddr((struct sockaddr *)&l->addr, &local, &local_port);
	if (!original_dst(fd, l->addr.ss_family, &t->orig, &t->orig_port) ||
	    (addr_equal(&t->orig, &local) && t->orig_port == local_port)) {
		/* connected straight to the listener: not redirected */
		t->orig = local;
		t->orig_port = local_port;
		s->port = local_port;
		tp_refuse(t, REASON_SELF_CONNECTION,
		    "connection to egressd's transparent port itself");
		return;
	}
	s->port = t->orig_port;
	addr_to_sockaddr(&t->orig, t->orig_port, &orig);
	session_bind_identity(s,
	    client_address(t, l, fd, &local, peer, &client),
	    (struct sockaddr *)&orig);
	s->state = SESSION_HEAD;
	if ((d->cfg.max_conns && d->nsessions > d->cfg.max_conns) ||
	    !caller_take_slot(&s->caller, d->cfg.max_conns_per_caller)) {
		d->stats.conn_limit++;
		tp_refuse(t, REASON_CONN_LIMIT, "connection limit reached");
		return;
	}
	event_add(t->rd, NULL);
	/* A short wait for the client's first bytes: TLS and HTTP clients
	 * speak first, others (ssh, SMTP) wait for the server. Only when the
	 * policy could allow raw TCP here is a silent client worth naming by
	 * its address soon; otherwise it can only be refused, so it gets the
	 * full head deadline to speak (a TLS client may spend a while loading
	 * its trust store before its ClientHello). */
	set_deadline(t,
	    raw_possible(t) ? d->cfg.sniff_timeout_ms : d->cfg.head_timeout_ms);
	t->deadline_set = false; /* the hello/head deadline is separate */
}
