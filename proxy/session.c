/* SPDX-License-Identifier: ISC */
/*
 * Client sessions of the explicit proxy (TCP and Unix listeners): identity
 * at accept, the request head, CONNECT through the target pipeline, the
 * reply, the inspection of the first tunnelled bytes (TLS ClientHello: the
 * SNI must name the CONNECT host), then the relay. Plain-HTTP requests are
 * handed to forward.c. Owns the session's lifetime: one close, one record.
 *
 *   HEAD --CONNECT--> TARGET --200--> PEEK --> RELAY --> close
 *     |                  \--4xx/5xx--> REPLY --> close
 *     \--http://--> FORWARD (forward.c) --> close
 */
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "audit.h"
#include "clock.h"
#include "daemon.h"
#include "forward.h"
#include "http_parse.h"
#include "identity.h"
#include "intercept.h"
#include "request.h"
#include "log.h"
#include "policy.h"
#include "relay.h"
#include "session.h"
#include "sni.h"
#include "strbuf.h"
#include "target.h"
#include "transparent.h"

#define SESSION_HEAD_MAX  16384
#define SESSION_PEEK_MAX  SNI_RAW_MAX
#define SESSION_LINGER_MS 2000

struct session_setup {
	struct event *crd;   /* client readable */
	struct event *cwr;   /* client writable (reply) */
	struct event *timer; /* deadline of the current phase */
	uint8_t *buf;        /* client bytes: head, then held bytes */
	size_t len, cap;
	size_t held_off; /* start of the bytes after the head */
	struct http_head_scan scan;
	struct target *target;
	struct hostname host;
	/* reply */
	struct strbuf reply;
	size_t reply_off;
	bool lingering;
	/* peek */
	struct sni_reader sni;
	uint8_t *sni_scratch;
};

static void setup_free(struct session_setup *u);

static void
reaper_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;

	(void)fd;
	(void)what;
	event_free(s->reaper);
	free(s);
}

static void
unlink_session(struct session *s)
{
	struct daemon *d = s->d;

	if (s->prev)
		s->prev->next = s->next;
	else
		d->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
	d->nsessions--;
	if (d->draining && d->nsessions == 0)
		event_base_loopexit(d->base, NULL);
}

static void
close_record(struct session *s, enum reason why)
{
	struct audit_record r;
	uint64_t up = s->fwd_bytes_up, down = s->fwd_bytes_down;

	if (s->relay) {
		uint64_t ru, rd;

		relay_bytes(s->relay, &ru, &rd);
		up += ru;
		down += rd;
	}
	s->d->stats.bytes_up += up;
	s->d->stats.bytes_down += down;
	session_record(s, AUDIT_CLOSE, &r);
	r.verdict = s->verdict;
	r.reason = why;
	r.mode = s->mode;
	r.policy = s->policy_key;
	r.generation = s->policy ? s->policy->generation : 0;
	r.bytes_up = up;
	r.bytes_down = down;
	r.duration_ms = clock_ms() - s->start_ms;
	audit_log(s->d->audit, &r);
}

void
session_close(struct session *s, enum reason why)
{
	if (s->state == SESSION_CLOSING)
		return;
	if (s->dialed || s->fwd)
		close_record(s, why);
	s->state = SESSION_CLOSING;
	s->d->stats.closed++;
	if (s->fwd)
		forward_free(s->fwd);
	s->fwd = NULL;
	transparent_free(s->tp);
	s->tp = NULL;
	intercept_free(s->ic);
	s->ic = NULL;
	setup_free(s->setup);
	s->setup = NULL;
	relay_free(s->relay);
	s->relay = NULL;
	if (s->cfd != -1 && s->reset) {
		struct linger lg = {1, 0};

		setsockopt(s->cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	if (s->cfd != -1)
		close(s->cfd);
	if (s->ufd != -1)
		close(s->ufd);
	s->cfd = s->ufd = -1;
	caller_release(s->d->callers, &s->caller);
	policy_unref(s->policy);
	s->policy = NULL;
	free(s->host);
	s->host = NULL;
	unlink_session(s);
	/* freed from the loop: callers up the stack may still look at s */
	s->reaper = event_new(s->d->base, -1, 0, reaper_cb, s);
	if (s->reaper == NULL)
		fatal("out of memory");
	event_active(s->reaper, 0, 0);
}

static void
setup_free(struct session_setup *u)
{
	if (u == NULL)
		return;
	if (u->crd)
		event_free(u->crd);
	if (u->cwr)
		event_free(u->cwr);
	if (u->timer)
		event_free(u->timer);
	target_cancel(u->target);
	strbuf_free(&u->reply);
	free(u->buf);
	free(u->sni_scratch);
	free(u);
}

static void
set_deadline(struct session *s, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	event_add(s->setup->timer, &tv);
}

/* ---- replies -------------------------------------------------------------- */

static const char *
status_text(int status)
{
	switch (status) {
	case 200:
		return "Connection established";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 414:
		return "URI Too Long";
	case 417:
		return "Expectation Failed";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "Error";
}

static void reply_flush(struct session *s);

static void
linger_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	uint8_t sink[4096];
	ssize_t n;

	if (what & EV_TIMEOUT) {
		session_close(s, s->reason);
		return;
	}
	/* discard what the client still sends so that closing does not
	 * reset the connection before it read the reply */
	while ((n = read(fd, sink, sizeof(sink))) > 0)
		;
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		session_close(s, s->reason);
}

static void
cwr_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;

	(void)fd;
	if (what & EV_TIMEOUT) {
		session_close(s, REASON_TIMEOUT);
		return;
	}
	reply_flush(s);
}

static void
reply_flush(struct session *s)
{
	struct session_setup *u = s->setup;

	while (u->reply_off < u->reply.len) {
		ssize_t n = write(s->cfd, u->reply.s + u->reply_off,
		    u->reply.len - u->reply_off);

		if (n > 0) {
			u->reply_off += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			event_add(u->cwr, NULL);
			set_deadline(s, SESSION_LINGER_MS);
			return;
		}
		session_close(s, s->reason);
		return;
	}
	event_del(u->cwr);
	/* lingering close: half-close, then read until EOF or deadline */
	shutdown(s->cfd, SHUT_WR);
	u->lingering = true;
	event_free(u->crd);
	u->crd =
	    event_new(s->d->base, s->cfd, EV_READ | EV_PERSIST, linger_cb, s);
	event_free(u->timer);
	u->timer = evtimer_new(s->d->base, linger_cb, s);
	if (u->crd == NULL || u->timer == NULL)
		fatal("out of memory");
	event_add(u->crd, NULL);
	set_deadline(s, SESSION_LINGER_MS);
}

void
session_error_body(struct strbuf *body, bool *first, int status,
    enum reason why, const char *text)
{
	strbuf_init(body, 0);
	strbuf_putc(body, '{');
	strbuf_json_key(body, first, "error");
	strbuf_json_str(body,
	    status == 403     ? "denied" :
	        status >= 500 ? "upstream" :
	                        "bad_request");
	strbuf_json_key(body, first, "reason");
	strbuf_json_str(body, reason_code(why));
	strbuf_json_key(body, first, "reason_text");
	strbuf_json_str(body, text ? text : reason_text(why));
}

/*
 * An error response with a JSON body (reason code, reason, hint, binary,
 * host, port, policy, mode, next step). Every string from the request is
 * JSON-escaped; the header carries only our reason code.
 */
void
session_error_response(const struct session *s, int status, enum reason why,
    const char *reason_str, const char *hint, const char *detail,
    struct strbuf *out)
{
	struct strbuf body;
	const char *exe = s->caller.exe ? s->caller.exe->path : NULL;
	bool first = true;

	session_error_body(&body, &first, status, why, reason_str);
	if (hint && *hint) {
		strbuf_json_key(&body, &first, "hint");
		strbuf_json_str(&body, hint);
	}
	if (detail && *detail) {
		strbuf_json_key(&body, &first, "detail");
		strbuf_json_str(&body, detail);
	}
	strbuf_json_key(&body, &first, "binary");
	strbuf_json_str(&body, exe);
	if (s->caller.invoked_as) {
		strbuf_json_key(&body, &first, "invoked_as");
		strbuf_json_str(&body, s->caller.invoked_as);
	}
	if (s->host) {
		strbuf_json_key(&body, &first, "host");
		strbuf_json_str(&body, s->host);
		strbuf_json_key(&body, &first, "port");
		strbuf_printf(&body, "%u", s->port);
	}
	strbuf_json_key(&body, &first, "policy");
	strbuf_json_str(&body, s->policy_key);
	if (s->decided) {
		strbuf_json_key(&body, &first, "mode");
		strbuf_json_str(&body, policy_enforcement_name(s->mode));
	}
	if (status == 403 && s->host) {
		char next[HOSTNAME_MAX + 512];

		if (exe)
			snprintf(next, sizeof(next),
			    "egressctl explain --binary %s --host %s --port %u",
			    exe, s->host, s->port);
		else
			snprintf(next, sizeof(next),
			    "egressctl explain --host %s --port %u", s->host,
			    s->port);
		strbuf_json_key(&body, &first, "next_step");
		strbuf_json_str(&body, next);
	}
	strbuf_puts(&body, "}\n");
	strbuf_printf(out,
	    "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nX-Egressd-Reason: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	    status, status_text(status), reason_code(why), body.len,
	    strbuf_str(&body));
	strbuf_free(&body);
}

/* Sends an error reply and closes (lingering, so the client reads it). */
static void
reply_error(struct session *s, int status, enum reason why,
    const char *reason_str, const char *hint, const char *detail)
{
	struct session_setup *u = s->setup;

	s->state = SESSION_REPLY;
	s->reason = why;
	event_del(u->crd);
	strbuf_reset(&u->reply);
	session_error_response(
	    s, status, why, reason_str, hint, detail, &u->reply);
	u->reply_off = 0;
	reply_flush(s);
}

/* A request refused before any policy decision (parse errors, limits). */
static void
refuse_early(struct session *s, int status, enum reason why, const char *detail)
{
	struct audit_record r;

	session_record(s, AUDIT_OPEN, &r);
	r.verdict = VERDICT_DENY;
	r.reason = why;
	r.reason_text = reason_text(why);
	r.detail = detail;
	audit_log(s->d->audit, &r);
	s->d->stats.denied++;
	reply_error(s, status, why, NULL, NULL, detail);
}

/* ---- the tunnel ----------------------------------------------------------- */

/* relay_start() completion for sessions: closes s. */
static void
session_relay_done_cb(struct relay *r, enum relay_end end, void *arg)
{
	struct session *s = arg;

	(void)r;
	session_close(s,
	    end == RELAY_END_CLOSED ? REASON_ALLOWED : REASON_CONNECT_FAILED);
}

bool
session_start_relay(struct session *s)
{
	s->relay = relay_start(
	    s->d->base, s->cfd, s->ufd, true, session_relay_done_cb, s);
	if (s->relay == NULL) {
		session_close(s, REASON_CONNECT_FAILED);
		return false;
	}
	return true;
}

/* The SNI check failed: log and enforce (or only log, in audit mode). */
static bool
peek_deny(
    struct session *s, enum reason why, const char *text, const char *detail)
{
	struct audit_record r;
	bool enforce = s->mode == ENFORCE_ENFORCE;
	char hint[HOSTNAME_MAX + 128];

	if (why == REASON_SNI_MISMATCH)
		snprintf(hint, sizeof(hint),
		    "the TLS server name must be the host given to CONNECT (%s); a different name inside an allowed tunnel is domain fronting",
		    s->host);
	else
		snprintf(hint, sizeof(hint),
		    "the client sent a TLS ClientHello egressd cannot read unambiguously");
	session_record(s, AUDIT_OPEN, &r);
	r.dst = &s->dst;
	r.verdict = enforce ? VERDICT_DENY : VERDICT_AUDIT;
	r.reason = why;
	r.mode = s->mode;
	r.overridden = s->d->cfg.override != DECIDE_MODE_POLICY;
	r.policy = s->policy_key;
	r.reason_text = text;
	r.hint = hint;
	r.detail = detail;
	audit_log(s->d->audit, &r);
	if (enforce) {
		s->d->stats.denied++;
		s->verdict = VERDICT_DENY;
		session_close(s, why);
		return true;
	}
	s->d->stats.would_deny++;
	return false;
}

static void
peek_release(struct session *s)
{
	struct session_setup *u = s->setup;

	s->state = SESSION_RELAY;
	relay_release_up(s->relay, u->buf + u->held_off, u->len - u->held_off);
	setup_free(u);
	s->setup = NULL;
}

/* Examines the client's first bytes in the tunnel. */
static void
peek_check(struct session *s)
{
	struct session_setup *u = s->setup;
	const uint8_t *p = u->buf + u->held_off;
	size_t n = u->len - u->held_off;
	struct sni_info info;
	enum sni_result r;
	char text[2 * HOSTNAME_MAX + 128];

	if (n == 0)
		return;
	if (p[0] != 0x16) {
		/* not TLS: nothing more to check for a CONNECT tunnel */
		peek_release(s);
		return;
	}
	if (u->sni_scratch == NULL) {
		if ((u->sni_scratch = malloc(SNI_HELLO_MAX)) == NULL)
			fatal("out of memory");
		sni_reader_init(&u->sni, u->sni_scratch, SNI_HELLO_MAX);
	}
	r = sni_reader_feed(&u->sni, p, n, &info, NULL);
	if (r == SNI_NEED_MORE) {
		/* a hello has begun: it must complete in time (slowloris) */
		if (!evtimer_pending(u->timer, NULL))
			set_deadline(s, s->d->cfg.hello_timeout_ms);
		return;
	}
	if (r == SNI_OK) {
		bool same = !info.has_sni ||
		    (info.host.kind == u->host.kind &&
		        strcmp(info.host.name, u->host.name) == 0);

		if (!same) {
			snprintf(text, sizeof(text),
			    "the TLS server name %s differs from the CONNECT host %s",
			    info.host.name, s->host);
			if (peek_deny(s, REASON_SNI_MISMATCH, text, NULL))
				return;
		}
	} else if (r != SNI_ERR_NOT_TLS) {
		enum reason why = r == SNI_ERR_TOO_LARGE ?
		    REASON_TLS_HELLO_TOO_LARGE :
		    REASON_TLS_HELLO_INVALID;

		if (peek_deny(
		        s, why, sni_strerror(r), sni_reader_detail(&u->sni)))
			return;
	}
	peek_release(s);
}

static bool
read_more(struct session *s, size_t max, bool *eof)
{
	struct session_setup *u = s->setup;

	*eof = false;
	for (;;) {
		ssize_t n;

		if (u->len == u->cap) {
			size_t ncap = u->cap * 2;
			uint8_t *nb;

			if (u->cap >= max)
				return true; /* full: the caller decides */
			if (ncap > max)
				ncap = max;
			if ((nb = realloc(u->buf, ncap)) == NULL)
				fatal("out of memory");
			u->buf = nb;
			u->cap = ncap;
		}
		n = read(s->cfd, u->buf + u->len, u->cap - u->len);
		if (n > 0) {
			u->len += (size_t)n;
			/* short: the socket is empty, the loop says when
			 * more (or EOF) comes */
			if (u->len < u->cap)
				return true;
			continue;
		}
		if (n == 0) {
			*eof = true;
			return true;
		}
		if (errno == EAGAIN || errno == EINTR)
			return true;
		return false;
	}
}

static void
peek_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct session_setup *u = s->setup;
	bool eof;

	(void)fd;
	if (what & EV_TIMEOUT) {
		if (!peek_deny(s, REASON_TIMEOUT,
		        "no complete TLS ClientHello before the deadline",
		        NULL))
			peek_release(s);
		return;
	}
	if (!read_more(s, u->held_off + SESSION_PEEK_MAX, &eof)) {
		session_close(s, REASON_CONNECT_FAILED);
		return;
	}
	peek_check(s);
	if (s->state != SESSION_PEEK)
		return;
	if (eof) {
		/* the client finished before a whole hello: pass on what
		 * came (the upstream sees a truncated stream) */
		peek_release(s);
		return;
	}
}

static void
start_tunnel(struct session *s)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	struct session_setup *u = s->setup;
	ssize_t n;

	/* The reply fits in an empty socket buffer; anything else means the
	 * client is gone. */
	n = write(s->cfd, ok, sizeof(ok) - 1);
	if (n != (ssize_t)sizeof(ok) - 1) {
		session_close(s, REASON_CONNECT_FAILED);
		return;
	}
	if (!session_start_relay(s))
		return;
	s->state = SESSION_PEEK;
	event_free(u->crd);
	event_free(u->timer);
	u->crd = event_new(
	    s->d->base, s->cfd, EV_READ | EV_PERSIST, peek_read_cb, s);
	u->timer = evtimer_new(s->d->base, peek_read_cb, s);
	if (u->crd == NULL || u->timer == NULL)
		fatal("out of memory");
	peek_check(s);
	if (s->state != SESSION_PEEK)
		return;
	/* Client bytes stay held until inspected, however long the client
	 * waits (server-speaks-first protocols flow downstream meanwhile);
	 * the idle timeout bounds a tunnel where nothing moves. */
	event_add(u->crd, NULL);
}

void
session_adopt(struct session *s, struct target_result *res)
{
	policy_unref(s->policy);
	s->policy = res->policy;
	res->policy = NULL;
	s->decided = true;
	s->verdict = res->dec.verdict;
	s->reason = res->dec.reason;
	s->mode = res->dec.mode;
	s->policy_key = res->dec.block ? res->dec.block->key : NULL;
	if (res->dec.verdict == VERDICT_ALLOW)
		s->d->stats.allowed++;
	else if (res->dec.verdict == VERDICT_AUDIT)
		s->d->stats.would_deny++;
	else
		s->d->stats.denied++;
}

static void
connect_target_cb(struct target_result *res, void *arg)
{
	struct session *s = arg;
	struct decision *dec = &res->dec;

	s->setup->target = NULL;
	session_adopt(s, res);
	if (!res->connected) {
		if (dec->verdict == VERDICT_DENY)
			reply_error(s, res->http_status, dec->reason,
			    dec->reason_text, dec->hint,
			    s->caller.identity_detail);
		else
			reply_error(s, res->http_status, res->reason, NULL,
			    NULL, res->detail);
		return;
	}
	s->ufd = res->fd;
	res->fd = -1;
	s->dst = res->dst;
	s->dialed = true;
	if (dec->verdict == VERDICT_ALLOW && dec->protocol == PROTO_REST) {
		static const char ok[] =
		    "HTTP/1.1 200 Connection established\r\n\r\n";
		struct session_setup *u = s->setup;

		if (write(s->cfd, ok, sizeof(ok) - 1) != sizeof(ok) - 1) {
			session_close(s, REASON_CONNECT_FAILED);
			return;
		}
		session_intercept(s, &u->host, u->buf + u->held_off,
		    u->len - u->held_off, true);
		return;
	}
	start_tunnel(s);
}

bool
session_intercept(struct session *s, const struct hostname *host,
    const uint8_t *held, size_t len, bool tls)
{
	const struct policy_endpoint *eps[INTERCEPT_MAX_ENDPOINTS];
	size_t n =
	    request_endpoints(s, s->policy, host, eps, INTERCEPT_MAX_ENDPOINTS);

	s->ic = intercept_start(s, eps, n, held, len, tls);
	if (s->ic == NULL) {
		session_close(s, REASON_UPSTREAM_TLS_FAILED);
		return false;
	}
	s->state = SESSION_INTERCEPT;
	setup_free(s->setup);
	s->setup = NULL;
	transparent_free(s->tp);
	s->tp = NULL;
	return true;
}

/* ---- the request head ----------------------------------------------------- */

static void
dispatch(struct session *s, struct http_request *req)
{
	struct session_setup *u = s->setup;
	struct target_req tr;

	u->held_off = req->head_len;
	if (req->method == HTTP_METHOD_CONNECT) {
		s->ingress =
		    s->l->kind == LISTEN_UNIX ? "unix-connect" : "connect";
		u->host = req->host;
		s->port = req->port;
		s->source = DECIDE_SRC_CONNECT;
		if ((s->host = strdup(req->host.name)) == NULL)
			fatal("out of memory");
		s->state = SESSION_TARGET;
		event_del(u->crd);
		event_del(u->timer);
		session_target_req(
		    s, &u->host, s->port, DECIDE_SRC_CONNECT, &tr);
		u->target =
		    target_start(s->d, &s->caller, &tr, connect_target_cb, s);
		return;
	}
	if (req->form == HTTP_TARGET_ABSOLUTE) {
		s->ingress = s->l->kind == LISTEN_UNIX ? "unix-http" : "http";
		event_del(u->crd);
		event_del(u->timer);
		s->state = SESSION_FORWARD;
		s->fwd = forward_start(s, u->buf, u->len);
		setup_free(u);
		s->setup = NULL;
		return;
	}
	refuse_early(s, 400, REASON_BAD_REQUEST,
	    "this is a proxy: send 'CONNECT host:port' or an absolute-form request ('GET http://host/path')");
}

static void
head_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct session_setup *u = s->setup;
	struct http_request *req;
	enum http_result hr;
	size_t head_len;
	bool eof;

	(void)fd;
	if (what & EV_TIMEOUT) {
		refuse_early(s, 408, REASON_TIMEOUT,
		    "the request head did not arrive before the deadline");
		return;
	}
	if (!read_more(s, SESSION_HEAD_MAX, &eof)) {
		session_close(s, REASON_BAD_REQUEST);
		return;
	}
	hr = http_head_scan(
	    &u->scan, u->buf, u->len, SESSION_HEAD_MAX, &head_len, NULL);
	if (hr == HTTP_NEED_MORE) {
		if (eof)
			session_close(s, REASON_BAD_REQUEST);
		return;
	}
	if (hr != HTTP_OK) {
		refuse_early(s, http_error_status(hr), REASON_BAD_REQUEST,
		    http_strerror(hr));
		return;
	}
	if ((req = malloc(sizeof(*req))) == NULL)
		fatal("out of memory");
	hr = http_parse_request(u->buf, u->len, SESSION_HEAD_MAX, req, NULL);
	if (hr != HTTP_OK) {
		refuse_early(s, http_error_status(hr), REASON_BAD_REQUEST,
		    http_strerror(hr));
		free(req);
		return;
	}
	dispatch(s, req);
	free(req);
}

/* ---- accept --------------------------------------------------------------- */

struct session *
session_new(struct listener *l, int fd)
{
	struct daemon *d = l->d;
	struct session *s = calloc(1, sizeof(*s));

	if (s == NULL)
		fatal("out of memory");
	s->d = d;
	s->l = l;
	s->id = ++d->next_id;
	s->cfd = fd;
	s->ufd = -1;
	s->start_ms = clock_ms();
	s->ingress = "connect";
	s->next = d->sessions;
	if (d->sessions)
		d->sessions->prev = s;
	d->sessions = s;
	d->nsessions++;
	d->stats.accepted++;
	return s;
}

static struct session_setup *
setup_new(struct session *s, void (*read_cb)(evutil_socket_t, short, void *))
{
	struct session_setup *u = calloc(1, sizeof(*u));

	if (u == NULL)
		fatal("out of memory");
	u->cap = 4096;
	if ((u->buf = malloc(u->cap)) == NULL)
		fatal("out of memory");
	strbuf_init(&u->reply, 64u << 10);
	u->crd =
	    event_new(s->d->base, s->cfd, EV_READ | EV_PERSIST, read_cb, s);
	u->cwr =
	    event_new(s->d->base, s->cfd, EV_WRITE | EV_PERSIST, cwr_cb, s);
	u->timer = evtimer_new(s->d->base, read_cb, s);
	if (u->crd == NULL || u->cwr == NULL || u->timer == NULL)
		fatal("out of memory");
	http_head_scan_init(&u->scan, HTTP_HEAD_REQUEST);
	return u;
}

/* Who is calling: bound now, before the client can exit or pass the
 * socket on (SECURITY-CASES.md invariant 7). */
void
session_bind_identity(struct session *s, const struct sockaddr *peer,
    const struct sockaddr *local)
{
	struct daemon *d = s->d;
	uint64_t t0 = clock_us();
	int err;

	if (s->l->kind == LISTEN_UNIX) {
		err = identity_from_unix_peer(d->identity, s->cfd, d->scratch);
	} else if (peer == NULL) {
		/* the client's own address is unknown (transparent.c) */
		memset(d->scratch, 0, sizeof(*d->scratch));
		err = IDENTITY_ERR_NO_SOCKET;
	} else {
		err = identity_lookup(d->identity, peer, local, d->scratch);
	}
	histogram_add(&d->stats.identity_us, clock_us() - t0);
	caller_from_identity(d->callers, &s->caller, err, d->scratch);
}

/* The listener's own address when it names one: a socket accepted there
 * has it as its local address, without asking the kernel. */
static bool
listener_bound_to_one(const struct listener *l)
{
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)&l->addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&l->addr;

	if (l->addr.ss_family == AF_INET)
		return in4->sin_addr.s_addr != htonl(INADDR_ANY);
	if (l->addr.ss_family == AF_INET6)
		return !IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);
	return false;
}

void
session_accept(struct listener *l, int fd, const struct sockaddr *peer)
{
	struct daemon *d = l->d;
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	struct session *s;

	if (l->kind == LISTEN_TRANSPARENT) {
		transparent_accept(l, fd, peer);
		return;
	}
	s = session_new(l, fd);
	memset(&local, 0, sizeof(local));
	if (l->kind != LISTEN_UNIX) {
		/* TCP_NODELAY comes from the listener */
		if (listener_bound_to_one(l))
			memcpy(&local, &l->addr, l->addrlen);
		else if (getsockname(fd, (struct sockaddr *)&local, &llen) ==
		    -1) {
			session_close(s, REASON_IDENTITY_FAILED);
			return;
		}
		addr_from_sockaddr(peer, &s->src, &s->src_port);
	}
	session_bind_identity(s, peer, (struct sockaddr *)&local);
	s->setup = setup_new(s, head_read_cb);
	s->state = SESSION_HEAD;
	if (d->cfg.max_conns && d->nsessions > d->cfg.max_conns) {
		d->stats.conn_limit++;
		refuse_early(s, 503, REASON_CONN_LIMIT,
		    "egressd is at its connection limit (--max-conns)");
		return;
	}
	if (!caller_take_slot(&s->caller, d->cfg.max_conns_per_caller)) {
		d->stats.conn_limit++;
		refuse_early(s, 503, REASON_CONN_LIMIT,
		    "this executable is at its connection limit (--max-conns-per-caller)");
		return;
	}
	event_add(s->setup->crd, NULL);
	set_deadline(s, d->cfg.head_timeout_ms);
}

/* ---- housekeeping ----------------------------------------------------------- */

void
session_sweep(struct daemon *d)
{
	uint64_t now = clock_ms();
	struct session *s, *n;

	if (d->cfg.idle_timeout_ms == 0)
		return;
	for (s = d->sessions; s; s = n) {
		n = s->next;
		if ((s->state == SESSION_RELAY || s->state == SESSION_PEEK) &&
		    s->relay &&
		    now - relay_last_active_ms(s->relay) >
		        d->cfg.idle_timeout_ms)
			session_close(s, REASON_TIMEOUT);
		else if (s->state == SESSION_FORWARD && s->fwd &&
		    now - forward_last_active_ms(s->fwd) >
		        d->cfg.idle_timeout_ms)
			session_close(s, REASON_TIMEOUT);
		else if (s->state == SESSION_INTERCEPT && s->ic &&
		    now - intercept_last_active_ms(s->ic) >
		        d->cfg.idle_timeout_ms)
			session_close(s, REASON_TIMEOUT);
	}
}

void
session_recheck(
    struct session *s, struct policy *p, unsigned *revoked, unsigned *flagged)
{
	struct daemon *d = s->d;
	struct decide_caller view;
	struct decide_dest dest;
	struct decision dec;
	struct hostname h;
	struct audit_record r;
	char text[DECIDE_TEXT_MAX + 128];
	enum verdict before = s->verdict;

	if (!s->decided || s->host == NULL ||
	    (s->state != SESSION_PEEK && s->state != SESSION_RELAY &&
	        s->state != SESSION_FORWARD && s->state != SESSION_INTERCEPT))
		return; /* not established: its pipeline decides on */
	if (hostname_normalize(s->host, strlen(s->host), &h) != HOSTNAME_OK)
		return;
	caller_view(
	    &s->caller, s->l->kind == LISTEN_UNIX ? NULL : &s->src, &view);
	dest.host = &h;
	dest.port = s->port;
	dest.source = s->source;
	decide(p, &view, &dest, d->cfg.override, &dec);
	policy_unref(s->policy);
	s->policy = policy_ref(p);
	s->policy_key = dec.block ? dec.block->key : NULL;
	s->mode = dec.mode;
	s->verdict = dec.verdict;
	if (s->ic) {
		/* requests are decided by the new policy's endpoints */
		const struct policy_endpoint *eps[INTERCEPT_MAX_ENDPOINTS];

		intercept_rebind(s->ic, p, eps,
		    decide_allowing(
		        p, &view, &dest, eps, INTERCEPT_MAX_ENDPOINTS));
	}
	if (dec.verdict == VERDICT_ALLOW || dec.verdict == before)
		return;
	snprintf(text, sizeof(text),
	    "the reloaded policy (generation %llu) no longer allows this connection: %s",
	    (unsigned long long)p->generation, dec.reason_text);
	session_record(s, AUDIT_OPEN, &r);
	r.invoked_as = s->caller.invoked_as;
	r.verdict = dec.verdict;
	r.reason = REASON_POLICY_REVOKED;
	r.mode = dec.mode;
	r.overridden = dec.overridden;
	r.policy = s->policy_key;
	r.endpoint = dec.endpoint ? dec.endpoint->host_text : NULL;
	r.reason_text = text;
	r.hint = dec.hint;
	r.detail = reason_code(dec.reason);
	r.generation = p->generation;
	audit_log(d->audit, &r);
	if (dec.verdict == VERDICT_DENY) {
		(*revoked)++;
		session_close(s, REASON_POLICY_REVOKED);
	} else {
		(*flagged)++;
	}
}

void
session_close_all(struct daemon *d)
{
	while (d->sessions)
		session_close(d->sessions, REASON_TIMEOUT);
}

void
session_record(
    const struct session *s, enum audit_activity act, struct audit_record *r)
{
	memset(r, 0, sizeof(*r));
	r->activity = act;
	r->conn_id = s->id;
	r->ingress = s->ingress;
	r->src = s->l->kind == LISTEN_UNIX ? NULL : &s->src;
	r->src_port = s->src_port;
	r->host = s->host;
	r->port = s->port;
	r->dst = s->dialed ? &s->dst : NULL;
	r->pid = s->caller.pid;
	r->uid = s->caller.uid;
	r->exe = s->caller.exe ? s->caller.exe->path : NULL;
	r->cmdline = s->caller.cmdline;
}

void
session_target_req(const struct session *s, const struct hostname *host,
    uint16_t port, enum decide_source source, struct target_req *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->conn_id = s->id;
	tr->ingress = s->ingress;
	tr->src = s->l->kind == LISTEN_UNIX ? NULL : &s->src;
	tr->src_port = s->src_port;
	tr->host = host;
	tr->port = port;
	tr->source = source;
}
