/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for proxy/http_parse.c: the input is parsed as a request
 * head, a response head, an authority and a chunked body, and the results
 * are checked for internal consistency. Leaves expected answers to the unit
 * tests; this only asserts invariants that hold for every input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_HEAD 16384

#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
			    __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

static bool
span_in(struct http_span sp, size_t limit)
{
	return sp.off <= limit && sp.len <= limit - sp.off;
}

static void
check_hostname(const struct hostname *h)
{
	struct hostname again;

	CHECK(h->len <= HOSTNAME_MAX && h->len == strlen(h->name));
	/* Normalized names are a fixed point of the normalizer. */
	CHECK(hostname_normalize(h->name, h->len, &again) == HOSTNAME_OK);
	CHECK(again.kind == h->kind && strcmp(again.name, h->name) == 0);
}

static void
check_headers(const struct http_header *h, size_t n, size_t head_len)
{
	size_t i;

	CHECK(n <= HTTP_MAX_HEADERS);
	for (i = 0; i < n; i++) {
		CHECK(h[i].name.len > 0 && span_in(h[i].name, head_len));
		CHECK(span_in(h[i].value, head_len));
		CHECK(h[i].value.off > h[i].name.off + h[i].name.len);
	}
}

static void
check_error(enum http_result r, size_t err_off, size_t len)
{
	CHECK(r < HTTP_RESULT_COUNT);
	if (r == HTTP_OK || r == HTTP_NEED_MORE)
		return;
	CHECK(err_off <= len);
	CHECK(http_error_status(r) >= 400 && http_strerror(r) != NULL);
}

/* The rewrite of an accepted request is itself an accepted request. */
static void
check_rewrite(const struct http_request *q, const uint8_t *buf)
{
	static struct http_request o;
	struct strbuf sb;
	const char *p1, *p2;
	size_t l1, l2, eoff;
	enum http_result r;

	strbuf_init(&sb, 0);
	if (!http_request_write_origin(q, buf, NULL, 0, &sb)) {
		CHECK(q->form == HTTP_TARGET_AUTHORITY ||
		    (q->form != HTTP_TARGET_ABSOLUTE && !q->has_host));
		strbuf_free(&sb);
		return;
	}
	r = http_parse_request(
	    (const uint8_t *)sb.s, sb.len, 4 * FUZZ_MAX_HEAD, &o, &eoff);
	/* Host and Connection are added: a full head may overflow. */
	if (r == HTTP_ERR_TOO_MANY_HEADERS &&
	    q->nheaders >= HTTP_MAX_HEADERS - 2) {
		strbuf_free(&sb);
		return;
	}
	if (r != HTTP_OK)
		fprintf(stderr, "rewrite: %s at %zu in:\n%s\n",
		    http_strerror(r), eoff, sb.s);
	CHECK(r == HTTP_OK);
	CHECK(o.head_len == sb.len);
	CHECK(o.form == HTTP_TARGET_ORIGIN || o.form == HTTP_TARGET_ASTERISK);
	CHECK(o.version == HTTP_VERSION_1_1);
	CHECK(o.method == q->method && o.method_span.len == q->method_span.len);
	CHECK(o.framing == q->framing && o.content_length == q->content_length);
	CHECK(o.keep_alive == q->keep_alive);
	CHECK(o.has_host);
	if (q->form == HTTP_TARGET_ABSOLUTE) {
		CHECK(strcmp(o.host_hdr.name, q->host.name) == 0);
		CHECK((o.host_hdr_port ? o.host_hdr_port : 80) == q->port);
	} else {
		CHECK(strcmp(o.host_hdr.name, q->host_hdr.name) == 0);
		CHECK(o.host_hdr_port == q->host_hdr_port);
	}
	p1 = http_request_path(q, buf, &l1);
	p2 = http_request_path(&o, (const uint8_t *)sb.s, &l2);
	CHECK(p1 && p2 && l1 == l2 && memcmp(p1, p2, l1) == 0);
	CHECK(!o.upgrade);
	strbuf_free(&sb);
}

static void
fuzz_request(const uint8_t *buf, size_t len, size_t max)
{
	static struct http_request q, q2;
	size_t eoff = 0, eoff2 = 0, k;
	enum http_result r, r2;

	r = http_parse_request(buf, len, max, &q, &eoff);
	check_error(r, eoff, len);
	r2 = http_parse_request(buf, len, max, &q2, &eoff2);
	CHECK(r2 == r && eoff2 == eoff);
	if (r == HTTP_OK)
		CHECK(memcmp(&q, &q2, sizeof(q)) == 0);

	/* Some prefixes: NEED_MORE or the same answer. */
	for (k = len / 2; k < len; k += (len - k + 1) / 2) {
		r2 = http_parse_request(buf, k, max, &q2, &eoff2);
		CHECK(r2 == HTTP_NEED_MORE || (r2 == r && eoff2 == eoff));
		if (r2 == HTTP_OK)
			CHECK(q2.head_len == q.head_len);
	}
	if (r == HTTP_ERR_HEAD_TOO_LARGE)
		CHECK(len >= max && eoff == max);
	if (r != HTTP_OK)
		return;

	CHECK(q.head_len >= 4 && q.head_len <= len && q.head_len <= max);
	CHECK(memcmp(buf + q.head_len - 4, "\r\n\r\n", 4) == 0);
	CHECK(memchr(buf, '\n', q.head_len) != NULL);
	r2 = http_parse_request(buf, q.head_len - 1, max, &q2, &eoff2);
	CHECK(r2 == HTTP_NEED_MORE ||
	    (q.head_len - 1 >= max && r2 == HTTP_ERR_HEAD_TOO_LARGE));
	CHECK(span_in(q.method_span, q.head_len) && q.method_span.off == 0);
	CHECK(q.method_span.len <= HTTP_MAX_METHOD_LEN);
	CHECK(span_in(q.target, q.head_len) && q.target.len > 0);
	CHECK(q.target.len <= HTTP_MAX_TARGET_LEN);
	CHECK(span_in(q.path, q.head_len));
	check_headers(q.headers, q.nheaders, q.head_len);
	CHECK((q.method == HTTP_METHOD_CONNECT) ==
	    (q.form == HTTP_TARGET_AUTHORITY));
	if (q.form == HTTP_TARGET_ASTERISK)
		CHECK(q.method == HTTP_METHOD_OPTIONS);
	if (q.form == HTTP_TARGET_ABSOLUTE || q.form == HTTP_TARGET_AUTHORITY) {
		check_hostname(&q.host);
		CHECK(q.port != 0);
	}
	if (q.form == HTTP_TARGET_ABSOLUTE || q.form == HTTP_TARGET_ORIGIN)
		CHECK(span_in(q.path, q.target.off + q.target.len) &&
		    q.path.off >= q.target.off);
	if (q.has_host)
		check_hostname(&q.host_hdr);
	else
		CHECK(q.version == HTTP_VERSION_1_0);
	CHECK(q.framing == HTTP_FRAMING_NONE ||
	    q.framing == HTTP_FRAMING_CONTENT_LENGTH ||
	    q.framing == HTTP_FRAMING_CHUNKED);
	CHECK(q.content_length <= HTTP_CONTENT_LENGTH_MAX);
	if (q.framing != HTTP_FRAMING_CONTENT_LENGTH)
		CHECK(q.content_length == 0);
	if (q.framing == HTTP_FRAMING_CHUNKED)
		CHECK(q.version == HTTP_VERSION_1_1);
	if (q.upgrade)
		CHECK(q.upgrade_proto.len > 0 &&
		    span_in(q.upgrade_proto, q.head_len));
	if (q.expect_continue)
		CHECK(q.version == HTTP_VERSION_1_1);
	check_rewrite(&q, buf);
}

static void
fuzz_response(const uint8_t *buf, size_t len, size_t max, enum http_method m)
{
	static struct http_response p, p2;
	size_t eoff = 0, eoff2 = 0;
	enum http_result r, r2;

	r = http_parse_response(buf, len, max, m, &p, &eoff);
	check_error(r, eoff, len);
	r2 = http_parse_response(buf, len, max, m, &p2, &eoff2);
	CHECK(r2 == r && eoff2 == eoff);
	if (r != HTTP_OK)
		return;
	CHECK(memcmp(&p, &p2, sizeof(p)) == 0);
	CHECK(p.head_len >= 4 && p.head_len <= len && p.head_len <= max);
	CHECK(memcmp(buf + p.head_len - 4, "\r\n\r\n", 4) == 0);
	r2 = http_parse_response(buf, p.head_len - 1, max, m, &p2, &eoff2);
	CHECK(r2 == HTTP_NEED_MORE);
	CHECK(p.status >= 100 && p.status <= 599);
	CHECK(span_in(p.reason, p.head_len));
	check_headers(p.headers, p.nheaders, p.head_len);
	CHECK(p.content_length <= HTTP_CONTENT_LENGTH_MAX);
	if (p.status == 101)
		CHECK(p.framing == HTTP_FRAMING_SWITCH);
	else if (m == HTTP_METHOD_HEAD || p.status < 200 || p.status == 204 ||
	    p.status == 304)
		CHECK(p.framing == HTTP_FRAMING_NONE);
	if (p.framing == HTTP_FRAMING_TUNNEL)
		CHECK(m == HTTP_METHOD_CONNECT);
	if (p.framing == HTTP_FRAMING_CLOSE || p.framing == HTTP_FRAMING_TUNNEL)
		CHECK(!p.keep_alive);
}

/* The same bytes fed whole and in pieces give the same end and result. */
static void
fuzz_chunked(const uint8_t *buf, size_t len, size_t step)
{
	struct http_chunked a, b;
	enum http_result ra, rb = HTTP_NEED_MORE;
	size_t ua, ub, total = 0, off = 0;

	http_chunked_init(&a);
	ra = http_chunked_feed(&a, buf, len, &ua);
	CHECK(ra < HTTP_RESULT_COUNT && ua <= len);
	if (ra == HTTP_NEED_MORE)
		CHECK(ua == len);
	http_chunked_init(&b);
	while (off < len && rb == HTTP_NEED_MORE) {
		size_t n = len - off < step ? len - off : step;

		rb = http_chunked_feed(&b, buf + off, n, &ub);
		CHECK(ub <= n);
		total += ub;
		off += n;
	}
	if (len == 0)
		rb = http_chunked_feed(&b, buf, 0, &ub);
	CHECK(ra == rb && ua == total);
	/* Done and failed are sticky and consume nothing more. */
	if (ra != HTTP_NEED_MORE)
		CHECK(http_chunked_feed(&a, buf, len, &ub) == ra && ub == 0);
	if (ra == HTTP_OK) {
		/* Exactly the first ua bytes make a complete message. */
		http_chunked_init(&b);
		CHECK(
		    http_chunked_feed(&b, buf, ua, &ub) == HTTP_OK && ub == ua);
		http_chunked_init(&b);
		CHECK(
		    http_chunked_feed(&b, buf, ua - 1, &ub) == HTTP_NEED_MORE);
	}
}

static void
fuzz_authority(const uint8_t *buf, size_t len)
{
	struct hostname h;
	uint16_t port = 0;
	enum http_result r;

	if (len > 600)
		len = 600;
	r = http_parse_authority((const char *)buf, len, true, 0, &h, &port);
	if (r == HTTP_OK) {
		check_hostname(&h);
		CHECK(port != 0);
	}
	r = http_parse_authority((const char *)buf, len, false, 80, &h, &port);
	if (r == HTTP_OK) {
		check_hostname(&h);
		CHECK(port != 0);
	}
}

static void
fuzz_scan(const uint8_t *buf, size_t len, size_t step)
{
	struct http_head_scan a, b;
	enum http_result ra, rb = HTTP_NEED_MORE;
	size_t ha = 0, hb = 0, ea = 0, eb = 0, k;

	http_head_scan_init(&a, HTTP_HEAD_REQUEST);
	ra = http_head_scan(&a, buf, len, FUZZ_MAX_HEAD, &ha, &ea);
	http_head_scan_init(&b, HTTP_HEAD_REQUEST);
	for (k = 0; rb == HTTP_NEED_MORE; k += step) {
		rb = http_head_scan(
		    &b, buf, k < len ? k : len, FUZZ_MAX_HEAD, &hb, &eb);
		if (k >= len)
			break;
	}
	CHECK(ra == rb);
	if (ra == HTTP_OK)
		CHECK(ha == hb && ha <= len);
	else if (ra != HTTP_NEED_MORE)
		CHECK(ea == eb && ea <= len);
	CHECK(b.scanned <= len && a.scanned <= len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum http_method methods[] = {
	    HTTP_METHOD_GET, HTTP_METHOD_HEAD, HTTP_METHOD_CONNECT};
	uint8_t *buf;
	size_t step, i;

	/* An exact-size copy, so that ASan catches a one-byte over-read
	 * under the replayer too. */
	if ((buf = calloc(1, size ? size : 1)) == NULL)
		return 0;
	if (size)
		memcpy(buf, data, size);
	step = size ? (size_t)(buf[size - 1] % 7) + 1 : 1;

	fuzz_request(buf, size, FUZZ_MAX_HEAD);
	fuzz_request(buf, size, size / 2 + 1);
	/* The request method decides response framing: try each kind. */
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		fuzz_response(buf, size, FUZZ_MAX_HEAD, methods[i]);
	fuzz_chunked(buf, size, step);
	fuzz_authority(buf, size);
	fuzz_scan(buf, size, step);
	free(buf);
	return 0;
}
