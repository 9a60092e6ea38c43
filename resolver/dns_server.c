/* SPDX-License-Identifier: ISC */
/*
 * Policy DNS server. Owns the UDP and TCP transports and the question ->
 * answer logic; leaves parsing and building messages to dns_msg.c,
 * resolution to resolve.c, and what a name may be to the policy.
 *
 *   query --parse--> A/AAAA? --policy knows name?--> resolve --validate-->
 *     answer (and remember address -> name)
 *   anything else: REFUSED / NOTIMP / FORMERR, with no upstream query
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "decide.h"
#include "dns_map.h"
#include "dns_msg.h"
#include "dns_server.h"
#include "hostname.h"
#include "log.h"
#include "resolve.h"

#define DNS_SERVER_MAX_SOCKETS 8
#define DNS_ALLOWED_MAX        16

struct tcp_client;

struct dns_pending {
	struct dns_server *srv;
	struct dns_pending *prev, *next;
	struct dns_query q;
	struct hostname host;
	struct cidr allowed[DNS_ALLOWED_MAX];
	size_t nallowed;
	bool would_deny; /* unknown name answered in audit mode */
	struct resolve_req *rq;
	/* where the answer goes */
	int udp_fd;
	struct sockaddr_storage peer, local;
	socklen_t peerlen;
	struct tcp_client *client;
};

struct tcp_client {
	struct dns_server *srv;
	struct tcp_client *prev, *next;
	int fd;
	struct event *rd, *wr, *timer;
	uint8_t *in;
	size_t inlen, incap;
	uint8_t *out;
	size_t outlen, outoff, outcap;
	struct dns_pending *busy; /* one question at a time, in order */
	struct sockaddr_storage peer, local;
};

struct dns_server {
	struct dns_server_opts o;
	int fds[DNS_SERVER_MAX_SOCKETS];
	bool tcp[DNS_SERVER_MAX_SOCKETS];
	struct event *ev[DNS_SERVER_MAX_SOCKETS];
	size_t nsock;
	struct dns_pending *pending;
	unsigned npending;
	struct tcp_client *clients;
	unsigned nclients;
	struct dns_server_stats st;
};

static void tcp_client_close(struct tcp_client *c);
static void tcp_process(struct tcp_client *c);

void
dns_server_opts_default(struct dns_server_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ttl_max_s = 300;
	o->map_keep_ms = 3600u * 1000u;
	o->tcp_idle_ms = 10000;
	o->max_pending = 1024;
	o->max_tcp_clients = 64;
}

static void
report_ev(struct dns_server *s, enum dns_server_outcome what, const char *name,
    const struct dns_query *q, bool tcp, const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local, int fd, unsigned rcode,
    size_t nanswers, const char *why, bool would_deny)
{
	struct dns_server_event ev;
	struct addr src, dst;

	switch (what) {
	case DNS_SERVER_ANSWERED:
		s->st.answered++;
		break;
	case DNS_SERVER_REFUSED:
		s->st.refused++;
		break;
	case DNS_SERVER_FAILED:
		s->st.failed++;
		break;
	case DNS_SERVER_MALFORMED:
		s->st.malformed++;
		break;
	}
	if (s->o.report == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.outcome = what;
	ev.name = name;
	ev.qtype = q ? q->qtype : 0;
	ev.tcp = tcp;
	ev.fd = fd;
	if (peer &&
	    addr_from_sockaddr(
	        (const struct sockaddr *)peer, &src, &ev.src_port))
		ev.src = &src;
	if (local &&
	    addr_from_sockaddr(
	        (const struct sockaddr *)local, &dst, &ev.local_port))
		ev.local = &dst;
	ev.rcode = rcode;
	ev.nanswers = nanswers;
	ev.why = why;
	ev.would_deny = would_deny;
	s->o.report(&ev, s->o.arg);
}

static void
report(struct dns_server *s, enum dns_server_outcome what, const char *name,
    const struct dns_query *q, bool tcp, const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local, int fd, unsigned rcode,
    size_t nanswers, const char *why)
{
	report_ev(s, what, name, q, tcp, peer, local, fd, rcode, nanswers, why,
	    false);
}

/* Sends msg to where the pending question came from. */
static void
deliver(struct dns_server *s, int udp_fd, const struct sockaddr_storage *peer,
    socklen_t peerlen, struct tcp_client *c, const uint8_t *msg, size_t len)
{
	if (c == NULL) {
		/* UDP: best effort, like every DNS server */
		(void)sendto(udp_fd, msg, len, MSG_DONTWAIT,
		    (const struct sockaddr *)peer, peerlen);
		return;
	}
	if (c->outlen + 2 + len > c->outcap) {
		size_t cap = c->outlen + 2 + len;
		uint8_t *n = realloc(c->out, cap);

		if (n == NULL) {
			tcp_client_close(c);
			return;
		}
		c->out = n;
		c->outcap = cap;
	}
	dns_tcp_prefix(c->out + c->outlen, len);
	memcpy(c->out + c->outlen + 2, msg, len);
	c->outlen += 2 + len;
	event_add(c->wr, NULL);
	(void)s;
}

static void
reply_rcode(struct dns_server *s, const struct dns_query *q, unsigned rcode,
    bool tcp, int udp_fd, const struct sockaddr_storage *peer,
    socklen_t peerlen, struct tcp_client *c)
{
	uint8_t out[DNS_UDP_MAX];
	size_t len = 0;

	if (dns_build_response(q, rcode, NULL, 0, dns_response_max_len(q, tcp),
	        out, &len) != DNS_OK &&
	    dns_build_header_reply(
	        q->id, q->flags, rcode, out, sizeof(out), &len) != DNS_OK)
		return;
	deliver(s, udp_fd, peer, peerlen, c, out, len);
}

static void
pending_free(struct dns_pending *p)
{
	struct dns_server *s = p->srv;

	if (p->rq)
		resolve_cancel(p->rq);
	if (p->prev)
		p->prev->next = p->next;
	else if (s->pending == p)
		s->pending = p->next;
	if (p->next)
		p->next->prev = p->prev;
	s->npending--;
	free(p);
}

static void
resolved_cb(const struct resolve_result *res, void *arg)
{
	struct dns_pending *p = arg;
	struct dns_server *s = p->srv;
	struct tcp_client *c = p->client;
	uint16_t want = p->q.qtype == DNS_TYPE_A ? AF_INET : AF_INET6;
	struct addr valid[RESOLVE_MAX_ADDRS];
	struct dns_answer answers[RESOLVE_MAX_ADDRS];
	size_t nvalid = 0, nans = 0, i;
	enum addr_class worst = ADDR_PUBLIC;
	uint8_t *out;
	size_t len = 0;
	unsigned rcode = DNS_RCODE_NOERROR;
	uint32_t ttl;
	const char *why = NULL;

	p->rq = NULL;
	if ((out = malloc(DNS_MSG_MAX)) == NULL)
		fatal("out of memory");
	switch (res->status) {
	case RESOLVE_OK:
		nvalid = resolve_validate(res->addrs, res->naddrs, p->allowed,
		    p->nallowed, s->o.trust, s->o.ntrust, valid,
		    RESOLVE_MAX_ADDRS, &worst);
		if (worst != ADDR_PUBLIC)
			why = "non_public_address";
		break;
	case RESOLVE_NXDOMAIN:
		rcode = DNS_RCODE_NXDOMAIN;
		break;
	case RESOLVE_NODATA:
		break;
	case RESOLVE_TIMEOUT:
	case RESOLVE_FAILED:
		rcode = DNS_RCODE_SERVFAIL;
		why = res->status == RESOLVE_TIMEOUT ? "timeout" : "dns_failed";
		break;
	}
	ttl = res->ttl_s ? res->ttl_s : 1;
	if (ttl > s->o.ttl_max_s)
		ttl = s->o.ttl_max_s;
	for (i = 0; i < nvalid; i++) {
		/* every validated address is named, whichever family was
		 * asked: the other query may come from another resolver */
		dns_map_record(s->o.map, p->host.name, &valid[i], clock_ms(),
		    s->o.map_keep_ms > (uint64_t)ttl * 1000u ?
		        s->o.map_keep_ms :
		        (uint64_t)ttl * 1000u);
		if (valid[i].family != want)
			continue;
		memset(&answers[nans], 0, sizeof(answers[nans]));
		answers[nans].type = p->q.qtype;
		answers[nans].ttl = ttl;
		answers[nans].addr = valid[i];
		nans++;
	}
	if (dns_build_response(&p->q, rcode, answers, nans,
	        dns_response_max_len(&p->q, c != NULL), out, &len) == DNS_OK)
		deliver(s, p->udp_fd, &p->peer, p->peerlen, c, out, len);
	report_ev(s,
	    rcode == DNS_RCODE_NOERROR ? DNS_SERVER_ANSWERED :
	                                 DNS_SERVER_FAILED,
	    p->host.name, &p->q, c != NULL, &p->peer, &p->local, c ? c->fd : -1,
	    rcode, nans, p->would_deny ? "dns_name_not_allowed" : why,
	    p->would_deny);
	free(out);
	if (c)
		c->busy = NULL;
	pending_free(p);
	if (c)
		tcp_process(c);
}

/*
 * Handles one message. Returns the pending question when it waits for
 * upstream (TCP clients then wait for it), NULL when answered at once.
 */
static struct dns_pending *
handle(struct dns_server *s, const uint8_t *msg, size_t len, int udp_fd,
    const struct sockaddr_storage *peer, socklen_t peerlen,
    const struct sockaddr_storage *local, struct tcp_client *c)
{
	struct dns_query *q;
	struct dns_pending *p;
	enum dns_result r;
	enum hostname_err herr;
	bool tcp = c != NULL, known;
	const struct policy *pol;

	s->st.queries++;
	if (tcp)
		s->st.tcp_queries++;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("out of memory");
	q = &p->q;
	r = dns_parse_query(msg, len, q);
	if (r == DNS_ERR_RESPONSE || !q->has_header) {
		report(s, DNS_SERVER_MALFORMED, NULL, NULL, tcp, peer, local,
		    tcp ? c->fd : -1, 0, 0, dns_strerror(r));
		free(p);
		return NULL; /* nothing sensible to answer */
	}
	if (r != DNS_OK) {
		uint8_t out[DNS_HEADER_LEN];
		size_t olen;
		unsigned rc = r == DNS_ERR_NOT_QUERY ? DNS_RCODE_NOTIMP :
		                                       DNS_RCODE_FORMERR;

		if (dns_build_header_reply(
		        q->id, q->flags, rc, out, sizeof(out), &olen) == DNS_OK)
			deliver(s, udp_fd, peer, peerlen, c, out, olen);
		report(s, DNS_SERVER_MALFORMED, NULL, NULL, tcp, peer, local,
		    tcp ? c->fd : -1, rc, 0, dns_strerror(r));
		free(p);
		return NULL;
	}
	if (q->edns.present && q->edns.version > 0) {
		reply_rcode(
		    s, q, DNS_RCODE_BADVERS, tcp, udp_fd, peer, peerlen, c);
		report(s, DNS_SERVER_MALFORMED, q->qname, q, tcp, peer, local,
		    tcp ? c->fd : -1, DNS_RCODE_BADVERS, 0, "EDNS version");
		free(p);
		return NULL;
	}
	herr = hostname_normalize(q->qname, q->qname_len, &p->host);
	if (herr != HOSTNAME_OK || p->host.kind != HOSTNAME_NAME) {
		reply_rcode(
		    s, q, DNS_RCODE_REFUSED, tcp, udp_fd, peer, peerlen, c);
		report(s, DNS_SERVER_REFUSED, q->qname, q, tcp, peer, local,
		    tcp ? c->fd : -1, DNS_RCODE_REFUSED, 0, "invalid_host");
		free(p);
		return NULL;
	}
	pol = s->o.policy(s->o.arg);
	known = decide_name_known(
	    pol, &p->host, p->allowed, DNS_ALLOWED_MAX, &p->nallowed);
	if (!known && s->o.audit) {
		/* audit mode blocks nothing: answer, and say it would not */
		p->would_deny = true;
	} else if (!known) {
		/* no upstream query for names no policy mentions: a lookup
		 * must not carry data out (DNS exfiltration) */
		reply_rcode(
		    s, q, DNS_RCODE_REFUSED, tcp, udp_fd, peer, peerlen, c);
		report(s, DNS_SERVER_REFUSED, p->host.name, q, tcp, peer, local,
		    tcp ? c->fd : -1, DNS_RCODE_REFUSED, 0,
		    "dns_name_not_allowed");
		free(p);
		return NULL;
	}
	if (q->qclass != DNS_CLASS_IN ||
	    (q->qtype != DNS_TYPE_A && q->qtype != DNS_TYPE_AAAA)) {
		reply_rcode(
		    s, q, DNS_RCODE_REFUSED, tcp, udp_fd, peer, peerlen, c);
		report(s, DNS_SERVER_REFUSED, p->host.name, q, tcp, peer, local,
		    tcp ? c->fd : -1, DNS_RCODE_REFUSED, 0,
		    "dns_type_not_allowed");
		free(p);
		return NULL;
	}
	if (s->npending >= s->o.max_pending) {
		reply_rcode(
		    s, q, DNS_RCODE_SERVFAIL, tcp, udp_fd, peer, peerlen, c);
		report(s, DNS_SERVER_FAILED, p->host.name, q, tcp, peer, local,
		    tcp ? c->fd : -1, DNS_RCODE_SERVFAIL, 0,
		    "too many queries waiting for upstream");
		free(p);
		return NULL;
	}
	p->srv = s;
	p->udp_fd = udp_fd;
	if (peer)
		p->peer = *peer;
	if (local)
		p->local = *local;
	p->peerlen = peerlen;
	p->client = c;
	p->next = s->pending;
	if (s->pending)
		s->pending->prev = p;
	s->pending = p;
	s->npending++;
	s->st.upstream_waits++;
	p->rq = resolve_start(s->o.resolver, p->host.name, resolved_cb, p);
	if (p->rq == NULL) {
		reply_rcode(
		    s, q, DNS_RCODE_SERVFAIL, tcp, udp_fd, peer, peerlen, c);
		pending_free(p);
		return NULL;
	}
	return p;
}

/* ---- UDP ------------------------------------------------------------------ */

static void
udp_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dns_server *s = arg;
	uint8_t buf[DNS_MSG_MAX];
	int i;

	(void)what;
	for (i = 0; i < 64; i++) {
		struct sockaddr_storage peer, local;
		socklen_t plen = sizeof(peer), llen = sizeof(local);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
		    (struct sockaddr *)&peer, &plen);

		if (n < 0)
			return;
		if (getsockname(fd, (struct sockaddr *)&local, &llen) == -1)
			memset(&local, 0, sizeof(local));
		handle(s, buf, (size_t)n, fd, &peer, plen, &local, NULL);
	}
}

/* ---- TCP ------------------------------------------------------------------ */

static void
tcp_client_close(struct tcp_client *c)
{
	struct dns_server *s = c->srv;

	if (c->busy) {
		c->busy->client = NULL;
		pending_free(c->busy);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		s->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nclients--;
	event_free(c->rd);
	event_free(c->wr);
	event_free(c->timer);
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
}

static void
tcp_touch(struct tcp_client *c)
{
	struct timeval tv = {c->srv->o.tcp_idle_ms / 1000,
	    (c->srv->o.tcp_idle_ms % 1000) * 1000};

	event_add(c->timer, &tv);
}

/* Answers the complete messages buffered, one at a time. */
static void
tcp_process(struct tcp_client *c)
{
	while (c->busy == NULL) {
		size_t mlen;
		enum dns_result r = dns_tcp_frame_len(c->in, c->inlen, &mlen);

		if (r == DNS_NEED_MORE)
			return;
		if (r != DNS_OK) {
			tcp_client_close(c);
			return;
		}
		c->busy = handle(c->srv, c->in + 2, mlen, -1, &c->peer,
		    sizeof(c->peer), &c->local, c);
		memmove(c->in, c->in + 2 + mlen, c->inlen - 2 - mlen);
		c->inlen -= 2 + mlen;
	}
}

static void
tcp_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_client *c = arg;
	ssize_t n;

	if (what & EV_TIMEOUT) {
		tcp_client_close(c);
		return;
	}
	if (c->inlen == c->incap) {
		/* a whole message plus its prefix fits, never more */
		tcp_client_close(c);
		return;
	}
	n = read(fd, c->in + c->inlen, c->incap - c->inlen);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		tcp_client_close(c);
		return;
	}
	if (n > 0) {
		c->inlen += (size_t)n;
		tcp_touch(c);
		tcp_process(c);
	}
}

static void
tcp_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_client *c = arg;

	(void)what;
	while (c->outoff < c->outlen) {
		ssize_t n =
		    write(fd, c->out + c->outoff, c->outlen - c->outoff);

		if (n > 0) {
			c->outoff += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		tcp_client_close(c);
		return;
	}
	c->outoff = c->outlen = 0;
	event_del(c->wr);
	tcp_touch(c);
}

static void
tcp_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct dns_server *s = arg;
	struct tcp_client *c;
	socklen_t plen, llen;
	int fd;

	(void)what;
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (s->nclients >= s->o.max_tcp_clients) {
		close(fd);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		fatal("out of memory");
	c->srv = s;
	c->fd = fd;
	plen = sizeof(c->peer);
	llen = sizeof(c->local);
	getpeername(fd, (struct sockaddr *)&c->peer, &plen);
	getsockname(fd, (struct sockaddr *)&c->local, &llen);
	c->incap = 2 + DNS_MSG_MAX;
	if ((c->in = malloc(c->incap)) == NULL)
		fatal("out of memory");
	c->rd = event_new(s->o.base, fd, EV_READ | EV_PERSIST, tcp_read_cb, c);
	c->wr =
	    event_new(s->o.base, fd, EV_WRITE | EV_PERSIST, tcp_write_cb, c);
	c->timer = evtimer_new(s->o.base, tcp_read_cb, c);
	if (c->rd == NULL || c->wr == NULL || c->timer == NULL)
		fatal("out of memory");
	c->next = s->clients;
	if (s->clients)
		s->clients->prev = c;
	s->clients = c;
	s->nclients++;
	event_add(c->rd, NULL);
	tcp_touch(c);
}

/* ---- setup ---------------------------------------------------------------- */

struct dns_server *
dns_server_new(const struct dns_server_opts *opts)
{
	struct dns_server *s = calloc(1, sizeof(*s));

	if (s == NULL)
		fatal("out of memory");
	s->o = *opts;
	return s;
}

static bool
add_socket(struct dns_server *s, int fd, bool tcp)
{
	if (s->nsock == DNS_SERVER_MAX_SOCKETS)
		return false;
	s->ev[s->nsock] = event_new(s->o.base, fd, EV_READ | EV_PERSIST,
	    tcp ? tcp_accept_cb : udp_cb, s);
	if (s->ev[s->nsock] == NULL)
		return false;
	s->fds[s->nsock] = fd;
	s->tcp[s->nsock] = tcp;
	event_add(s->ev[s->nsock], NULL);
	s->nsock++;
	return true;
}

bool
dns_server_add_udp(struct dns_server *s, int fd)
{
	return add_socket(s, fd, false);
}

bool
dns_server_add_tcp(struct dns_server *s, int fd)
{
	return add_socket(s, fd, true);
}

void
dns_server_free(struct dns_server *s)
{
	size_t i;

	if (s == NULL)
		return;
	while (s->clients)
		tcp_client_close(s->clients);
	while (s->pending)
		pending_free(s->pending);
	for (i = 0; i < s->nsock; i++) {
		event_free(s->ev[i]);
		close(s->fds[i]);
	}
	free(s);
}

void
dns_server_get_stats(const struct dns_server *s, struct dns_server_stats *st)
{
	*st = s->st;
}
