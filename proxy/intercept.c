/* SPDX-License-Identifier: ISC */
/*
 * Intercepted tunnels. Owns both TLS bufferevents and the request loop;
 * leaves certificates to tls_ca.c, framing to http_parse.c / http_body.c and
 * the request decision to policies/l7.c.
 *
 *   client --TLS (our leaf)--> [head: decide] --TLS (verified)--> upstream
 *   client --plain HTTP------> [head: decide] --plain HTTP------> upstream
 *          (transparent connections to a port that does not carry TLS)
 *
 *   HANDSHAKE --both sides up--> REQ_HEAD --allowed--> EXCHANGE --> REQ_HEAD
 *                                   \--denied (enforce)--> discard body,
 *                                      403 with JSON, connection stays usable
 *   EXCHANGE --101 to an allowed upgrade--> UPGRADED (raw both ways)
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/bufferevent_struct.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "clock.h"
#include "daemon.h"
#include "http_body.h"
#include "http_parse.h"
#include "intercept.h"
#include "l7.h"
#include "log.h"
#include "policy.h"
#include "request.h"
#include "session.h"
#include "strbuf.h"
#include "tls_ca.h"

#define IC_HEAD_MAX   (16u << 10)
#define IC_BUF_HIGH   (256u << 10)
#define IC_BUF_LOW    (64u << 10)
#define IC_IO_MAX     (256 << 10) /* bytes per read or write call */
#define IC_READ_AHEAD (64u << 10) /* upstream TLS bytes per read(2) */

enum ic_state {
	IC_HANDSHAKE,
	IC_REQ_HEAD,
	IC_EXCHANGE,
	IC_DISCARD, /* a denied request's body, then the 403 */
	IC_UPGRADED,
	IC_CLOSING, /* flushing a last response */
};

struct intercept {
	struct session *s;
	struct bufferevent *cbev; /* TLS server side (over the client socket) */
	struct bufferevent *under; /* the client socket under cbev */
	struct event *linger;     /* closing: waits for both outputs to drain */
	struct bufferevent *ubev; /* TLS client side (to upstream) */
	enum ic_state state;
	bool tls; /* false: plain HTTP (transparent, port 80 etc.) */
	bool client_up, upstream_up;
	char upstream_err[256]; /* why the upstream handshake failed */
	const struct policy_endpoint *eps[INTERCEPT_MAX_ENDPOINTS];
	size_t neps;
	struct http_request *req;
	enum http_method method;
	bool req_keep_alive, upgrade;
	struct http_body req_body, resp_body;
	bool resp_head_done, resp_keep_alive;
	struct strbuf deny;       /* the 403 waiting for the denied body */
	struct l7_request *l7req; /* scratch of the request decision */
	struct policy *policy;    /* holds eps alive */
	uint64_t last_ms;
};

static void client_read_cb(struct bufferevent *bev, void *arg);
static void upstream_read_cb(struct bufferevent *bev, void *arg);
static void exchange(struct intercept *ic);
static void upstream_kick(struct intercept *ic);
static void next_request(struct intercept *ic);

uint64_t
intercept_last_active_ms(const struct intercept *ic)
{
	return ic->last_ms;
}

/* The upstream bufferevent does not own the socket (the session closes
 * it), so it does not own its SSL either: both go here. */
static void
free_upstream(struct intercept *ic)
{
	SSL *ssl;

	if (ic->ubev == NULL)
		return;
	ssl = ic->tls ? bufferevent_openssl_get_ssl(ic->ubev) : NULL;
	bufferevent_free(ic->ubev);
	ic->ubev = NULL;
	SSL_free(ssl);
}

void
intercept_free(struct intercept *ic)
{
	if (ic == NULL)
		return;
	if (ic->linger)
		event_free(ic->linger);
	if (ic->cbev)
		bufferevent_free(ic->cbev);
	free_upstream(ic);
	strbuf_free(&ic->deny);
	free(ic->l7req);
	free(ic->req);
	policy_unref(ic->policy);
	free(ic);
}

static void
record(struct intercept *ic, const char *method, const char *path,
    enum verdict v, enum reason why, enum policy_enforcement mode,
    const char *policy, const char *text, const char *hint, const char *detail)
{
	request_record(
	    ic->s, method, path, v, why, mode, policy, text, hint, detail);
}

/*
 * Closing: the last response must reach the client first. With a TLS filter
 * the bytes go from cbev's output through OpenSSL into the socket
 * bufferevent's output, so both must be empty (checked from a short timer;
 * bounded, a client that never reads is dropped).
 */
static void
linger_cb(evutil_socket_t fd, short what, void *arg)
{
	struct intercept *ic = arg;
	struct timeval tick = {0, 20000};

	(void)fd;
	(void)what;
	if ((evbuffer_get_length(bufferevent_get_output(ic->cbev)) == 0 &&
	        (ic->under == NULL ||
	            evbuffer_get_length(bufferevent_get_output(ic->under)) ==
	                0)) ||
	    clock_ms() - ic->last_ms > 5000) {
		session_close(ic->s, ic->s->reason);
		return;
	}
	event_add(ic->linger, &tick);
}

static void
close_when_flushed_cb(struct bufferevent *bev, void *arg)
{
	struct intercept *ic = arg;

	(void)bev;
	if (ic->linger == NULL &&
	    (ic->linger = evtimer_new(ic->s->d->base, linger_cb, ic)) == NULL)
		fatal("out of memory");
	ic->last_ms = clock_ms();
	linger_cb(-1, 0, ic);
}

/* A response of ours (403, 400, 502) with a JSON body. */
static void
json_response(struct strbuf *out, int status, const char *status_text,
    enum reason why, const char *method, const char *path, const char *text,
    const char *hint, const char *detail, bool keep_alive)
{
	struct strbuf body;
	bool first = true;

	session_error_body(&body, &first, status, why, text);
	if (method) {
		strbuf_json_key(&body, &first, "method");
		strbuf_json_str(&body, method);
	}
	if (path) {
		strbuf_json_key(&body, &first, "path");
		strbuf_json_str(&body, path);
	}
	if (hint && *hint) {
		strbuf_json_key(&body, &first, "hint");
		strbuf_json_str(&body, hint);
	}
	if (detail && *detail) {
		strbuf_json_key(&body, &first, "detail");
		strbuf_json_str(&body, detail);
	}
	strbuf_puts(&body, "}\n");
	strbuf_printf(out,
	    "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nX-Egressd-Reason: %s\r\nContent-Length: %zu\r\nConnection: %s\r\n\r\n%s",
	    status, status_text, reason_code(why), body.len,
	    keep_alive ? "keep-alive" : "close", strbuf_str(&body));
	strbuf_free(&body);
}

/* Answers with an error and closes once the client has it. */
static void
fail(struct intercept *ic, int status, const char *status_text, enum reason why,
    const char *text, const char *detail)
{
	struct strbuf out;

	ic->state = IC_CLOSING;
	ic->s->reason = why;
	strbuf_init(&out, 0);
	json_response(&out, status, status_text, why, NULL, NULL, text, NULL,
	    detail, false);
	if (ic->ubev)
		bufferevent_disable(ic->ubev, EV_READ);
	bufferevent_disable(ic->cbev, EV_READ);
	bufferevent_write(ic->cbev, out.s, out.len);
	strbuf_free(&out);
	bufferevent_setcb(ic->cbev, NULL, close_when_flushed_cb, NULL, ic);
}

/* ---- the request decision ------------------------------------------------- */

struct ic_verdict {
	enum verdict verdict;
	struct l7_decision d;
};

static void
decide_request(struct intercept *ic, const char *method, const char *target,
    size_t target_len, struct ic_verdict *out)
{
	out->verdict = request_decide(ic->s, ic->eps, ic->neps, method, target,
	    target_len, ic->upgrade, ic->l7req, &out->d);
}

/* ---- the request loop ----------------------------------------------------- */

static bool
host_matches(const struct intercept *ic, const struct http_request *req)
{
	const struct session *s = ic->s;
	uint16_t port;

	if (!req->has_host)
		return req->version == HTTP_VERSION_1_0;
	port = req->host_hdr_port ? req->host_hdr_port : ic->tls ? 443 : 80;
	return port == s->port && strcmp(req->host_hdr.name, s->host) == 0;
}

/* The denied request's body is skipped, then the 403 goes out; the
 * connection stays usable (keep-alive). */
static void
discard(struct intercept *ic)
{
	struct evbuffer *cin = bufferevent_get_input(ic->cbev);
	uint64_t dropped = 0;

	if (!http_body_move(&ic->req_body, cin, NULL, &dropped, false)) {
		fail(ic, 400, "Bad Request", REASON_BAD_REQUEST, NULL,
		    "malformed request body framing");
		return;
	}
	if (!ic->req_body.done)
		return;
	bufferevent_write(ic->cbev, ic->deny.s, ic->deny.len);
	strbuf_reset(&ic->deny);
	if (!ic->req_keep_alive) {
		ic->state = IC_CLOSING;
		bufferevent_disable(ic->cbev, EV_READ);
		bufferevent_setcb(
		    ic->cbev, NULL, close_when_flushed_cb, NULL, ic);
		return;
	}
	ic->state = IC_REQ_HEAD;
	next_request(ic);
}

/*
 * Sends the request head upstream with its target replaced by the
 * canonical form the decision was made on (path, then '?' and the query as
 * sent), so that a server normalizing paths another way still sees the
 * path egressd allowed; the rest of the head goes as sent. A target that
 * is already canonical, or that could not be canonicalized (audit lets it
 * through as would_deny), goes unchanged. Returns the bytes sent.
 */
static size_t
forward_head(struct intercept *ic, const uint8_t *head, const char *target,
    bool canonical)
{
	const struct http_request *req = ic->req;
	const struct l7_request *lr = ic->l7req;
	struct evbuffer *uout = bufferevent_get_output(ic->ubev);
	struct evbuffer *cin = bufferevent_get_input(ic->cbev);
	size_t head_len = req->head_len, tail_off, clen, qlen = 0;
	const char *q = NULL;

	clen = lr->target.path_len;
	if (lr->target.has_query) {
		q = target + lr->target.query.off;
		qlen = lr->target.query.len;
	}
	if (!canonical || clen == 0 ||
	    (clen + (q ? 1 + qlen : 0) == req->target.len &&
	        memcmp(head + req->target.off, lr->path, clen) == 0 &&
	        (q == NULL ||
	            memcmp(head + req->target.off + clen + 1, q, qlen) == 0))) {
		evbuffer_remove_buffer(cin, uout, head_len);
		return head_len;
	}
	tail_off = req->target.off + req->target.len;
	evbuffer_add(uout, head, req->target.off);
	evbuffer_add(uout, lr->path, clen);
	if (q) {
		evbuffer_add(uout, "?", 1);
		evbuffer_add(uout, q, qlen);
	}
	evbuffer_add(uout, head + tail_off, head_len - tail_off);
	evbuffer_drain(cin, head_len);
	return head_len - req->target.len + clen + (q ? 1 + qlen : 0);
}

static void
next_request(struct intercept *ic)
{
	struct session *s = ic->s;
	struct evbuffer *cin = bufferevent_get_input(ic->cbev);
	size_t len = evbuffer_get_length(cin), plen;
	struct ic_verdict v;
	const char *method, *path;
	char mbuf[HTTP_MAX_METHOD_LEN + 1], pbuf[HTTP_MAX_TARGET_LEN + 1];
	enum http_result r;
	uint8_t *p;

	if (ic->state != IC_REQ_HEAD || len == 0)
		return;
	if (!ic->upstream_up) {
		if (ic->upstream_err[0])
			fail(ic, 502, "Bad Gateway", REASON_UPSTREAM_TLS_FAILED,
			    NULL, ic->upstream_err);
		return; /* wait for the upstream handshake */
	}
	if (len > IC_HEAD_MAX)
		len = IC_HEAD_MAX;
	p = evbuffer_pullup(cin, (ev_ssize_t)len);
	r = http_parse_request(p, len, IC_HEAD_MAX, ic->req, NULL);
	if (r == HTTP_NEED_MORE)
		return;
	if (r != HTTP_OK) {
		enum reason why = r == HTTP_ERR_UNSUPPORTED_VERSION ||
		        r == HTTP_ERR_BAD_VERSION ?
		    REASON_PROTOCOL_NOT_ALLOWED :
		    REASON_BAD_REQUEST;

		record(ic, NULL, NULL, VERDICT_DENY, why, ENFORCE_ENFORCE,
		    s->policy_key, reason_text(why), NULL, http_strerror(r));
		fail(ic, http_error_status(r), "Bad Request", why,
		    why == REASON_PROTOCOL_NOT_ALLOWED ?
		        "only HTTP/1.1 can be inspected (HTTP/2 prior knowledge is refused)" :
		        NULL,
		    http_strerror(r));
		return;
	}
	ic->method = ic->req->method;
	ic->req_keep_alive = ic->req->keep_alive;
	ic->upgrade = ic->req->upgrade;
	snprintf(mbuf, sizeof(mbuf), "%.*s", (int)ic->req->method_span.len,
	    (const char *)p + ic->req->method_span.off);
	method = mbuf;
	path = http_request_path(ic->req, p, &plen);
	snprintf(
	    pbuf, sizeof(pbuf), "%.*s", path ? (int)plen : 0, path ? path : "");
	http_body_init(
	    &ic->req_body, ic->req->framing, ic->req->content_length);
	if (!host_matches(ic, ic->req)) {
		char detail[2 * HOSTNAME_MAX + 64];

		snprintf(detail, sizeof(detail),
		    "Host %s inside a tunnel decided for %s",
		    ic->req->has_host ? ic->req->host_hdr.name : "(none)",
		    s->host);
		record(ic, method, pbuf, VERDICT_DENY, REASON_HOST_MISMATCH,
		    ENFORCE_ENFORCE, s->policy_key,
		    reason_text(REASON_HOST_MISMATCH), NULL, detail);
		fail(ic, 403, "Forbidden", REASON_HOST_MISMATCH, NULL, detail);
		return;
	}
	decide_request(ic, method, pbuf, strlen(pbuf), &v);
	record(ic, method, pbuf, v.verdict, v.d.reason, v.d.mode, s->policy_key,
	    v.d.reason_text, v.d.hint[0] ? v.d.hint : NULL,
	    v.d.by_text[0] ? v.d.by_text : NULL);
	if (v.verdict == VERDICT_DENY) {
		/* the head goes, the body is skipped, then the 403 */
		evbuffer_drain(cin, ic->req->head_len);
		strbuf_reset(&ic->deny);
		json_response(&ic->deny, 403, "Forbidden", v.d.reason, method,
		    pbuf, v.d.reason_text, v.d.hint, NULL, ic->req_keep_alive);
		ic->state = IC_DISCARD;
		discard(ic);
		return;
	}
	/* allowed (or audit): upstream gets the path that was decided on */
	s->fwd_bytes_up += forward_head(ic, p, pbuf, v.d.by != L7_BY_PATH);
	ic->resp_head_done = false;
	ic->state = IC_EXCHANGE;
	exchange(ic);
}

static void
exchange(struct intercept *ic)
{
	struct session *s = ic->s;
	struct evbuffer *cin, *cout, *uin, *uout;

	if (ic->state != IC_EXCHANGE)
		return;
	cin = bufferevent_get_input(ic->cbev);
	cout = bufferevent_get_output(ic->cbev);
	uin = bufferevent_get_input(ic->ubev);
	uout = bufferevent_get_output(ic->ubev);
	ic->last_ms = clock_ms();
	if (!http_body_move(
	        &ic->req_body, cin, uout, &s->fwd_bytes_up, false)) {
		fail(ic, 400, "Bad Request", REASON_BAD_REQUEST, NULL,
		    "malformed request body framing");
		return;
	}
	while (!ic->resp_head_done && evbuffer_get_length(uin) > 0) {
		struct http_response resp;
		size_t len = evbuffer_get_length(uin);
		enum http_result r;

		if (len > IC_HEAD_MAX)
			len = IC_HEAD_MAX;
		r = http_parse_response(evbuffer_pullup(uin, (ev_ssize_t)len),
		    len, IC_HEAD_MAX, ic->method, &resp, NULL);
		if (r == HTTP_NEED_MORE)
			break;
		if (r != HTTP_OK) {
			fail(ic, 502, "Bad Gateway", REASON_CONNECT_FAILED,
			    NULL, http_strerror(r));
			return;
		}
		evbuffer_remove_buffer(uin, cout, resp.head_len);
		s->fwd_bytes_down += resp.head_len;
		if (resp.status == 101 && ic->upgrade) {
			/* the upgrade was decided with the request: from now
			 * on both directions are opaque */
			ic->state = IC_UPGRADED;
			evbuffer_add_buffer(cout, uin);
			evbuffer_add_buffer(uout, cin);
			return;
		}
		if (resp.status >= 100 && resp.status < 200)
			continue; /* interim: the final response follows */
		ic->resp_head_done = true;
		ic->resp_keep_alive = resp.keep_alive;
		http_body_init(
		    &ic->resp_body, resp.framing, resp.content_length);
	}
	if (ic->resp_head_done &&
	    !http_body_move(
	        &ic->resp_body, uin, cout, &s->fwd_bytes_down, false)) {
		session_close(s, REASON_CONNECT_FAILED);
		return;
	}
	/* backpressure both ways */
	if (evbuffer_get_length(uout) > IC_BUF_HIGH || ic->req_body.done)
		bufferevent_disable(ic->cbev, EV_READ);
	else
		bufferevent_enable(ic->cbev, EV_READ);
	if (evbuffer_get_length(cout) > IC_BUF_HIGH)
		bufferevent_disable(ic->ubev, EV_READ);
	else {
		bufferevent_enable(ic->ubev, EV_READ);
		upstream_kick(ic);
	}
	if (!(ic->req_body.done && ic->resp_head_done && ic->resp_body.done))
		return;
	if (!ic->req_keep_alive || !ic->resp_keep_alive ||
	    ic->resp_body.framing == HTTP_FRAMING_CLOSE) {
		ic->state = IC_CLOSING;
		bufferevent_disable(ic->ubev, EV_READ);
		bufferevent_setcb(
		    ic->cbev, NULL, close_when_flushed_cb, NULL, ic);
		close_when_flushed_cb(ic->cbev, ic);
		return;
	}
	ic->state = IC_REQ_HEAD;
	bufferevent_enable(ic->cbev, EV_READ);
	next_request(ic);
}

static void
client_read_cb(struct bufferevent *bev, void *arg)
{
	struct intercept *ic = arg;

	ic->last_ms = clock_ms();
	switch (ic->state) {
	case IC_REQ_HEAD:
		if (evbuffer_get_length(bufferevent_get_input(bev)) >
		    IC_HEAD_MAX) {
			fail(ic, 431, "Request Header Fields Too Large",
			    REASON_BAD_REQUEST, NULL,
			    "request head larger than 16 KiB");
			return;
		}
		next_request(ic);
		break;
	case IC_DISCARD:
		discard(ic);
		break;
	case IC_EXCHANGE:
		exchange(ic);
		break;
	case IC_UPGRADED:
		evbuffer_add_buffer(bufferevent_get_output(ic->ubev),
		    bufferevent_get_input(bev));
		break;
	default:
		break;
	}
}

/*
 * Upstream TLS reads ahead: OpenSSL reads what the socket holds (up to
 * IC_IO_MAX) in one read(2), where it would otherwise read each record's
 * header and body separately (two system calls, and an ACK, per 16 KiB).
 * libevent's socket-based TLS bufferevent reads a record or two per
 * readiness and knows only SSL_pending(), not records OpenSSL has read
 * ahead: once the socket is empty, those would wait for its next readiness,
 * which may never come. So whenever the upstream may be read, records
 * already buffered are read from the loop as if the socket were readable.
 */
static void
upstream_kick(struct intercept *ic)
{
	SSL *ssl;

	if (!ic->tls || ic->ubev == NULL || !ic->upstream_up ||
	    !(bufferevent_get_enabled(ic->ubev) & EV_READ))
		return;
	ssl = bufferevent_openssl_get_ssl(ic->ubev);
	if (ssl && SSL_has_pending(ssl))
		event_active(&ic->ubev->ev_read, EV_READ, 1);
}

static void
upstream_read_cb(struct bufferevent *bev, void *arg)
{
	struct intercept *ic = arg;

	ic->last_ms = clock_ms();
	if (ic->state == IC_UPGRADED) {
		evbuffer_add_buffer(bufferevent_get_output(ic->cbev),
		    bufferevent_get_input(bev));
		upstream_kick(ic);
	} else if (ic->state == IC_EXCHANGE)
		exchange(ic); /* kicks; ic may be gone after it */
}

static void
drained_cb(struct bufferevent *bev, void *arg)
{
	struct intercept *ic = arg;

	(void)bev;
	if (ic->state == IC_EXCHANGE)
		exchange(ic);
}

static void
tls_error(struct bufferevent *bev, char *buf, size_t len)
{
	unsigned long e = bufferevent_get_openssl_error(bev);
	SSL *ssl = bufferevent_openssl_get_ssl(bev);
	long vr = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;

	if (vr != X509_V_OK)
		snprintf(buf, len, "certificate verification failed: %s",
		    X509_verify_cert_error_string(vr));
	else if (e)
		ERR_error_string_n(e, buf, len);
	else
		snprintf(buf, len, "TLS handshake failed (connection closed)");
}

static void
client_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct intercept *ic = arg;
	struct session *s = ic->s;
	char err[256];

	if (what & BEV_EVENT_CONNECTED) {
		ic->client_up = true;
		ic->state = IC_REQ_HEAD;
		next_request(ic);
		return;
	}
	if (!ic->client_up && (what & BEV_EVENT_ERROR)) {
		/* most often: the client does not trust egressd's CA */
		tls_error(bev, err, sizeof(err));
		record(ic, NULL, NULL, VERDICT_DENY, REASON_TLS_HELLO_INVALID,
		    ENFORCE_ENFORCE, s->policy_key,
		    "the client's TLS handshake with egressd failed (does the sandbox trust egressd's CA?)",
		    s->d->ca ? tls_ca_bundle_path(s->d->ca) : NULL, err);
	}
	session_close(s,
	    (what & BEV_EVENT_ERROR) ? REASON_CONNECT_FAILED : REASON_ALLOWED);
}

static void
upstream_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct intercept *ic = arg;
	struct session *s = ic->s;

	if (what & BEV_EVENT_CONNECTED) {
		ic->upstream_up = true;
		if (ic->tls)
			tls_ca_upstream_done(
			    s->d->ca, bufferevent_openssl_get_ssl(bev));
		next_request(ic);
		return;
	}
	if (!ic->upstream_up && (what & BEV_EVENT_ERROR)) {
		/* the real server is not who it says: refuse, whatever the
		 * mode (nothing could be forwarded faithfully) */
		tls_error(bev, ic->upstream_err, sizeof(ic->upstream_err));
		record(ic, NULL, NULL, VERDICT_DENY, REASON_UPSTREAM_TLS_FAILED,
		    ENFORCE_ENFORCE, s->policy_key,
		    reason_text(REASON_UPSTREAM_TLS_FAILED),
		    "the upstream certificate must chain to a trusted root and name the host (egressd --upstream-ca adds roots)",
		    ic->upstream_err);
		free_upstream(ic);
		if (ic->client_up)
			fail(ic, 502, "Bad Gateway", REASON_UPSTREAM_TLS_FAILED,
			    NULL, ic->upstream_err);
		return;
	}
	if (ic->state == IC_EXCHANGE && (what & BEV_EVENT_EOF) &&
	    ic->resp_head_done && ic->resp_body.framing == HTTP_FRAMING_CLOSE) {
		ic->resp_body.done = true;
		exchange(ic);
		return;
	}
	if (ic->state == IC_EXCHANGE && !ic->resp_head_done) {
		fail(ic, 502, "Bad Gateway", REASON_CONNECT_FAILED, NULL,
		    "the upstream server closed the connection without a response");
		return;
	}
	/* upstream gone between requests or mid-body: end the session once
	 * what we have is flushed */
	if (ic->state == IC_REQ_HEAD || ic->state == IC_UPGRADED) {
		ic->state = IC_CLOSING;
		bufferevent_setcb(
		    ic->cbev, NULL, close_when_flushed_cb, NULL, ic);
		close_when_flushed_cb(ic->cbev, ic);
		return;
	}
	session_close(s, REASON_CONNECT_FAILED);
}

void
intercept_rebind(struct intercept *ic, struct policy *p,
    const struct policy_endpoint *const *eps, size_t neps)
{
	struct policy *old = ic->policy;

	ic->policy = policy_ref(p);
	ic->neps =
	    neps < INTERCEPT_MAX_ENDPOINTS ? neps : INTERCEPT_MAX_ENDPOINTS;
	memcpy(ic->eps, eps, ic->neps * sizeof(*eps));
	policy_unref(old);
}

/* Plain HTTP: both sockets are connected and nothing needs a handshake;
 * the requests already read wait in the client's input. */
static void
start_plain(struct intercept *ic, const uint8_t *held, size_t len)
{
	struct session *s = ic->s;
	struct daemon *d = s->d;

	ic->cbev = bufferevent_socket_new(d->base, s->cfd, 0);
	ic->ubev = bufferevent_socket_new(d->base, s->ufd, 0);
	if (ic->cbev == NULL || ic->ubev == NULL)
		fatal("out of memory");
	/* the input's end is frozen (only the socket adds there) */
	if (len)
		evbuffer_prepend(bufferevent_get_input(ic->cbev), held, len);
	ic->client_up = ic->upstream_up = true;
	ic->state = IC_REQ_HEAD;
}

static bool
start_tls(struct intercept *ic, const uint8_t *held, size_t len)
{
	struct session *s = ic->s;
	struct daemon *d = s->d;
	struct bufferevent *under;
	struct hostname h;
	SSL *cssl, *ussl;

	if (hostname_normalize(s->host, strlen(s->host), &h) != HOSTNAME_OK ||
	    (cssl = tls_ca_server_ssl(d->ca, &h)) == NULL)
		return false;
	if ((ussl = tls_ca_client_ssl(d->ca, &h)) == NULL) {
		SSL_free(cssl);
		return false;
	}
	SSL_set_default_read_buffer_len(ussl, IC_READ_AHEAD);
	SSL_set_read_ahead(ussl, 1);
	/* The client's TLS runs over a plain bufferevent holding the bytes
	 * already read (the ClientHello egressd inspected). */
	under = ic->under = bufferevent_socket_new(d->base, s->cfd, 0);
	if (under == NULL)
		fatal("out of memory");
	if (len)
		evbuffer_prepend(bufferevent_get_input(under), held, len);
	ic->cbev = bufferevent_openssl_filter_new(d->base, under, cssl,
	    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
	ic->ubev = bufferevent_openssl_socket_new(
	    d->base, s->ufd, ussl, BUFFEREVENT_SSL_CONNECTING, 0);
	if (ic->cbev == NULL || ic->ubev == NULL)
		fatal("out of memory");
	/* bulk transfers: fewer, larger system calls than libevent's 16 KiB
	 * default. (Not SSL read-ahead upstream: bytes OpenSSL buffered
	 * would wait for the socket's next readiness.) */
	bufferevent_set_max_single_read(under, IC_IO_MAX);
	bufferevent_set_max_single_write(under, IC_IO_MAX);
	bufferevent_set_max_single_read(ic->ubev, IC_IO_MAX);
	bufferevent_set_max_single_write(ic->ubev, IC_IO_MAX);
	return true;
}

struct intercept *
intercept_start(struct session *s, const struct policy_endpoint *const *eps,
    size_t neps, const uint8_t *held, size_t len, bool tls)
{
	struct intercept *ic = calloc(1, sizeof(*ic));

	if (ic == NULL || (ic->req = malloc(sizeof(*ic->req))) == NULL ||
	    (ic->l7req = malloc(sizeof(*ic->l7req))) == NULL)
		fatal("out of memory");
	ic->s = s;
	ic->tls = tls;
	ic->last_ms = clock_ms();
	strbuf_init(&ic->deny, 0);
	intercept_rebind(ic, s->policy, eps, neps);
	if (!tls)
		start_plain(ic, held, len);
	else if (!start_tls(ic, held, len)) {
		intercept_free(ic);
		return NULL;
	}
	bufferevent_setcb(
	    ic->cbev, client_read_cb, drained_cb, client_event_cb, ic);
	bufferevent_setcb(
	    ic->ubev, upstream_read_cb, drained_cb, upstream_event_cb, ic);
	bufferevent_setwatermark(ic->cbev, EV_WRITE, IC_BUF_LOW, 0);
	bufferevent_setwatermark(ic->ubev, EV_WRITE, IC_BUF_LOW, 0);
	bufferevent_enable(ic->cbev, EV_READ | EV_WRITE);
	bufferevent_enable(ic->ubev, EV_READ | EV_WRITE);
	/* bytes already here: from the loop, once the caller holds ic */
	if (len)
		bufferevent_trigger(ic->under ? ic->under : ic->cbev, EV_READ,
		    BEV_TRIG_DEFER_CALLBACKS);
	return ic;
}
