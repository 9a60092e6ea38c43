/* SPDX-License-Identifier: ISC */
/*
 * Request decisions for inspected endpoints: the canonical request path and
 * query (RFC 3986 §2.3, §5.2.4, §6.2.2), request globs, access presets, deny
 * rules, upgrades, and the wording of every reason and hint. Leaves reading
 * requests, TLS interception and the client's reply to proxy/.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"
#include "l7.h"

/* ---- characters --------------------------------------------------------- */

static bool
is_alpha(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static bool
is_hex(int c)
{
	return hex_val(c) >= 0;
}

/* The byte of a %XX escape whose '%' was just read, or -1 when two hex
 * digits do not follow. */
static int
pct_byte(struct cursor *c)
{
	const uint8_t *h;

	if (!cursor_bytes(c, 2, &h) || !is_hex(h[0]) || !is_hex(h[1]))
		return -1;
	return hex_val(h[0]) << 4 | hex_val(h[1]);
}

/* RFC 3986 §2.3. */
static bool
is_unreserved(int c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

/* RFC 3986 §3.3 pchar, less pct-encoded. */
static bool
is_pchar(int c)
{
	return is_unreserved(c) || (c != 0 && strchr("!$&'()*+,;=:@", c));
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool
mem_eq_ci(const char *p, size_t n, const char *s)
{
	size_t i;

	if (strlen(s) != n)
		return false;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)p[i]) != lower((unsigned char)s[i]))
			return false;
	return true;
}

/* ---- canonical paths ---------------------------------------------------- */

/*
 * UTF-8 well-formedness of the bytes escapes decode to (RFC 3629 §4): the
 * classic overlong dot and slash (%C0%AE, %E0%80%AF) never get through to a
 * server that decodes them leniently.
 */
struct utf8 {
	unsigned need;  /* continuation bytes still expected */
	uint8_t lo, hi; /* range of the next one */
};

static bool
utf8_feed(struct utf8 *u, uint8_t b)
{
	if (u->need) {
		if (b < u->lo || b > u->hi)
			return false;
		u->need--;
		u->lo = 0x80;
		u->hi = 0xbf;
		return true;
	}
	u->lo = 0x80;
	u->hi = 0xbf;
	if (b < 0x80)
		return true;
	if (b >= 0xc2 && b <= 0xdf)
		u->need = 1;
	else if (b == 0xe0) {
		u->need = 2;
		u->lo = 0xa0;
	} else if (b == 0xed) {
		u->need = 2;
		u->hi = 0x9f; /* no surrogates */
	} else if (b >= 0xe1 && b <= 0xef)
		u->need = 2;
	else if (b == 0xf0) {
		u->need = 3;
		u->lo = 0x90;
	} else if (b >= 0xf1 && b <= 0xf3)
		u->need = 3;
	else if (b == 0xf4) {
		u->need = 3;
		u->hi = 0x8f; /* nothing above U+10FFFF */
	} else
		return false; /* C0, C1, F5..FF, lone continuation */
	return true;
}

/* Output of the canonicalizer: out[0..cap), never past cap - 1 so that
 * the NUL always fits. */
struct writer {
	char *p;
	size_t cap, len;
};

static bool
put(struct writer *w, char c)
{
	if (w->len + 1 >= w->cap)
		return false;
	w->p[w->len++] = c;
	return true;
}

static bool
is_dot_piece(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.');
}

/*
 * Checks a decoded segment for what servers disagree about: "..;x" (servlet
 * containers drop path parameters, then see ".."), "..%2F" (a server that
 * decodes %2F sees a dot segment), and "%25" followed by two hex digits (a
 * server that decodes twice sees another escape). The segment is already
 * canonical: escapes are uppercase.
 */
static enum l7_path_result
segment_check(const char *s, size_t n)
{
	size_t i, start = 0, k = 0;

	if (n >= 1 && s[0] == '.')
		k = n >= 2 && s[1] == '.' ? 2 : 1;
	if (k && k < n &&
	    (s[k] == ';' ||
	        (n - k >= 3 && s[k] == '%' && s[k + 1] == '3' &&
	            s[k + 2] == 'B')))
		return L7_PATH_ERR_DOT_PARAMS;
	for (i = 0; i + 2 < n; i++)
		if (s[i] == '%' && s[i + 1] == '2' && s[i + 2] == '5' &&
		    i + 4 < n && is_hex((unsigned char)s[i + 3]) &&
		    is_hex((unsigned char)s[i + 4]))
			return L7_PATH_ERR_DOUBLE_ENCODED;
	/* pieces between encoded slashes */
	for (i = 0; i <= n; i++) {
		if (i + 2 < n && s[i] == '%' && s[i + 1] == '2' &&
		    s[i + 2] == 'F') {
			if (is_dot_piece(s + start, i - start))
				return L7_PATH_ERR_ENCODED_DOT;
			start = i + 3;
			i += 2;
		} else if (i == n && start > 0 &&
		    is_dot_piece(s + start, n - start)) {
			return L7_PATH_ERR_ENCODED_DOT;
		}
	}
	return L7_PATH_OK;
}

enum canon_mode { CANON_PATH, CANON_PATTERN };

static enum l7_path_result
fail_at(size_t *err_off, size_t off, enum l7_path_result r)
{
	if (err_off)
		*err_off = off;
	return r;
}

/*
 * The segment stack lives in the output itself: out[0..o) is the canonical
 * path so far without a trailing '/' ("" for the root); a segment is written
 * after it as "/seg" and then kept, dropped (empty, ".") or used to pop the
 * last kept one (".."). Each byte is written once and popped at most once.
 */
static enum l7_path_result
canon(const char *in, size_t len, bool allow_slash, enum canon_mode mode,
    char *out, size_t out_cap, struct l7_target *t, size_t *err_off)
{
	struct cursor c = cursor_make(in, len);
	struct writer w = {out, out_cap, 0};
	struct utf8 u = {0, 0x80, 0xbf};
	size_t o = 0, seg_at = 0, in_seg = 1;
	bool trailing = false;
	uint8_t ch;

	memset(t, 0, sizeof(*t));
	if (out_cap > 0)
		out[0] = '\0';
	if (len == 0)
		return fail_at(err_off, 0, L7_PATH_ERR_EMPTY);
	if (len > L7_PATH_MAX)
		return fail_at(err_off, L7_PATH_MAX, L7_PATH_ERR_TOO_LONG);
	if (in[0] != '/')
		return fail_at(err_off, 0, L7_PATH_ERR_NOT_ABSOLUTE);
	if (!put(&w, '/'))
		return fail_at(err_off, 0, L7_PATH_ERR_BUFFER);
	(void)cursor_skip(&c, 1);
	for (;;) {
		size_t at = c.off;
		bool end = !cursor_u8(&c, &ch);

		if (!end && ch == '?' && mode == CANON_PATH) {
			t->has_query = true;
			t->query.off = at + 1;
			t->query.len = len - at - 1;
			end = true;
		}
		if (end || ch == '/') {
			/* the segment out[seg_at + 1 .. w.len) is complete */
			const char *seg = out + seg_at + 1;
			size_t n = w.len - seg_at - 1;
			enum l7_path_result r;

			if (u.need)
				return fail_at(
				    err_off, at, L7_PATH_ERR_BAD_UTF8);
			if ((r = segment_check(seg, n)) != L7_PATH_OK)
				return fail_at(err_off, in_seg, r);
			if (n == 0 || (n == 1 && seg[0] == '.')) {
				trailing = true;
			} else if (n == 2 && seg[0] == '.' && seg[1] == '.') {
				if (o == 0)
					return fail_at(err_off, in_seg,
					    L7_PATH_ERR_ABOVE_ROOT);
				while (o > 0 && out[--o] != '/')
					;
				trailing = true;
			} else {
				o = w.len;
				trailing = false;
			}
			w.len = o;
			if (end)
				break;
			seg_at = o;
			in_seg = at + 1;
			if (!put(&w, '/'))
				return fail_at(err_off, at, L7_PATH_ERR_BUFFER);
			continue;
		}
		if (ch == '%') {
			int v = pct_byte(&c);

			if (v < 0)
				return fail_at(
				    err_off, at, L7_PATH_ERR_BAD_ESCAPE);
			if (v == 0)
				return fail_at(err_off, at, L7_PATH_ERR_NUL);
			if (v == '/' && !allow_slash)
				return fail_at(
				    err_off, at, L7_PATH_ERR_ENCODED_SLASH);
			if (v == '\\')
				return fail_at(
				    err_off, at, L7_PATH_ERR_ENCODED_BACKSLASH);
			if (!utf8_feed(&u, (uint8_t)v))
				return fail_at(
				    err_off, at, L7_PATH_ERR_BAD_UTF8);
			if (is_unreserved(v)) {
				if (!put(&w, (char)v))
					return fail_at(
					    err_off, at, L7_PATH_ERR_BUFFER);
			} else if (!put(&w, '%') ||
			    !put(&w, "0123456789ABCDEF"[v >> 4]) ||
			    !put(&w, "0123456789ABCDEF"[v & 15])) {
				return fail_at(err_off, at, L7_PATH_ERR_BUFFER);
			}
			continue;
		}
		if (u.need)
			return fail_at(err_off, at, L7_PATH_ERR_BAD_UTF8);
		if (ch == '\\')
			return fail_at(err_off, at, L7_PATH_ERR_BACKSLASH);
		if (mode == CANON_PATTERN && (ch == '?' || ch == '#'))
			return fail_at(err_off, at, L7_PATH_ERR_PATTERN_QUERY);
		if (!is_pchar(ch))
			return fail_at(err_off, at, L7_PATH_ERR_CHAR);
		if (!put(&w, (char)ch))
			return fail_at(err_off, at, L7_PATH_ERR_BUFFER);
	}
	/* The root, or a path that ended in "/", "/." or "/..": keep one
	 * trailing '/'. The NUL always fits (put keeps one byte free). */
	if ((w.len == 0 || trailing) && !put(&w, '/'))
		return fail_at(err_off, len, L7_PATH_ERR_BUFFER);
	out[w.len] = '\0';
	t->path_len = w.len;
	return L7_PATH_OK;
}

enum l7_path_result
l7_path_canon(const char *in, size_t len, bool allow_encoded_slash, char *out,
    size_t out_cap, struct l7_target *t, size_t *err_off)
{
	return canon(
	    in, len, allow_encoded_slash, CANON_PATH, out, out_cap, t, err_off);
}

enum l7_path_result
l7_pattern_canon(const char *pat, char *out, size_t out_cap, size_t *err_off)
{
	struct l7_target t;

	return canon(
	    pat, strlen(pat), true, CANON_PATTERN, out, out_cap, &t, err_off);
}

/* Whether s[0..n) as written is a dot segment: ".", "..", or the same
 * with dots written as %2e / %2E. */
static bool
is_written_dot_segment(const char *s, size_t n)
{
	size_t i = 0, dots = 0;

	while (i < n) {
		if (s[i] == '.')
			i++;
		else if (n - i >= 3 && s[i] == '%' && s[i + 1] == '2' &&
		    (s[i + 2] == 'e' || s[i + 2] == 'E'))
			i += 3;
		else
			return false;
		dots++;
	}
	return dots == 1 || dots == 2;
}

enum l7_path_result
l7_pattern_check(const char *pat, size_t *err_off)
{
	char buf[L7_PATH_MAX + 1];
	enum l7_path_result r;
	size_t i, n = strlen(pat), seg = 1;

	if ((r = l7_pattern_canon(pat, buf, sizeof(buf), err_off)) !=
	    L7_PATH_OK)
		return r;
	/* On the text as written: what canonicalization would fold away
	 * silently is probably not what the author meant. */
	for (i = 1; i <= n; i++) {
		size_t sn = i - seg;

		if (i < n && pat[i] != '/')
			continue;
		if (is_written_dot_segment(pat + seg, sn))
			return fail_at(err_off, seg, L7_PATH_ERR_PATTERN_DOT);
		if (!(sn == 2 && pat[seg] == '*' && pat[seg + 1] == '*') &&
		    sn >= 2 && memmem(pat + seg, sn, "**", 2))
			return fail_at(
			    err_off, seg, L7_PATH_ERR_PATTERN_STARSTAR);
		seg = i + 1;
	}
	return L7_PATH_OK;
}

/* ---- queries ------------------------------------------------------------ */

static bool
is_query_char(int c)
{
	return is_pchar(c) || c == '/' || c == '?';
}

enum l7_path_result
l7_query_parse(
    const char *q, size_t len, struct l7_query_params *out, size_t *err_off)
{
	struct cursor c = cursor_make(q, len);
	size_t b = 0; /* bytes used in out->buf */
	struct l7_query_param *cur = NULL;
	uint8_t ch;

	out->n = 0;
	if (len > L7_PATH_MAX)
		return fail_at(err_off, L7_PATH_MAX, L7_PATH_ERR_TOO_LONG);
	for (;;) {
		size_t at = c.off;
		bool end = !cursor_u8(&c, &ch);

		if (end || ch == '&') {
			if (cur) {
				out->buf[b++] = '\0';
				if (cur->has_value)
					cur->value_len = (size_t)(out->buf + b -
					    1 - cur->value);
				else
					cur->key_len = (size_t)(out->buf + b -
					    1 - cur->key);
				cur = NULL;
			}
			if (end)
				break;
			continue;
		}
		if (cur == NULL) {
			if (out->n == L7_QUERY_MAX_PARAMS)
				return fail_at(
				    err_off, at, L7_PATH_ERR_QUERY_TOO_MANY);
			cur = &out->p[out->n++];
			memset(cur, 0, sizeof(*cur));
			cur->key = out->buf + b;
			cur->value = "";
		}
		if (ch == '=' && !cur->has_value) {
			out->buf[b++] = '\0';
			cur->key_len = (size_t)(out->buf + b - 1 - cur->key);
			cur->has_value = true;
			cur->value = out->buf + b;
			continue;
		}
		if (ch == '%') {
			int v = pct_byte(&c);

			if (v < 0)
				return fail_at(
				    err_off, at, L7_PATH_ERR_QUERY_ESCAPE);
			if (v == 0)
				return fail_at(
				    err_off, at, L7_PATH_ERR_QUERY_NUL);
			ch = (uint8_t)v;
		} else if (!is_query_char(ch)) {
			return fail_at(err_off, at, L7_PATH_ERR_QUERY_CHAR);
		} else if (ch == '+') {
			ch = ' ';
		}
		/* decoding never grows: b stays below len + n + 1 */
		out->buf[b++] = (char)ch;
	}
	return L7_PATH_OK;
}

const char *
l7_path_strerror(enum l7_path_result r)
{
	switch (r) {
	case L7_PATH_OK:
		return "ok";
	case L7_PATH_ERR_EMPTY:
		return "empty request path";
	case L7_PATH_ERR_NOT_ABSOLUTE:
		return "request path does not start with '/' (only origin-form paths are inspected)";
	case L7_PATH_ERR_TOO_LONG:
		return "request target longer than 8192 bytes";
	case L7_PATH_ERR_BUFFER:
		return "output buffer too small for the canonical path";
	case L7_PATH_ERR_BAD_ESCAPE:
		return "malformed percent-escape in the path: '%' must be followed by two hex digits";
	case L7_PATH_ERR_NUL:
		return "%00 (an encoded NUL byte) in the path";
	case L7_PATH_ERR_CHAR:
		return "character not allowed in a URI path (RFC 3986 §3.3): encode it as %XX";
	case L7_PATH_ERR_BACKSLASH:
		return "backslash in the path (some servers treat it as '/')";
	case L7_PATH_ERR_ENCODED_SLASH:
		return "encoded slash %2F in the path (set allow_encoded_slash: true on the endpoint if the API needs it)";
	case L7_PATH_ERR_ENCODED_BACKSLASH:
		return "encoded backslash %5C in the path (some servers decode it to '/')";
	case L7_PATH_ERR_DOUBLE_ENCODED:
		return "double percent-encoding (%25 followed by two hex digits) in the path";
	case L7_PATH_ERR_BAD_UTF8:
		return "percent-escapes in the path that are not well-formed UTF-8 (overlong or truncated sequence)";
	case L7_PATH_ERR_DOT_PARAMS:
		return "'.' or '..' segment with ';' parameters (servlet containers strip them and see a dot segment)";
	case L7_PATH_ERR_ENCODED_DOT:
		return "'.' or '..' next to an encoded slash %2F (a server that decodes it sees a dot segment)";
	case L7_PATH_ERR_ABOVE_ROOT:
		return "'..' climbs above the root of the path";
	case L7_PATH_ERR_QUERY_ESCAPE:
		return "malformed percent-escape in the query: '%' must be followed by two hex digits";
	case L7_PATH_ERR_QUERY_NUL:
		return "%00 (an encoded NUL byte) in the query";
	case L7_PATH_ERR_QUERY_CHAR:
		return "character not allowed in a URI query (RFC 3986 §3.4): encode it as %XX";
	case L7_PATH_ERR_QUERY_TOO_MANY:
		return "more than 64 query parameters";
	case L7_PATH_ERR_PATTERN_QUERY:
		return "a rule path cannot contain '?' or '#': match query parameters with 'query:'";
	case L7_PATH_ERR_PATTERN_STARSTAR:
		return "'**' must be a whole path segment (e.g. /**/info/refs)";
	case L7_PATH_ERR_PATTERN_DOT:
		return "'.' and '..' segments are not allowed in a rule path";
	}
	return "invalid request path";
}

/* ---- globs -------------------------------------------------------------- */

struct budget {
	size_t steps;
};

static bool
spend(struct budget *b)
{
	return ++b->steps <= L7_GLOB_MAX_STEPS;
}

/*
 * "*" over bytes (within one segment, or over a whole query value): greedy
 * with one backtrack point, the last star. Correct because a later star can
 * absorb whatever an earlier one would have: O(pattern x subject) at worst.
 */
static enum l7_glob_result
star_match(const char *p, size_t pn, const char *s, size_t sn, struct budget *b)
{
	size_t pi = 0, si = 0, star = SIZE_MAX, mark = 0;

	while (si < sn) {
		if (!spend(b))
			return L7_GLOB_TOO_COMPLEX;
		if (pi < pn && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < pn && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++mark;
		} else {
			return L7_GLOB_NO_MATCH;
		}
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn ? L7_GLOB_MATCH : L7_GLOB_NO_MATCH;
}

/* Next segment of a '/'-separated string; a trailing '/' ends it. */
static bool
seg_next(const char **pos, const char **seg, size_t *n)
{
	const char *s = *pos;

	if (*s == '/')
		s++;
	if (*s == '\0')
		return false;
	*seg = s;
	while (*s && *s != '/')
		s++;
	*n = (size_t)(s - *seg);
	*pos = s;
	return true;
}

/*
 * Segment-level greedy match: "**" plays the role "*" plays in star_match,
 * and every other pattern segment matches exactly one path segment, so the
 * same one-backtrack-point argument holds.
 */
enum l7_glob_result
l7_glob_path(const char *pattern, const char *path, size_t *steps)
{
	struct budget b = {0};
	const char *pp = pattern, *sp = path;
	const char *star_pp = NULL, *star_sp = NULL;
	enum l7_glob_result r = L7_GLOB_NO_MATCH;

	for (;;) {
		const char *pseg, *sseg, *next_sp = sp;
		size_t pn, sn;
		bool have_p, have_s;

		if (!spend(&b)) {
			r = L7_GLOB_TOO_COMPLEX;
			break;
		}
		have_p = seg_next(&pp, &pseg, &pn);
		if (have_p && pn == 2 && pseg[0] == '*' && pseg[1] == '*') {
			star_pp = pp;
			star_sp = sp;
			continue;
		}
		have_s = seg_next(&next_sp, &sseg, &sn);
		if (!have_p && !have_s) {
			r = L7_GLOB_MATCH;
			break;
		}
		if (have_p && have_s) {
			r = star_match(pseg, pn, sseg, sn, &b);
			if (r == L7_GLOB_TOO_COMPLEX)
				break;
			if (r == L7_GLOB_MATCH) {
				sp = next_sp;
				continue;
			}
		}
		/* mismatch: let the last "**" take one more segment */
		r = L7_GLOB_NO_MATCH;
		if (star_pp == NULL || !seg_next(&star_sp, &sseg, &sn))
			break;
		pp = star_pp;
		sp = star_sp;
	}
	if (steps)
		*steps = b.steps;
	return r;
}

enum l7_glob_result
l7_glob_value(const char *pattern, const char *v, size_t vlen, size_t *steps)
{
	struct budget b = {0};
	enum l7_glob_result r =
	    star_match(pattern, strlen(pattern), v, vlen, &b);

	if (steps)
		*steps = b.steps;
	return r;
}

/* ---- decisions ---------------------------------------------------------- */

/* What one endpoint says about a request; refusals in increasing order of
 * how much they tell the user (the report names the most telling one). */
enum ep_verdict {
	EP_ALLOW = 0,
	EP_PATH,     /* %2F and no allow_encoded_slash */
	EP_RULES,    /* rules only, none matches */
	EP_METHOD,   /* outside the preset, and no rule */
	EP_GIT_PUSH, /* git-receive-pack under read-only */
	EP_UPGRADE,  /* an upgrade without full or a "*" rule */
};

struct ep_eval {
	enum ep_verdict v;
	enum l7_by by; /* EP_ALLOW: preset, rule or uninspected */
	/* EP_ALLOW by a rule: that rule; a refusal: a rule that matched the
	 * method and path but not the query, if any */
	const struct l7_rule *rule;
};

struct req {
	const char *method;
	const char *path;
	const struct l7_query_params *q;
	bool upgrade;
	char pat[L7_PATH_MAX + 1]; /* a rule's canonical path glob */
};

static const char *const ro_methods[] = {"GET", "HEAD", "OPTIONS", NULL};
static const char *const rw_methods[] = {
    "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", NULL};

static bool
method_in(const char *m, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(m, *set) == 0)
			return true;
	return false;
}

/* The last two segments of a path (a trailing '/' ignored), each cut at
 * its first ';' (path parameters, which servlet containers drop). */
struct tail {
	const char *last, *prev;
	size_t last_len, prev_len;
};

static size_t
before_params(const char *s, size_t n)
{
	const char *semi = memchr(s, ';', n);

	return semi ? (size_t)(semi - s) : n;
}

static void
path_tail(const char *path, struct tail *t, bool cut)
{
	const char *pos = path, *seg;
	size_t n;

	memset(t, 0, sizeof(*t));
	while (seg_next(&pos, &seg, &n)) {
		t->prev = t->last;
		t->prev_len = t->last_len;
		t->last = seg;
		t->last_len = n;
	}
	if (cut && t->last)
		t->last_len = before_params(t->last, t->last_len);
	if (cut && t->prev)
		t->prev_len = before_params(t->prev, t->prev_len);
}

/*
 * git smart HTTP (gitprotocol-http(5)): a push discovers refs with
 * "GET .../info/refs?service=git-receive-pack" and sends the pack with
 * "POST .../git-receive-pack". Matched broadly, since this refuses: case
 * folded, path parameters dropped, and any service but git-upload-pack
 * (every occurrence of the key counts).
 */
static bool
git_push_request(const struct req *r)
{
	struct tail t;
	size_t i;

	path_tail(r->path, &t, true);
	if (t.last == NULL)
		return false;
	if (mem_eq_ci(t.last, t.last_len, "git-receive-pack"))
		return true;
	if (!mem_eq_ci(t.last, t.last_len, "refs") || t.prev == NULL ||
	    !mem_eq_ci(t.prev, t.prev_len, "info") || r->q == NULL)
		return false;
	for (i = 0; i < r->q->n; i++) {
		const struct l7_query_param *p = &r->q->p[i];

		if (mem_eq_ci(p->key, p->key_len, "service") &&
		    strcmp(p->value, "git-upload-pack") != 0)
			return true;
	}
	return false;
}

/* "POST .../git-upload-pack" (clone and fetch). Matched exactly, since
 * this allows. */
static bool
git_upload_request(const struct req *r)
{
	struct tail t;

	path_tail(r->path, &t, false);
	return t.last && t.last_len == 15 &&
	    memcmp(t.last, "git-upload-pack", 15) == 0;
}

static enum ep_verdict
preset_eval(enum policy_access a, const struct req *r)
{
	switch (a) {
	case ACCESS_FULL:
		return EP_ALLOW;
	case ACCESS_READ_WRITE:
		return method_in(r->method, rw_methods) ? EP_ALLOW : EP_METHOD;
	case ACCESS_READ_ONLY:
		if (git_push_request(r))
			return EP_GIT_PUSH;
		if (method_in(r->method, ro_methods))
			return EP_ALLOW;
		if (strcmp(r->method, "POST") == 0 && git_upload_request(r))
			return EP_ALLOW;
		return EP_METHOD;
	case ACCESS_UNSET:
		break;
	}
	return EP_RULES;
}

/*
 * A query matcher: allow rules need the key present and every value given
 * for it to match one of the globs (a server may read any of them); deny
 * rules match when any value does. A glob that is too complex counts as
 * matching for deny rules and as not matching for allow rules.
 */
static bool
query_match(
    const struct l7_query_params *q, const struct l7_query *m, bool deny)
{
	bool seen = false, any = false, all = true;
	size_t i, j, klen = strlen(m->key);

	for (i = 0; q && i < q->n; i++) {
		const struct l7_query_param *p = &q->p[i];
		bool hit = false;

		if (p->key_len != klen || memcmp(p->key, m->key, klen) != 0)
			continue;
		seen = true;
		for (j = 0; j < m->nglobs && !hit; j++) {
			enum l7_glob_result g = l7_glob_value(
			    m->globs[j], p->value, p->value_len, NULL);

			hit = g == L7_GLOB_MATCH ||
			    (g == L7_GLOB_TOO_COMPLEX && deny);
		}
		if (hit)
			any = true;
		else
			all = false;
	}
	return deny ? any : seen && all;
}

enum rule_match { RM_NO, RM_NEAR, RM_YES };

static enum rule_match
rule_match(struct req *r, const struct l7_rule *rule, bool deny)
{
	size_t i;

	if (strcmp(rule->method, "*") != 0) {
		/* a GET rule does not open a WebSocket */
		if (r->upgrade && !deny)
			return RM_NO;
		if (strcmp(rule->method, r->method) != 0)
			return RM_NO;
	}
	if (rule->path) {
		enum l7_glob_result g = L7_GLOB_TOO_COMPLEX;

		if (l7_pattern_canon(
		        rule->path, r->pat, sizeof(r->pat), NULL) == L7_PATH_OK)
			g = l7_glob_path(r->pat, r->path, NULL);
		/* an invalid or runaway glob: fail closed */
		if (g == L7_GLOB_TOO_COMPLEX)
			g = deny ? L7_GLOB_MATCH : L7_GLOB_NO_MATCH;
		if (g != L7_GLOB_MATCH)
			return RM_NO;
	}
	for (i = 0; i < rule->nquery; i++)
		if (!query_match(r->q, &rule->query[i], deny))
			return RM_NEAR;
	return RM_YES;
}

static bool
has_encoded_slash(const char *p)
{
	for (; (p = strchr(p, '%')) != NULL; p++)
		if (p[1] == '2' && (p[2] == 'F' || p[2] == 'f'))
			return true;
	return false;
}

static void
endpoint_eval(
    struct req *r, const struct policy_endpoint *e, struct ep_eval *ev)
{
	enum ep_verdict pv;
	size_t i;

	memset(ev, 0, sizeof(*ev));
	if (e->protocol != PROTO_REST) {
		ev->v = EP_ALLOW;
		ev->by = L7_BY_UNINSPECTED;
		return;
	}
	if (!e->allow_encoded_slash && has_encoded_slash(r->path)) {
		ev->v = EP_PATH;
		return;
	}
	if (r->upgrade)
		pv = e->access == ACCESS_FULL ? EP_ALLOW : EP_UPGRADE;
	else
		pv = preset_eval(e->access, r);
	if (pv == EP_ALLOW) {
		ev->v = EP_ALLOW;
		ev->by = L7_BY_PRESET;
		return;
	}
	for (i = 0; i < e->nrules; i++) {
		enum rule_match m = rule_match(r, &e->rules[i], false);

		if (m == RM_YES) {
			ev->v = EP_ALLOW;
			ev->by = L7_BY_RULE;
			ev->rule = &e->rules[i];
			return;
		}
		if (m == RM_NEAR && ev->rule == NULL)
			ev->rule = &e->rules[i];
	}
	ev->v = pv;
}

static const char *
file_or_dash(const char *file)
{
	return file && *file ? file : "-";
}

/* "github.com:443 (policy.yaml:12)" */
static void
endpoint_label(
    const struct policy_endpoint *e, const char *file, char *buf, size_t len)
{
	char ports[96];
	size_t i, off = 0;

	ports[0] = '\0';
	for (i = 0; i < e->nports && off < sizeof(ports); i++) {
		int n;

		if (e->ports[i].lo == e->ports[i].hi)
			n = snprintf(ports + off, sizeof(ports) - off, "%s%u",
			    i ? "," : "", e->ports[i].lo);
		else
			n = snprintf(ports + off, sizeof(ports) - off,
			    "%s%u-%u", i ? "," : "", e->ports[i].lo,
			    e->ports[i].hi);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	snprintf(buf, len, "%s%s%s (%s:%d)", e->host_text ? e->host_text : "?",
	    ports[0] ? ":" : "", ports, file_or_dash(file), e->line);
}

/* A path glob to suggest in a hint: the path itself when short, else its
 * first segment and everything below it. */
static void
suggest_path(const char *path, char *buf, size_t len)
{
	const char *seg, *pos = path;
	size_t n;

	if (strlen(path) <= 96)
		snprintf(buf, len, "%s", path);
	else if (seg_next(&pos, &seg, &n) && n <= 64)
		snprintf(buf, len, "/%.*s/**", (int)n, seg);
	else
		snprintf(buf, len, "/**");
}

static const char *
preset_methods(enum policy_access a)
{
	return a == ACCESS_READ_ONLY ?
	    "GET, HEAD and OPTIONS (and git clone/fetch)" :
	    "GET, HEAD, OPTIONS, POST, PUT and PATCH";
}

static void
near_miss_note(
    const struct l7_rule *near, const char *file, char *buf, size_t len)
{
	if (near)
		snprintf(buf, len,
		    "; the rule at %s:%d:%d matches the method and path, but not its query matchers",
		    file_or_dash(file), near->line, near->col);
	else
		buf[0] = '\0';
}

static void
explain_refusal(const struct req *r, const struct policy_endpoint *e,
    const struct ep_eval *ev, const char *file, struct l7_decision *out)
{
	char ep[HOSTNAME_MAX + 160], sp[128], note[160];
	const char *f = file_or_dash(file);
	char *t = out->reason_text, *h = out->hint;
	size_t tl = sizeof(out->reason_text), hl = sizeof(out->hint);

	endpoint_label(e, file, ep, sizeof(ep));
	suggest_path(r->path, sp, sizeof(sp));
	near_miss_note(ev->rule, file, note, sizeof(note));
	switch (ev->v) {
	case EP_PATH:
		snprintf(t, tl,
		    "the request path %s contains an encoded slash (%%2F), which the endpoint %s does not accept",
		    r->path, ep);
		snprintf(h, hl,
		    "if this API needs %%2F inside path segments (GitLab project IDs do), set 'allow_encoded_slash: true' on the endpoint at %s:%d",
		    f, e->line);
		break;
	case EP_UPGRADE:
		snprintf(t, tl,
		    "%s %s asks for a protocol upgrade (WebSocket or similar), whose traffic is not inspected; the endpoint %s allows upgrades only with access: full or a rule with method '*'",
		    r->method, r->path, ep);
		snprintf(h, hl,
		    "set 'access: full' on the endpoint at %s:%d, or add '- allow: { method: \"*\", path: \"%s\" }' to its rules",
		    f, e->line, sp);
		break;
	case EP_GIT_PUSH:
		snprintf(t, tl,
		    "%s %s is a git push (git-receive-pack), which access: read-only on the endpoint %s does not allow (it allows clone and fetch)",
		    r->method, r->path, ep);
		snprintf(h, hl,
		    "to allow git push, set 'access: read-write' on the endpoint at %s:%d",
		    f, e->line);
		break;
	case EP_METHOD:
		snprintf(t, tl,
		    "%s %s is not allowed: access: %s on the endpoint %s allows %s, and no rule allows it%s",
		    r->method, r->path, policy_access_name(e->access), ep,
		    preset_methods(e->access), note);
		snprintf(h, hl,
		    "set 'access: %s' on the endpoint at %s:%d, or add '- allow: { method: %s, path: \"%s\" }' to its rules",
		    e->access == ACCESS_READ_ONLY &&
		            method_in(r->method, rw_methods) ?
		        "read-write" :
		        "full",
		    f, e->line, r->method, sp);
		break;
	case EP_RULES:
	default:
		snprintf(t, tl,
		    "%s %s matches none of the %zu rule%s of the endpoint %s%s",
		    r->method, r->path, e->nrules, e->nrules == 1 ? "" : "s",
		    ep, note);
		snprintf(h, hl,
		    "add '- allow: { method: %s, path: \"%s\" }' to the rules of the endpoint at %s:%d",
		    r->method, sp, f, e->line);
		break;
	}
}

static enum reason
ep_reason(enum ep_verdict v)
{
	switch (v) {
	case EP_ALLOW:
		return REASON_ALLOWED;
	case EP_PATH:
		return REASON_REQUEST_PATH_INVALID;
	case EP_RULES:
		return REASON_REQUEST_NOT_ALLOWED;
	case EP_METHOD:
		return REASON_METHOD_NOT_ALLOWED;
	case EP_GIT_PUSH:
		return REASON_GIT_PUSH_NOT_ALLOWED;
	case EP_UPGRADE:
		return REASON_UPGRADE_NOT_ALLOWED;
	}
	return REASON_REQUEST_NOT_ALLOWED;
}

static bool
any_enforce(const struct policy_endpoint *const *eps, size_t neps)
{
	size_t i;

	for (i = 0; i < neps; i++)
		if (eps[i]->enforcement == ENFORCE_ENFORCE)
			return true;
	return false;
}

static void
by_rule_text(struct l7_decision *out, const char *what, const char *file)
{
	snprintf(out->by_text, sizeof(out->by_text), "%s (%s:%d:%d)", what,
	    file_or_dash(file), out->rule->line, out->rule->col);
}

static void
by_preset_text(struct l7_decision *out, const char *file)
{
	const struct policy_endpoint *e = out->endpoint;

	if (e->access == ACCESS_UNSET)
		snprintf(out->by_text, sizeof(out->by_text), "rules (%s:%d)",
		    file_or_dash(file), e->line);
	else
		snprintf(out->by_text, sizeof(out->by_text),
		    "access: %s (%s:%d)", policy_access_name(e->access),
		    file_or_dash(file), e->line);
}

/* A decision about the whole request, before any endpoint looked at it:
 * no endpoints, or a path that is not canonical. */
static void
decide_without_endpoint(const struct policy_endpoint *const *eps, size_t neps,
    enum reason reason, struct l7_decision *out)
{
	out->allowed = false;
	out->reason = reason;
	out->mode = neps == 0 || any_enforce(eps, neps) ? ENFORCE_ENFORCE :
	                                                  ENFORCE_AUDIT;
	out->endpoint = neps ? eps[0] : NULL;
	out->access = neps ? eps[0]->access : ACCESS_UNSET;
}

/* Up to 200 bytes of s[0..len) with anything but printable ASCII as '?',
 * so that a hostile target cannot write control bytes into a log line. */
static void
printable(const char *s, size_t len, char *buf, size_t cap)
{
	size_t i, n = len < 200 ? len : 200;

	for (i = 0; s && i < n && i + 1 < cap; i++)
		buf[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
}

static void
decide_path_invalid(const struct policy_endpoint *const *eps, size_t neps,
    const char *target, size_t len, enum l7_path_result err, size_t err_off,
    const char *file, struct l7_decision *out)
{
	char shown[208];

	decide_without_endpoint(eps, neps, REASON_REQUEST_PATH_INVALID, out);
	out->by = L7_BY_PATH;
	out->path_err = err;
	out->path_err_off = err_off;
	printable(target, len, shown, sizeof(shown));
	snprintf(out->by_text, sizeof(out->by_text), "request path check");
	snprintf(out->reason_text, sizeof(out->reason_text),
	    "the request target is refused before any rule applies: %s (at byte %zu of \"%s%s\")",
	    l7_path_strerror(err), err_off, shown, len > 200 ? "..." : "");
	if (err == L7_PATH_ERR_ENCODED_SLASH && out->endpoint)
		snprintf(out->hint, sizeof(out->hint),
		    "if this API needs %%2F inside path segments (GitLab project IDs do), set 'allow_encoded_slash: true' on the endpoint at %s:%d",
		    file_or_dash(file), out->endpoint->line);
	else
		snprintf(out->hint, sizeof(out->hint), "%s",
		    "egressd decides only on unambiguous request paths; the client must send the path in plain RFC 3986 form (see 'Access presets and request rules' in docs/policy.md)");
}

void
l7_decide(const struct policy_endpoint *const *eps, size_t neps,
    const char *method, const char *canon_path,
    const struct l7_query_params *query, bool is_upgrade, const char *file,
    struct l7_decision *out)
{
	struct req r;
	struct ep_eval ev, best = {EP_ALLOW, L7_BY_NONE, NULL};
	const struct policy_endpoint *deny_e = NULL, *best_e = NULL;
	const struct l7_rule *deny_r = NULL;
	size_t i, j, deny_i = 0, best_i = 0, allow_i = 0;
	bool deny_enforced = false, allowed = false;
	struct ep_eval allow_ev = {EP_ALLOW, L7_BY_NONE, NULL};

	memset(out, 0, sizeof(*out));
	out->endpoint_index = 0;
	if (neps == 0) {
		decide_without_endpoint(
		    eps, neps, REASON_REQUEST_NOT_ALLOWED, out);
		snprintf(out->by_text, sizeof(out->by_text), "no endpoint");
		snprintf(out->reason_text, sizeof(out->reason_text),
		    "no endpoint allows requests on this connection");
		snprintf(out->hint, sizeof(out->hint),
		    "the connection itself must be allowed first: see 'egressctl explain'");
		return;
	}
	/* An endpoint that does not inspect allows every request: the proxy
	 * does not even intercept then (decide.h: the broadest endpoint
	 * wins), and the answer must be the same here. */
	for (i = 0; i < neps; i++) {
		if (eps[i]->protocol != PROTO_REST) {
			out->allowed = true;
			out->reason = REASON_ALLOWED;
			out->mode = eps[i]->enforcement;
			out->by = L7_BY_UNINSPECTED;
			out->endpoint = eps[i];
			out->endpoint_index = i;
			out->access = eps[i]->access;
			snprintf(out->by_text, sizeof(out->by_text),
			    "endpoint without inspection (%s:%d)",
			    file_or_dash(file), eps[i]->line);
			snprintf(out->reason_text, sizeof(out->reason_text),
			    "the endpoint at %s:%d does not inspect requests (no protocol: rest): every request passes",
			    file_or_dash(file), eps[i]->line);
			return;
		}
	}
	if (method == NULL || canon_path == NULL || canon_path[0] != '/') {
		decide_path_invalid(eps, neps, canon_path,
		    canon_path ? strlen(canon_path) : 0,
		    L7_PATH_ERR_NOT_ABSOLUTE, 0, file, out);
		return;
	}
	r.method = method;
	r.path = canon_path;
	r.q = query;
	r.upgrade = is_upgrade;

	/* Deny rules of every endpoint first: one that matches wins. Report
	 * an enforcing one when there is one. */
	for (i = 0; i < neps; i++) {
		const struct policy_endpoint *e = eps[i];

		for (j = 0; j < e->ndeny_rules; j++) {
			if (rule_match(&r, &e->deny_rules[j], true) != RM_YES)
				continue;
			if (deny_r == NULL ||
			    (!deny_enforced &&
			        e->enforcement == ENFORCE_ENFORCE)) {
				deny_e = e;
				deny_r = &e->deny_rules[j];
				deny_i = i;
			}
			if (e->enforcement == ENFORCE_ENFORCE)
				deny_enforced = true;
		}
	}
	/* Then every endpoint's allows (also needed for a denial's mode). */
	for (i = 0; i < neps; i++) {
		endpoint_eval(&r, eps[i], &ev);
		if (ev.v == EP_ALLOW) {
			if (!allowed) {
				allowed = true;
				allow_ev = ev;
				allow_i = i;
			}
		} else if (best_e == NULL || ev.v > best.v) {
			best = ev;
			best_e = eps[i];
			best_i = i;
		}
	}

	if (deny_r) {
		out->allowed = false;
		out->reason = REASON_REQUEST_DENIED;
		out->by = L7_BY_DENY_RULE;
		out->endpoint = deny_e;
		out->endpoint_index = deny_i;
		out->rule = deny_r;
		out->access = deny_e->access;
		if (deny_enforced)
			out->mode = ENFORCE_ENFORCE;
		else if (allowed)
			out->mode = ENFORCE_AUDIT;
		else
			out->mode = any_enforce(eps, neps) ? ENFORCE_ENFORCE :
			                                     ENFORCE_AUDIT;
		by_rule_text(out, "deny rule", file);
		{
			char ep[HOSTNAME_MAX + 160];

			endpoint_label(deny_e, file, ep, sizeof(ep));
			snprintf(out->reason_text, sizeof(out->reason_text),
			    "%s %s is refused by the deny rule at %s:%d:%d on the endpoint %s",
			    method, canon_path, file_or_dash(file),
			    deny_r->line, deny_r->col, ep);
		}
		snprintf(out->hint, sizeof(out->hint),
		    "a deny rule wins over every allow: narrow or remove the deny rule at %s:%d:%d if this request should pass",
		    file_or_dash(file), deny_r->line, deny_r->col);
		return;
	}
	if (allowed) {
		const struct policy_endpoint *e = eps[allow_i];
		char ep[HOSTNAME_MAX + 160];

		out->allowed = true;
		out->reason = REASON_ALLOWED;
		out->mode = e->enforcement;
		out->by = allow_ev.by;
		out->endpoint = e;
		out->endpoint_index = allow_i;
		out->rule = allow_ev.rule;
		out->access = e->access;
		endpoint_label(e, file, ep, sizeof(ep));
		if (allow_ev.by == L7_BY_RULE) {
			by_rule_text(out, "allow rule", file);
			snprintf(out->reason_text, sizeof(out->reason_text),
			    "%s %s is allowed by the rule at %s:%d:%d on the endpoint %s",
			    method, canon_path, file_or_dash(file),
			    allow_ev.rule->line, allow_ev.rule->col, ep);
		} else {
			by_preset_text(out, file);
			snprintf(out->reason_text, sizeof(out->reason_text),
			    "%s %s is allowed by access: %s on the endpoint %s",
			    method, canon_path, policy_access_name(e->access),
			    ep);
		}
		return;
	}
	out->allowed = false;
	out->reason = ep_reason(best.v);
	out->mode = any_enforce(eps, neps) ? ENFORCE_ENFORCE : ENFORCE_AUDIT;
	/* the preset refused it, unless the endpoint has rules only */
	out->by = best.v == EP_PATH        ? L7_BY_PATH :
	    best_e->access != ACCESS_UNSET ? L7_BY_PRESET :
	                                     L7_BY_NONE;
	if (best.v == EP_PATH) {
		out->path_err = L7_PATH_ERR_ENCODED_SLASH;
		out->path_err_off = (size_t)(strstr(canon_path, "%2F") ?
		        strstr(canon_path, "%2F") - canon_path :
		        0);
	}
	out->endpoint = best_e;
	out->endpoint_index = best_i;
	out->rule = best.rule; /* a near miss, or NULL */
	out->access = best_e->access;
	if (best.v == EP_PATH)
		snprintf(out->by_text, sizeof(out->by_text),
		    "request path check (%s:%d)", file_or_dash(file),
		    best_e->line);
	else
		by_preset_text(out, file);
	explain_refusal(&r, best_e, &best, file, out);
}

void
l7_request_decide(const struct policy_endpoint *const *eps, size_t neps,
    const char *method, const char *target, size_t len, bool is_upgrade,
    const char *file, struct l7_request *req, struct l7_decision *out)
{
	enum l7_path_result pr;
	bool slash = false;
	size_t i, off = 0;

	memset(out, 0, sizeof(*out));
	req->path[0] = '\0';
	req->query.n = 0;
	for (i = 0; i < neps; i++) {
		if (eps[i]->protocol != PROTO_REST) {
			/* nothing to inspect: l7_decide says so */
			l7_decide(eps, neps, method, "/", NULL, is_upgrade,
			    file, out);
			return;
		}
		if (eps[i]->allow_encoded_slash)
			slash = true;
	}
	if (neps == 0) {
		l7_decide(eps, neps, method, "/", NULL, is_upgrade, file, out);
		return;
	}
	pr = l7_path_canon(target, len, slash, req->path, sizeof(req->path),
	    &req->target, &off);
	if (pr == L7_PATH_OK && req->target.has_query) {
		pr = l7_query_parse(target + req->target.query.off,
		    req->target.query.len, &req->query, &off);
		off += req->target.query.off;
	}
	if (pr != L7_PATH_OK) {
		decide_path_invalid(eps, neps, target, len, pr, off, file, out);
		return;
	}
	l7_decide(eps, neps, method, req->path,
	    req->target.has_query ? &req->query : NULL, is_upgrade, file, out);
}

enum verdict
l7_verdict(const struct l7_decision *d, enum decide_override override)
{
	enum policy_enforcement m = d->mode;

	if (d->allowed)
		return VERDICT_ALLOW;
	if (override == DECIDE_MODE_ENFORCE)
		m = ENFORCE_ENFORCE;
	else if (override == DECIDE_MODE_AUDIT)
		m = ENFORCE_AUDIT;
	return m == ENFORCE_AUDIT ? VERDICT_AUDIT : VERDICT_DENY;
}

struct collect {
	const struct policy_endpoint **eps;
	size_t max, n;
};

static void
collect_step(const struct decide_step *st, void *arg)
{
	struct collect *c = arg;

	/* decide.c words an endpoint that allows the connection "allows" */
	if (st->result && strcmp(st->result, "allows") == 0) {
		if (c->n < c->max)
			c->eps[c->n] = st->endpoint;
		c->n++;
	}
}

size_t
l7_endpoints_collect(const struct policy *p, const struct decide_caller *c,
    const struct decide_dest *d, const struct policy_endpoint **eps, size_t max)
{
	struct collect col = {eps, max, 0};
	struct decision dec;

	decide_traced(p, c, d, DECIDE_MODE_POLICY, &dec, collect_step, &col);
	return col.n;
}
