/* SPDX-License-Identifier: ISC */
/*
 * The decide -> resolve -> validate -> connect pipeline. Owns the upstream
 * socket until it is handed over connected, and the decision record; leaves
 * the client side (replies, relaying) to the sessions.
 *
 *   start --decide--> [hash] --decide--> resolve --validate--> connect --> cb
 *             \ deny ----------------------------------------------------/
 */
#include <errno.h>
#include <stdarg.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "audit.h"
#include "caller.h"
#include "daemon.h"
#include "exehash.h"
#include "log.h"
#include "policy.h"
#include "resolve.h"
#include "target.h"

struct target {
	struct daemon *d;
	struct caller *caller;
	struct target_req req;
	struct hostname host;
	struct addr src, orig_dst;
	struct target_result res;
	struct policy *policy;
	struct resolve_req *rq;
	struct exehash_req *hq;
	struct event *ev;    /* connect writable, or the finish trigger */
	struct event *timer; /* connect timeout */
	struct addr addrs[RESOLVE_MAX_ADDRS];
	size_t naddrs, next;
	bool hashed;
	bool finishing;
	char detail[640];
	void (*cb)(struct target_result *, void *);
	void *arg;
};

static void target_resolve(struct target *t);
static void target_connect_next(struct target *t);

static void
target_free(struct target *t)
{
	if (t->rq)
		resolve_cancel(t->rq);
	if (t->hq)
		exehash_cancel(t->hq);
	if (t->ev)
		event_free(t->ev);
	if (t->timer)
		event_free(t->timer);
	if (t->res.fd != -1)
		close(t->res.fd);
	policy_unref(t->res.policy);
	free(t);
}

static void
record(struct target *t, enum audit_activity act, enum verdict v,
    enum reason why, const char *text, const char *hint, const char *detail)
{
	const struct decision *dec = &t->res.dec;
	struct audit_record r;

	memset(&r, 0, sizeof(r));
	r.activity = act;
	r.conn_id = t->req.conn_id;
	r.ingress = t->req.ingress;
	r.src = t->req.src ? &t->src : NULL;
	r.src_port = t->req.src_port;
	r.host = t->host.name;
	r.port = t->req.port;
	r.dst = t->res.connected ? &t->res.dst : NULL;
	r.pid = t->caller->pid;
	r.uid = t->caller->uid;
	r.exe = t->caller->exe ? t->caller->exe->path : NULL;
	r.cmdline = t->caller->cmdline;
	r.invoked_as = t->caller->invoked_as;
	r.verdict = v;
	r.reason = why;
	r.mode = dec->mode;
	r.overridden = dec->overridden;
	r.policy = dec->block ? dec->block->key : NULL;
	r.endpoint = dec->endpoint ? dec->endpoint->host_text : NULL;
	r.reason_text = text;
	r.hint = hint;
	r.detail = detail              ? detail :
	    t->caller->identity_detail ? t->caller->identity_detail :
	                                 NULL;
	r.generation = t->res.policy ? t->res.policy->generation : 0;
	audit_log(t->d->audit, &r);
}

static void
finish_cb(evutil_socket_t fd, short what, void *arg)
{
	struct target *t = arg;

	(void)fd;
	(void)what;
	t->res.detail = t->detail[0] ? t->detail : NULL;
	t->cb(&t->res, t->arg);
	/* the callback took the fd and the policy reference */
	t->res.fd = -1;
	t->res.policy = NULL;
	target_free(t);
}

/* Ends the pipeline; the callback runs from the loop. */
static void
target_finish(struct target *t)
{
	if (t->finishing)
		return;
	t->finishing = true;
	if (t->timer)
		event_del(t->timer);
	if (t->ev)
		event_free(t->ev);
	t->ev = event_new(t->d->base, -1, 0, finish_cb, t);
	if (t->ev == NULL)
		fatal("out of memory");
	event_active(t->ev, 0, 0);
}

/* A refusal after the policy decision (DNS, addresses, connect). */
static void target_fail(struct target *t, enum reason why, int status,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
target_fail(struct target *t, enum reason why, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->detail, sizeof(t->detail), fmt, ap);
	va_end(ap);
	t->res.reason = why;
	t->res.http_status = status;
	if (t->res.fd != -1) {
		close(t->res.fd);
		t->res.fd = -1;
	}
	record(t, AUDIT_OPEN, VERDICT_DENY, why, reason_text(why), NULL,
	    t->detail);
	target_finish(t);
}

bool
target_passes(const struct target_result *res)
{
	return res->dec.verdict != VERDICT_DENY;
}

static void target_decide(struct target *t);

static void
hash_cb(bool ok, const uint8_t digest[32], void *arg)
{
	struct target *t = arg;
	struct caller *c = t->caller;

	t->hq = NULL;
	if (ok) {
		memcpy(c->sha256, digest, 32);
		c->has_sha256 = true;
	}
	target_decide(t);
}

/* Starts hashing the caller's executable; false when it cannot. */
static bool
start_hash(struct target *t)
{
	struct caller *c = t->caller;
	char path[64];
	int fd;

	if (!c->has_key || c->pid <= 0)
		return false;
	if (exehash_lookup(t->d->hash, &c->exe_key, c->sha256)) {
		c->has_sha256 = true;
		return false; /* known: decide again right away */
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)c->pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	t->hq = exehash_start(t->d->hash, fd, &c->exe_key, hash_cb, t);
	return t->hq != NULL;
}

static void
target_decide(struct target *t)
{
	struct daemon *d = t->d;
	struct caller *c = t->caller;
	struct decide_caller view;
	struct decide_dest dest;
	struct decision *dec = &t->res.dec;

	caller_view(c, t->req.src ? &t->src : NULL, &view);
	dest.host = &t->host;
	dest.port = t->req.port;
	dest.source = t->req.source;
	/* Hash first when trust-on-first-use wants every executable's
	 * digest; otherwise only when the policy pins one for this exe. */
	if (!t->hashed && c->exe && !c->has_sha256 && d->cfg.tofu) {
		t->hashed = true;
		if (start_hash(t))
			return;
	}
	decide(t->res.policy, &view, &dest, d->cfg.override, dec);
	if (dec->reason == REASON_BINARY_HASH_UNAVAILABLE && !t->hashed) {
		t->hashed = true;
		if (start_hash(t))
			return;
		if (c->has_sha256) {
			/* the digest was cached: decide again with it */
			caller_view(c, t->req.src ? &t->src : NULL, &view);
			decide(
			    t->res.policy, &view, &dest, d->cfg.override, dec);
		}
	}
	if (d->cfg.tofu && c->has_sha256 && dec->verdict == VERDICT_ALLOW &&
	    !exehash_tofu_check(d->hash, c->exe->path, c->sha256)) {
		dec->verdict = d->cfg.override == DECIDE_MODE_AUDIT ?
		    VERDICT_AUDIT :
		    VERDICT_DENY;
		dec->reason = REASON_BINARY_HASH_MISMATCH;
		snprintf(dec->reason_text, sizeof(dec->reason_text),
		    "the SHA-256 of %s differs from the one seen first (trust on first use)",
		    c->exe->path);
		snprintf(dec->hint, sizeof(dec->hint),
		    "the executable changed on disk since egressd first saw it; restart egressd to trust the new one if the change is expected");
	}
	record(t, AUDIT_OPEN, dec->verdict, dec->reason, dec->reason_text,
	    dec->hint, NULL);
	if (dec->verdict == VERDICT_DENY) {
		t->res.reason = dec->reason;
		t->res.http_status = 403;
		target_finish(t);
		return;
	}
	t->res.reason = REASON_ALLOWED;
	target_resolve(t);
}

static bool
in_list(const struct addr *a, const struct addr *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addr_equal(a, &list[i]))
			return true;
	return false;
}

static void
validate(struct target *t, const struct addr *in, size_t nin)
{
	const struct policy_endpoint *ep =
	    t->res.dec.verdict == VERDICT_ALLOW ? t->res.dec.endpoint : NULL;
	enum addr_class worst;
	char buf[ADDR_STRLEN];
	struct cidr allowed[65];
	size_t nallowed = 0, i;

	/* What the endpoint opens: its allowed_ips, and for an IP or CIDR
	 * endpoint the range it names (the author asked for exactly that
	 * address; loopback, link-local and metadata stay closed) */
	for (i = 0; ep && i < ep->nallowed_ips && nallowed < 64; i++)
		allowed[nallowed++] = ep->allowed_ips[i];
	if (ep &&
	    (ep->host.kind == HOSTPAT_IP || ep->host.kind == HOSTPAT_CIDR))
		allowed[nallowed++] = ep->host.cidr;
	t->naddrs =
	    resolve_validate(in, nin, allowed, nallowed, t->d->cfg.trust,
	        t->d->cfg.ntrust, t->addrs, RESOLVE_MAX_ADDRS, &worst);
	if (t->naddrs == 0) {
		if (nin > 0)
			target_fail(t, REASON_NON_PUBLIC_ADDRESS, 502,
			    "%s resolves only to %s addresses (%s); add them to the endpoint's allowed_ips if that is intended",
			    t->host.name, addr_class_name(worst),
			    addr_format(&in[0], buf));
		else
			target_fail(t, REASON_DNS_FAILED, 502,
			    "no address for %s", t->host.name);
		return;
	}
	if (t->req.orig_dst) {
		if (in_list(&t->orig_dst, t->addrs, t->naddrs)) {
			/* dial exactly what the client asked for */
			t->addrs[0] = t->orig_dst;
			t->naddrs = 1;
		} else {
			char b2[ADDR_STRLEN];

			/* the client aimed elsewhere than the name says (SNI
			 * or Host spoofing): the name's own address is dialed
			 * instead, and the attempt is on record */
			snprintf(t->detail, sizeof(t->detail),
			    "original destination %s is not among the validated addresses of %s; dialing %s",
			    addr_format(&t->orig_dst, buf), t->host.name,
			    addr_format(&t->addrs[0], b2));
			record(t, AUDIT_OPEN, t->res.dec.verdict,
			    REASON_DESTINATION_MISMATCH,
			    reason_text(REASON_DESTINATION_MISMATCH), NULL,
			    t->detail);
		}
	}
	t->next = 0;
	target_connect_next(t);
}

static void
resolve_cb(const struct resolve_result *res, void *arg)
{
	struct target *t = arg;

	t->rq = NULL;
	if (!res->cached)
		histogram_add(&t->d->stats.dns_us, res->elapsed_us);
	switch (res->status) {
	case RESOLVE_OK:
		validate(t, res->addrs, res->naddrs);
		return;
	case RESOLVE_NXDOMAIN:
		target_fail(t, REASON_DNS_FAILED, 502,
		    "%s does not exist (NXDOMAIN)", t->host.name);
		return;
	case RESOLVE_NODATA:
		target_fail(t, REASON_DNS_FAILED, 502,
		    "%s has no A or AAAA records", t->host.name);
		return;
	case RESOLVE_TIMEOUT:
		target_fail(t, REASON_TIMEOUT, 504, "resolving %s timed out",
		    t->host.name);
		return;
	case RESOLVE_FAILED:
		break;
	}
	target_fail(
	    t, REASON_DNS_FAILED, 502, "resolving %s failed", t->host.name);
}

static void
target_resolve(struct target *t)
{
	if (t->host.kind != HOSTNAME_NAME) {
		validate(t, &t->host.addr, 1);
		return;
	}
	t->rq = resolve_start(t->d->resolver, t->host.name, resolve_cb, t);
	if (t->rq == NULL)
		target_fail(t, REASON_DNS_FAILED, 502, "out of memory");
}

static void
connect_done(struct target *t, int err)
{
	char buf[ADDR_STRLEN];

	event_del(t->timer);
	if (err == 0) {
		t->res.connected = true;
		t->res.dst = t->addrs[t->next - 1];
		target_finish(t);
		return;
	}
	close(t->res.fd);
	t->res.fd = -1;
	if (t->next < t->naddrs) {
		target_connect_next(t);
		return;
	}
	if (err == ETIMEDOUT)
		target_fail(t, REASON_TIMEOUT, 504,
		    "connecting to %s port %u timed out",
		    addr_format(&t->addrs[t->next - 1], buf), t->req.port);
	else
		target_fail(t, REASON_CONNECT_FAILED, 502,
		    "connecting to %s port %u: %s",
		    addr_format(&t->addrs[t->next - 1], buf), t->req.port,
		    strerror(err));
}

static void
connect_cb(evutil_socket_t fd, short what, void *arg)
{
	struct target *t = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	if (what & EV_TIMEOUT) {
		connect_done(t, ETIMEDOUT);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	connect_done(t, err);
}

static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct target *t = arg;

	(void)fd;
	(void)what;
	if (t->ev)
		event_del(t->ev);
	connect_done(t, ETIMEDOUT);
}

static void
target_connect_next(struct target *t)
{
	struct sockaddr_storage ss;
	const struct addr *a = &t->addrs[t->next++];
	unsigned sslen = addr_to_sockaddr(a, t->req.port, &ss);
	struct timeval tv;
	int one = 1, fd;

	fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		t->res.fd = -1;
		target_fail(t, REASON_CONNECT_FAILED, 502, "socket: %s",
		    strerror(errno));
		return;
	}
	t->res.fd = fd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&ss, sslen) == 0) {
		if (t->timer == NULL)
			t->timer = evtimer_new(t->d->base, timeout_cb, t);
		connect_done(t, 0);
		return;
	}
	if (errno != EINPROGRESS) {
		if (t->timer == NULL)
			t->timer = evtimer_new(t->d->base, timeout_cb, t);
		connect_done(t, errno);
		return;
	}
	if (t->ev)
		event_free(t->ev);
	t->ev = event_new(t->d->base, fd, EV_WRITE, connect_cb, t);
	if (t->timer == NULL)
		t->timer = evtimer_new(t->d->base, timeout_cb, t);
	if (t->ev == NULL || t->timer == NULL)
		fatal("out of memory");
	tv.tv_sec = t->d->cfg.connect_timeout_ms / 1000;
	tv.tv_usec = (t->d->cfg.connect_timeout_ms % 1000) * 1000;
	event_add(t->ev, NULL);
	event_add(t->timer, &tv);
}

struct target *
target_start(struct daemon *d, struct caller *caller,
    const struct target_req *req,
    void (*cb)(struct target_result *res, void *arg), void *arg)
{
	struct target *t = calloc(1, sizeof(*t));

	if (t == NULL)
		fatal("out of memory");
	t->d = d;
	t->caller = caller;
	t->req = *req;
	t->host = *req->host;
	t->req.host = &t->host;
	if (req->src)
		t->src = *req->src;
	if (req->orig_dst) {
		t->orig_dst = *req->orig_dst;
		t->req.orig_dst = &t->orig_dst;
	}
	t->cb = cb;
	t->arg = arg;
	t->res.fd = -1;
	t->res.policy = policy_ref(d->policy);
	target_decide(t);
	return t;
}

void
target_cancel(struct target *t)
{
	if (t)
		target_free(t);
}
