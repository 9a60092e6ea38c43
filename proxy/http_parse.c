/* SPDX-License-Identifier: ISC */
/*
 * Strict HTTP/1.1 head, authority and chunked-body parsing, plus the forward
 * proxy's origin-form rewrite. Owns the wire syntax of RFC 9112 and the
 * smuggling-relevant checks of RFC 9110; leaves what is allowed, and what to
 * answer, to the listeners that call it.
 */
#include <string.h>

#include "cursor.h"
#include "http_parse.h"
#include "strbuf.h"

/*
 * Character classes (RFC 9110 §5.6.2 token, §5.5 field values, RFC 3986
 * for targets). Bytes at or above 0x80 are obs-text.
 */
static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
hex_val(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

static bool
is_tchar(int c)
{
	if (is_alpha(c) || is_digit(c))
		return true;
	return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* field-vchar or SP/HTAB: what a header value may hold. */
static bool
is_field_char(int c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static bool
is_ows(int c)
{
	return c == ' ' || c == '\t';
}

/* Never valid anywhere in a head: CTLs but HTAB (CR and LF are framing). */
static bool
is_bad_ctl(int c)
{
	return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f;
}

/* RFC 3986 unreserved / sub-delims / ":" / "@", i.e. pchar less pct. */
static bool
is_pchar(int c)
{
	if (is_alpha(c) || is_digit(c))
		return true;
	return c != 0 && strchr("-._~!$&'()*+,;=:@", c) != NULL;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool
mem_eq_ci(const uint8_t *p, size_t n, const char *s)
{
	size_t i;

	if (strlen(s) != n)
		return false;
	for (i = 0; i < n; i++)
		if (lower(p[i]) != lower((unsigned char)s[i]))
			return false;
	return true;
}

static bool
span_eq_ci(const uint8_t *buf, struct http_span sp, const char *s)
{
	return mem_eq_ci(buf + sp.off, sp.len, s);
}

static int
peek(const struct cursor *c)
{
	return cursor_left(c) ? c->p[c->off] : -1;
}

/* Offset in the message of the cursor's position; c->p points into it. */
static size_t
pos(const struct cursor *c, const uint8_t *buf)
{
	return (size_t)(c->p - buf) + c->off;
}

static struct http_span
span_make(size_t off, size_t len)
{
	struct http_span sp = {off, len};
	return sp;
}

/* A cursor over sp whose positions are offsets in buf. */
static struct cursor
span_cursor(const uint8_t *buf, struct http_span sp)
{
	struct cursor c = cursor_make(buf, sp.off + sp.len);

	(void)cursor_skip(&c, sp.off);
	return c;
}

static enum http_result
fail(size_t *err_off, size_t off, enum http_result r)
{
	if (err_off)
		*err_off = off;
	return r;
}

/*
 * ---- Incremental end-of-head scan ----------------------------------------
 *
 * One state machine over bytes, resumable at any byte: CR must be followed
 * by LF; an empty line ends the head unless it is the first line; a CTL is
 * reported with the part of the head it sits in.
 */

void
http_head_scan_init(struct http_head_scan *st, enum http_head_kind kind)
{
	memset(st, 0, sizeof(*st));
	st->kind = (unsigned char)kind;
	st->result = HTTP_NEED_MORE;
	st->start_line = true;
	st->line_start = true;
}

static enum http_result
scan_ctl_error(const struct http_head_scan *st)
{
	if (st->start_line) {
		if (st->kind == HTTP_HEAD_RESPONSE)
			return HTTP_ERR_BAD_STATUS_LINE;
		if (st->spaces == 0)
			return HTTP_ERR_BAD_METHOD;
		return st->spaces == 1 ? HTTP_ERR_BAD_TARGET :
		                         HTTP_ERR_BAD_VERSION;
	}
	return st->in_value ? HTTP_ERR_BAD_HEADER_VALUE :
	                      HTTP_ERR_BAD_HEADER_NAME;
}

static enum http_result
scan_stop(struct http_head_scan *st, enum http_result r, size_t end)
{
	st->result = r;
	st->end = end;
	return r;
}

static enum http_result
scan_bytes(struct http_head_scan *st, const uint8_t *buf, size_t len,
    size_t max_head_len)
{
	size_t lim = len < max_head_len ? len : max_head_len;
	struct cursor c;
	uint8_t ch;

	if (st->off >= lim)
		goto out;
	c = cursor_make(buf + st->off, lim - st->off);
	while (cursor_u8(&c, &ch)) {
		size_t at = pos(&c, buf) - 1;

		st->scanned++;
		if (st->cr) {
			if (ch != '\n')
				return scan_stop(st, HTTP_ERR_BARE_CR, at - 1);
			st->cr = false;
			if (st->cr_empty)
				return scan_stop(st, HTTP_OK, at + 1);
			st->start_line = false;
			st->line_start = true;
			st->in_value = false;
			continue;
		}
		if (ch == '\r') {
			if (st->line_start && st->start_line)
				return scan_stop(
				    st, HTTP_ERR_LEADING_EMPTY_LINE, at);
			st->cr = true;
			st->cr_empty = st->line_start;
			continue;
		}
		if (ch == '\n')
			return scan_stop(st, HTTP_ERR_BARE_LF, at);
		st->line_start = false;
		if (is_bad_ctl(ch))
			return scan_stop(st, scan_ctl_error(st), at);
		if (st->start_line) {
			if (ch == ' ' && st->spaces < 2)
				st->spaces++;
		} else if (ch == ':') {
			st->in_value = true;
		}
	}
	st->off = lim;
out:
	/* Nothing at or past max_head_len can belong to an acceptable head. */
	if (len >= max_head_len)
		return scan_stop(st, HTTP_ERR_HEAD_TOO_LARGE, max_head_len);
	return HTTP_NEED_MORE;
}

enum http_result
http_head_scan(struct http_head_scan *st, const uint8_t *buf, size_t len,
    size_t max_head_len, size_t *head_len, size_t *err_off)
{
	enum http_result r = st->result;

	if (r == HTTP_NEED_MORE)
		r = scan_bytes(st, buf, len, max_head_len);
	if (r == HTTP_OK && head_len)
		*head_len = st->end;
	if (r != HTTP_OK && r != HTTP_NEED_MORE && err_off)
		*err_off = st->end;
	return r;
}

/*
 * ---- Authorities ----------------------------------------------------------
 */

/* RFC 3986 §3.2.3, but strictly decimal 1..65535 without leading zeros. */
static bool
parse_port(const uint8_t *s, size_t n, uint16_t *port)
{
	struct cursor c = cursor_make(s, n);
	uint32_t v = 0;
	uint8_t ch;

	if (n == 0 || n > 5 || s[0] == '0')
		return false;
	while (cursor_u8(&c, &ch)) {
		if (!is_digit(ch))
			return false;
		v = v * 10 + (uint32_t)(ch - '0');
	}
	if (v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

/* *rel is the offset in s of the offending byte. */
static enum http_result
authority_parse(const uint8_t *s, size_t len, bool port_required,
    uint16_t default_port, struct hostname *host, uint16_t *port,
    enum hostname_err *herr, size_t *rel)
{
	const uint8_t *at, *colon;
	size_t hlen;
	enum hostname_err e;

	*rel = 0;
	*herr = HOSTNAME_OK;
	memset(host, 0, sizeof(*host));
	if (len == 0) {
		*herr = HOSTNAME_ERR_EMPTY;
		return HTTP_ERR_BAD_HOST;
	}
	if ((at = memchr(s, '@', len)) != NULL) {
		*rel = (size_t)(at - s);
		return HTTP_ERR_USERINFO;
	}
	if (s[0] == '[') {
		const uint8_t *rb = memchr(s, ']', len);

		if (rb == NULL) {
			*rel = len;
			return HTTP_ERR_BAD_HOST;
		}
		hlen = (size_t)(rb - s) + 1;
		if (hlen < len && s[hlen] != ':') {
			*rel = hlen;
			return HTTP_ERR_BAD_HOST;
		}
	} else {
		colon = memchr(s, ':', len);
		hlen = colon ? (size_t)(colon - s) : len;
		/* A second colon: an IPv6 address without brackets. */
		if (colon && memchr(colon + 1, ':', len - hlen - 1)) {
			*rel = 0;
			*herr = HOSTNAME_ERR_BAD_IPV6;
			return HTTP_ERR_BAD_HOST;
		}
	}
	if ((e = hostname_normalize((const char *)s, hlen, host)) !=
	    HOSTNAME_OK) {
		*herr = e;
		return HTTP_ERR_BAD_HOST;
	}
	if (hlen == len) {
		if (port_required) {
			*rel = len;
			return HTTP_ERR_MISSING_PORT;
		}
		*port = default_port;
		return HTTP_OK;
	}
	/* s[hlen] is ':' */
	if (!parse_port(s + hlen + 1, len - hlen - 1, port)) {
		*rel = hlen + 1;
		return HTTP_ERR_BAD_PORT;
	}
	return HTTP_OK;
}

enum http_result
http_parse_authority(const char *s, size_t len, bool port_required,
    uint16_t default_port, struct hostname *host, uint16_t *port)
{
	enum hostname_err herr;
	size_t rel;

	return authority_parse((const uint8_t *)s, len, port_required,
	    default_port, host, port, &herr, &rel);
}

static bool
hostname_same(const struct hostname *a, const struct hostname *b)
{
	return a->kind == b->kind && a->len == b->len &&
	    memcmp(a->name, b->name, a->len) == 0;
}

/*
 * ---- Request line ---------------------------------------------------------
 */

static const char *const method_names[] = {
    [HTTP_METHOD_GET] = "GET",
    [HTTP_METHOD_HEAD] = "HEAD",
    [HTTP_METHOD_POST] = "POST",
    [HTTP_METHOD_PUT] = "PUT",
    [HTTP_METHOD_PATCH] = "PATCH",
    [HTTP_METHOD_DELETE] = "DELETE",
    [HTTP_METHOD_OPTIONS] = "OPTIONS",
    [HTTP_METHOD_TRACE] = "TRACE",
    [HTTP_METHOD_CONNECT] = "CONNECT",
};

const char *
http_method_name(enum http_method m)
{
	if ((size_t)m >= sizeof(method_names) / sizeof(method_names[0]))
		return NULL;
	return method_names[m];
}

static enum http_method
method_lookup(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 1; i < sizeof(method_names) / sizeof(method_names[0]); i++)
		if (strlen(method_names[i]) == n &&
		    memcmp(method_names[i], p, n) == 0)
			return (enum http_method)i;
	return HTTP_METHOD_OTHER;
}

/* RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive. */
static enum http_result
parse_version(const uint8_t *p, size_t n, enum http_version *v,
    enum http_result malformed)
{
	if (n != 8 || memcmp(p, "HTTP/", 5) != 0 || !is_digit(p[5]) ||
	    p[6] != '.' || !is_digit(p[7]))
		return malformed;
	if (p[5] != '1' || (p[7] != '0' && p[7] != '1'))
		return HTTP_ERR_UNSUPPORTED_VERSION;
	*v = p[7] == '1' ? HTTP_VERSION_1_1 : HTTP_VERSION_1_0;
	return HTTP_OK;
}

/*
 * path-abempty [ "?" query ] (RFC 3986 §3.3, §3.4) over c up to its end.
 * A '#' is a fragment, which never belongs in a request (RFC 9112 §3.2).
 */
static enum http_result
check_path_query(struct cursor *c, const uint8_t *buf, size_t *err_off)
{
	uint8_t ch;

	while (cursor_left(c)) {
		size_t at = pos(c, buf);

		(void)cursor_u8(c, &ch);
		if (ch == '#')
			return fail(err_off, at, HTTP_ERR_FRAGMENT);
		if (ch == '%') {
			const uint8_t *h;

			if (!cursor_bytes(c, 2, &h) || !is_hex(h[0]) ||
			    !is_hex(h[1]))
				return fail(err_off, at, HTTP_ERR_BAD_TARGET);
			continue;
		}
		if (ch == '/' || ch == '?' || is_pchar(ch))
			continue;
		return fail(err_off, at, HTTP_ERR_BAD_TARGET);
	}
	return HTTP_OK;
}

/* Scheme per RFC 3986 §3.1; true when the target has "scheme://". */
static bool
split_scheme(const uint8_t *p, size_t n, size_t *slen)
{
	size_t i;

	if (n == 0 || !is_alpha(p[0]))
		return false;
	for (i = 1; i < n; i++) {
		if (p[i] == ':')
			break;
		if (!is_alpha(p[i]) && !is_digit(p[i]) && p[i] != '+' &&
		    p[i] != '-' && p[i] != '.')
			return false;
	}
	if (n - i < 3 || p[i + 1] != '/' || p[i + 2] != '/')
		return false;
	*slen = i;
	return true;
}

static enum http_result
parse_target(const uint8_t *buf, struct http_request *req, size_t *err_off)
{
	const uint8_t *t = buf + req->target.off;
	size_t n = req->target.len, off = req->target.off, rel, slen, alen;
	struct cursor c;
	enum http_result r;

	if (req->method == HTTP_METHOD_CONNECT) {
		/* RFC 9110 §9.3.6: only host:port, nothing else. */
		const uint8_t *at = memchr(t, '@', n);

		req->form = HTTP_TARGET_AUTHORITY;
		if (at)
			return fail(
			    err_off, off + (size_t)(at - t), HTTP_ERR_USERINFO);
		for (rel = 0; rel < n; rel++)
			if (t[rel] == '/' || t[rel] == '?' || t[rel] == '#' ||
			    t[rel] == '*')
				return fail(err_off, off + rel,
				    HTTP_ERR_CONNECT_TARGET);
		r = authority_parse(t, n, true, 0, &req->host, &req->port,
		    &req->host_err, &rel);
		return r == HTTP_OK ? r : fail(err_off, off + rel, r);
	}
	if (t[0] == '/') {
		req->form = HTTP_TARGET_ORIGIN;
		req->path = req->target;
		c = cursor_make(t, n);
		return check_path_query(&c, buf, err_off);
	}
	if (t[0] == '*') {
		if (n != 1)
			return fail(err_off, off + 1, HTTP_ERR_BAD_TARGET);
		if (req->method != HTTP_METHOD_OPTIONS)
			return fail(
			    err_off, off, HTTP_ERR_ASTERISK_NOT_OPTIONS);
		req->form = HTTP_TARGET_ASTERISK;
		return HTTP_OK;
	}
	if (!split_scheme(t, n, &slen))
		return fail(err_off, off, HTTP_ERR_BAD_TARGET);
	req->form = HTTP_TARGET_ABSOLUTE;
	if (mem_eq_ci(t, slen, "https"))
		return fail(err_off, off, HTTP_ERR_HTTPS_ABSOLUTE);
	if (!mem_eq_ci(t, slen, "http"))
		return fail(err_off, off, HTTP_ERR_UNSUPPORTED_SCHEME);
	t += slen + 3;
	off += slen + 3;
	n -= slen + 3;
	for (alen = 0; alen < n; alen++)
		if (t[alen] == '/' || t[alen] == '?' || t[alen] == '#')
			break;
	r = authority_parse(
	    t, alen, false, 80, &req->host, &req->port, &req->host_err, &rel);
	if (r != HTTP_OK)
		return fail(err_off, off + rel, r);
	/* "http://a?q" would need a "/" that is not in the buffer to become
	 * origin-form; clients send "http://a/?q", so it is refused. */
	if (alen < n && t[alen] == '?')
		return fail(err_off, off + alen, HTTP_ERR_BAD_TARGET);
	req->path = span_make(off + alen, n - alen);
	c = cursor_make(t + alen, n - alen);
	return check_path_query(&c, buf, err_off);
}

static enum http_result
parse_request_line(const uint8_t *buf, struct cursor *line,
    struct http_request *req, size_t *err_off)
{
	size_t start = pos(line, buf), i;
	const uint8_t *m;
	enum http_result r;
	int ch;

	while (is_tchar(peek(line)))
		(void)cursor_skip(line, 1);
	req->method_span = span_make(start, pos(line, buf) - start);
	ch = peek(line);
	if (req->method_span.len == 0)
		return fail(err_off, start, HTTP_ERR_BAD_METHOD);
	if (ch == '\t')
		return fail(
		    err_off, pos(line, buf), HTTP_ERR_REQUEST_LINE_WHITESPACE);
	if (ch == -1)
		return fail(err_off, pos(line, buf), HTTP_ERR_BAD_REQUEST_LINE);
	if (ch != ' ' || req->method_span.len > HTTP_MAX_METHOD_LEN)
		return fail(err_off, pos(line, buf), HTTP_ERR_BAD_METHOD);
	m = buf + start;
	for (i = 0; i < req->method_span.len; i++)
		if (m[i] >= 'a' && m[i] <= 'z')
			return fail(
			    err_off, start + i, HTTP_ERR_LOWERCASE_METHOD);
	req->method = method_lookup(m, req->method_span.len);
	(void)cursor_skip(line, 1);

	/* request-target: up to the next SP, never HTAB or a second SP. */
	start = pos(line, buf);
	while ((ch = peek(line)) != -1 && ch != ' ') {
		if (ch == '\t')
			return fail(err_off, pos(line, buf),
			    HTTP_ERR_REQUEST_LINE_WHITESPACE);
		(void)cursor_skip(line, 1);
	}
	req->target = span_make(start, pos(line, buf) - start);
	if (req->target.len == 0)
		return fail(err_off, start,
		    ch == ' ' ? HTTP_ERR_REQUEST_LINE_WHITESPACE :
		                HTTP_ERR_BAD_REQUEST_LINE);
	if (ch == -1)
		return fail(err_off, pos(line, buf), HTTP_ERR_BAD_REQUEST_LINE);
	if (req->target.len > HTTP_MAX_TARGET_LEN)
		return fail(err_off, start + HTTP_MAX_TARGET_LEN,
		    HTTP_ERR_TARGET_TOO_LONG);
	(void)cursor_skip(line, 1);

	/* HTTP-version: the rest of the line. */
	start = pos(line, buf);
	for (i = 0; i < cursor_left(line); i++) {
		ch = line->p[line->off + i];
		if (ch == ' ' || ch == '\t')
			return fail(err_off, start + i,
			    HTTP_ERR_REQUEST_LINE_WHITESPACE);
	}
	r = parse_version(buf + start, cursor_left(line), &req->version,
	    HTTP_ERR_BAD_VERSION);
	if (r != HTTP_OK)
		return fail(err_off, start, r);
	return parse_target(buf, req, err_off);
}

/*
 * ---- Header fields --------------------------------------------------------
 */

/* Splits off the next line (without its CRLF); the scan vouched for CRLF. */
static bool
take_line(struct cursor *c, struct cursor *line)
{
	const uint8_t *cr = memchr(c->p + c->off, '\r', cursor_left(c));
	size_t n;

	if (cr == NULL)
		return false;
	n = (size_t)(cr - (c->p + c->off));
	if (!cursor_sub(c, n, line) || !cursor_skip(c, 2))
		return false;
	return true;
}

/* RFC 9112 §5: field-name ":" OWS field-value OWS. */
static enum http_result
parse_field_line(const uint8_t *buf, struct cursor *line, struct http_header *h,
    size_t *err_off)
{
	size_t start = pos(line, buf), vstart, vend;
	int ch;

	ch = peek(line);
	if (is_ows(ch))
		return fail(err_off, start, HTTP_ERR_OBS_FOLD);
	while (is_tchar(peek(line)))
		(void)cursor_skip(line, 1);
	h->name = span_make(start, pos(line, buf) - start);
	ch = peek(line);
	if (h->name.len > 0 && is_ows(ch))
		return fail(
		    err_off, pos(line, buf), HTTP_ERR_HEADER_NAME_WHITESPACE);
	if (h->name.len == 0 || ch != ':')
		return fail(err_off, pos(line, buf), HTTP_ERR_BAD_HEADER_NAME);
	(void)cursor_skip(line, 1);
	while (is_ows(peek(line)))
		(void)cursor_skip(line, 1);
	vstart = vend = pos(line, buf);
	while ((ch = peek(line)) != -1) {
		if (!is_field_char(ch))
			return fail(
			    err_off, pos(line, buf), HTTP_ERR_BAD_HEADER_VALUE);
		(void)cursor_skip(line, 1);
		if (!is_ows(ch))
			vend = pos(line, buf);
	}
	h->value = span_make(vstart, vend - vstart);
	h->hop_by_hop = false;
	return HTTP_OK;
}

/*
 * RFC 9110 §5.6.1 lists: elements separated by commas with OWS around,
 * empty elements skipped. Returns the next element's span, false at the end.
 */
static bool
list_next(const uint8_t *buf, struct cursor *c, struct http_span *elem)
{
	int ch;

	for (;;) {
		size_t start, end;

		while (is_ows(ch = peek(c)) || ch == ',')
			(void)cursor_skip(c, 1);
		if (ch == -1)
			return false;
		start = end = pos(c, buf);
		while ((ch = peek(c)) != -1 && ch != ',') {
			(void)cursor_skip(c, 1);
			if (!is_ows(ch))
				end = pos(c, buf);
		}
		*elem = span_make(start, end - start);
		return true;
	}
}

static bool
is_token(const uint8_t *p, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (!is_tchar(p[i]))
			return false;
	return true;
}

/* RFC 9110 §7.8: protocol-name [ "/" protocol-version ]. */
static bool
is_protocol(const uint8_t *p, size_t n)
{
	const uint8_t *slash = memchr(p, '/', n);
	size_t a;

	if (slash == NULL)
		return is_token(p, n);
	a = (size_t)(slash - p);
	return is_token(p, a) && is_token(slash + 1, n - a - 1);
}

/* What both requests and responses track while reading header fields. */
struct fields {
	const struct http_header *cl, *te, *host, *upgrade;
	uint64_t content_length;
	size_t nopts;
	struct http_span opts[HTTP_MAX_CONNECTION_OPTIONS];
	bool close, keep_alive, opt_upgrade, expect_continue;
};

static enum http_result
parse_content_length(const uint8_t *buf, const struct http_header *h,
    uint64_t *v, size_t *err_off)
{
	const uint8_t *p = buf + h->value.off;
	size_t i, n = h->value.len;

	/* RFC 9110 §8.6: 1*DIGIT. No list, sign or leading zero: anything a
	 * peer could read differently is refused. */
	*v = 0;
	if (n == 0 || (p[0] == '0' && n > 1))
		return fail(err_off, h->value.off, HTTP_ERR_BAD_CONTENT_LENGTH);
	for (i = 0; i < n; i++) {
		if (!is_digit(p[i]))
			return fail(err_off, h->value.off + i,
			    HTTP_ERR_BAD_CONTENT_LENGTH);
		/* *v <= 2^53 here, so this cannot overflow 64 bits. */
		*v = *v * 10 + (uint64_t)(p[i] - '0');
		if (*v > HTTP_CONTENT_LENGTH_MAX)
			return fail(err_off, h->value.off + i,
			    HTTP_ERR_BAD_CONTENT_LENGTH);
	}
	return HTTP_OK;
}

static enum http_result
parse_connection(const uint8_t *buf, const struct http_header *h,
    struct fields *f, size_t *err_off)
{
	struct cursor c = span_cursor(buf, h->value);
	struct http_span e;

	while (list_next(buf, &c, &e)) {
		const uint8_t *p = buf + e.off;

		if (!is_token(p, e.len))
			return fail(err_off, e.off, HTTP_ERR_BAD_CONNECTION);
		if (f->nopts == HTTP_MAX_CONNECTION_OPTIONS)
			return fail(err_off, e.off,
			    HTTP_ERR_TOO_MANY_CONNECTION_OPTIONS);
		/* Listing a field that frames or routes the message would
		 * make a hop drop it: a smuggling primitive. */
		if (mem_eq_ci(p, e.len, "content-length") ||
		    mem_eq_ci(p, e.len, "transfer-encoding") ||
		    mem_eq_ci(p, e.len, "host"))
			return fail(
			    err_off, e.off, HTTP_ERR_CONNECTION_NAMES_FRAMING);
		f->opts[f->nopts++] = e;
		if (mem_eq_ci(p, e.len, "close"))
			f->close = true;
		else if (mem_eq_ci(p, e.len, "keep-alive"))
			f->keep_alive = true;
		else if (mem_eq_ci(p, e.len, "upgrade"))
			f->opt_upgrade = true;
	}
	return HTTP_OK;
}

/*
 * Reads the field lines after the start line up to the empty line. Host,
 * Expect and Upgrade only matter for requests.
 */
static enum http_result
parse_fields(const uint8_t *buf, struct cursor *c, bool request,
    struct http_header *headers, size_t *nheaders, struct fields *f,
    size_t *err_off)
{
	struct cursor line;
	enum http_result r;

	memset(f, 0, sizeof(*f));
	*nheaders = 0;
	while (take_line(c, &line)) {
		struct http_header *h;
		size_t start = pos(&line, buf);

		if (cursor_left(&line) == 0)
			return HTTP_OK;
		if (*nheaders == HTTP_MAX_HEADERS)
			return fail(err_off, start, HTTP_ERR_TOO_MANY_HEADERS);
		h = &headers[*nheaders];
		if ((r = parse_field_line(buf, &line, h, err_off)) != HTTP_OK)
			return r;
		(*nheaders)++;
		if (span_eq_ci(buf, h->name, "content-length")) {
			if (f->cl)
				return fail(err_off, start,
				    HTTP_ERR_DUPLICATE_CONTENT_LENGTH);
			f->cl = h;
			r = parse_content_length(
			    buf, h, &f->content_length, err_off);
		} else if (span_eq_ci(buf, h->name, "transfer-encoding")) {
			if (f->te)
				return fail(err_off, start,
				    HTTP_ERR_DUPLICATE_TRANSFER_ENCODING);
			f->te = h;
			/* RFC 9112 §6.1: only "chunked" is framed here. */
			if (!span_eq_ci(buf, h->value, "chunked"))
				r = fail(err_off, h->value.off,
				    HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING);
		} else if (span_eq_ci(buf, h->name, "connection")) {
			r = parse_connection(buf, h, f, err_off);
		} else if (request && span_eq_ci(buf, h->name, "host")) {
			if (f->host)
				return fail(
				    err_off, start, HTTP_ERR_DUPLICATE_HOST);
			f->host = h;
		} else if (request && span_eq_ci(buf, h->name, "expect")) {
			/* RFC 9110 §10.1.1: 417 for any other expectation. */
			if (!span_eq_ci(buf, h->value, "100-continue"))
				r = fail(err_off, h->value.off,
				    HTTP_ERR_UNSUPPORTED_EXPECT);
			f->expect_continue = true;
		} else if (request && span_eq_ci(buf, h->name, "upgrade")) {
			struct cursor v = span_cursor(buf, h->value);
			struct http_span e;
			bool any = false;

			if (f->upgrade)
				return fail(
				    err_off, start, HTTP_ERR_BAD_UPGRADE);
			f->upgrade = h;
			while (list_next(buf, &v, &e)) {
				if (!is_protocol(buf + e.off, e.len))
					return fail(err_off, e.off,
					    HTTP_ERR_BAD_UPGRADE);
				any = true;
			}
			if (!any)
				r = fail(err_off, h->value.off,
				    HTTP_ERR_BAD_UPGRADE);
		}
		if (r != HTTP_OK)
			return r;
	}
	/* The scan guaranteed an empty line; not reached. */
	return fail(err_off, pos(c, buf), HTTP_ERR_BARE_LF);
}

static bool
is_hop_name(const uint8_t *buf, struct http_span name)
{
	static const char *const hop[] = {"connection", "keep-alive",
	    "proxy-connection", "proxy-authorization", "te", "trailer",
	    "upgrade"};
	size_t i;

	for (i = 0; i < sizeof(hop) / sizeof(hop[0]); i++)
		if (span_eq_ci(buf, name, hop[i]))
			return true;
	return false;
}

/* At most HTTP_MAX_CONNECTION_OPTIONS compares per header: linear. */
static void
mark_hop_by_hop(const uint8_t *buf, struct http_header *headers, size_t n,
    const struct fields *f)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct http_header *h = &headers[i];

		h->hop_by_hop = is_hop_name(buf, h->name);
		for (k = 0; k < f->nopts && !h->hop_by_hop; k++) {
			size_t j;

			if (h->name.len != f->opts[k].len)
				continue;
			for (j = 0; j < h->name.len; j++)
				if (lower(buf[h->name.off + j]) !=
				    lower(buf[f->opts[k].off + j]))
					break;
			h->hop_by_hop = j == h->name.len;
		}
	}
}

/*
 * Transfer-Encoding and Content-Length rules shared by both directions
 * (RFC 9112 §6.1, §6.3): either alone, never together, no TE in 1.0.
 */
static enum http_result
check_framing(const struct fields *f, enum http_version v, size_t *err_off)
{
	if (f->te && v == HTTP_VERSION_1_0)
		return fail(err_off, f->te->name.off,
		    HTTP_ERR_TRANSFER_ENCODING_HTTP10);
	if (f->te && f->cl)
		return fail(err_off,
		    f->te > f->cl ? f->te->name.off : f->cl->name.off,
		    HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING);
	return HTTP_OK;
}

static bool
keep_alive(const struct fields *f, enum http_version v)
{
	if (f->close)
		return false;
	return v == HTTP_VERSION_1_1 || f->keep_alive;
}

enum http_result
http_parse_request(const uint8_t *buf, size_t len, size_t max_head_len,
    struct http_request *req, size_t *err_off)
{
	struct http_head_scan st;
	struct cursor c, line;
	struct fields f;
	size_t head_len = 0, rel;
	enum http_result r;

	if (err_off)
		*err_off = 0;
	http_head_scan_init(&st, HTTP_HEAD_REQUEST);
	r = http_head_scan(&st, buf, len, max_head_len, &head_len, err_off);
	if (r != HTTP_OK)
		return r;
	memset(req, 0, sizeof(*req));
	req->head_len = head_len;
	c = cursor_make(buf, head_len);
	if (!take_line(&c, &line))
		return fail(err_off, 0, HTTP_ERR_BAD_REQUEST_LINE);
	if ((r = parse_request_line(buf, &line, req, err_off)) != HTTP_OK)
		return r;
	r = parse_fields(
	    buf, &c, true, req->headers, &req->nheaders, &f, err_off);
	if (r != HTTP_OK)
		return r;
	if ((r = check_framing(&f, req->version, err_off)) != HTTP_OK)
		return r;
	/* RFC 9110 §9.3.6: CONNECT has no content; bytes after its head are
	 * tunnel data, so a declared body could only be a desync. */
	if (req->method == HTTP_METHOD_CONNECT &&
	    (f.te || (f.cl && f.content_length > 0)))
		return fail(err_off, (f.te ? f.te : f.cl)->name.off,
		    HTTP_ERR_CONNECT_BODY);

	/* RFC 9112 §3.2: exactly one Host in HTTP/1.1. */
	if (f.host) {
		r = authority_parse(buf + f.host->value.off, f.host->value.len,
		    false, 0, &req->host_hdr, &req->host_hdr_port,
		    &req->host_err, &rel);
		if (r != HTTP_OK)
			return fail(err_off, f.host->value.off + rel, r);
		req->has_host = true;
	} else if (req->version == HTTP_VERSION_1_1) {
		return fail(err_off, head_len - 2, HTTP_ERR_MISSING_HOST);
	}
	/*
	 * The target decides where the request goes, so a Host naming
	 * anything else is refused rather than ignored (RFC 9110 §7.2). An
	 * absolute http:// target and its Host both default to port 80; a
	 * CONNECT Host without a port names no port to disagree with (the
	 * RFC 9110 §9.3.6 example itself omits it).
	 */
	if (req->has_host &&
	    (req->form == HTTP_TARGET_ABSOLUTE ||
	        req->form == HTTP_TARGET_AUTHORITY)) {
		uint16_t hp = req->host_hdr_port;

		if (hp == 0)
			hp = req->form == HTTP_TARGET_ABSOLUTE ? 80 : req->port;
		if (!hostname_same(&req->host, &req->host_hdr) ||
		    hp != req->port)
			return fail(
			    err_off, f.host->value.off, HTTP_ERR_HOST_MISMATCH);
	}

	if (req->method == HTTP_METHOD_CONNECT) {
		req->framing = HTTP_FRAMING_NONE;
	} else if (f.te) {
		req->framing = HTTP_FRAMING_CHUNKED;
	} else if (f.cl) {
		req->framing = HTTP_FRAMING_CONTENT_LENGTH;
		req->content_length = f.content_length;
	} else {
		req->framing = HTTP_FRAMING_NONE;
	}
	req->keep_alive = keep_alive(&f, req->version);
	/* RFC 9110 §10.1.1: a 1.0 client's expectation is ignored. */
	req->expect_continue =
	    f.expect_continue && req->version == HTTP_VERSION_1_1;
	/* RFC 9110 §7.8: Upgrade counts only with "Connection: upgrade",
	 * and never in HTTP/1.0. */
	if (f.upgrade && f.opt_upgrade && req->version == HTTP_VERSION_1_1) {
		struct cursor v = span_cursor(buf, f.upgrade->value);

		req->upgrade = list_next(buf, &v, &req->upgrade_proto);
	}
	mark_hop_by_hop(buf, req->headers, req->nheaders, &f);
	return HTTP_OK;
}

/*
 * ---- Responses ------------------------------------------------------------
 */

/* RFC 9112 §4: HTTP-version SP 3DIGIT SP reason-phrase. The SP before an
 * empty reason is often left out; that one leniency is unambiguous. */
static enum http_result
parse_status_line(const uint8_t *buf, struct cursor *line,
    struct http_response *resp, size_t *err_off)
{
	size_t start = pos(line, buf);
	const uint8_t *v, *d;
	enum http_result r;
	uint8_t sp;
	int ch;

	if (!cursor_bytes(line, 8, &v))
		return fail(err_off, start, HTTP_ERR_BAD_STATUS_LINE);
	r = parse_version(v, 8, &resp->version, HTTP_ERR_BAD_STATUS_LINE);
	if (r != HTTP_OK)
		return fail(err_off, start, r);
	if (!cursor_u8(line, &sp) || sp != ' ' || !cursor_bytes(line, 3, &d) ||
	    !is_digit(d[0]) || !is_digit(d[1]) || !is_digit(d[2]))
		return fail(err_off, start + 8, HTTP_ERR_BAD_STATUS_LINE);
	resp->status =
	    (unsigned)((d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0'));
	if (resp->status < 100 || resp->status > 599)
		return fail(err_off, start + 9, HTTP_ERR_BAD_STATUS_LINE);
	resp->reason = span_make(pos(line, buf), 0);
	if (!cursor_left(line))
		return HTTP_OK;
	if (!cursor_u8(line, &sp) || sp != ' ')
		return fail(err_off, start + 12, HTTP_ERR_BAD_STATUS_LINE);
	resp->reason.off = pos(line, buf);
	while ((ch = peek(line)) != -1) {
		if (!is_field_char(ch))
			return fail(
			    err_off, pos(line, buf), HTTP_ERR_BAD_STATUS_LINE);
		(void)cursor_skip(line, 1);
	}
	resp->reason.len = pos(line, buf) - resp->reason.off;
	return HTTP_OK;
}

enum http_result
http_parse_response(const uint8_t *buf, size_t len, size_t max_head_len,
    enum http_method request_method, struct http_response *resp,
    size_t *err_off)
{
	struct http_head_scan st;
	struct cursor c, line;
	struct fields f;
	size_t head_len = 0;
	enum http_result r;
	unsigned s;

	if (err_off)
		*err_off = 0;
	http_head_scan_init(&st, HTTP_HEAD_RESPONSE);
	r = http_head_scan(&st, buf, len, max_head_len, &head_len, err_off);
	if (r != HTTP_OK)
		return r;
	memset(resp, 0, sizeof(*resp));
	resp->head_len = head_len;
	c = cursor_make(buf, head_len);
	if (!take_line(&c, &line))
		return fail(err_off, 0, HTTP_ERR_BAD_STATUS_LINE);
	if ((r = parse_status_line(buf, &line, resp, err_off)) != HTTP_OK)
		return r;
	r = parse_fields(
	    buf, &c, false, resp->headers, &resp->nheaders, &f, err_off);
	if (r != HTTP_OK)
		return r;
	if ((r = check_framing(&f, resp->version, err_off)) != HTTP_OK)
		return r;
	mark_hop_by_hop(buf, resp->headers, resp->nheaders, &f);
	resp->keep_alive = keep_alive(&f, resp->version);

	/* RFC 9112 §6.3, in its order. */
	s = resp->status;
	if (s == 101) {
		resp->framing = HTTP_FRAMING_SWITCH;
		resp->keep_alive = false;
	} else if (request_method == HTTP_METHOD_HEAD || s < 200 || s == 204 ||
	    s == 304) {
		resp->framing = HTTP_FRAMING_NONE;
	} else if (request_method == HTTP_METHOD_CONNECT && s < 300) {
		resp->framing = HTTP_FRAMING_TUNNEL;
		resp->keep_alive = false;
	} else if (f.te) {
		resp->framing = HTTP_FRAMING_CHUNKED;
	} else if (f.cl) {
		resp->framing = HTTP_FRAMING_CONTENT_LENGTH;
		resp->content_length = f.content_length;
	} else {
		resp->framing = HTTP_FRAMING_CLOSE;
		resp->keep_alive = false;
	}
	return HTTP_OK;
}

/*
 * ---- Chunked bodies (RFC 9112 §7.1) ---------------------------------------
 *
 *   SIZE0 -hex-> SIZE -CR-> SIZE_LF -LF-> DATA (size > 0) -> DATA_CR -> DATA_LF
 *     ^           |                    \-> TRAILER (size 0)            |
 *     |           +-> ext states -CR-/      |                          |
 *     +-------------------------------------+--------------------------+
 *   TRAILER: field lines like a head, then CRLF -> DONE.
 */
enum {
	CH_SIZE0,      /* first hex digit */
	CH_SIZE,       /* more digits, ext, or CR */
	CH_EXT_BWS,    /* BWS, then ';' */
	CH_EXT_NAME0,  /* BWS, then a token */
	CH_EXT_NAME,   /* token, then '=', ';', BWS or CR */
	CH_EXT_EQ,     /* BWS, then '=' or ';' */
	CH_EXT_VAL0,   /* BWS, then a token or a quoted-string */
	CH_EXT_VAL,    /* token, then ';', BWS or CR */
	CH_EXT_QUOTED, /* inside a quoted-string */
	CH_EXT_ESC,    /* after a backslash inside it */
	CH_EXT_QEND,   /* after the closing quote: ';', BWS or CR */
	CH_SIZE_LF,    /* LF ending the size line */
	CH_DATA,       /* chunk data */
	CH_DATA_CR,    /* CR after the data */
	CH_DATA_LF,    /* LF after the data */
	CH_TRAILER,    /* start of a trailer line, or the final CRLF */
	CH_TR_NAME,    /* field name */
	CH_TR_VALUE,   /* field value */
	CH_TR_LF,      /* LF ending a trailer line */
	CH_FINAL_LF,   /* LF ending the message */
	CH_DONE,
	CH_FAILED,
};

void
http_chunked_init(struct http_chunked *st)
{
	memset(st, 0, sizeof(*st));
	st->state = CH_SIZE0;
}

/* qdtext / quoted-pair bytes (RFC 9110 §5.6.4). */
static bool
is_qdtext(int c)
{
	return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) ||
	    (c >= 0x5d && c <= 0x7e) || c >= 0x80;
}

/* One byte of the size line after the digits; returns an error or OK. */
static enum http_result
chunk_ext_byte(struct http_chunked *st, uint8_t ch)
{
	if (ch != '\r' && ++st->count > HTTP_CHUNK_EXT_MAX_LEN)
		return HTTP_ERR_CHUNK_EXT_TOO_LONG;
	if (ch == '\n')
		return HTTP_ERR_BARE_LF;
	switch (st->state) {
	case CH_SIZE:
	case CH_EXT_NAME:
	case CH_EXT_VAL:
	case CH_EXT_QEND:
		if (ch == '\r') {
			st->state = CH_SIZE_LF;
			return HTTP_OK;
		}
		if (ch == ';') {
			st->state = CH_EXT_NAME0;
			return HTTP_OK;
		}
		if (is_ows(ch)) {
			st->state =
			    st->state == CH_EXT_NAME ? CH_EXT_EQ : CH_EXT_BWS;
			return HTTP_OK;
		}
		if (st->state == CH_EXT_NAME && ch == '=') {
			st->state = CH_EXT_VAL0;
			return HTTP_OK;
		}
		if ((st->state == CH_EXT_NAME || st->state == CH_EXT_VAL) &&
		    is_tchar(ch))
			return HTTP_OK;
		if (st->state == CH_SIZE)
			return HTTP_ERR_BAD_CHUNK_SIZE;
		return HTTP_ERR_BAD_CHUNK_EXT;
	case CH_EXT_BWS:
	case CH_EXT_EQ:
		if (is_ows(ch))
			return HTTP_OK;
		if (ch == ';') {
			st->state = CH_EXT_NAME0;
			return HTTP_OK;
		}
		if (st->state == CH_EXT_EQ && ch == '=') {
			st->state = CH_EXT_VAL0;
			return HTTP_OK;
		}
		return HTTP_ERR_BAD_CHUNK_EXT;
	case CH_EXT_NAME0:
		if (is_ows(ch))
			return HTTP_OK;
		if (!is_tchar(ch))
			return HTTP_ERR_BAD_CHUNK_EXT;
		st->state = CH_EXT_NAME;
		return HTTP_OK;
	case CH_EXT_VAL0:
		if (is_ows(ch))
			return HTTP_OK;
		if (ch == '"')
			st->state = CH_EXT_QUOTED;
		else if (is_tchar(ch))
			st->state = CH_EXT_VAL;
		else
			return HTTP_ERR_BAD_CHUNK_EXT;
		return HTTP_OK;
	case CH_EXT_QUOTED:
		if (ch == '"')
			st->state = CH_EXT_QEND;
		else if (ch == '\\')
			st->state = CH_EXT_ESC;
		else if (!is_qdtext(ch))
			return HTTP_ERR_BAD_CHUNK_EXT;
		return HTTP_OK;
	case CH_EXT_ESC:
		if (!is_field_char(ch))
			return HTTP_ERR_BAD_CHUNK_EXT;
		st->state = CH_EXT_QUOTED;
		return HTTP_OK;
	}
	return HTTP_ERR_BAD_CHUNK_EXT;
}

/* One byte of the trailer section. */
static enum http_result
chunk_trailer_byte(struct http_chunked *st, uint8_t ch)
{
	if (++st->count > HTTP_TRAILER_MAX_LEN)
		return HTTP_ERR_TRAILER_TOO_LARGE;
	switch (st->state) {
	case CH_TRAILER:
		if (ch == '\r') {
			st->state = CH_FINAL_LF;
			return HTTP_OK;
		}
		if (ch == '\n')
			return HTTP_ERR_BARE_LF;
		if (is_ows(ch))
			return HTTP_ERR_OBS_FOLD;
		if (!is_tchar(ch))
			return HTTP_ERR_BAD_HEADER_NAME;
		if (st->fields == HTTP_MAX_HEADERS)
			return HTTP_ERR_TOO_MANY_HEADERS;
		st->fields++;
		st->state = CH_TR_NAME;
		return HTTP_OK;
	case CH_TR_NAME:
		if (ch == ':')
			st->state = CH_TR_VALUE;
		else if (ch == '\n')
			return HTTP_ERR_BARE_LF;
		else if (is_ows(ch))
			return HTTP_ERR_HEADER_NAME_WHITESPACE;
		else if (!is_tchar(ch))
			return HTTP_ERR_BAD_HEADER_NAME;
		return HTTP_OK;
	case CH_TR_VALUE:
		if (ch == '\r')
			st->state = CH_TR_LF;
		else if (ch == '\n')
			return HTTP_ERR_BARE_LF;
		else if (!is_field_char(ch))
			return HTTP_ERR_BAD_HEADER_VALUE;
		return HTTP_OK;
	case CH_TR_LF:
		if (ch != '\n')
			return HTTP_ERR_BARE_CR;
		st->state = CH_TRAILER;
		return HTTP_OK;
	case CH_FINAL_LF:
		if (ch != '\n')
			return HTTP_ERR_BARE_CR;
		st->state = CH_DONE;
		return HTTP_OK;
	}
	return HTTP_ERR_BAD_HEADER_NAME;
}

static enum http_result
chunk_byte(struct http_chunked *st, uint8_t ch)
{
	switch (st->state) {
	case CH_SIZE0:
		/* No sign, no "0x", no leading whitespace. */
		if (!is_hex(ch))
			return ch == '\n' ? HTTP_ERR_BARE_LF :
			                    HTTP_ERR_BAD_CHUNK_SIZE;
		st->left = (uint64_t)hex_val(ch);
		st->digits = 1;
		st->count = 0;
		st->state = CH_SIZE;
		return HTTP_OK;
	case CH_SIZE:
		if (is_hex(ch)) {
			if (++st->digits > HTTP_CHUNK_SIZE_MAX_DIGITS)
				return HTTP_ERR_BAD_CHUNK_SIZE;
			st->left = st->left << 4 | (uint64_t)hex_val(ch);
			return HTTP_OK;
		}
		return chunk_ext_byte(st, ch);
	case CH_EXT_BWS:
	case CH_EXT_NAME0:
	case CH_EXT_NAME:
	case CH_EXT_EQ:
	case CH_EXT_VAL0:
	case CH_EXT_VAL:
	case CH_EXT_QUOTED:
	case CH_EXT_ESC:
	case CH_EXT_QEND:
		return chunk_ext_byte(st, ch);
	case CH_SIZE_LF:
		if (ch != '\n')
			return HTTP_ERR_BARE_CR;
		st->count = 0;
		st->state = st->left ? CH_DATA : CH_TRAILER;
		return HTTP_OK;
	case CH_DATA_CR:
		if (ch != '\r')
			return HTTP_ERR_BAD_CHUNK_END;
		st->state = CH_DATA_LF;
		return HTTP_OK;
	case CH_DATA_LF:
		if (ch != '\n')
			return HTTP_ERR_BAD_CHUNK_END;
		st->state = CH_SIZE0;
		return HTTP_OK;
	default:
		return chunk_trailer_byte(st, ch);
	}
}

enum http_result
http_chunked_feed(
    struct http_chunked *st, const uint8_t *p, size_t len, size_t *consumed)
{
	struct cursor c = cursor_make(p, len);
	enum http_result r;
	uint8_t ch;

	*consumed = 0;
	if (st->state == CH_DONE)
		return HTTP_OK;
	if (st->state == CH_FAILED)
		return (enum http_result)st->err;
	while (cursor_left(&c)) {
		if (st->state == CH_DATA) {
			size_t n = cursor_left(&c);

			if ((uint64_t)n > st->left)
				n = (size_t)st->left;
			(void)cursor_skip(&c, n);
			st->left -= n;
			if (st->left == 0)
				st->state = CH_DATA_CR;
			continue;
		}
		(void)cursor_u8(&c, &ch);
		if ((r = chunk_byte(st, ch)) != HTTP_OK) {
			st->state = CH_FAILED;
			st->err = (uint8_t)r;
			*consumed = c.off - 1;
			return r;
		}
		if (st->state == CH_DONE) {
			*consumed = c.off;
			return HTTP_OK;
		}
	}
	*consumed = c.off;
	return HTTP_NEED_MORE;
}

/*
 * ---- Helpers for callers --------------------------------------------------
 */

const char *
http_request_path(
    const struct http_request *req, const uint8_t *buf, size_t *len)
{
	switch (req->form) {
	case HTTP_TARGET_ORIGIN:
	case HTTP_TARGET_ABSOLUTE:
		if (req->path.len > 0) {
			*len = req->path.len;
			return (const char *)buf + req->path.off;
		}
		*len = 1;
		return req->method == HTTP_METHOD_OPTIONS ? "*" : "/";
	case HTTP_TARGET_ASTERISK:
		*len = 1;
		return "*";
	case HTTP_TARGET_AUTHORITY:
		break;
	}
	*len = 0;
	return NULL;
}

const struct http_header *
http_find_header(const struct http_header *headers, size_t n,
    const uint8_t *buf, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (span_eq_ci(buf, headers[i].name, name))
			return &headers[i];
	return NULL;
}

static void
add_span(struct strbuf *out, const uint8_t *buf, struct http_span sp)
{
	strbuf_add(out, (const char *)buf + sp.off, sp.len);
}

bool
http_request_write_origin(const struct http_request *req, const uint8_t *buf,
    const char *target, size_t target_len, struct strbuf *out)
{
	const char *path;
	size_t i, plen;

	if (req->form == HTTP_TARGET_AUTHORITY ||
	    (req->form != HTTP_TARGET_ABSOLUTE && !req->has_host))
		return false;
	if (target) {
		path = target;
		plen = target_len;
	} else {
		path = http_request_path(req, buf, &plen);
	}
	add_span(out, buf, req->method_span);
	strbuf_putc(out, ' ');
	strbuf_add(out, path, plen);
	/* RFC 9110 §6.2: an intermediary sends its own version. */
	strbuf_puts(out, " HTTP/1.1\r\n");
	if (req->form == HTTP_TARGET_ABSOLUTE) {
		strbuf_puts(out, "Host: ");
		if (req->host.kind == HOSTNAME_IPV6)
			strbuf_putc(out, '[');
		strbuf_add(out, req->host.name, req->host.len);
		if (req->host.kind == HOSTNAME_IPV6)
			strbuf_putc(out, ']');
		if (req->port != 80)
			strbuf_printf(out, ":%u", (unsigned)req->port);
		strbuf_puts(out, "\r\n");
	}
	for (i = 0; i < req->nheaders; i++) {
		const struct http_header *h = &req->headers[i];

		if (h->hop_by_hop)
			continue;
		if (req->form == HTTP_TARGET_ABSOLUTE &&
		    span_eq_ci(buf, h->name, "host"))
			continue;
		/* A 1.0 client cannot take the 100 it would provoke. */
		if (req->version == HTTP_VERSION_1_0 &&
		    span_eq_ci(buf, h->name, "expect"))
			continue;
		add_span(out, buf, h->name);
		strbuf_puts(out, ": ");
		add_span(out, buf, h->value);
		strbuf_puts(out, "\r\n");
	}
	strbuf_puts(out,
	    req->keep_alive ? "Connection: keep-alive\r\n" :
	                      "Connection: close\r\n");
	strbuf_puts(out, "\r\n");
	return !out->truncated;
}

const char *
http_strerror(enum http_result r)
{
	switch (r) {
	case HTTP_OK:
		return "ok";
	case HTTP_NEED_MORE:
		return "incomplete message";
	case HTTP_ERR_HEAD_TOO_LARGE:
		return "message head too large (request line and headers exceed the limit)";
	case HTTP_ERR_BARE_LF:
		return "bare LF: lines must end with CRLF";
	case HTTP_ERR_BARE_CR:
		return "bare CR: a CR not followed by LF";
	case HTTP_ERR_LEADING_EMPTY_LINE:
		return "empty line before the start line";
	case HTTP_ERR_BAD_METHOD:
		return "malformed method: must be a token of at most 32 characters followed by one space";
	case HTTP_ERR_LOWERCASE_METHOD:
		return "method with lowercase letters: methods are case-sensitive (GET, not get)";
	case HTTP_ERR_BAD_REQUEST_LINE:
		return "malformed request line: expected METHOD SP target SP HTTP/1.1";
	case HTTP_ERR_REQUEST_LINE_WHITESPACE:
		return "request line parts must be separated by exactly one space (no tabs, no extra spaces)";
	case HTTP_ERR_BAD_VERSION:
		return "malformed HTTP version: expected HTTP/1.1 or HTTP/1.0";
	case HTTP_ERR_UNSUPPORTED_VERSION:
		return "unsupported HTTP version: only HTTP/1.1 and HTTP/1.0";
	case HTTP_ERR_TARGET_TOO_LONG:
		return "request target longer than 8192 bytes";
	case HTTP_ERR_BAD_TARGET:
		return "malformed request target: expected /path, http://host[:port]/path, * (OPTIONS) or host:port (CONNECT), with URI characters only";
	case HTTP_ERR_FRAGMENT:
		return "request target has a #fragment, which is never sent";
	case HTTP_ERR_USERINFO:
		return "userinfo (user@) in an authority is not allowed";
	case HTTP_ERR_UNSUPPORTED_SCHEME:
		return "unsupported URI scheme: only http:// can be forwarded";
	case HTTP_ERR_HTTPS_ABSOLUTE:
		return "https:// request target: send CONNECT host:443 for HTTPS through this proxy";
	case HTTP_ERR_CONNECT_TARGET:
		return "CONNECT target must be host:port (authority-form), without path, query or '*'";
	case HTTP_ERR_ASTERISK_NOT_OPTIONS:
		return "request target '*' is only allowed with OPTIONS";
	case HTTP_ERR_BAD_HOST:
		return "malformed host (letters, digits, '-', '.', a dotted-quad IPv4 or a [bracketed] IPv6 address)";
	case HTTP_ERR_MISSING_PORT:
		return "missing port: CONNECT needs host:port";
	case HTTP_ERR_BAD_PORT:
		return "bad port: must be a decimal number from 1 to 65535 without sign or leading zeros";
	case HTTP_ERR_BAD_STATUS_LINE:
		return "malformed status line: expected HTTP/1.1 SP 3-digit status SP reason";
	case HTTP_ERR_OBS_FOLD:
		return "header line starts with whitespace (obs-fold line folding is not accepted)";
	case HTTP_ERR_HEADER_NAME_WHITESPACE:
		return "whitespace between a header name and its colon";
	case HTTP_ERR_BAD_HEADER_NAME:
		return "malformed header name: must be a token followed directly by ':'";
	case HTTP_ERR_BAD_HEADER_VALUE:
		return "control character (NUL, DEL or another CTL) in a header value";
	case HTTP_ERR_TOO_MANY_HEADERS:
		return "more than 100 header fields";
	case HTTP_ERR_MISSING_HOST:
		return "missing Host header (required in HTTP/1.1)";
	case HTTP_ERR_DUPLICATE_HOST:
		return "more than one Host header";
	case HTTP_ERR_HOST_MISMATCH:
		return "Host header does not match the request target's host and port";
	case HTTP_ERR_BAD_CONTENT_LENGTH:
		return "bad Content-Length: must be one decimal number without sign, list or leading zeros, at most 2^53";
	case HTTP_ERR_DUPLICATE_CONTENT_LENGTH:
		return "more than one Content-Length header";
	case HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING:
		return "unsupported Transfer-Encoding: only \"chunked\" alone is accepted";
	case HTTP_ERR_DUPLICATE_TRANSFER_ENCODING:
		return "more than one Transfer-Encoding header";
	case HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING:
		return "both Content-Length and Transfer-Encoding: ambiguous message length";
	case HTTP_ERR_TRANSFER_ENCODING_HTTP10:
		return "Transfer-Encoding in an HTTP/1.0 message";
	case HTTP_ERR_CONNECT_BODY:
		return "CONNECT request with a body (Transfer-Encoding or non-zero Content-Length)";
	case HTTP_ERR_BAD_CONNECTION:
		return "malformed Connection header: expected a comma-separated list of tokens";
	case HTTP_ERR_TOO_MANY_CONNECTION_OPTIONS:
		return "more than 16 Connection options";
	case HTTP_ERR_CONNECTION_NAMES_FRAMING:
		return "Connection header lists Host, Content-Length or Transfer-Encoding";
	case HTTP_ERR_BAD_UPGRADE:
		return "malformed or repeated Upgrade header";
	case HTTP_ERR_UNSUPPORTED_EXPECT:
		return "unsupported Expect: only 100-continue";
	case HTTP_ERR_BAD_CHUNK_SIZE:
		return "bad chunk size: 1 to 16 hex digits, without sign, 0x or whitespace";
	case HTTP_ERR_BAD_CHUNK_EXT:
		return "malformed chunk extension";
	case HTTP_ERR_CHUNK_EXT_TOO_LONG:
		return "chunk extensions longer than 1024 bytes";
	case HTTP_ERR_BAD_CHUNK_END:
		return "chunk data not followed by CRLF";
	case HTTP_ERR_TRAILER_TOO_LARGE:
		return "chunked trailer section larger than 8192 bytes";
	}
	return "invalid HTTP message";
}

int
http_error_status(enum http_result r)
{
	switch (r) {
	case HTTP_OK:
	case HTTP_NEED_MORE:
		return 0;
	case HTTP_ERR_HEAD_TOO_LARGE:
	case HTTP_ERR_TOO_MANY_HEADERS:
	case HTTP_ERR_TRAILER_TOO_LARGE:
		return 431;
	case HTTP_ERR_TARGET_TOO_LONG:
		return 414;
	case HTTP_ERR_UNSUPPORTED_VERSION:
		return 505;
	case HTTP_ERR_LOWERCASE_METHOD:
	case HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING:
		return 501;
	case HTTP_ERR_UNSUPPORTED_EXPECT:
		return 417;
	case HTTP_ERR_BAD_STATUS_LINE:
		return 502;
	default:
		return 400;
	}
}
