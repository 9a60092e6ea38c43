/* SPDX-License-Identifier: ISC */
/*
 * Table tests for proxy/http_parse.c: requests, responses, authorities, the
 * chunked scanner and the origin-form rewrite. Every parser case runs whole,
 * on every prefix (NEED_MORE or the same answer) and on a guard page; the
 * incremental head scan is checked for linear cost.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "strbuf.h"
#include "tap.h"

#define MAXH 16384

/* Table rows leave trailing fields (expectations, limits) at zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static struct tap_guard guard;

/* A literal with its length, NULs included. */
#define IN(s) (s), sizeof(s) - 1

/*
 * The expectations of a case are space-separated key=value tokens, each of
 * which must appear in the description of the result (see describe_*).
 */
static bool
fields_match(const char *desc, const char *want, char *missing, size_t n)
{
	const char *w = want;

	missing[0] = '\0';
	while (w && *w) {
		const char *end = strchr(w, ' '), *d;
		size_t len = end ? (size_t)(end - w) : strlen(w);
		bool found = false;

		for (d = desc; d && *d;) {
			const char *de = strchr(d, ' ');
			size_t dl = de ? (size_t)(de - d) : strlen(d);

			if (dl == len && memcmp(d, w, len) == 0) {
				found = true;
				break;
			}
			d = de ? de + 1 : NULL;
		}
		if (!found) {
			snprintf(missing, n, "%.*s", (int)len, w);
			return false;
		}
		w = end ? end + 1 : NULL;
	}
	return true;
}

static const char *const form_names[] = {
    "origin", "absolute", "authority", "asterisk"};
static const char *const framing_names[] = {
    "none", "cl", "chunked", "close", "tunnel", "switch"};
static const char *const kind_names[] = {"name", "v4", "v6"};

static void
put_span(struct strbuf *sb, const uint8_t *buf, struct http_span sp)
{
	strbuf_add(sb, (const char *)buf + sp.off, sp.len);
}

static void
put_hops(struct strbuf *sb, const uint8_t *buf, const struct http_header *h,
    size_t n)
{
	size_t i;
	bool any = false;

	strbuf_puts(sb, " hop=");
	for (i = 0; i < n; i++) {
		if (!h[i].hop_by_hop)
			continue;
		if (any)
			strbuf_putc(sb, ',');
		put_span(sb, buf, h[i].name);
		any = true;
	}
	if (!any)
		strbuf_putc(sb, '-');
}

static void
describe_request(struct strbuf *sb, const uint8_t *buf, enum http_result r,
    const struct http_request *q, size_t eoff)
{
	strbuf_reset(sb);
	strbuf_printf(sb, "r=%d", (int)r);
	if (r != HTTP_OK) {
		if (r != HTTP_NEED_MORE)
			strbuf_printf(
			    sb, " eoff=%zu hosterr=%d", eoff, (int)q->host_err);
		return;
	}
	strbuf_puts(sb, " method=");
	if (q->method == HTTP_METHOD_OTHER) {
		strbuf_puts(sb, "OTHER:");
		put_span(sb, buf, q->method_span);
	} else {
		strbuf_puts(sb, http_method_name(q->method));
	}
	strbuf_printf(sb, " form=%s target=", form_names[q->form]);
	put_span(sb, buf, q->target);
	strbuf_printf(sb, " ver=1.%d", q->version == HTTP_VERSION_1_1);
	if (q->form == HTTP_TARGET_ABSOLUTE || q->form == HTTP_TARGET_AUTHORITY)
		strbuf_printf(sb, " host=%s kind=%s port=%u", q->host.name,
		    kind_names[q->host.kind], (unsigned)q->port);
	if (q->form != HTTP_TARGET_AUTHORITY) {
		size_t n;
		const char *p = http_request_path(q, buf, &n);

		strbuf_printf(sb, " path=%.*s", (int)n, p);
	}
	if (q->has_host)
		strbuf_printf(sb, " hh=%s hkind=%s hp=%u", q->host_hdr.name,
		    kind_names[q->host_hdr.kind], (unsigned)q->host_hdr_port);
	else
		strbuf_puts(sb, " hh=-");
	strbuf_printf(sb, " framing=%s cl=%llu keep=%d expect=%d upgrade=",
	    framing_names[q->framing], (unsigned long long)q->content_length,
	    q->keep_alive, q->expect_continue);
	if (q->upgrade)
		put_span(sb, buf, q->upgrade_proto);
	else
		strbuf_putc(sb, '-');
	strbuf_printf(sb, " nh=%zu head=%zu", q->nheaders, q->head_len);
	put_hops(sb, buf, q->headers, q->nheaders);
}

static void
describe_response(struct strbuf *sb, const uint8_t *buf, enum http_result r,
    const struct http_response *p, size_t eoff)
{
	strbuf_reset(sb);
	strbuf_printf(sb, "r=%d", (int)r);
	if (r != HTTP_OK) {
		if (r != HTTP_NEED_MORE)
			strbuf_printf(sb, " eoff=%zu", eoff);
		return;
	}
	strbuf_printf(sb,
	    " ver=1.%d status=%u reason=", p->version == HTTP_VERSION_1_1,
	    p->status);
	put_span(sb, buf, p->reason);
	strbuf_printf(sb, " framing=%s cl=%llu keep=%d nh=%zu head=%zu",
	    framing_names[p->framing], (unsigned long long)p->content_length,
	    p->keep_alive, p->nheaders, p->head_len);
	put_hops(sb, buf, p->headers, p->nheaders);
}

/* Every span of a successful parse lies inside the head. */
static bool
request_spans_ok(const struct http_request *q)
{
	size_t i;

#define IN_HEAD(sp) \
	((sp).off <= q->head_len && (sp).len <= q->head_len - (sp).off)
	if (!IN_HEAD(q->method_span) || !IN_HEAD(q->target) ||
	    !IN_HEAD(q->path) || !IN_HEAD(q->upgrade_proto))
		return false;
	for (i = 0; i < q->nheaders; i++)
		if (!IN_HEAD(q->headers[i].name) ||
		    !IN_HEAD(q->headers[i].value))
			return false;
#undef IN_HEAD
	return q->nheaders <= HTTP_MAX_HEADERS;
}

/*
 * ---- Requests -------------------------------------------------------------
 */

struct req_case {
	const char *name;
	const char *in;
	size_t len;
	enum http_result want;
	const char *fields;
	size_t max; /* 0: MAXH */
};

static void
run_request(const char *name, const uint8_t *in, size_t len, size_t max,
    enum http_result want, const char *fields)
{
	static struct http_request q;
	struct strbuf whole, pre;
	struct http_head_scan st;
	char missing[256];
	enum http_result r, rk;
	size_t eoff = 0, k, bad_k = (size_t)-1, scan_len = 0;
	const uint8_t *g;

	strbuf_init(&whole, 0);
	strbuf_init(&pre, 0);
	if (max == 0)
		max = MAXH;

	g = tap_guard_copy(&guard, in, len);
	r = http_parse_request(g, len, max, &q, &eoff);
	describe_request(&whole, g, r, &q, eoff);
	if (!tap_ok(r == want, "request %s: %s", name, http_strerror(want)))
		tap_diag("got %d (%s) at %zu; %s", (int)r, http_strerror(r),
		    eoff, strbuf_str(&whole));
	if (fields &&
	    !tap_ok(fields_match(
	                strbuf_str(&whole), fields, missing, sizeof(missing)),
	        "request %s: fields", name))
		tap_diag("missing \"%s\" in: %s", missing, strbuf_str(&whole));
	if (r == HTTP_OK && !request_spans_ok(&q))
		tap_ok(false, "request %s: spans inside the head", name);
	if (r != HTTP_NEED_MORE && r != HTTP_OK && http_error_status(r) < 400)
		tap_ok(false, "request %s: error has a status", name);

	/* Every prefix, each ending on the guard page. */
	for (k = 0; k < len && bad_k == (size_t)-1; k++) {
		g = tap_guard_copy(&guard, in, k);
		rk = http_parse_request(g, k, max, &q, &eoff);
		if (rk == HTTP_NEED_MORE)
			continue;
		describe_request(&pre, g, rk, &q, eoff);
		if (strcmp(strbuf_str(&pre), strbuf_str(&whole)) != 0)
			bad_k = k;
	}
	if (!tap_ok(bad_k == (size_t)-1, "request %s: every prefix", name))
		tap_diag("prefix %zu: %s vs whole %s", bad_k, strbuf_str(&pre),
		    strbuf_str(&whole));

	/* One byte at a time through the incremental scan, then one parse. */
	g = tap_guard_copy(&guard, in, len);
	http_head_scan_init(&st, HTTP_HEAD_REQUEST);
	rk = HTTP_NEED_MORE;
	for (k = 0; k <= len && rk == HTTP_NEED_MORE; k++)
		rk = http_head_scan(&st, g, k, max, &scan_len, &eoff);
	if (rk == HTTP_OK)
		rk = http_parse_request(g, len, max, &q, &eoff);
	describe_request(&pre, g, rk, &q, eoff);
	if (!tap_ok(strcmp(strbuf_str(&pre), strbuf_str(&whole)) == 0 &&
	            st.scanned <= len,
	        "request %s: incremental scan", name))
		tap_diag("%s vs %s, scanned %zu", strbuf_str(&pre),
		    strbuf_str(&whole), st.scanned);
	strbuf_free(&whole);
	strbuf_free(&pre);
}

static void
run_req_case(const struct req_case *c)
{
	run_request(c->name, (const uint8_t *)c->in, c->len, c->max, c->want,
	    c->fields);
}

/* Shorthands for request heads. */
#define H11(line, hdrs) line " HTTP/1.1\r\n" hdrs "\r\n"
#define HA              "Host: a.example\r\n"

static const struct req_case req_cases[] = {
    /* ---- CONNECT, authority-form ---- */
    {"connect basic",
        IN(H11("CONNECT example.com:443", "Host: example.com:443\r\n")),
        HTTP_OK,
        "method=CONNECT form=authority host=example.com kind=name port=443 "
        "hh=example.com hp=443 framing=none nh=1 head=59 hop=-"},
    {"connect http/1.0 without host",
        IN("CONNECT example.com:443 HTTP/1.0\r\n\r\n"), HTTP_OK,
        "ver=1.0 hh=- port=443 keep=0"},
    {"connect host without port (RFC 9110 example)",
        IN(H11(
            "CONNECT server.example.com:80", "Host: server.example.com\r\n")),
        HTTP_OK, "host=server.example.com port=80 hp=0"},
    {"connect host without port 443",
        IN(H11("CONNECT example.com:443", "Host: example.com\r\n")), HTTP_OK,
        "port=443"},
    {"connect host normalized",
        IN(H11("CONNECT ExAmple.COM.:443", "Host: EXAMPLE.com:443\r\n")),
        HTTP_OK, "host=example.com hh=example.com"},
    {"connect ipv4",
        IN(H11("CONNECT 93.184.216.34:443", "Host: 93.184.216.34:443\r\n")),
        HTTP_OK, "host=93.184.216.34 kind=v4 hkind=v4"},
    {"connect ipv6",
        IN(H11("CONNECT [2001:db8::1]:443", "Host: [2001:db8::1]:443\r\n")),
        HTTP_OK, "host=2001:db8::1 kind=v6 port=443 hkind=v6"},
    {"connect ipv6 written differently in host",
        IN(H11("CONNECT [2001:db8::1]:443", "Host: [2001:DB8:0:0::1]:443\r\n")),
        HTTP_OK, "host=2001:db8::1 hh=2001:db8::1"},
    {"connect ipv6 loopback", IN(H11("CONNECT [::1]:22", "Host: [::1]:22\r\n")),
        HTTP_OK, "host=::1 kind=v6 port=22"},
    {"connect ipv4-mapped ipv6",
        IN(H11("CONNECT [::ffff:10.0.0.1]:443",
            "Host: [::ffff:10.0.0.1]:443\r\n")),
        HTTP_OK, "host=::ffff:10.0.0.1 kind=v6"},
    {"connect port 1", IN(H11("CONNECT a.example:1", "Host: a.example:1\r\n")),
        HTTP_OK, "port=1"},
    {"connect port 65535",
        IN(H11("CONNECT a.example:65535", "Host: a.example:65535\r\n")),
        HTTP_OK, "port=65535"},
    {"connect content-length 0",
        IN(H11("CONNECT a.example:443",
            "Host: a.example:443\r\nContent-Length: 0\r\n")),
        HTTP_OK, "framing=none"},
    {"connect proxy headers are hop-by-hop",
        IN(H11("CONNECT a.example:443",
            "Host: a.example:443\r\nProxy-Authorization: Basic eDp5\r\n"
            "Proxy-Connection: Keep-Alive\r\nUser-Agent: curl/8\r\n")),
        HTTP_OK, "nh=4 hop=Proxy-Authorization,Proxy-Connection"},
    {"connect punycode host",
        IN(H11(
            "CONNECT xn--nxasmq6b.com:443", "Host: xn--nxasmq6b.com:443\r\n")),
        HTTP_OK, "host=xn--nxasmq6b.com"},
    {"connect followed by tunnel bytes",
        IN("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n"
           "\x16\x03\x01\x02\x00\x01"),
        HTTP_OK, "head=55"},

    /* ---- absolute-form ---- */
    {"absolute basic",
        IN(H11("GET http://example.com/path?q=1", "Host: example.com\r\n")),
        HTTP_OK,
        "method=GET form=absolute host=example.com port=80 path=/path?q=1 "
        "hh=example.com hp=0 framing=none keep=1"},
    {"absolute port",
        IN(H11("GET http://example.com:8080/", "Host: example.com:8080\r\n")),
        HTTP_OK, "port=8080 hp=8080 path=/"},
    {"absolute empty path",
        IN(H11("GET http://example.com", "Host: example.com\r\n")), HTTP_OK,
        "path=/ target=http://example.com"},
    {"absolute options empty path",
        IN(H11("OPTIONS http://example.com", "Host: example.com\r\n")), HTTP_OK,
        "method=OPTIONS path=*"},
    {"absolute options with path",
        IN(H11("OPTIONS http://example.com/x", "Host: example.com\r\n")),
        HTTP_OK, "path=/x"},
    {"absolute uppercase scheme and host",
        IN(H11("GET HTTP://ExAmple.COM/A", "Host: example.com\r\n")), HTTP_OK,
        "host=example.com path=/A"},
    {"absolute ipv6",
        IN(H11("GET http://[::1]:8080/x", "Host: [::1]:8080\r\n")), HTTP_OK,
        "host=::1 kind=v6 port=8080 path=/x"},
    {"absolute ipv4", IN(H11("GET http://192.0.2.7/", "Host: 192.0.2.7\r\n")),
        HTTP_OK, "host=192.0.2.7 kind=v4 port=80"},
    {"absolute explicit :80 in host",
        IN(H11("GET http://a.example/", "Host: a.example:80\r\n")), HTTP_OK,
        "port=80 hp=80"},
    {"absolute explicit :80 in target",
        IN(H11("GET http://a.example:80/", "Host: a.example\r\n")), HTTP_OK,
        "port=80 hp=0"},
    {"absolute trailing dot",
        IN(H11("GET http://a.example./", "Host: a.example\r\n")), HTTP_OK,
        "host=a.example"},
    {"absolute http/1.0 without host",
        IN("GET http://a.example/ HTTP/1.0\r\n\r\n"), HTTP_OK,
        "ver=1.0 hh=- keep=0"},
    {"absolute http/1.0 keep-alive",
        IN("GET http://a.example/ HTTP/1.0\r\nConnection: keep-alive\r\n"
           "\r\n"),
        HTTP_OK, "keep=1 hop=Connection"},
    {"absolute post content-length",
        IN("POST http://a.example/form HTTP/1.1\r\n" HA
           "Content-Length: 5\r\n\r\nhello"),
        HTTP_OK, "method=POST framing=cl cl=5 head=75"},
    {"absolute post chunked",
        IN("POST http://a.example/ HTTP/1.1\r\n" HA
           "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
        HTTP_OK, "framing=chunked cl=0"},
    {"absolute pct-encoded path", IN(H11("GET http://a.example/a%20b%2F", HA)),
        HTTP_OK, "path=/a%20b%2F"},
    {"absolute sub-delims in path",
        IN(H11("GET http://a.example/a;b=c,d!$&'()*+:@~-._", HA)), HTTP_OK,
        "path=/a;b=c,d!$&'()*+:@~-._"},
    {"absolute query with slashes and ?",
        IN(H11("GET http://a.example/p?a=/b?c", HA)), HTTP_OK,
        "path=/p?a=/b?c"},
    {"absolute host header case",
        IN(H11("GET http://a.example/", "HOST: A.EXAMPLE\r\n")), HTTP_OK,
        "hh=a.example"},

    /* ---- origin-form and asterisk-form ---- */
    {"origin basic", IN(H11("GET /", "Host: example.com\r\n")), HTTP_OK,
        "method=GET form=origin path=/ hh=example.com hkind=name hp=0 "
        "keep=1 nh=1 head=37"},
    {"origin host with port", IN(H11("GET /x", "Host: example.com:8443\r\n")),
        HTTP_OK, "hp=8443"},
    {"origin host ipv6", IN(H11("GET /x", "Host: [fe80::1]\r\n")), HTTP_OK,
        "hh=fe80::1 hkind=v6 hp=0"},
    {"origin double slash", IN(H11("GET //a.example/x", HA)), HTTP_OK,
        "path=//a.example/x"},
    {"origin query", IN(H11("GET /a?b/c?d=%41", HA)), HTTP_OK,
        "path=/a?b/c?d=%41"},
    {"origin http/1.0 without host", IN("GET / HTTP/1.0\r\n\r\n"), HTTP_OK,
        "hh=- keep=0 ver=1.0"},
    {"asterisk options", IN(H11("OPTIONS *", HA)), HTTP_OK,
        "method=OPTIONS form=asterisk path=*"},

    /* ---- methods ---- */
    {"method head", IN(H11("HEAD /", HA)), HTTP_OK, "method=HEAD"},
    {"method post", IN(H11("POST /", HA)), HTTP_OK, "method=POST"},
    {"method put", IN(H11("PUT /", HA)), HTTP_OK, "method=PUT"},
    {"method patch", IN(H11("PATCH /", HA)), HTTP_OK, "method=PATCH"},
    {"method delete", IN(H11("DELETE /", HA)), HTTP_OK, "method=DELETE"},
    {"method trace", IN(H11("TRACE /", HA)), HTTP_OK, "method=TRACE"},
    {"method other", IN(H11("PROPFIND /", HA)), HTTP_OK,
        "method=OTHER:PROPFIND"},
    {"method other with dash", IN(H11("M-SEARCH /", HA)), HTTP_OK,
        "method=OTHER:M-SEARCH"},
    {"method other with digits", IN(H11("X1 /", HA)), HTTP_OK,
        "method=OTHER:X1"},
    {"method prefix of a known one", IN(H11("GETS /", HA)), HTTP_OK,
        "method=OTHER:GETS"},
    {"method 32 chars", IN(H11("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF /", HA)),
        HTTP_OK, "method=OTHER:ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF"},

    /* ---- connection semantics ---- */
    {"keep-alive default 1.1", IN(H11("GET /", HA)), HTTP_OK, "keep=1"},
    {"connection close", IN(H11("GET /", HA "Connection: close\r\n")), HTTP_OK,
        "keep=0 hop=Connection"},
    {"connection close wins",
        IN(H11("GET /", HA "Connection: keep-alive, Close\r\n")), HTTP_OK,
        "keep=0"},
    {"connection close in second header",
        IN(H11("GET /", HA "Connection: keep-alive\r\nConnection: close\r\n")),
        HTTP_OK, "keep=0 hop=Connection,Connection"},
    {"connection empty list elements",
        IN(H11("GET /", HA "Connection: , ,close,\r\n")), HTTP_OK, "keep=0"},
    {"http/1.0 default close", IN("GET / HTTP/1.0\r\n" HA "\r\n"), HTTP_OK,
        "keep=0"},
    {"http/1.0 keep-alive",
        IN("GET / HTTP/1.0\r\n" HA "Connection: Keep-Alive\r\n\r\n"), HTTP_OK,
        "keep=1"},
    {"proxy-connection does not decide",
        IN("GET http://a.example/ HTTP/1.0\r\n" HA
           "Proxy-Connection: keep-alive\r\n\r\n"),
        HTTP_OK, "keep=0 hop=Proxy-Connection"},
    {"expect 100-continue",
        IN(H11("PUT /",
            HA "Expect: 100-continue\r\n"
               "Content-Length: 3\r\n")),
        HTTP_OK, "expect=1 framing=cl cl=3"},
    {"expect case-insensitive", IN(H11("PUT /", HA "Expect: 100-Continue\r\n")),
        HTTP_OK, "expect=1"},
    {"expect ignored in 1.0",
        IN("PUT / HTTP/1.0\r\nExpect: 100-continue\r\n"
           "\r\n"),
        HTTP_OK, "expect=0"},
    {"upgrade websocket",
        IN(H11(
            "GET /chat", HA "Connection: Upgrade\r\nUpgrade: websocket\r\n")),
        HTTP_OK, "upgrade=websocket hop=Connection,Upgrade"},
    {"upgrade first protocol",
        IN(H11("GET /",
            HA
            "Upgrade: h2c/1, websocket\r\nConnection: keep-alive, upgrade\r\n")),
        HTTP_OK, "upgrade=h2c/1"},
    {"upgrade without connection option",
        IN(H11("GET /", HA "Upgrade: websocket\r\n")), HTTP_OK,
        "upgrade=- hop=Upgrade"},
    {"upgrade ignored in 1.0",
        IN("GET / HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n"),
        HTTP_OK, "upgrade=-"},
    {"hop-by-hop set",
        IN(H11("GET http://a.example/",
            HA "Connection: X-Foo, x-bar\r\nX-Foo: 1\r\nX-BAR: 2\r\n"
               "Keep-Alive: timeout=5\r\nTE: trailers\r\nTrailer: X-T\r\n"
               "Accept: */*\r\n")),
        HTTP_OK, "nh=8 hop=Connection,X-Foo,X-BAR,Keep-Alive,TE,Trailer"},

    /* ---- field syntax accepted ---- */
    {"value ows trimmed", IN(H11("GET /", "Host: \t a.example \t \r\n")),
        HTTP_OK, "hh=a.example"},
    {"value empty", IN(H11("GET /", HA "X-Empty:\r\nX-Sp:   \r\n")), HTTP_OK,
        "nh=3"},
    {"value inner tab and obs-text",
        IN(H11("GET /", HA "X-V: a\tb \xc3\xa9\xff\r\n")), HTTP_OK, "nh=2"},
    {"name with every tchar",
        IN(H11("GET /", HA "!#$%&'*+-.^_`|~09azAZ: v\r\n")), HTTP_OK, "nh=2"},
    {"te chunked uppercase",
        IN(H11("POST /", HA "Transfer-Encoding: CHUNKED\r\n")), HTTP_OK,
        "framing=chunked"},
    {"te chunked with ows",
        IN(H11("POST /", HA "Transfer-Encoding:\t chunked \t\r\n")), HTTP_OK,
        "framing=chunked"},
    {"content-length 0", IN(H11("POST /", HA "Content-Length: 0\r\n")), HTTP_OK,
        "framing=cl cl=0"},
    {"content-length 2^53",
        IN(H11("POST /", HA "Content-Length: 9007199254740992\r\n")), HTTP_OK,
        "cl=9007199254740992"},
    {"content-length with ows",
        IN(H11("POST /", HA "Content-Length:  42 \r\n")), HTTP_OK, "cl=42"},
    {"body and next request ignored",
        IN("GET / HTTP/1.1\r\n" HA "\r\nGET /x HTTP/1.1\r\n"), HTTP_OK,
        "head=35 path=/"},
    {"head exactly at the limit", IN(H11("GET /", HA)), HTTP_OK, "head=35", 35},

    /* ---- head framing errors ---- */
    {"too large: no end within limit", IN(H11("GET /", HA)),
        HTTP_ERR_HEAD_TOO_LARGE, "eoff=34", 34},
    {"too large: endless header",
        IN("GET / HTTP/1.1\r\nX: aaaaaaaaaaaaaaaaaaaa"),
        HTTP_ERR_HEAD_TOO_LARGE, "eoff=24", 24},
    {"too large: endless request line", IN("GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        HTTP_ERR_HEAD_TOO_LARGE, "eoff=16", 16},
    {"too large: limit 1", IN("GE"), HTTP_ERR_HEAD_TOO_LARGE, "eoff=1", 1},
    {"bare lf request line", IN("GET / HTTP/1.1\nHost: a\n\n"),
        HTTP_ERR_BARE_LF, "eoff=14"},
    {"bare lf end of header", IN("GET / HTTP/1.1\r\nHost: a\n\r\n"),
        HTTP_ERR_BARE_LF, "eoff=23"},
    {"bare lf as final line", IN("GET / HTTP/1.1\r\nHost: a\r\n\n"),
        HTTP_ERR_BARE_LF, "eoff=25"},
    {"bare lf inside value", IN("GET / HTTP/1.1\r\nX: a\nb\r\n\r\n"),
        HTTP_ERR_BARE_LF, "eoff=20"},
    {"bare lf only", IN("\n"), HTTP_ERR_BARE_LF, "eoff=0"},
    {"bare cr request line", IN("GET / HTTP/1.1\rHost: a\r\n\r\n"),
        HTTP_ERR_BARE_CR, "eoff=14"},
    {"bare cr inside value", IN("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n"),
        HTTP_ERR_BARE_CR, "eoff=20"},
    {"bare cr at the end line", IN("GET / HTTP/1.1\r\nHost: a\r\n\r\r\n"),
        HTTP_ERR_BARE_CR, "eoff=25"},
    {"bare cr cr lf", IN("GET / HTTP/1.1\r\r\n\r\n"), HTTP_ERR_BARE_CR,
        "eoff=14"},
    {"leading empty line", IN("\r\nGET / HTTP/1.1\r\n" HA "\r\n"),
        HTTP_ERR_LEADING_EMPTY_LINE, "eoff=0"},
    {"only an empty line", IN("\r\n\r\n"), HTTP_ERR_LEADING_EMPTY_LINE,
        "eoff=0"},

    /* ---- method ---- */
    {"method leading space", IN(" GET / HTTP/1.1\r\n" HA "\r\n"),
        HTTP_ERR_BAD_METHOD, "eoff=0"},
    {"method with quote", IN(H11("GE\"T /", HA)), HTTP_ERR_BAD_METHOD,
        "eoff=2"},
    {"method with paren", IN(H11("G(ET /", HA)), HTTP_ERR_BAD_METHOD, "eoff=1"},
    {"method tls record", IN("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
        HTTP_ERR_BAD_METHOD, "eoff=0"},
    {"method nul", IN(H11("GET\0 /", HA)), HTTP_ERR_BAD_METHOD, "eoff=3"},
    {"method 33 chars", IN(H11("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG /", HA)),
        HTTP_ERR_BAD_METHOD, "eoff=33"},
    {"method missing", IN(H11("/ ", HA)), HTTP_ERR_BAD_METHOD, "eoff=0"},
    {"method obs-text", IN(H11("G\xc3\x89T /", HA)), HTTP_ERR_BAD_METHOD,
        "eoff=1"},
    {"method with slash", IN(H11("GET/ /", HA)), HTTP_ERR_BAD_METHOD, "eoff=3"},
    {"method lowercase get", IN(H11("get /", HA)), HTTP_ERR_LOWERCASE_METHOD,
        "eoff=0"},
    {"method mixed case", IN(H11("Get /", HA)), HTTP_ERR_LOWERCASE_METHOD,
        "eoff=1"},
    {"method lowercase connect", IN(H11("connect a.example:443", HA)),
        HTTP_ERR_LOWERCASE_METHOD, "eoff=0"},
    {"method lowercase tail", IN(H11("POSt /", HA)), HTTP_ERR_LOWERCASE_METHOD,
        "eoff=3"},
    {"method lowercase other", IN(H11("propfind /", HA)),
        HTTP_ERR_LOWERCASE_METHOD, "eoff=0"},

    /* ---- request line structure ---- */
    {"line method only", IN("GET\r\n" HA "\r\n"), HTTP_ERR_BAD_REQUEST_LINE,
        "eoff=3"},
    {"line http/0.9", IN("GET /\r\n" HA "\r\n"), HTTP_ERR_BAD_REQUEST_LINE,
        "eoff=5"},
    {"line method and space", IN("GET \r\n" HA "\r\n"),
        HTTP_ERR_BAD_REQUEST_LINE, "eoff=4"},
    {"line two spaces after method", IN(H11("GET  /", HA)),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=4"},
    {"line two spaces before version", IN("GET /  HTTP/1.1\r\n" HA "\r\n"),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=6"},
    {"line trailing space", IN("GET / HTTP/1.1 \r\n" HA "\r\n"),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=14"},
    {"line tab after method", IN("GET\t/ HTTP/1.1\r\n" HA "\r\n"),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=3"},
    {"line tab before version", IN("GET /\tHTTP/1.1\r\n" HA "\r\n"),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=5"},
    {"line trailing tab", IN("GET / HTTP/1.1\t\r\n" HA "\r\n"),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=14"},
    {"line space inside target", IN("GET /a b HTTP/1.1\r\n" HA "\r\n"),
        HTTP_ERR_REQUEST_LINE_WHITESPACE, "eoff=8"},

    /* ---- version ---- */
    {"version lowercase", IN("GET / http/1.1\r\n" HA "\r\n"),
        HTTP_ERR_BAD_VERSION, "eoff=6"},
    {"version short", IN("GET / HTTP/1\r\n" HA "\r\n"), HTTP_ERR_BAD_VERSION,
        "eoff=6"},
    {"version long", IN("GET / HTTP/1.1.1\r\n" HA "\r\n"), HTTP_ERR_BAD_VERSION,
        "eoff=6"},
    {"version no dot", IN("GET / HTTP/11\r\n" HA "\r\n"), HTTP_ERR_BAD_VERSION,
        "eoff=6"},
    {"version https", IN("GET / HTTPS/1.1\r\n" HA "\r\n"), HTTP_ERR_BAD_VERSION,
        "eoff=6"},
    {"version letter", IN("GET / HTTP/1.x\r\n" HA "\r\n"), HTTP_ERR_BAD_VERSION,
        "eoff=6"},
    {"version ctl", IN("GET / HTTP/1.1\x01\r\n" HA "\r\n"),
        HTTP_ERR_BAD_VERSION, "eoff=14"},
    {"version empty", IN("GET / \r\n" HA "\r\n"), HTTP_ERR_BAD_VERSION,
        "eoff=6"},
    {"version 2.0", IN("GET / HTTP/2.0\r\n" HA "\r\n"),
        HTTP_ERR_UNSUPPORTED_VERSION, "eoff=6"},
    {"version 1.2", IN("GET / HTTP/1.2\r\n" HA "\r\n"),
        HTTP_ERR_UNSUPPORTED_VERSION, "eoff=6"},
    {"version 0.9", IN("GET / HTTP/0.9\r\n" HA "\r\n"),
        HTTP_ERR_UNSUPPORTED_VERSION, "eoff=6"},
    {"version 3.0", IN("GET / HTTP/3.0\r\n" HA "\r\n"),
        HTTP_ERR_UNSUPPORTED_VERSION, "eoff=6"},
    {"h2 prior knowledge preface", IN("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        HTTP_ERR_UNSUPPORTED_VERSION, "eoff=6"},

    /* ---- target ---- */
    {"target angle bracket", IN(H11("GET /a<b", HA)), HTTP_ERR_BAD_TARGET,
        "eoff=6"},
    {"target quote", IN(H11("GET /a\"b", HA)), HTTP_ERR_BAD_TARGET, "eoff=6"},
    {"target backslash", IN(H11("GET /a\\b", HA)), HTTP_ERR_BAD_TARGET,
        "eoff=6"},
    {"target braces", IN(H11("GET /a{b}", HA)), HTTP_ERR_BAD_TARGET, "eoff=6"},
    {"target pipe", IN(H11("GET /a|b", HA)), HTTP_ERR_BAD_TARGET, "eoff=6"},
    {"target caret", IN(H11("GET /a^b", HA)), HTTP_ERR_BAD_TARGET, "eoff=6"},
    {"target obs-text", IN(H11("GET /\xc3\xa9", HA)), HTTP_ERR_BAD_TARGET,
        "eoff=5"},
    {"target ctl", IN(H11("GET /a\x7f", HA)), HTTP_ERR_BAD_TARGET, "eoff=6"},
    {"target bad pct", IN(H11("GET /a%zz", HA)), HTTP_ERR_BAD_TARGET, "eoff=6"},
    {"target short pct", IN(H11("GET /a%4", HA)), HTTP_ERR_BAD_TARGET,
        "eoff=6"},
    {"target pct at end", IN(H11("GET /a%", HA)), HTTP_ERR_BAD_TARGET,
        "eoff=6"},
    {"target relative", IN(H11("GET a/b", HA)), HTTP_ERR_BAD_TARGET, "eoff=4"},
    {"target authority-form on GET", IN(H11("GET a.example:80", HA)),
        HTTP_ERR_BAD_TARGET, "eoff=4"},
    {"target scheme without //", IN(H11("GET http:/a.example/", HA)),
        HTTP_ERR_BAD_TARGET, "eoff=4"},
    {"target scheme starts with digit", IN(H11("GET 1http://a.example/", HA)),
        HTTP_ERR_BAD_TARGET, "eoff=4"},
    {"target asterisk with more", IN(H11("OPTIONS *x", HA)),
        HTTP_ERR_BAD_TARGET, "eoff=9"},
    {"target absolute query without path",
        IN(H11("GET http://a.example?x", HA)), HTTP_ERR_BAD_TARGET, "eoff=20"},
    {"target absolute bad path char", IN(H11("GET http://a.example/<", HA)),
        HTTP_ERR_BAD_TARGET, "eoff=21"},
    {"fragment origin", IN(H11("GET /a#b", HA)), HTTP_ERR_FRAGMENT, "eoff=6"},
    {"fragment empty", IN(H11("GET /#", HA)), HTTP_ERR_FRAGMENT, "eoff=5"},
    {"fragment absolute", IN(H11("GET http://a.example/#x", HA)),
        HTTP_ERR_FRAGMENT, "eoff=21"},
    {"fragment right after authority", IN(H11("GET http://a.example#x", HA)),
        HTTP_ERR_FRAGMENT, "eoff=20"},
    {"fragment in query", IN(H11("GET /?a#b", HA)), HTTP_ERR_FRAGMENT,
        "eoff=7"},
    {"userinfo absolute", IN(H11("GET http://user@a.example/", HA)),
        HTTP_ERR_USERINFO, "eoff=15"},
    {"userinfo with password", IN(H11("GET http://u:p@a.example/", HA)),
        HTTP_ERR_USERINFO, "eoff=14"},
    {"userinfo empty", IN(H11("GET http://@a.example/", HA)), HTTP_ERR_USERINFO,
        "eoff=11"},
    {"userinfo connect", IN(H11("CONNECT user@a.example:443", HA)),
        HTTP_ERR_USERINFO, "eoff=12"},
    {"userinfo connect smuggled host",
        IN(H11("CONNECT allowed.example:443@evil.example:443", HA)),
        HTTP_ERR_USERINFO, "eoff=27"},
    {"userinfo in host header", IN(H11("GET /", "Host: u@a.example\r\n")),
        HTTP_ERR_USERINFO, "eoff=23"},
    {"scheme ftp", IN(H11("GET ftp://a.example/", HA)),
        HTTP_ERR_UNSUPPORTED_SCHEME, "eoff=4"},
    {"scheme ws", IN(H11("GET ws://a.example/", HA)),
        HTTP_ERR_UNSUPPORTED_SCHEME, "eoff=4"},
    {"scheme file", IN(H11("GET file:///etc/passwd", HA)),
        HTTP_ERR_UNSUPPORTED_SCHEME, "eoff=4"},
    {"scheme httpx", IN(H11("GET httpx://a.example/", HA)),
        HTTP_ERR_UNSUPPORTED_SCHEME, "eoff=4"},
    {"scheme https", IN(H11("GET https://a.example/", HA)),
        HTTP_ERR_HTTPS_ABSOLUTE, "eoff=4"},
    {"scheme https uppercase port", IN(H11("POST HTTPS://a.example:443/x", HA)),
        HTTP_ERR_HTTPS_ABSOLUTE, "eoff=5"},
    {"connect origin-form", IN(H11("CONNECT /", HA)), HTTP_ERR_CONNECT_TARGET,
        "eoff=8"},
    {"connect asterisk", IN(H11("CONNECT *", HA)), HTTP_ERR_CONNECT_TARGET,
        "eoff=8"},
    {"connect absolute-form", IN(H11("CONNECT http://a.example:443/", HA)),
        HTTP_ERR_CONNECT_TARGET, "eoff=13"},
    {"connect with path", IN(H11("CONNECT a.example:443/x", HA)),
        HTTP_ERR_CONNECT_TARGET, "eoff=21"},
    {"connect with query", IN(H11("CONNECT a.example:443?x", HA)),
        HTTP_ERR_CONNECT_TARGET, "eoff=21"},
    {"connect with fragment", IN(H11("CONNECT a.example:443#x", HA)),
        HTTP_ERR_CONNECT_TARGET, "eoff=21"},
    {"asterisk on get", IN(H11("GET *", HA)), HTTP_ERR_ASTERISK_NOT_OPTIONS,
        "eoff=4"},
    {"asterisk on post", IN(H11("POST *", HA)), HTTP_ERR_ASTERISK_NOT_OPTIONS,
        "eoff=5"},

    /* ---- hosts ---- */
    {"host empty label", IN(H11("CONNECT a..example:443", HA)),
        HTTP_ERR_BAD_HOST, "eoff=8 hosterr=3"},
    {"host leading hyphen", IN(H11("CONNECT -a.example:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=7"},
    {"host underscore", IN(H11("CONNECT a_b.example:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=5"},
    {"host short ipv4", IN(H11("CONNECT 127.1:443", HA)), HTTP_ERR_BAD_HOST,
        "hosterr=9"},
    {"host hex ipv4", IN(H11("CONNECT 0x7f.0.0.1:443", HA)), HTTP_ERR_BAD_HOST,
        "hosterr=9"},
    {"host decimal ipv4", IN(H11("CONNECT 2130706433:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=9"},
    {"host octal ipv4", IN(H11("CONNECT 0177.0.0.1:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=9"},
    {"host empty", IN(H11("CONNECT :443", HA)), HTTP_ERR_BAD_HOST, "hosterr=1"},
    {"host unclosed bracket", IN(H11("CONNECT [::1:443", HA)),
        HTTP_ERR_BAD_HOST, "eoff=16"},
    {"host ipv4 in brackets", IN(H11("CONNECT [1.2.3.4]:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=10"},
    {"host ipv6 without brackets", IN(H11("CONNECT ::1:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=10"},
    {"host ipv6 without brackets no port", IN(H11("CONNECT 2001:db8::1", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=10"},
    {"host junk after bracket", IN(H11("CONNECT [::1]x:443", HA)),
        HTTP_ERR_BAD_HOST, "eoff=13"},
    {"host zone id", IN(H11("GET http://[fe80::1%25eth0]/", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=10"},
    {"host empty brackets", IN(H11("CONNECT []:443", HA)), HTTP_ERR_BAD_HOST,
        "hosterr=10"},
    {"host pct-encoded", IN(H11("GET http://ex%61mple.com/", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=5"},
    {"host empty absolute", IN(H11("GET http:///x", HA)), HTTP_ERR_BAD_HOST,
        "eoff=11 hosterr=1"},
    {"host reserved label", IN(H11("CONNECT ab--c.example:443", HA)),
        HTTP_ERR_BAD_HOST, "hosterr=8"},
    {"host non-ascii", IN(H11("GET /", "Host: \xc3\xa9.example\r\n")),
        HTTP_ERR_BAD_HOST, "hosterr=6"},
    {"host header empty", IN(H11("GET /", "Host:\r\n")), HTTP_ERR_BAD_HOST,
        "hosterr=1"},
    {"host header with space", IN(H11("GET /", "Host: a b\r\n")),
        HTTP_ERR_BAD_HOST, "hosterr=5"},
    {"host header with path", IN(H11("GET /", "Host: a.example/x\r\n")),
        HTTP_ERR_BAD_HOST, "hosterr=5"},
    {"host header two hosts",
        IN(H11("GET /", "Host: a.example, b.example\r\n")), HTTP_ERR_BAD_HOST,
        "hosterr=5"},
    {"host label too long",
        IN(H11(
            "CONNECT aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example:443",
            HA)),
        HTTP_ERR_BAD_HOST, "hosterr=4"},
    {"missing port", IN(H11("CONNECT example.com", HA)), HTTP_ERR_MISSING_PORT,
        "eoff=19"},
    {"missing port ipv6", IN(H11("CONNECT [::1]", HA)), HTTP_ERR_MISSING_PORT,
        "eoff=13"},
    {"missing port ipv4", IN(H11("CONNECT 192.0.2.1", HA)),
        HTTP_ERR_MISSING_PORT, "eoff=17"},
    {"missing port 1.0", IN("CONNECT example.com HTTP/1.0\r\n\r\n"),
        HTTP_ERR_MISSING_PORT, "eoff=19"},

    /* ---- header lines ---- */
    {"obs-fold", IN(H11("GET /", HA "X: a\r\n b\r\n")), HTTP_ERR_OBS_FOLD,
        "eoff=39"},
    {"obs-fold tab", IN(H11("GET /", HA "X: a\r\n\tb\r\n")), HTTP_ERR_OBS_FOLD,
        "eoff=39"},
    {"obs-fold of host",
        IN(H11("GET /", "Host: a.example\r\n evil.example\r\n")),
        HTTP_ERR_OBS_FOLD, "eoff=33"},
    {"whitespace after start line", IN(H11("GET /", " Host: a.example\r\n")),
        HTTP_ERR_OBS_FOLD, "eoff=16"},
    {"whitespace-only line", IN(H11("GET /", HA " \r\n")), HTTP_ERR_OBS_FOLD,
        "eoff=33"},
    {"space before colon", IN(H11("GET /", "Host : a.example\r\n")),
        HTTP_ERR_HEADER_NAME_WHITESPACE, "eoff=20"},
    {"tab before colon", IN(H11("GET /", "Host\t: a.example\r\n")),
        HTTP_ERR_HEADER_NAME_WHITESPACE, "eoff=20"},
    {"space before colon content-length",
        IN(H11("POST /", HA "Content-Length : 5\r\n")),
        HTTP_ERR_HEADER_NAME_WHITESPACE, "eoff=48"},
    {"space before colon transfer-encoding",
        IN(H11("POST /", HA "Transfer-Encoding : chunked\r\n")),
        HTTP_ERR_HEADER_NAME_WHITESPACE, "eoff=51"},
    {"space inside name", IN(H11("GET /", HA "X Y: z\r\n")),
        HTTP_ERR_HEADER_NAME_WHITESPACE, "eoff=34"},
    {"empty name", IN(H11("GET /", HA ": v\r\n")), HTTP_ERR_BAD_HEADER_NAME,
        "eoff=33"},
    {"name with quote", IN(H11("GET /", HA "X\"Y: v\r\n")),
        HTTP_ERR_BAD_HEADER_NAME, "eoff=34"},
    {"name without colon", IN(H11("GET /", HA "Xyz\r\n")),
        HTTP_ERR_BAD_HEADER_NAME, "eoff=36"},
    {"name obs-text", IN(H11("GET /", HA "H\xc3\xb3st: a\r\n")),
        HTTP_ERR_BAD_HEADER_NAME, "eoff=34"},
    {"name ctl", IN(H11("GET /", HA "Ho\x01st: a\r\n")),
        HTTP_ERR_BAD_HEADER_NAME, "eoff=35"},
    {"name nul", IN(H11("GET /", "Host\0: a\r\n")), HTTP_ERR_BAD_HEADER_NAME,
        "eoff=20"},
    {"name brackets", IN(H11("GET /", HA "[a]: b\r\n")),
        HTTP_ERR_BAD_HEADER_NAME, "eoff=33"},
    {"value nul", IN(H11("GET /", HA "X: a\0b\r\n")), HTTP_ERR_BAD_HEADER_VALUE,
        "eoff=37"},
    {"value del", IN(H11("GET /", HA "X: \x7f\r\n")), HTTP_ERR_BAD_HEADER_VALUE,
        "eoff=36"},
    {"value escape", IN(H11("GET /", HA "X: \x1b[31m\r\n")),
        HTTP_ERR_BAD_HEADER_VALUE, "eoff=36"},
    {"value nul in host", IN(H11("GET /", "Host: a.example\0.evil\r\n")),
        HTTP_ERR_BAD_HEADER_VALUE, "eoff=31"},
    {"value vertical tab", IN(H11("GET /", HA "X: a\x0b\r\n")),
        HTTP_ERR_BAD_HEADER_VALUE, "eoff=37"},

    /* ---- Host presence and agreement ---- */
    {"missing host", IN("GET / HTTP/1.1\r\n\r\n"), HTTP_ERR_MISSING_HOST,
        "eoff=16"},
    {"missing host other headers", IN("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
        HTTP_ERR_MISSING_HOST, "eoff=29"},
    {"missing host connect", IN("CONNECT a.example:443 HTTP/1.1\r\n\r\n"),
        HTTP_ERR_MISSING_HOST},
    {"missing host absolute", IN("GET http://a.example/ HTTP/1.1\r\n\r\n"),
        HTTP_ERR_MISSING_HOST},
    {"duplicate host same", IN(H11("GET /", HA HA)), HTTP_ERR_DUPLICATE_HOST,
        "eoff=33"},
    {"duplicate host different", IN(H11("GET /", HA "host: b.example\r\n")),
        HTTP_ERR_DUPLICATE_HOST, "eoff=33"},
    {"duplicate host http/1.0", IN("GET / HTTP/1.0\r\n" HA HA "\r\n"),
        HTTP_ERR_DUPLICATE_HOST},
    {"duplicate host empty second", IN(H11("GET /", HA "Host:\r\n")),
        HTTP_ERR_DUPLICATE_HOST},
    {"mismatch absolute host",
        IN(H11("GET http://a.example/", "Host: b.example\r\n")),
        HTTP_ERR_HOST_MISMATCH, "eoff=38"},
    {"mismatch absolute port",
        IN(H11("GET http://a.example:8080/", "Host: a.example\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch absolute host port",
        IN(H11("GET http://a.example/", "Host: a.example:8080\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch absolute explicit :81 vs default",
        IN(H11("GET http://a.example:81/", "Host: a.example:80\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch absolute subdomain",
        IN(H11("GET http://a.example/", "Host: x.a.example\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch absolute 1.0",
        IN("GET http://a.example/ HTTP/1.0\r\nHost: b.example\r\n\r\n"),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch connect host",
        IN(H11("CONNECT a.example:443", "Host: b.example:443\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch connect port",
        IN(H11("CONNECT a.example:443", "Host: a.example:80\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch connect ipv6",
        IN(H11("CONNECT [::1]:443", "Host: [::2]:443\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch ip vs name",
        IN(H11("CONNECT 127.0.0.1:443", "Host: localhost:443\r\n")),
        HTTP_ERR_HOST_MISMATCH},
    {"mismatch ipv4 vs mapped ipv6",
        IN(H11("CONNECT 10.0.0.1:443", "Host: [::ffff:10.0.0.1]:443\r\n")),
        HTTP_ERR_HOST_MISMATCH},

    /* ---- Content-Length ---- */
    {"cl plus sign", IN(H11("POST /", HA "Content-Length: +5\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH, "eoff=50"},
    {"cl negative", IN(H11("POST /", HA "Content-Length: -1\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl list of equal values",
        IN(H11("POST /", HA "Content-Length: 1, 1\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH, "eoff=51"},
    {"cl list no space", IN(H11("POST /", HA "Content-Length: 1,1\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl inner space", IN(H11("POST /", HA "Content-Length: 5 5\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl hex", IN(H11("POST /", HA "Content-Length: 0x10\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl empty", IN(H11("POST /", HA "Content-Length:\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl leading zero", IN(H11("POST /", HA "Content-Length: 05\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl over 2^53",
        IN(H11("POST /", HA "Content-Length: 9007199254740993\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl overflow",
        IN(H11("POST /", HA "Content-Length: 99999999999999999999999\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl 2^64",
        IN(H11("POST /", HA "Content-Length: 18446744073709551616\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl decimal point", IN(H11("POST /", HA "Content-Length: 1.0\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl trailing letter", IN(H11("POST /", HA "Content-Length: 5a\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl quoted", IN(H11("POST /", HA "Content-Length: \"5\"\r\n")),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"cl duplicate equal",
        IN(H11("POST /", HA "Content-Length: 5\r\nContent-Length: 5\r\n")),
        HTTP_ERR_DUPLICATE_CONTENT_LENGTH, "eoff=53"},
    {"cl duplicate different",
        IN(H11("POST /", HA "Content-Length: 5\r\ncontent-length: 6\r\n")),
        HTTP_ERR_DUPLICATE_CONTENT_LENGTH},
    {"cl duplicate bad second",
        IN(H11("POST /", HA "Content-Length: 5\r\nContent-Length: x\r\n")),
        HTTP_ERR_DUPLICATE_CONTENT_LENGTH},

    /* ---- Transfer-Encoding ---- */
    {"te chunked identity",
        IN(H11("POST /", HA "Transfer-Encoding: chunked, identity\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING, "eoff=53"},
    {"te identity", IN(H11("POST /", HA "Transfer-Encoding: identity\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te xchunked", IN(H11("POST /", HA "Transfer-Encoding: xchunked\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te chunkedx", IN(H11("POST /", HA "Transfer-Encoding: chunkedx\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te gzip chunked",
        IN(H11("POST /", HA "Transfer-Encoding: gzip, chunked\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te chunked comma",
        IN(H11("POST /", HA "Transfer-Encoding: chunked,\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te quoted", IN(H11("POST /", HA "Transfer-Encoding: \"chunked\"\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te empty", IN(H11("POST /", HA "Transfer-Encoding:\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te chunked with parameter",
        IN(H11("POST /", HA "Transfer-Encoding: chunked;q=1\r\n")),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"te two headers",
        IN(H11("POST /",
            HA "Transfer-Encoding: chunked\r\n"
               "Transfer-Encoding: chunked\r\n")),
        HTTP_ERR_DUPLICATE_TRANSFER_ENCODING, "eoff=62"},
    {"te two headers identity second",
        IN(H11("POST /",
            HA "Transfer-Encoding: chunked\r\n"
               "Transfer-Encoding: identity\r\n")),
        HTTP_ERR_DUPLICATE_TRANSFER_ENCODING},
    {"cl then te",
        IN(H11("POST /",
            HA "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n")),
        HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING, "eoff=53"},
    {"te then cl",
        IN(H11("POST /",
            HA "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n")),
        HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING, "eoff=62"},
    {"cl 0 and te",
        IN(H11("POST /",
            HA "Content-Length: 0\r\nTransfer-Encoding: chunked\r\n")),
        HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING},
    {"te in http/1.0",
        IN("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
        HTTP_ERR_TRANSFER_ENCODING_HTTP10, "eoff=17"},
    {"te and cl in http/1.0",
        IN("POST / HTTP/1.0\r\nContent-Length: 3\r\n"
           "Transfer-Encoding: chunked\r\n\r\n"),
        HTTP_ERR_TRANSFER_ENCODING_HTTP10},
    {"connect with content-length",
        IN(H11("CONNECT a.example:443",
            "Host: a.example:443\r\nContent-Length: 5\r\n")),
        HTTP_ERR_CONNECT_BODY},
    {"connect with chunked",
        IN(H11("CONNECT a.example:443",
            "Host: a.example:443\r\nTransfer-Encoding: chunked\r\n")),
        HTTP_ERR_CONNECT_BODY},

    /* ---- Connection, Upgrade, Expect ---- */
    {"connection semicolon", IN(H11("GET /", HA "Connection: close;\r\n")),
        HTTP_ERR_BAD_CONNECTION, "eoff=45"},
    {"connection space inside", IN(H11("GET /", HA "Connection: a b\r\n")),
        HTTP_ERR_BAD_CONNECTION},
    {"connection quoted", IN(H11("GET /", HA "Connection: \"close\"\r\n")),
        HTTP_ERR_BAD_CONNECTION},
    {"connection 17 options",
        IN(H11(
            "GET /", HA "Connection: a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q\r\n")),
        HTTP_ERR_TOO_MANY_CONNECTION_OPTIONS, "eoff=77"},
    {"connection 17 options over two headers",
        IN(H11("GET /",
            HA "Connection: a,b,c,d,e,f,g,h\r\n"
               "Connection: i,j,k,l,m,n,o,p,q\r\n")),
        HTTP_ERR_TOO_MANY_CONNECTION_OPTIONS},
    {"connection 16 options",
        IN(H11("GET /", HA "Connection: a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\r\n")),
        HTTP_OK, "keep=1"},
    {"connection names content-length",
        IN(H11("POST /",
            HA "Content-Length: 5\r\nConnection: Content-Length\r\n")),
        HTTP_ERR_CONNECTION_NAMES_FRAMING},
    {"connection names transfer-encoding",
        IN(H11("POST /", HA "Connection: close, transfer-encoding\r\n")),
        HTTP_ERR_CONNECTION_NAMES_FRAMING},
    {"connection names host", IN(H11("GET /", HA "Connection: Host\r\n")),
        HTTP_ERR_CONNECTION_NAMES_FRAMING},
    {"upgrade with space", IN(H11("GET /", HA "Upgrade: a b\r\n")),
        HTTP_ERR_BAD_UPGRADE},
    {"upgrade version only", IN(H11("GET /", HA "Upgrade: /1\r\n")),
        HTTP_ERR_BAD_UPGRADE},
    {"upgrade empty version", IN(H11("GET /", HA "Upgrade: a/\r\n")),
        HTTP_ERR_BAD_UPGRADE},
    {"upgrade empty", IN(H11("GET /", HA "Upgrade:\r\n")),
        HTTP_ERR_BAD_UPGRADE},
    {"upgrade twice",
        IN(H11("GET /", HA "Upgrade: websocket\r\nUpgrade: h2c\r\n")),
        HTTP_ERR_BAD_UPGRADE},
    {"expect other", IN(H11("PUT /", HA "Expect: foo\r\n")),
        HTTP_ERR_UNSUPPORTED_EXPECT, "eoff=41"},
    {"expect list", IN(H11("PUT /", HA "Expect: 100-continue, foo\r\n")),
        HTTP_ERR_UNSUPPORTED_EXPECT},
    {"expect empty", IN(H11("PUT /", HA "Expect:\r\n")),
        HTTP_ERR_UNSUPPORTED_EXPECT},
};

/*
 * Generated request cases: ports in every authority context, CTLs in every
 * part of the head, methods, floods and long targets.
 */
struct port_case {
	const char *port;
	enum http_result want;
};

static const struct port_case port_cases[] = {
    {"0", HTTP_ERR_BAD_PORT},
    {"1", HTTP_OK},
    {"80", HTTP_OK},
    {"443", HTTP_OK},
    {"65535", HTTP_OK},
    {"65536", HTTP_ERR_BAD_PORT},
    {"70000", HTTP_ERR_BAD_PORT},
    {"99999", HTTP_ERR_BAD_PORT},
    {"0443", HTTP_ERR_BAD_PORT},
    {"00", HTTP_ERR_BAD_PORT},
    {"+443", HTTP_ERR_BAD_PORT},
    {"-1", HTTP_ERR_BAD_PORT},
    {"99999999999999999999", HTTP_ERR_BAD_PORT},
    {"4294967297", HTTP_ERR_BAD_PORT},
    {"", HTTP_ERR_BAD_PORT},
    {"0x1bb", HTTP_ERR_BAD_PORT},
    {"443a", HTTP_ERR_BAD_PORT},
    {"44.3", HTTP_ERR_BAD_PORT},
    {"443:443", HTTP_ERR_BAD_HOST},
    {"1e3", HTTP_ERR_BAD_PORT},
};

static void
run_generated_requests(void)
{
	char name[128], *buf = malloc(3 * MAXH);
	size_t i, n;
	int b;

	if (buf == NULL)
		exit(2);
	for (i = 0; i < sizeof(port_cases) / sizeof(port_cases[0]); i++) {
		const struct port_case *pc = &port_cases[i];
		char f[64];

		snprintf(f, sizeof(f), "port=%s", pc->port);
		snprintf(name, sizeof(name), "port \"%s\" connect", pc->port);
		n = (size_t)snprintf(buf, MAXH,
		    "CONNECT a.example:%s HTTP/1.1\r\nHost: a.example:%s\r\n\r\n",
		    pc->port, pc->port);
		run_request(name, (uint8_t *)buf, n, 0, pc->want,
		    pc->want == HTTP_OK ? f : NULL);
		snprintf(
		    name, sizeof(name), "port \"%s\" connect ipv6", pc->port);
		n = (size_t)snprintf(buf, MAXH,
		    "CONNECT [2001:db8::1]:%s HTTP/1.0\r\n\r\n", pc->port);
		/* After "]" a second colon is part of the port. */
		run_request(name, (uint8_t *)buf, n, 0,
		    pc->want == HTTP_ERR_BAD_HOST ? HTTP_ERR_BAD_PORT :
		                                    pc->want,
		    pc->want == HTTP_OK ? f : NULL);
		snprintf(name, sizeof(name), "port \"%s\" absolute", pc->port);
		n = (size_t)snprintf(buf, MAXH,
		    "GET http://a.example:%s/ HTTP/1.1\r\nHost: a.example:%s\r\n\r\n",
		    pc->port, pc->port);
		run_request(name, (uint8_t *)buf, n, 0, pc->want,
		    pc->want == HTTP_OK ? f : NULL);
		snprintf(
		    name, sizeof(name), "port \"%s\" host header", pc->port);
		n = (size_t)snprintf(buf, MAXH,
		    "GET / HTTP/1.1\r\nHost: a.example:%s\r\n\r\n", pc->port);
		snprintf(f, sizeof(f), "hp=%s", pc->port);
		run_request(name, (uint8_t *)buf, n, 0, pc->want,
		    pc->want == HTTP_OK ? f : NULL);
	}

	/* Every CTL but HTAB, CR and LF, in each part of a request. */
	for (b = 0; b < 0x80; b++) {
		static const struct {
			const char *part, *fmt;
			enum http_result want;
		} parts[] = {
		    {"method", "GE%cT / HTTP/1.1\r\nHost: a\r\n\r\n",
		        HTTP_ERR_BAD_METHOD},
		    {"target", "GET /%c HTTP/1.1\r\nHost: a\r\n\r\n",
		        HTTP_ERR_BAD_TARGET},
		    {"version", "GET / HTTP/1.1%c\r\nHost: a\r\n\r\n",
		        HTTP_ERR_BAD_VERSION},
		    {"name", "GET / HTTP/1.1\r\nHo%cst: a\r\n\r\n",
		        HTTP_ERR_BAD_HEADER_NAME},
		    {"value", "GET / HTTP/1.1\r\nHost: a\r\nX: %c\r\n\r\n",
		        HTTP_ERR_BAD_HEADER_VALUE},
		};
		size_t p;

		if (!(b < 0x20 || b == 0x7f) || b == '\t' || b == '\r' ||
		    b == '\n')
			continue;
		for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			const char *pct = strstr(parts[p].fmt, "%c");
			size_t pre = (size_t)(pct - parts[p].fmt);

			n = strlen(parts[p].fmt) - 1;
			memcpy(buf, parts[p].fmt, pre);
			buf[pre] = (char)b;
			memcpy(buf + pre + 1, pct + 2, n - pre - 1);
			snprintf(name, sizeof(name), "ctl 0x%02x in %s", b,
			    parts[p].part);
			run_request(
			    name, (uint8_t *)buf, n, 0, parts[p].want, NULL);
		}
	}

	/* Known methods and their lowercase forms. */
	for (b = HTTP_METHOD_GET; b <= HTTP_METHOD_TRACE; b++) {
		const char *m = http_method_name((enum http_method)b);
		char f[64], low[16];
		size_t k;

		snprintf(name, sizeof(name), "method %s", m);
		snprintf(f, sizeof(f), "method=%s", m);
		n = (size_t)snprintf(
		    buf, MAXH, "%s /x HTTP/1.1\r\nHost: a\r\n\r\n", m);
		run_request(name, (uint8_t *)buf, n, 0, HTTP_OK, f);
		for (k = 0; m[k] && k < sizeof(low) - 1; k++)
			low[k] = (char)(m[k] - 'A' + 'a');
		low[k] = '\0';
		snprintf(name, sizeof(name), "method %s", low);
		n = (size_t)snprintf(
		    buf, MAXH, "%s /x HTTP/1.1\r\nHost: a\r\n\r\n", low);
		run_request(name, (uint8_t *)buf, n, 0,
		    HTTP_ERR_LOWERCASE_METHOD, "eoff=0");
	}

	/* Header floods. */
	n = (size_t)snprintf(buf, MAXH, "GET / HTTP/1.1\r\nHost: a\r\n");
	for (i = 1; i < HTTP_MAX_HEADERS; i++)
		n += (size_t)snprintf(buf + n, MAXH - n, "X%zu: y\r\n", i);
	n += (size_t)snprintf(buf + n, MAXH - n, "\r\n");
	run_request("100 headers", (uint8_t *)buf, n, 0, HTTP_OK, "nh=100");
	n -= 2;
	n += (size_t)snprintf(buf + n, MAXH - n, "Y: z\r\n\r\n");
	run_request("101 headers", (uint8_t *)buf, n, 0,
	    HTTP_ERR_TOO_MANY_HEADERS, NULL);
	n = (size_t)snprintf(buf, MAXH, "GET / HTTP/1.1\r\nHost: a\r\n");
	for (i = 1; i < 400; i++)
		n += (size_t)snprintf(buf + n, MAXH - n, "X: y\r\n");
	run_request("endless identical headers", (uint8_t *)buf, n, 0,
	    HTTP_NEED_MORE, NULL);
	run_request("endless headers hit the limit", (uint8_t *)buf, n, 2000,
	    HTTP_ERR_HEAD_TOO_LARGE, "eoff=2000");
	n += (size_t)snprintf(buf + n, MAXH - n, "\r\n");
	run_request("400 headers", (uint8_t *)buf, n, 0,
	    HTTP_ERR_TOO_MANY_HEADERS, "eoff=619");
	n = (size_t)snprintf(buf, MAXH, "GET / HTTP/1.1\r\nHost: a\r\nX: ");
	memset(buf + n, 'v', 3000);
	n += 3000;
	n += (size_t)snprintf(buf + n, MAXH - n, "\r\n\r\n");
	run_request("one huge value", (uint8_t *)buf, n, 0, HTTP_OK, "nh=2");
	run_request("one huge value over the limit", (uint8_t *)buf, n, 2048,
	    HTTP_ERR_HEAD_TOO_LARGE, "eoff=2048");

	/* The 8 KiB target cap. */
	n = (size_t)snprintf(buf, 3 * MAXH, "GET /");
	memset(buf + n, 'a', HTTP_MAX_TARGET_LEN - 1);
	n += HTTP_MAX_TARGET_LEN - 1;
	n += (size_t)snprintf(buf + n, MAXH, " HTTP/1.1\r\nHost: a\r\n\r\n");
	run_request(
	    "target of 8192 bytes", (uint8_t *)buf, n, 0, HTTP_OK, NULL);
	n = (size_t)snprintf(buf, 3 * MAXH, "GET /");
	memset(buf + n, 'a', HTTP_MAX_TARGET_LEN);
	n += HTTP_MAX_TARGET_LEN;
	n += (size_t)snprintf(buf + n, MAXH, " HTTP/1.1\r\nHost: a\r\n\r\n");
	run_request("target of 8193 bytes", (uint8_t *)buf, n, 0,
	    HTTP_ERR_TARGET_TOO_LONG, "eoff=8196");
	free(buf);
}

/*
 * ---- Responses ------------------------------------------------------------
 */

struct resp_case {
	const char *name;
	enum http_method method;
	const char *in;
	size_t len;
	enum http_result want;
	const char *fields;
};

static const struct resp_case resp_cases[] = {
    {"200 content-length", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), HTTP_OK,
        "ver=1.1 status=200 reason=OK framing=cl cl=5 keep=1 head=38"},
    {"200 chunked", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), HTTP_OK,
        "framing=chunked keep=1"},
    {"200 close-delimited", HTTP_METHOD_GET, IN("HTTP/1.1 200 OK\r\n\r\n"),
        HTTP_OK, "framing=close keep=0"},
    {"200 to head with length", HTTP_METHOD_HEAD,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n"), HTTP_OK,
        "framing=none keep=1"},
    {"200 to head chunked", HTTP_METHOD_HEAD,
        IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), HTTP_OK,
        "framing=none"},
    {"204", HTTP_METHOD_DELETE, IN("HTTP/1.1 204 No Content\r\n\r\n"), HTTP_OK,
        "status=204 framing=none keep=1"},
    {"304 with length", HTTP_METHOD_GET,
        IN("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"), HTTP_OK,
        "framing=none"},
    {"100 continue", HTTP_METHOD_PUT, IN("HTTP/1.1 100 Continue\r\n\r\n"),
        HTTP_OK, "status=100 framing=none"},
    {"103 early hints", HTTP_METHOD_GET,
        IN("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"),
        HTTP_OK, "status=103 framing=none"},
    {"101 switching", HTTP_METHOD_GET,
        IN("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
           "Connection: Upgrade\r\n\r\n"),
        HTTP_OK, "status=101 framing=switch keep=0 hop=Upgrade,Connection"},
    {"connect 200", HTTP_METHOD_CONNECT,
        IN("HTTP/1.1 200 Connection established\r\n\r\n"), HTTP_OK,
        "framing=tunnel keep=0"},
    {"connect 200 ignores length", HTTP_METHOD_CONNECT,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), HTTP_OK,
        "framing=tunnel"},
    {"connect 407 with body", HTTP_METHOD_CONNECT,
        IN("HTTP/1.1 407 Proxy Auth\r\nContent-Length: 3\r\n\r\n"), HTTP_OK,
        "framing=cl cl=3"},
    {"http/1.0 with length", HTTP_METHOD_GET,
        IN("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n"), HTTP_OK,
        "ver=1.0 framing=cl keep=0"},
    {"http/1.0 keep-alive", HTTP_METHOD_GET,
        IN("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n"),
        HTTP_OK, "keep=1"},
    {"connection close", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n"),
        HTTP_OK, "keep=0"},
    {"empty reason", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n"), HTTP_OK,
        "reason= framing=cl"},
    {"no reason", HTTP_METHOD_GET,
        IN("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n"), HTTP_OK,
        "status=404 reason="},
    {"reason with spaces", HTTP_METHOD_GET,
        IN("HTTP/1.1 500 Internal Server Error\r\n\r\n"), HTTP_OK,
        "status=500 framing=close"},
    {"status 599", HTTP_METHOD_GET, IN("HTTP/1.1 599 x\r\n\r\n"), HTTP_OK,
        "status=599"},
    {"many headers", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nServer: x\r\nDate: y\r\nContent-Type: text/html\r\n"
           "Keep-Alive: timeout=5\r\nContent-Length: 1\r\n\r\n"),
        HTTP_OK, "nh=5 hop=Keep-Alive"},
    {"bytes after the head", HTTP_METHOD_GET,
        IN("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n"), HTTP_OK,
        "head=27"},

    {"status two digits", HTTP_METHOD_GET, IN("HTTP/1.1 20 OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE, "eoff=8"},
    {"status four digits", HTTP_METHOD_GET, IN("HTTP/1.1 2000 OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE, "eoff=12"},
    {"status 099", HTTP_METHOD_GET, IN("HTTP/1.1 099 x\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE, "eoff=9"},
    {"status 600", HTTP_METHOD_GET, IN("HTTP/1.1 600 x\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status double space", HTTP_METHOD_GET, IN("HTTP/1.1  200 OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status no space", HTTP_METHOD_GET, IN("HTTP/1.1 200OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status letters", HTTP_METHOD_GET, IN("HTTP/1.1 2x0 OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status line http/2", HTTP_METHOD_GET, IN("HTTP/2 200\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status line 2.0", HTTP_METHOD_GET, IN("HTTP/2.0 200 OK\r\n\r\n"),
        HTTP_ERR_UNSUPPORTED_VERSION, "eoff=0"},
    {"status line lowercase", HTTP_METHOD_GET, IN("http/1.1 200 OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status line icy", HTTP_METHOD_GET, IN("ICY 200 OK\r\n\r\n"),
        HTTP_ERR_BAD_STATUS_LINE},
    {"status line ctl in reason", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 O\x01K\r\n\r\n"), HTTP_ERR_BAD_STATUS_LINE, "eoff=14"},
    {"status leading empty line", HTTP_METHOD_GET,
        IN("\r\nHTTP/1.1 200 OK\r\n\r\n"), HTTP_ERR_LEADING_EMPTY_LINE},
    {"response bare lf", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\nContent-Length: 0\n\n"), HTTP_ERR_BARE_LF,
        "eoff=15"},
    {"response obs-fold", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 0\r\n\r\n"),
        HTTP_ERR_OBS_FOLD},
    {"response duplicate cl", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"),
        HTTP_ERR_DUPLICATE_CONTENT_LENGTH, "eoff=36"},
    {"response cl list", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n"),
        HTTP_ERR_BAD_CONTENT_LENGTH},
    {"response cl and te", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
        HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING},
    {"response cl and te to head", HTTP_METHOD_HEAD,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
        HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING},
    {"response te gzip", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"),
        HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING},
    {"response te twice", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
        HTTP_ERR_DUPLICATE_TRANSFER_ENCODING},
    {"response te in 1.0", HTTP_METHOD_GET,
        IN("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
        HTTP_ERR_TRANSFER_ENCODING_HTTP10},
    {"response space before colon", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n"),
        HTTP_ERR_HEADER_NAME_WHITESPACE},
    {"response nul in value", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nX: \0\r\n\r\n"), HTTP_ERR_BAD_HEADER_VALUE},
    {"response connection names cl", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nConnection: content-length\r\nContent-Length: 1\r\n\r\n"),
        HTTP_ERR_CONNECTION_NAMES_FRAMING},
    {"response truncated", HTTP_METHOD_GET,
        IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), HTTP_NEED_MORE},
};

static void
run_response(const char *name, enum http_method method, const uint8_t *in,
    size_t len, size_t max, enum http_result want, const char *fields)
{
	static struct http_response p;
	struct strbuf whole, pre;
	char missing[256];
	enum http_result r, rk;
	size_t eoff = 0, k, bad_k = (size_t)-1, i;
	const uint8_t *g;

	strbuf_init(&whole, 0);
	strbuf_init(&pre, 0);
	if (max == 0)
		max = MAXH;
	g = tap_guard_copy(&guard, in, len);
	r = http_parse_response(g, len, max, method, &p, &eoff);
	describe_response(&whole, g, r, &p, eoff);
	if (!tap_ok(r == want, "response %s: %s", name, http_strerror(want)))
		tap_diag("got %d (%s); %s", (int)r, http_strerror(r),
		    strbuf_str(&whole));
	if (fields &&
	    !tap_ok(fields_match(
	                strbuf_str(&whole), fields, missing, sizeof(missing)),
	        "response %s: fields", name))
		tap_diag("missing \"%s\" in: %s", missing, strbuf_str(&whole));
	if (r == HTTP_OK) {
		bool ok = p.reason.off + p.reason.len <= p.head_len;

		for (i = 0; i < p.nheaders; i++)
			ok = ok &&
			    p.headers[i].value.off + p.headers[i].value.len <=
			        p.head_len;
		if (!ok)
			tap_ok(false, "response %s: spans", name);
	}
	for (k = 0; k < len && bad_k == (size_t)-1; k++) {
		g = tap_guard_copy(&guard, in, k);
		rk = http_parse_response(g, k, max, method, &p, &eoff);
		if (rk == HTTP_NEED_MORE)
			continue;
		describe_response(&pre, g, rk, &p, eoff);
		if (strcmp(strbuf_str(&pre), strbuf_str(&whole)) != 0)
			bad_k = k;
	}
	if (!tap_ok(bad_k == (size_t)-1, "response %s: every prefix", name))
		tap_diag("prefix %zu: %s vs whole %s", bad_k, strbuf_str(&pre),
		    strbuf_str(&whole));
	strbuf_free(&whole);
	strbuf_free(&pre);
}

/*
 * ---- Chunked bodies -------------------------------------------------------
 */

struct chunk_case {
	const char *name;
	const char *in;
	size_t len;
	enum http_result want;
	size_t at; /* OK: message length; error: offending byte */
};

static const struct chunk_case chunk_cases[] = {
    {"last chunk only", IN("0\r\n\r\n"), HTTP_OK, 5},
    {"one chunk", IN("5\r\nhello\r\n0\r\n\r\n"), HTTP_OK, 15},
    {"two chunks", IN("5\r\nhello\r\n1\r\n!\r\n0\r\n\r\n"), HTTP_OK, 21},
    {"followed by next request", IN("3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n"),
        HTTP_OK, 13},
    {"uppercase hex", IN("A\r\n0123456789\r\n0\r\n\r\n"), HTTP_OK, 20},
    {"lowercase hex", IN("a\r\n0123456789\r\n0\r\n\r\n"), HTTP_OK, 20},
    {"leading zeros", IN("0005\r\nhello\r\n0\r\n\r\n"), HTTP_OK, 18},
    {"sixteen digits", IN("0000000000000005\r\nhello\r\n0\r\n\r\n"), HTTP_OK,
        30},
    {"data holding crlf", IN("4\r\n\r\n\r\n\r\n0\r\n\r\n"), HTTP_OK, 14},
    {"data holding a fake last chunk", IN("5\r\n0\r\n\r\n\r\n0\r\n\r\n"),
        HTTP_OK, 15},
    {"extension", IN("5;a=b\r\nhello\r\n0\r\n\r\n"), HTTP_OK, 19},
    {"extension name only", IN("5;a\r\nhello\r\n0\r\n\r\n"), HTTP_OK, 17},
    {"extensions with bws", IN("5 ; a = b ;c\r\nhello\r\n0\r\n\r\n"), HTTP_OK,
        26},
    {"extension quoted", IN("5;a=\"x y;z\"\r\nhello\r\n0\r\n\r\n"), HTTP_OK,
        25},
    {"extension quoted escape", IN("5;a=\"\\\"\\\\\"\r\nhello\r\n0\r\n\r\n"),
        HTTP_OK, 24},
    {"extension on last chunk", IN("0;last\r\n\r\n"), HTTP_OK, 10},
    {"extension quoted then more", IN("1;a=\"b\";c=d\r\nx\r\n0\r\n\r\n"),
        HTTP_OK, 21},
    {"trailer", IN("0\r\nX-T: 1\r\n\r\n"), HTTP_OK, 13},
    {"trailers", IN("1\r\na\r\n0\r\nX-A: 1\r\nX-B:\r\nX-C: a\tb \xff\r\n\r\n"),
        HTTP_OK, 37},
    {"incomplete data", IN("5\r\nhel"), HTTP_NEED_MORE, 0},
    {"incomplete after chunk", IN("5\r\nhello\r\n"), HTTP_NEED_MORE, 0},
    {"incomplete trailers", IN("0\r\nX: 1\r\n"), HTTP_NEED_MORE, 0},
    {"huge chunk pending", IN("ffffffffffffffff\r\nabc"), HTTP_NEED_MORE, 0},
    {"seventeen digits", IN("00000000000000005\r\nhello\r\n0\r\n\r\n"),
        HTTP_ERR_BAD_CHUNK_SIZE, 16},
    {"oversized size", IN("10000000000000000\r\n"), HTTP_ERR_BAD_CHUNK_SIZE,
        16},
    {"plus sign", IN("+5\r\nhello\r\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_SIZE, 0},
    {"minus sign", IN("-5\r\nhello\r\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_SIZE, 0},
    {"0x prefix", IN("0x5\r\nhello\r\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_SIZE, 1},
    {"leading space", IN(" 5\r\nhello\r\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_SIZE,
        0},
    {"empty size", IN("\r\nhello\r\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_SIZE, 0},
    {"bad hex", IN("5g\r\nhello\r\n"), HTTP_ERR_BAD_CHUNK_SIZE, 1},
    {"not hex", IN("g\r\n"), HTTP_ERR_BAD_CHUNK_SIZE, 0},
    {"size bare lf", IN("5\nhello\r\n0\r\n\r\n"), HTTP_ERR_BARE_LF, 1},
    {"size bare cr", IN("5\rhello\r\n0\r\n\r\n"), HTTP_ERR_BARE_CR, 2},
    {"trailing space after size", IN("5 \r\nhello\r\n0\r\n\r\n"),
        HTTP_ERR_BAD_CHUNK_EXT, 2},
    {"extension empty name", IN("5;\r\nhello\r\n0\r\n\r\n"),
        HTTP_ERR_BAD_CHUNK_EXT, 2},
    {"extension empty value", IN("5;a=\r\nhello\r\n0\r\n\r\n"),
        HTTP_ERR_BAD_CHUNK_EXT, 4},
    {"extension unterminated quote", IN("5;a=\"x\r\nhello\r\n0\r\n\r\n"),
        HTTP_ERR_BAD_CHUNK_EXT, 6},
    {"extension two names", IN("5;a b\r\nhello\r\n"), HTTP_ERR_BAD_CHUNK_EXT,
        4},
    {"extension two values", IN("5;a=b c\r\nhello\r\n"), HTTP_ERR_BAD_CHUNK_EXT,
        6},
    {"extension bare lf", IN("5;a\nhello\r\n"), HTTP_ERR_BARE_LF, 3},
    {"extension ctl", IN("5;a=\x01\r\nhello\r\n"), HTTP_ERR_BAD_CHUNK_EXT, 4},
    {"extension nul in quotes", IN("5;a=\"\0\"\r\nhello\r\n"),
        HTTP_ERR_BAD_CHUNK_EXT, 5},
    {"extension after quote junk", IN("5;a=\"x\"y\r\nhello\r\n"),
        HTTP_ERR_BAD_CHUNK_EXT, 7},
    {"data too long", IN("5\r\nhelloX\r\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_END,
        8},
    {"data lf only", IN("5\r\nhello\n0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_END, 8},
    {"data cr only", IN("5\r\nhello\r0\r\n\r\n"), HTTP_ERR_BAD_CHUNK_END, 9},
    {"trailer obs-fold", IN("0\r\nX: a\r\n b\r\n\r\n"), HTTP_ERR_OBS_FOLD, 9},
    {"trailer space before colon", IN("0\r\nX : a\r\n\r\n"),
        HTTP_ERR_HEADER_NAME_WHITESPACE, 4},
    {"trailer empty name", IN("0\r\n: a\r\n\r\n"), HTTP_ERR_BAD_HEADER_NAME, 3},
    {"trailer no colon", IN("0\r\nX\r\n\r\n"), HTTP_ERR_BAD_HEADER_NAME, 4},
    {"trailer nul", IN("0\r\nX: a\0\r\n\r\n"), HTTP_ERR_BAD_HEADER_VALUE, 7},
    {"trailer bare lf", IN("0\r\nX: a\n\r\n"), HTTP_ERR_BARE_LF, 7},
    {"final bare lf", IN("0\r\n\n"), HTTP_ERR_BARE_LF, 3},
    {"final bare cr", IN("0\r\n\rx"), HTTP_ERR_BARE_CR, 4},
    {"trailer bare cr", IN("0\r\nX: a\rb\r\n\r\n"), HTTP_ERR_BARE_CR, 8},
};

static void
run_chunked(const char *name, const uint8_t *in, size_t len,
    enum http_result want, size_t at)
{
	struct http_chunked st;
	enum http_result r = HTTP_NEED_MORE;
	size_t used, total, k, i, bad = (size_t)-1;
	const uint8_t *g;

	/* Whole. */
	http_chunked_init(&st);
	g = tap_guard_copy(&guard, in, len);
	r = http_chunked_feed(&st, g, len, &used);
	if (!tap_ok(r == want &&
	            (want == HTTP_NEED_MORE ? used == len : used == at),
	        "chunked %s: %s", name, http_strerror(want)))
		tap_diag("got %d (%s), consumed %zu, want %zu", (int)r,
		    http_strerror(r), used, want == HTTP_NEED_MORE ? len : at);
	/* Sticky. */
	if (r != HTTP_NEED_MORE) {
		enum http_result r2 = http_chunked_feed(&st, g, len, &used);

		if (r2 != r || used != 0)
			tap_ok(false, "chunked %s: sticky", name);
	}

	/* Split in two at every offset, each piece on the guard page. */
	for (k = 0; k <= len && bad == (size_t)-1; k++) {
		http_chunked_init(&st);
		g = tap_guard_copy(&guard, in, k);
		r = http_chunked_feed(&st, g, k, &used);
		total = used;
		if (r == HTTP_NEED_MORE) {
			g = tap_guard_copy(&guard, in + k, len - k);
			r = http_chunked_feed(&st, g, len - k, &used);
			total += used;
		}
		if (r != want ||
		    (want == HTTP_NEED_MORE ? total != len : total != at))
			bad = k;
	}
	if (!tap_ok(bad == (size_t)-1, "chunked %s: split anywhere", name))
		tap_diag("split at %zu: %d, consumed %zu", bad, (int)r, total);

	/* One byte at a time. */
	http_chunked_init(&st);
	r = HTTP_NEED_MORE;
	total = 0;
	for (i = 0; i < len && r == HTTP_NEED_MORE; i++) {
		g = tap_guard_copy(&guard, in + i, 1);
		r = http_chunked_feed(&st, g, 1, &used);
		total += used;
	}
	if (!tap_ok(r == want &&
	            (want == HTTP_NEED_MORE ? total == len : total == at),
	        "chunked %s: byte by byte", name))
		tap_diag("got %d, consumed %zu", (int)r, total);
}

static void
run_generated_chunked(void)
{
	char *buf = malloc(3 * MAXH);
	size_t n, i;

	if (buf == NULL)
		exit(2);
	/* Extensions up to and past their cap. */
	n = (size_t)snprintf(buf, MAXH, "1;a=");
	memset(buf + n, 'x', HTTP_CHUNK_EXT_MAX_LEN - 3);
	n += HTTP_CHUNK_EXT_MAX_LEN - 3;
	n += (size_t)snprintf(buf + n, MAXH, "\r\nx\r\n0\r\n\r\n");
	run_chunked("extension at the cap", (uint8_t *)buf, n, HTTP_OK, n);
	n = (size_t)snprintf(buf, MAXH, "1;a=");
	memset(buf + n, 'x', HTTP_CHUNK_EXT_MAX_LEN - 2);
	n += HTTP_CHUNK_EXT_MAX_LEN - 2;
	n += (size_t)snprintf(buf + n, MAXH, "\r\nx\r\n0\r\n\r\n");
	run_chunked("extension past the cap", (uint8_t *)buf, n,
	    HTTP_ERR_CHUNK_EXT_TOO_LONG, 1 + HTTP_CHUNK_EXT_MAX_LEN);
	/* Trailers past their byte and field caps. */
	n = (size_t)snprintf(buf, MAXH, "0\r\nX: ");
	memset(buf + n, 'v', HTTP_TRAILER_MAX_LEN);
	n += HTTP_TRAILER_MAX_LEN;
	n += (size_t)snprintf(buf + n, MAXH, "\r\n\r\n");
	run_chunked("trailer too large", (uint8_t *)buf, n,
	    HTTP_ERR_TRAILER_TOO_LARGE, 3 + HTTP_TRAILER_MAX_LEN);
	n = (size_t)snprintf(buf, MAXH, "0\r\n");
	for (i = 0; i < HTTP_MAX_HEADERS; i++)
		n += (size_t)snprintf(buf + n, MAXH, "T: v\r\n");
	n += (size_t)snprintf(buf + n, MAXH, "\r\n");
	run_chunked("100 trailer fields", (uint8_t *)buf, n, HTTP_OK, n);
	n -= 2;
	n += (size_t)snprintf(buf + n, MAXH, "T: v\r\n\r\n");
	run_chunked("101 trailer fields", (uint8_t *)buf, n,
	    HTTP_ERR_TOO_MANY_HEADERS, 3 + 6 * HTTP_MAX_HEADERS);
	/* Many small chunks. */
	n = 0;
	for (i = 0; i < 300; i++)
		n += (size_t)snprintf(
		    buf + n, MAXH, "1\r\n%c\r\n", (char)('a' + i % 26));
	n += (size_t)snprintf(buf + n, MAXH, "0\r\n\r\n");
	run_chunked("300 one-byte chunks", (uint8_t *)buf, n, HTTP_OK, n);
	free(buf);
}

/*
 * ---- Authorities ----------------------------------------------------------
 */

struct auth_case {
	const char *in;
	bool required;
	uint16_t def;
	enum http_result want;
	const char *host;
	unsigned port;
};

static const struct auth_case auth_cases[] = {
    {"example.com:443", true, 0, HTTP_OK, "example.com", 443},
    {"example.com", false, 80, HTTP_OK, "example.com", 80},
    {"example.com", false, 0, HTTP_OK, "example.com", 0},
    {"example.com", true, 80, HTTP_ERR_MISSING_PORT, NULL, 0},
    {"EXAMPLE.com.:8080", true, 0, HTTP_OK, "example.com", 8080},
    {"[::1]:443", true, 0, HTTP_OK, "::1", 443},
    {"[::1]", false, 443, HTTP_OK, "::1", 443},
    {"[::1]", true, 0, HTTP_ERR_MISSING_PORT, NULL, 0},
    {"[::ffff:1.2.3.4]:1", true, 0, HTTP_OK, "::ffff:1.2.3.4", 1},
    {"[2001:DB8::0:1]:65535", true, 0, HTTP_OK, "2001:db8::1", 65535},
    {"1.2.3.4:80", true, 0, HTTP_OK, "1.2.3.4", 80},
    {"255.255.255.255:1", true, 0, HTTP_OK, "255.255.255.255", 1},
    {"256.1.1.1:1", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"1.2.3:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"01.2.3.4:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"localhost:22", true, 0, HTTP_OK, "localhost", 22},
    {"a@b:1", true, 0, HTTP_ERR_USERINFO, NULL, 0},
    {"@b:1", true, 0, HTTP_ERR_USERINFO, NULL, 0},
    {"", false, 80, HTTP_ERR_BAD_HOST, NULL, 0},
    {":80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"[::1]:", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"example.com:", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"example.com:", false, 80, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a:1:2", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"[]:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"[::1]]:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"[[::1]]:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"[::1", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"::1]:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"[v1.x]:80", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"xn--nxasmq6b.com:443", true, 0, HTTP_OK, "xn--nxasmq6b.com", 443},
    {"ab--c.com:443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"a.com :443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"a.com: 443", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:443 ", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:0", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:65536", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:0443", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:+443", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:-1", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:99999999999999999999", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com:443/", true, 0, HTTP_ERR_BAD_PORT, NULL, 0},
    {"a.com/:443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"*.a.com:443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"a%2ecom:443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {".:443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
    {"a.com..:443", true, 0, HTTP_ERR_BAD_HOST, NULL, 0},
};

static void
run_authorities(void)
{
	size_t i;

	for (i = 0; i < sizeof(auth_cases) / sizeof(auth_cases[0]); i++) {
		const struct auth_case *c = &auth_cases[i];
		size_t len = strlen(c->in);
		const char *g =
		    (const char *)tap_guard_copy(&guard, c->in, len);
		struct hostname h;
		uint16_t port = 7;
		enum http_result r;

		r = http_parse_authority(
		    g, len, c->required, c->def, &h, &port);
		if (!tap_ok(r == c->want,
		        "authority \"%s\" (%s, default %u): %s", c->in,
		        c->required ? "port required" : "port optional",
		        (unsigned)c->def, http_strerror(c->want)))
			tap_diag("got %d (%s)", (int)r, http_strerror(r));
		if (c->want == HTTP_OK) {
			tap_is_str(
			    h.name, c->host, "authority \"%s\": host", c->in);
			tap_is_int(
			    port, c->port, "authority \"%s\": port", c->in);
		}
	}
}

/*
 * ---- Origin-form rewrite --------------------------------------------------
 */

struct rewrite_case {
	const char *name;
	const char *in;
	const char *want; /* NULL: the rewrite refuses */
};

static const struct rewrite_case rewrite_cases[] = {
    {"absolute get",
        "GET http://example.com/path?q=1 HTTP/1.1\r\nHost: example.com\r\n"
        "User-Agent: curl/8\r\nAccept: */*\r\n\r\n",
        "GET /path?q=1 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl/8\r\n"
        "Accept: */*\r\nConnection: keep-alive\r\n\r\n"},
    {"hop-by-hop removed",
        "POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\n"
        "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\n"
        "Connection: X-Secret, close\r\nX-Secret: s\r\nKeep-Alive: 5\r\n"
        "TE: trailers\r\nTrailer: X-T\r\nUpgrade: h2c\r\n"
        "Content-Length: 2\r\nX-Keep: k\r\n\r\nhi",
        "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n"
        "X-Keep: k\r\nConnection: close\r\n\r\n"},
    {"port kept in host",
        "GET http://Example.COM:8080/x HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: example.com:8080\r\nConnection: keep-alive\r\n\r\n"},
    {"default port dropped from host",
        "GET http://example.com:80/x HTTP/1.1\r\nHost: EXAMPLE.com\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\n\r\n"},
    {"ipv6 host bracketed",
        "GET http://[2001:DB8::1]:8080/ HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\nConnection: keep-alive\r\n\r\n"},
    {"empty path",
        "GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\n\r\n"},
    {"options empty path becomes *",
        "OPTIONS http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\n\r\n"},
    {"http/1.0 client",
        "GET http://example.com/ HTTP/1.0\r\nExpect: 100-continue\r\nX: y\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: example.com\r\nX: y\r\nConnection: close\r\n\r\n"},
    {"http/1.0 keep-alive client",
        "GET http://example.com/ HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\n\r\n"},
    {"expect kept for 1.1",
        "PUT http://example.com/f HTTP/1.1\r\nHost: example.com\r\n"
        "Expect: 100-continue\r\nContent-Length: 1\r\n\r\n",
        "PUT /f HTTP/1.1\r\nHost: example.com\r\nExpect: 100-continue\r\n"
        "Content-Length: 1\r\nConnection: keep-alive\r\n\r\n"},
    {"chunked kept",
        "POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\n"
        "Transfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n"
        "Connection: keep-alive\r\n\r\n"},
    {"origin-form keeps host in place",
        "GET /a HTTP/1.1\r\nAccept: */*\r\nHost: example.com\r\n"
        "Connection: close\r\n\r\n",
        "GET /a HTTP/1.1\r\nAccept: */*\r\nHost: example.com\r\n"
        "Connection: close\r\n\r\n"},
    {"other method kept",
        "PROPFIND http://example.com/d HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "PROPFIND /d HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\n\r\n"},
    {"connect refused",
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
        NULL},
    {"origin-form 1.0 without host refused", "GET / HTTP/1.0\r\n\r\n", NULL},
};

static void
run_rewrites(void)
{
	static struct http_request q;
	struct strbuf sb;
	size_t i, eoff;

	for (i = 0; i < sizeof(rewrite_cases) / sizeof(rewrite_cases[0]); i++) {
		const struct rewrite_case *c = &rewrite_cases[i];
		size_t len = strlen(c->in);
		const uint8_t *g = tap_guard_copy(&guard, c->in, len);
		enum http_result r =
		    http_parse_request(g, len, MAXH, &q, &eoff);
		bool ok;

		if (!tap_ok(r == HTTP_OK, "rewrite %s: parses", c->name)) {
			tap_diag("%s at %zu", http_strerror(r), eoff);
			continue;
		}
		strbuf_init(&sb, 0);
		ok = http_request_write_origin(&q, g, NULL, 0, &sb);
		if (c->want == NULL) {
			tap_ok(!ok, "rewrite %s: refused", c->name);
		} else {
			tap_ok(ok, "rewrite %s: written", c->name);
			tap_is_str(strbuf_str(&sb), c->want, "rewrite %s: text",
			    c->name);
			/* The output is itself a valid origin-form request. */
			g = tap_guard_copy(&guard, sb.s, sb.len);
			r = http_parse_request(g, sb.len, MAXH, &q, &eoff);
			tap_ok(r == HTTP_OK && q.form != HTTP_TARGET_ABSOLUTE,
			    "rewrite %s: output re-parses", c->name);
		}
		strbuf_free(&sb);
	}

	/* A cap too small for the head truncates and reports it. */
	{
		const char *in = "GET http://example.com/ HTTP/1.1\r\n"
		                 "Host: example.com\r\n\r\n";
		size_t len = strlen(in);
		const uint8_t *g = tap_guard_copy(&guard, in, len);

		(void)http_parse_request(g, len, MAXH, &q, &eoff);
		strbuf_init(&sb, 16);
		tap_ok(!http_request_write_origin(&q, g, NULL, 0, &sb) &&
		        sb.truncated,
		    "rewrite: truncation reported");
		strbuf_free(&sb);
	}
}

/*
 * ---- Error table, scan API, linear cost -----------------------------------
 */

static void
run_error_table(void)
{
	int r, s, k;
	bool ok = true, uniq = true;

	for (r = HTTP_ERR_HEAD_TOO_LARGE; r < HTTP_RESULT_COUNT; r++) {
		const char *m = http_strerror((enum http_result)r);

		s = http_error_status((enum http_result)r);
		if (strcmp(m, "invalid HTTP message") == 0 || strlen(m) < 15 ||
		    !(s == 400 || s == 414 || s == 417 || s == 431 ||
		        s == 501 || s == 502 || s == 505)) {
			tap_diag("result %d: \"%s\" status %d", r, m, s);
			ok = false;
		}
		for (k = HTTP_ERR_HEAD_TOO_LARGE; k < r; k++)
			if (strcmp(m, http_strerror((enum http_result)k)) == 0)
				uniq = false;
	}
	tap_ok(ok, "every error has a message and a 4xx/5xx status");
	tap_ok(uniq, "every error message is distinct");
	tap_is_int(http_error_status(HTTP_OK), 0, "status for OK");
	tap_is_int(http_error_status(HTTP_ERR_TARGET_TOO_LONG), 414,
	    "status for a long target");
	tap_is_int(http_error_status(HTTP_ERR_HEAD_TOO_LARGE), 431,
	    "status for a large head");
	tap_is_int(http_error_status(HTTP_ERR_UNSUPPORTED_VERSION), 505,
	    "status for HTTP/2.0");
	tap_is_int(http_error_status(HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING),
	    501, "status for gzip transfer coding");
	tap_is_int(http_error_status(HTTP_ERR_HOST_MISMATCH), 400,
	    "status for a host mismatch");
	tap_ok(
	    strstr(http_strerror(HTTP_ERR_HTTPS_ABSOLUTE), "CONNECT") != NULL,
	    "https:// message points at CONNECT");
	tap_ok(http_method_name(HTTP_METHOD_OTHER) == NULL &&
	        strcmp(http_method_name(HTTP_METHOD_CONNECT), "CONNECT") == 0,
	    "method names");
}

static void
run_find_header(void)
{
	static struct http_request q;
	const char *in =
	    "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\n\r\n";
	const struct http_header *h;
	size_t eoff;

	(void)http_parse_request(
	    (const uint8_t *)in, strlen(in), MAXH, &q, &eoff);
	h = http_find_header(q.headers, q.nheaders, (const uint8_t *)in, "x-A");
	tap_ok(h != NULL && h->value.len == 1 && in[h->value.off] == '1',
	    "find_header: first match, case-insensitive");
	tap_ok(http_find_header(
	           q.headers, q.nheaders, (const uint8_t *)in, "X-B") == NULL,
	    "find_header: absent");
}

/*
 * A 16 KiB head fed one byte at a time: the incremental scan must look at
 * each byte once, and the single parse after it must succeed. The budget
 * is in bytes examined, not time, so the test is deterministic.
 */
static void
run_linear(void)
{
	static struct http_request q;
	size_t cap = 16384, n, k, calls = 0, head_len = 0, eoff = 0;
	struct http_head_scan st;
	enum http_result r = HTTP_NEED_MORE;
	char *buf = malloc(cap + 64);

	if (buf == NULL)
		exit(2);
	n = (size_t)snprintf(buf, cap,
	    "POST http://a.example/ HTTP/1.1\r\n"
	    "Host: a.example\r\n");
	while (n < cap - 40)
		n += (size_t)snprintf(buf + n, cap - n, "X-Pad: %.*s\r\n",
		    (int)(cap - n - 40 < 250 ? cap - n - 40 : 250),
		    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
		    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
		    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
		    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
		    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvv");
	n += (size_t)snprintf(buf + n, cap + 64 - n, "\r\n");

	http_head_scan_init(&st, HTTP_HEAD_REQUEST);
	for (k = 1; k <= n && r == HTTP_NEED_MORE; k++) {
		r = http_head_scan(
		    &st, (const uint8_t *)buf, k, cap, &head_len, &eoff);
		calls++;
	}
	tap_ok(r == HTTP_OK && head_len == n,
	    "linear: head found at %zu of %zu", head_len, n);
	tap_ok(n > 16000, "linear: head is %zu bytes", n);
	if (!tap_ok(st.scanned == n, "linear: each byte examined once"))
		tap_diag(
		    "examined %zu bytes over %zu calls for a %zu-byte head",
		    st.scanned, calls, n);
	r = http_parse_request((const uint8_t *)buf, n, cap, &q, &eoff);
	tap_ok(r == HTTP_OK && q.nheaders > 100 / 2, "linear: one parse, %s",
	    http_strerror(r));
	/* Sticky once complete: later calls cost nothing. */
	k = st.scanned;
	r = http_head_scan(&st, (const uint8_t *)buf, n, cap, &head_len, &eoff);
	tap_ok(r == HTTP_OK && st.scanned == k, "linear: result is sticky");
	free(buf);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(req_cases) / sizeof(req_cases[0]); i++)
		run_req_case(&req_cases[i]);
	run_generated_requests();
	for (i = 0; i < sizeof(resp_cases) / sizeof(resp_cases[0]); i++) {
		const struct resp_case *c = &resp_cases[i];

		run_response(c->name, c->method, (const uint8_t *)c->in, c->len,
		    0, c->want, c->fields);
	}
	run_response("response head too large", HTTP_METHOD_GET,
	    (const uint8_t
	            *)"HTTP/1.1 200 OK\r\nServer: xxxxxxxxxxxxxxxx\r\n\r\n",
	    43, 30, HTTP_ERR_HEAD_TOO_LARGE, "eoff=30");
	for (i = 0; i < sizeof(chunk_cases) / sizeof(chunk_cases[0]); i++) {
		const struct chunk_case *c = &chunk_cases[i];

		run_chunked(
		    c->name, (const uint8_t *)c->in, c->len, c->want, c->at);
	}
	run_generated_chunked();
	run_authorities();
	run_rewrites();
	run_error_table();
	run_find_header();
	run_linear();
	tap_guard_free(&guard);
	return tap_done();
}
