/* SPDX-License-Identifier: ISC */
/*
 * The forward proxy for plain HTTP. Owns the per-request state machine over
 * two bufferevents; each request goes through the target pipeline (decision,
 * resolve, connect) on its own, on a fresh upstream connection, so that a
 * keep-alive client can never ride a connection decided for another host.
 *
 *   REQ_HEAD --target--> REQ_BODY + RESP (both ways at once) --> REQ_HEAD
 *        \--denied--> error reply, close
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "daemon.h"
#include "forward.h"
#include "http_body.h"
#include "http_parse.h"
#include "log.h"
#include "intercept.h"
#include "l7.h"
#include "policy.h"
#include "request.h"
#include "session.h"
#include "strbuf.h"
#include "target.h"

#define FWD_HEAD_MAX 16384
#define FWD_BUF_HIGH (256u << 10) /* stop reading the other side above */
#define FWD_BUF_LOW  (64u << 10)

enum fwd_state {
	FWD_REQ_HEAD,
	FWD_TARGET,
	FWD_EXCHANGE,
	FWD_ERROR, /* writing an error reply, then close */
};

struct forward {
	struct session *s;
	struct bufferevent *cbev, *ubev;
	enum fwd_state state;
	struct target *target;
	struct http_request *req; /* the request in flight */
	enum http_method method;
	bool client_keep_alive;
	struct http_body req_body, resp_body;
	bool resp_head_done;
	bool resp_keep_alive;
	uint64_t last_ms;
	struct hostname host;
	/* protocol: rest endpoints: the request decision's scratch, and the
	 * canonical target it was made on (what goes upstream) */
	struct l7_request *l7req;
	struct strbuf canon;
	bool use_canon;
};

static void client_read_cb(struct bufferevent *bev, void *arg);
static void upstream_read_cb(struct bufferevent *bev, void *arg);
static void exchange(struct forward *f);
static void drained_cb(struct bufferevent *bev, void *arg);

static void
fwd_close(struct forward *f, enum reason why)
{
	session_close(f->s, why);
}

static void
error_written_cb(struct bufferevent *bev, void *arg)
{
	struct forward *f = arg;

	(void)bev;
	if (evbuffer_get_length(bufferevent_get_output(f->cbev)) == 0)
		fwd_close(f, f->s->reason);
}

/* An error response with a JSON body, then close (Connection: close). */
static void
fwd_error(struct forward *f, int status, enum reason why, const char *text,
    const char *hint, const char *detail)
{
	struct session *s = f->s;
	struct strbuf resp;

	f->state = FWD_ERROR;
	s->reason = why;
	strbuf_init(&resp, 0);
	session_error_response(s, status, why, text, hint, detail, &resp);
	if (f->ubev) {
		bufferevent_free(f->ubev);
		f->ubev = NULL;
		close(s->ufd);
		s->ufd = -1;
	}
	bufferevent_disable(f->cbev, EV_READ);
	bufferevent_write(f->cbev, resp.s, resp.len);
	bufferevent_setcb(f->cbev, NULL, error_written_cb, NULL, f);
	strbuf_free(&resp);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct forward *f = arg;
	bool upstream = bev == f->ubev;

	if (what & BEV_EVENT_TIMEOUT) {
		fwd_close(f, REASON_TIMEOUT);
		return;
	}
	if (upstream && (what & BEV_EVENT_EOF) && f->resp_head_done &&
	    f->resp_body.framing == HTTP_FRAMING_CLOSE) {
		/* the close-delimited response ended */
		f->resp_body.done = true;
		exchange(f);
		return;
	}
	if (upstream && f->state == FWD_EXCHANGE && !f->resp_head_done) {
		fwd_error(f, 502, REASON_CONNECT_FAILED, NULL, NULL,
		    "the upstream server closed the connection without a response");
		return;
	}
	fwd_close(f,
	    (what & BEV_EVENT_ERROR) ? REASON_CONNECT_FAILED : REASON_ALLOWED);
}

/*
 * The request decision for an endpoint with protocol: rest, as on an
 * intercepted connection: logged, and a denial (enforce) answered with a
 * 403. Returns whether the request may go upstream.
 */
static bool
decide_request(struct forward *f, const uint8_t *head)
{
	struct session *s = f->s;
	const struct policy_endpoint *eps[INTERCEPT_MAX_ENDPOINTS];
	char method[HTTP_MAX_METHOD_LEN + 1], pbuf[HTTP_MAX_TARGET_LEN + 1];
	struct l7_decision d;
	const char *path;
	size_t plen, n;
	enum verdict v;

	if (f->l7req == NULL && (f->l7req = malloc(sizeof(*f->l7req))) == NULL)
		fatal("out of memory");
	snprintf(method, sizeof(method), "%.*s", (int)f->req->method_span.len,
	    (const char *)head + f->req->method_span.off);
	path = http_request_path(f->req, head, &plen);
	snprintf(
	    pbuf, sizeof(pbuf), "%.*s", path ? (int)plen : 0, path ? path : "");
	n = request_endpoints(
	    s, s->policy, &f->host, eps, INTERCEPT_MAX_ENDPOINTS);
	v = request_decide(
	    s, eps, n, method, pbuf, strlen(pbuf), false, f->l7req, &d);
	request_record(s, method, pbuf, v, d.reason, d.mode, s->policy_key,
	    d.reason_text, d.hint[0] ? d.hint : NULL,
	    d.by_text[0] ? d.by_text : NULL);
	if (v == VERDICT_DENY) {
		fwd_error(f, 403, d.reason, d.reason_text, d.hint, NULL);
		return false;
	}
	/* upstream gets the path that was decided on */
	f->use_canon = d.by != L7_BY_PATH;
	if (f->use_canon) {
		strbuf_reset(&f->canon);
		strbuf_add(
		    &f->canon, f->l7req->path, f->l7req->target.path_len);
		if (f->l7req->target.has_query) {
			strbuf_putc(&f->canon, '?');
			strbuf_add(&f->canon, pbuf + f->l7req->target.query.off,
			    f->l7req->target.query.len);
		}
	}
	return true;
}

static void
target_cb(struct target_result *res, void *arg)
{
	struct forward *f = arg;
	struct session *s = f->s;
	struct strbuf head;
	struct evbuffer *cin = bufferevent_get_input(f->cbev);

	f->target = NULL;
	session_adopt(s, res);
	if (!res->connected) {
		if (res->dec.verdict == VERDICT_DENY)
			fwd_error(f, res->http_status, res->dec.reason,
			    res->dec.reason_text, res->dec.hint,
			    s->caller.identity_detail);
		else
			fwd_error(f, res->http_status, res->reason, NULL, NULL,
			    res->detail);
		return;
	}
	s->ufd = res->fd;
	res->fd = -1;
	s->dst = res->dst;
	s->dialed = true;
	f->use_canon = false;
	if (res->dec.verdict == VERDICT_ALLOW &&
	    res->dec.protocol == PROTO_REST &&
	    !decide_request(
	        f, evbuffer_pullup(cin, (ev_ssize_t)f->req->head_len)))
		return;
	f->ubev = bufferevent_socket_new(s->d->base, s->ufd, 0);
	if (f->ubev == NULL)
		fatal("out of memory");
	bufferevent_setcb(f->ubev, upstream_read_cb, drained_cb, event_cb, f);
	bufferevent_setwatermark(f->ubev, EV_WRITE, FWD_BUF_LOW, 0);
	/* the head as the origin wants it: origin-form, no hop-by-hop */
	strbuf_init(&head, FWD_HEAD_MAX * 2);
	if (!http_request_write_origin(f->req,
	        evbuffer_pullup(cin, (ev_ssize_t)f->req->head_len),
	        f->use_canon ? strbuf_str(&f->canon) : NULL,
	        f->use_canon ? f->canon.len : 0, &head)) {
		strbuf_free(&head);
		fwd_error(f, 400, REASON_BAD_REQUEST, NULL, NULL,
		    "the request cannot be rewritten for the origin");
		return;
	}
	evbuffer_drain(cin, f->req->head_len);
	bufferevent_write(f->ubev, head.s, head.len);
	strbuf_free(&head);
	f->state = FWD_EXCHANGE;
	bufferevent_enable(f->ubev, EV_READ);
	bufferevent_enable(f->cbev, EV_READ);
	exchange(f);
}

/* Parses the next request head from the client, if complete. */
static void
next_request(struct forward *f)
{
	struct session *s = f->s;
	struct evbuffer *cin = bufferevent_get_input(f->cbev);
	size_t len = evbuffer_get_length(cin);
	struct target_req tr;
	enum http_result r;
	uint8_t *p;

	if (len == 0)
		return;
	if (len > FWD_HEAD_MAX)
		len = FWD_HEAD_MAX;
	p = evbuffer_pullup(cin, (ev_ssize_t)len);
	r = http_parse_request(p, len, FWD_HEAD_MAX, f->req, NULL);
	if (r == HTTP_NEED_MORE)
		return;
	if (r != HTTP_OK) {
		fwd_error(f, http_error_status(r), REASON_BAD_REQUEST, NULL,
		    NULL, http_strerror(r));
		return;
	}
	if (f->req->form != HTTP_TARGET_ABSOLUTE) {
		fwd_error(f, 400, REASON_BAD_REQUEST, NULL, NULL,
		    f->req->method == HTTP_METHOD_CONNECT ?
		        "CONNECT must be the first request on a connection" :
		        "this is a proxy: send an absolute-form request ('GET http://host/path')");
		return;
	}
	if (f->req->upgrade) {
		fwd_error(f, 400, REASON_PROTOCOL_NOT_ALLOWED, NULL, NULL,
		    "protocol upgrades are not forwarded on plain HTTP");
		return;
	}
	f->method = f->req->method;
	f->client_keep_alive = f->req->keep_alive;
	f->host = f->req->host;
	free(s->host);
	if ((s->host = strdup(f->req->host.name)) == NULL)
		fatal("out of memory");
	s->port = f->req->port;
	s->source = DECIDE_SRC_HTTP;
	http_body_init(&f->req_body, f->req->framing, f->req->content_length);
	memset(&f->resp_body, 0, sizeof(f->resp_body));
	f->resp_head_done = false;
	f->state = FWD_TARGET;
	bufferevent_disable(f->cbev, EV_READ);
	session_target_req(s, &f->host, s->port, DECIDE_SRC_HTTP, &tr);
	f->target = target_start(s->d, &s->caller, &tr, target_cb, f);
}

/* One request/response exchange has finished: next, or close. */
static void
exchange_done(struct forward *f)
{
	struct session *s = f->s;

	bufferevent_free(f->ubev);
	f->ubev = NULL;
	close(s->ufd);
	s->ufd = -1;
	if (!f->client_keep_alive || !f->resp_keep_alive ||
	    f->resp_body.framing == HTTP_FRAMING_CLOSE) {
		/* let the response reach the client, then close */
		bufferevent_disable(f->cbev, EV_READ);
		f->state = FWD_ERROR;
		bufferevent_setcb(f->cbev, NULL, error_written_cb, event_cb, f);
		error_written_cb(f->cbev, f);
		return;
	}
	f->state = FWD_REQ_HEAD;
	bufferevent_enable(f->cbev, EV_READ);
	next_request(f);
}

static void
exchange(struct forward *f)
{
	struct session *s = f->s;
	struct evbuffer *cin, *cout, *uin, *uout;

	if (f->state != FWD_EXCHANGE)
		return;
	cin = bufferevent_get_input(f->cbev);
	cout = bufferevent_get_output(f->cbev);
	uin = bufferevent_get_input(f->ubev);
	uout = bufferevent_get_output(f->ubev);
	f->last_ms = clock_ms();
	if (!http_body_move(&f->req_body, cin, uout, &s->fwd_bytes_up, false)) {
		fwd_error(f, 400, REASON_BAD_REQUEST, NULL, NULL,
		    "malformed request body framing");
		return;
	}
	if (!f->resp_head_done && evbuffer_get_length(uin) > 0) {
		struct http_response resp;
		size_t len = evbuffer_get_length(uin);
		enum http_result r;

		if (len > FWD_HEAD_MAX)
			len = FWD_HEAD_MAX;
		r = http_parse_response(evbuffer_pullup(uin, (ev_ssize_t)len),
		    len, FWD_HEAD_MAX, f->method, &resp, NULL);
		if (r != HTTP_OK && r != HTTP_NEED_MORE) {
			fwd_error(f, 502, REASON_CONNECT_FAILED, NULL, NULL,
			    http_strerror(r));
			return;
		}
		if (r == HTTP_OK && resp.status >= 100 && resp.status < 200 &&
		    resp.status != 101) {
			/* interim response: pass it on, wait for the final */
			evbuffer_remove_buffer(uin, cout, resp.head_len);
			s->fwd_bytes_down += resp.head_len;
			exchange(f);
			return;
		}
		if (r == HTTP_OK) {
			if (resp.framing == HTTP_FRAMING_SWITCH ||
			    resp.framing == HTTP_FRAMING_TUNNEL) {
				fwd_error(f, 502, REASON_PROTOCOL_NOT_ALLOWED,
				    NULL, NULL,
				    "the origin switched protocols, which plain-HTTP forwarding does not carry");
				return;
			}
			evbuffer_remove_buffer(uin, cout, resp.head_len);
			s->fwd_bytes_down += resp.head_len;
			f->resp_head_done = true;
			f->resp_keep_alive = resp.keep_alive;
			http_body_init(
			    &f->resp_body, resp.framing, resp.content_length);
		}
	}
	if (f->resp_head_done &&
	    !http_body_move(
	        &f->resp_body, uin, cout, &s->fwd_bytes_down, false)) {
		fwd_close(f, REASON_CONNECT_FAILED);
		return;
	}
	/* backpressure: a full output buffer pauses its source */
	if (evbuffer_get_length(uout) > FWD_BUF_HIGH)
		bufferevent_disable(f->cbev, EV_READ);
	else if (!f->req_body.done)
		bufferevent_enable(f->cbev, EV_READ);
	if (evbuffer_get_length(cout) > FWD_BUF_HIGH)
		bufferevent_disable(f->ubev, EV_READ);
	else
		bufferevent_enable(f->ubev, EV_READ);
	if (f->req_body.done)
		bufferevent_disable(f->cbev, EV_READ);
	if (f->req_body.done && f->resp_head_done && f->resp_body.done)
		exchange_done(f);
}

static void
client_read_cb(struct bufferevent *bev, void *arg)
{
	struct forward *f = arg;

	(void)bev;
	f->last_ms = clock_ms();
	if (f->state == FWD_REQ_HEAD) {
		if (evbuffer_get_length(bufferevent_get_input(f->cbev)) >
		    FWD_HEAD_MAX) {
			fwd_error(f, 431, REASON_BAD_REQUEST, NULL, NULL,
			    "request head larger than 16 KiB");
			return;
		}
		next_request(f);
	} else {
		exchange(f);
	}
}

static void
upstream_read_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	exchange(arg);
}

static void
drained_cb(struct bufferevent *bev, void *arg)
{
	struct forward *f = arg;

	(void)bev;
	if (f->state == FWD_EXCHANGE)
		exchange(f);
}

struct forward *
forward_start(struct session *s, const uint8_t *buf, size_t len)
{
	struct forward *f = calloc(1, sizeof(*f));
	struct timeval idle;

	if (f == NULL || (f->req = malloc(sizeof(*f->req))) == NULL)
		fatal("out of memory");
	f->s = s;
	f->last_ms = clock_ms();
	strbuf_init(&f->canon, HTTP_MAX_TARGET_LEN + 1);
	f->cbev = bufferevent_socket_new(s->d->base, s->cfd, 0);
	if (f->cbev == NULL)
		fatal("out of memory");
	/* the input buffer is frozen at its end (only the socket adds
	 * there); its start is free */
	evbuffer_prepend(bufferevent_get_input(f->cbev), buf, len);
	bufferevent_setcb(f->cbev, client_read_cb, drained_cb, event_cb, f);
	bufferevent_setwatermark(f->cbev, EV_WRITE, FWD_BUF_LOW, 0);
	idle.tv_sec = s->d->cfg.idle_timeout_ms / 1000;
	idle.tv_usec = (s->d->cfg.idle_timeout_ms % 1000) * 1000;
	if (s->d->cfg.idle_timeout_ms)
		bufferevent_set_timeouts(f->cbev, &idle, NULL);
	bufferevent_enable(f->cbev, EV_READ | EV_WRITE);
	f->state = FWD_REQ_HEAD;
	next_request(f);
	return f;
}

void
forward_free(struct forward *f)
{
	if (f == NULL)
		return;
	target_cancel(f->target);
	if (f->ubev)
		bufferevent_free(f->ubev);
	if (f->cbev)
		bufferevent_free(f->cbev);
	free(f->req);
	free(f->l7req);
	strbuf_free(&f->canon);
	free(f);
}

uint64_t
forward_last_active_ms(const struct forward *f)
{
	return f->last_ms;
}
