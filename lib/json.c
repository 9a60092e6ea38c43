/* SPDX-License-Identifier: ISC */
/*
 * Strict JSON (RFC 8259). Owns the grammar, its limits, string decoding and a
 * writer for parsed values; leaves I/O and the meaning of the values to the
 * callers. The parser is iterative (an explicit stack of JSON_MAX_DEPTH
 * frames), so hostile nesting cannot exhaust the C stack.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "json.h"
#include "strbuf.h"

void
json_doc_init(struct json_doc *doc, struct json_node *nodes, size_t max_nodes)
{
	memset(doc, 0, sizeof(*doc));
	doc->nodes = nodes;
	doc->max_nodes = max_nodes;
}

const char *
json_strerror(enum json_err e)
{
	switch (e) {
	case JSON_OK:
		return "ok";
	case JSON_NEED_MORE:
		return "unexpected end of input";
	case JSON_ERR_SYNTAX:
		return "syntax error";
	case JSON_ERR_TRAILING:
		return "unexpected data after the value";
	case JSON_ERR_DEPTH:
		return "nested too deeply";
	case JSON_ERR_NODES:
		return "too many values";
	case JSON_ERR_TOO_LARGE:
		return "input too large";
	case JSON_ERR_NUMBER:
		return "invalid number";
	case JSON_ERR_CONTROL:
		return "control character in a string";
	case JSON_ERR_ESCAPE:
		return "invalid escape in a string";
	case JSON_ERR_SURROGATE:
		return "unpaired surrogate escape in a string";
	case JSON_ERR_UTF8:
		return "invalid UTF-8 in a string";
	}
	return "unknown error";
}

/* ------------------------------------------------------------------ */
/* Lexing helpers: every read goes through the cursor. */

static bool
peek(const struct cursor *c, uint8_t *b)
{
	if (cursor_left(c) < 1)
		return false;
	*b = c->p[c->off];
	return true;
}

static void
skip_ws(struct cursor *c)
{
	uint8_t b;

	/* RFC 8259 §2: ws = *( %x20 / %x09 / %x0A / %x0D ) */
	while (peek(c, &b) && (b == ' ' || b == '\t' || b == '\n' || b == '\r'))
		c->off++;
}

static int
hexval(uint8_t b)
{
	if (b >= '0' && b <= '9')
		return b - '0';
	if (b >= 'a' && b <= 'f')
		return b - 'a' + 10;
	if (b >= 'A' && b <= 'F')
		return b - 'A' + 10;
	return -1;
}

/* Four hex digits of a \u escape. */
static enum json_err
lex_hex4(struct cursor *c, unsigned *cp, size_t *err_off)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		uint8_t b;
		int h;

		if (!peek(c, &b))
			return JSON_NEED_MORE;
		if ((h = hexval(b)) < 0) {
			*err_off = c->off;
			return JSON_ERR_ESCAPE;
		}
		v = v << 4 | (unsigned)h;
		c->off++;
	}
	*cp = v;
	return JSON_OK;
}

/* Expects byte want; NEED_MORE at the end, else err at that byte. */
static enum json_err
lex_byte(struct cursor *c, uint8_t want, enum json_err err, size_t *err_off)
{
	uint8_t b;

	if (!peek(c, &b))
		return JSON_NEED_MORE;
	if (b != want) {
		*err_off = c->off;
		return err;
	}
	c->off++;
	return JSON_OK;
}

/* The rest of an escape after the backslash (RFC 8259 §7). */
static enum json_err
lex_escape(struct cursor *c, size_t *err_off)
{
	enum json_err r;
	unsigned cp, lo;
	uint8_t b;

	if (!peek(c, &b))
		return JSON_NEED_MORE;
	switch (b) {
	case '"':
	case '\\':
	case '/':
	case 'b':
	case 'f':
	case 'n':
	case 'r':
	case 't':
		c->off++;
		return JSON_OK;
	case 'u':
		c->off++;
		break;
	default:
		*err_off = c->off;
		return JSON_ERR_ESCAPE;
	}
	if ((r = lex_hex4(c, &cp, err_off)) != JSON_OK)
		return r;
	if (cp >= 0xdc00 && cp <= 0xdfff) {
		/* a low surrogate alone: known at its last hex digit */
		*err_off = c->off - 1;
		return JSON_ERR_SURROGATE;
	}
	if (cp < 0xd800 || cp > 0xdbff)
		return JSON_OK;
	/* A high surrogate must be followed by \u and a low one. */
	if ((r = lex_byte(c, '\\', JSON_ERR_SURROGATE, err_off)) != JSON_OK ||
	    (r = lex_byte(c, 'u', JSON_ERR_SURROGATE, err_off)) != JSON_OK)
		return r;
	if ((r = lex_hex4(c, &lo, err_off)) != JSON_OK)
		return r;
	if (lo < 0xdc00 || lo > 0xdfff) {
		*err_off = c->off - 1;
		return JSON_ERR_SURROGATE;
	}
	return JSON_OK;
}

/*
 * One UTF-8 sequence whose lead byte b was peeked (RFC 3629 §4: no overlong
 * forms, no surrogates, nothing above U+10FFFF).
 */
static enum json_err
lex_utf8(struct cursor *c, uint8_t b, size_t *err_off)
{
	uint8_t lo = 0x80, hi = 0xbf, nb;
	int n, i;

	if (b >= 0xc2 && b <= 0xdf)
		n = 1;
	else if (b >= 0xe0 && b <= 0xef) {
		n = 2;
		if (b == 0xe0)
			lo = 0xa0;
		else if (b == 0xed)
			hi = 0x9f;
	} else if (b >= 0xf0 && b <= 0xf4) {
		n = 3;
		if (b == 0xf0)
			lo = 0x90;
		else if (b == 0xf4)
			hi = 0x8f;
	} else {
		*err_off = c->off;
		return JSON_ERR_UTF8;
	}
	c->off++;
	for (i = 0; i < n; i++) {
		if (!peek(c, &nb))
			return JSON_NEED_MORE;
		if (nb < lo || nb > hi) {
			*err_off = c->off;
			return JSON_ERR_UTF8;
		}
		lo = 0x80;
		hi = 0xbf;
		c->off++;
	}
	return JSON_OK;
}

/* A string after its opening quote; *off and *len span its inside. */
static enum json_err
lex_string(
    struct cursor *c, uint32_t *off, uint32_t *len, bool *esc, size_t *err_off)
{
	enum json_err r;
	uint8_t b;

	*off = (uint32_t)c->off;
	*esc = false;
	for (;;) {
		if (!peek(c, &b))
			return JSON_NEED_MORE;
		if (b == '"') {
			*len = (uint32_t)(c->off - *off);
			c->off++;
			return JSON_OK;
		}
		if (b == '\\') {
			*esc = true;
			c->off++;
			if ((r = lex_escape(c, err_off)) != JSON_OK)
				return r;
		} else if (b < 0x20) {
			*err_off = c->off;
			return JSON_ERR_CONTROL;
		} else if (b >= 0x80) {
			if ((r = lex_utf8(c, b, err_off)) != JSON_OK)
				return r;
		} else {
			c->off++;
		}
	}
}

/* One more character of a number; refuses the (JSON_NUMBER_MAX+1)th. */
static bool
num_take(struct cursor *c, size_t start, size_t *err_off)
{
	if (c->off - start >= JSON_NUMBER_MAX) {
		*err_off = c->off;
		return false;
	}
	c->off++;
	return true;
}

static bool
is_digit(uint8_t b)
{
	return b >= '0' && b <= '9';
}

/*
 * A number (RFC 8259 §6). At the end of the input a number inside a
 * container is unfinished (NEED_MORE: more digits may follow); at the top
 * level it is complete.
 */
static enum json_err
lex_number(struct cursor *c, bool top, struct json_node *n, size_t *err_off)
{
	size_t start = c->off;
	bool integral = true, neg = false;
	char buf[JSON_NUMBER_MAX + 1];
	uint64_t mag = 0;
	bool fits = true;
	uint8_t b;
	int saved;

#define NEED(cond) \
	do { \
		if (!peek(c, &b)) \
			return JSON_NEED_MORE; \
		if (!(cond)) { \
			*err_off = c->off; \
			return JSON_ERR_NUMBER; \
		} \
		if (!num_take(c, start, err_off)) \
			return JSON_ERR_NUMBER; \
	} while (0)

	if (peek(c, &b) && b == '-') {
		neg = true;
		c->off++;
	}
	NEED(is_digit(b));
	if (b != '0') {
		mag = (uint64_t)(b - '0');
		while (peek(c, &b) && is_digit(b)) {
			if (!num_take(c, start, err_off))
				return JSON_ERR_NUMBER;
			if (mag > (UINT64_MAX - 9) / 10)
				fits = false;
			else
				mag = mag * 10 + (uint64_t)(b - '0');
		}
	} else if (peek(c, &b) && is_digit(b)) {
		*err_off = c->off; /* a leading zero */
		return JSON_ERR_NUMBER;
	}
	if (peek(c, &b) && b == '.') {
		integral = false;
		if (!num_take(c, start, err_off))
			return JSON_ERR_NUMBER;
		NEED(is_digit(b));
		while (peek(c, &b) && is_digit(b))
			if (!num_take(c, start, err_off))
				return JSON_ERR_NUMBER;
	}
	if (peek(c, &b) && (b == 'e' || b == 'E')) {
		integral = false;
		if (!num_take(c, start, err_off))
			return JSON_ERR_NUMBER;
		if (peek(c, &b) && (b == '+' || b == '-'))
			if (!num_take(c, start, err_off))
				return JSON_ERR_NUMBER;
		NEED(is_digit(b));
		while (peek(c, &b) && is_digit(b))
			if (!num_take(c, start, err_off))
				return JSON_ERR_NUMBER;
	}
#undef NEED
	if (cursor_left(c) == 0 && !top)
		return JSON_NEED_MORE;
	n->type = JSON_NUMBER;
	n->off = (uint32_t)start;
	n->len = (uint32_t)(c->off - start);
	memcpy(buf, c->p + start, n->len);
	buf[n->len] = '\0';
	/* strtod reports range through errno; the caller's errno is kept. */
	saved = errno;
	n->d = strtod(buf, NULL);
	errno = saved;
	if (isinf(n->d)) {
		*err_off = c->off;
		return JSON_ERR_NUMBER;
	}
	if (integral && fits &&
	    (neg ? mag <= (uint64_t)INT64_MAX + 1 :
	           mag <= (uint64_t)INT64_MAX)) {
		n->flags |= JSON_F_INT;
		n->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	}
	return JSON_OK;
}

/* A literal's remaining bytes after its first one. */
static enum json_err
lex_literal(struct cursor *c, const char *word, size_t *err_off)
{
	size_t i;

	for (i = 0; word[i]; i++) {
		enum json_err r =
		    lex_byte(c, (uint8_t)word[i], JSON_ERR_SYNTAX, err_off);

		if (r != JSON_OK)
			return r;
	}
	return JSON_OK;
}

/* ------------------------------------------------------------------ */
/* The parser: a loop over four states and a stack of open containers. */

enum json_state {
	ST_VALUE, /* a value must come */
	ST_FIRST, /* after '[' or '{': the first item or the close */
	ST_KEY,   /* after ',' in an object: a member must come */
	ST_AFTER, /* after a value: ',' or the close, or the end */
};

struct json_frame {
	uint32_t node; /* the open container */
	uint32_t last; /* its last child, 0 for none yet */
};

static enum json_err
parse(struct json_doc *doc, const char *text, size_t len)
{
	struct json_frame stack[JSON_MAX_DEPTH];
	struct cursor c;
	enum json_state st = ST_VALUE;
	enum json_err r = JSON_OK;
	uint32_t key_off = 0, key_len = 0;
	bool key_esc = false;
	size_t depth = 0;
	uint8_t b;

	doc->text = text;
	doc->len = len;
	doc->nnodes = 0;
	doc->err_off = 0;
	if (len > JSON_MAX_INPUT) {
		doc->err_off = JSON_MAX_INPUT;
		return JSON_ERR_TOO_LARGE;
	}
	c = cursor_make(text, len);
	for (;;) {
		struct json_node *n;
		struct json_frame *f = depth ? &stack[depth - 1] : NULL;
		uint32_t idx;
		bool esc;

		switch (st) {
		case ST_FIRST:
			skip_ws(&c);
			if (!peek(&c, &b))
				goto need_more;
			if (b ==
			    (doc->nodes[f->node].type == JSON_OBJECT ? '}' :
			                                               ']')) {
				c.off++;
				goto pop;
			}
			st = doc->nodes[f->node].type == JSON_OBJECT ? ST_KEY :
			                                               ST_VALUE;
			continue;
		case ST_KEY:
			skip_ws(&c);
			if ((r = lex_byte(&c, '"', JSON_ERR_SYNTAX,
			         &doc->err_off)) != JSON_OK ||
			    (r = lex_string(&c, &key_off, &key_len, &key_esc,
			         &doc->err_off)) != JSON_OK)
				goto fail;
			skip_ws(&c);
			if ((r = lex_byte(&c, ':', JSON_ERR_SYNTAX,
			         &doc->err_off)) != JSON_OK)
				goto fail;
			st = ST_VALUE;
			continue;
		case ST_AFTER:
			skip_ws(&c);
			if (f == NULL) {
				if (cursor_left(&c)) {
					doc->err_off = c.off;
					return JSON_ERR_TRAILING;
				}
				return JSON_OK;
			}
			if (!peek(&c, &b))
				goto need_more;
			c.off++;
			if (b == ',') {
				st = doc->nodes[f->node].type == JSON_OBJECT ?
				    ST_KEY :
				    ST_VALUE;
				continue;
			}
			if (b ==
			    (doc->nodes[f->node].type == JSON_OBJECT ? '}' :
			                                               ']'))
				goto pop;
			doc->err_off = c.off - 1;
			return JSON_ERR_SYNTAX;
		case ST_VALUE:
			break;
		}

		/* ST_VALUE */
		skip_ws(&c);
		if (!peek(&c, &b))
			goto need_more;
		if (!(b == '{' || b == '[' || b == '"' || b == 't' ||
		        b == 'f' || b == 'n' || b == '-' || is_digit(b))) {
			doc->err_off = c.off;
			return JSON_ERR_SYNTAX;
		}
		if (doc->nnodes >= doc->max_nodes) {
			doc->err_off = c.off;
			return JSON_ERR_NODES;
		}
		if ((b == '{' || b == '[') && depth >= JSON_MAX_DEPTH) {
			doc->err_off = c.off;
			return JSON_ERR_DEPTH;
		}
		idx = (uint32_t)doc->nnodes++;
		n = &doc->nodes[idx];
		memset(n, 0, sizeof(*n));
		n->off = (uint32_t)c.off;
		if (f) {
			if (f->last)
				doc->nodes[f->last].next = idx;
			else
				doc->nodes[f->node].child = idx;
			f->last = idx;
			doc->nodes[f->node].count++;
			if (doc->nodes[f->node].type == JSON_OBJECT) {
				n->key_off = key_off;
				n->key_len = key_len;
				if (key_esc)
					n->flags |= JSON_F_KEY_ESC;
			}
		}
		switch (b) {
		case '{':
		case '[':
			n->type = b == '{' ? JSON_OBJECT : JSON_ARRAY;
			c.off++;
			stack[depth].node = idx;
			stack[depth].last = 0;
			depth++;
			st = ST_FIRST;
			continue;
		case '"':
			n->type = JSON_STRING;
			c.off++;
			r = lex_string(
			    &c, &n->off, &n->len, &esc, &doc->err_off);
			if (esc)
				n->flags |= JSON_F_ESC;
			break;
		case 't':
			n->type = JSON_TRUE;
			r = lex_literal(&c, "true", &doc->err_off);
			break;
		case 'f':
			n->type = JSON_FALSE;
			r = lex_literal(&c, "false", &doc->err_off);
			break;
		case 'n':
			n->type = JSON_NULL;
			r = lex_literal(&c, "null", &doc->err_off);
			break;
		default:
			r = lex_number(&c, depth == 0, n, &doc->err_off);
			break;
		}
		if (r != JSON_OK)
			goto fail;
		if (n->type != JSON_STRING && n->type != JSON_NUMBER)
			n->len = (uint32_t)(c.off - n->off);
		st = ST_AFTER;
		continue;
	pop:
		n = &doc->nodes[f->node];
		n->len = (uint32_t)(c.off - n->off);
		depth--;
		st = ST_AFTER;
		continue;
	}
need_more:
	r = JSON_NEED_MORE;
fail:
	if (r == JSON_NEED_MORE)
		doc->err_off = len;
	return r;
}

enum json_err
json_parse(struct json_doc *doc, const char *text, size_t len)
{
	enum json_err r = parse(doc, text, len);

	if (r != JSON_OK)
		doc->nnodes = 0; /* json_root() is NULL after an error */
	return r;
}

/* ------------------------------------------------------------------ */
/* Access */

const struct json_node *
json_root(const struct json_doc *doc)
{
	return doc->nnodes ? &doc->nodes[0] : NULL;
}

const struct json_node *
json_child(const struct json_doc *doc, const struct json_node *n)
{
	if (n == NULL || n->child == 0)
		return NULL;
	return &doc->nodes[n->child];
}

const struct json_node *
json_next(const struct json_doc *doc, const struct json_node *n)
{
	if (n == NULL || n->next == 0)
		return NULL;
	return &doc->nodes[n->next];
}

/* Next code point of a validated span (escapes and UTF-8 decoded). */
static unsigned
decode_next(const char *s, size_t len, size_t *pos)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = *pos;
	unsigned cp;

	if (p[i] != '\\') {
		unsigned b = p[i];
		int n = b < 0x80 ? 0 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : 3;
		int k;

		cp = n == 0 ? b :
		    n == 1  ? b & 0x1f :
		    n == 2  ? b & 0x0f :
		              b & 0x07;
		for (k = 1; k <= n && i + (size_t)k < len; k++)
			cp = cp << 6 | (p[i + (size_t)k] & 0x3f);
		*pos = i + 1 + (size_t)n;
		return cp;
	}
	switch (p[i + 1]) {
	case 'b':
		cp = '\b';
		break;
	case 'f':
		cp = '\f';
		break;
	case 'n':
		cp = '\n';
		break;
	case 'r':
		cp = '\r';
		break;
	case 't':
		cp = '\t';
		break;
	case 'u': {
		unsigned v = 0, k;

		for (k = 0; k < 4; k++)
			v = v << 4 | (unsigned)hexval(p[i + 2 + k]);
		if (v >= 0xd800 && v <= 0xdbff) {
			unsigned lo = 0;

			for (k = 0; k < 4; k++)
				lo = lo << 4 | (unsigned)hexval(p[i + 8 + k]);
			*pos = i + 12;
			return 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
		}
		*pos = i + 6;
		return v;
	}
	default: /* '"', '\\', '/' */
		cp = p[i + 1];
		break;
	}
	*pos = i + 2;
	return cp;
}

static size_t
utf8_put(unsigned cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Decodes a validated span into buf (NUL-terminated); returns the decoded
 * length, or SIZE_MAX when it does not fit. A NULL buf only measures.
 */
static size_t
span_decode(const char *s, size_t len, bool esc, char *buf, size_t buflen)
{
	size_t pos = 0, out = 0;

	if (!esc) {
		if (buf) {
			if (len >= buflen)
				return SIZE_MAX;
			memcpy(buf, s, len);
			buf[len] = '\0';
		}
		return len;
	}
	while (pos < len) {
		char u[4];
		size_t n;

		if (s[pos] != '\\') {
			/* copy the run of plain bytes at once */
			const char *bs = memchr(s + pos, '\\', len - pos);

			n = bs ? (size_t)(bs - (s + pos)) : len - pos;
			if (buf) {
				if (out + n >= buflen)
					return SIZE_MAX;
				memcpy(buf + out, s + pos, n);
			}
			out += n;
			pos += n;
			continue;
		}
		n = utf8_put(decode_next(s, len, &pos), u);
		if (buf) {
			if (out + n >= buflen)
				return SIZE_MAX;
			memcpy(buf + out, u, n);
		}
		out += n;
	}
	if (buf) {
		if (out >= buflen)
			return SIZE_MAX;
		buf[out] = '\0';
	}
	return out;
}

bool
json_key_is(
    const struct json_doc *doc, const struct json_node *n, const char *key)
{
	size_t klen = strlen(key);
	char buf[256];

	if (n == NULL)
		return false;
	if (!(n->flags & JSON_F_KEY_ESC))
		return n->key_len == klen &&
		    memcmp(doc->text + n->key_off, key, klen) == 0;
	if (klen >= sizeof(buf))
		return false;
	return span_decode(doc->text + n->key_off, n->key_len, true, buf,
	           sizeof(buf)) == klen &&
	    memcmp(buf, key, klen) == 0;
}

const struct json_node *
json_get(
    const struct json_doc *doc, const struct json_node *obj, const char *key)
{
	const struct json_node *c, *found = NULL;

	if (obj == NULL || obj->type != JSON_OBJECT)
		return NULL;
	for (c = json_child(doc, obj); c; c = json_next(doc, c))
		if (json_key_is(doc, c, key))
			found = c;
	return found;
}

const struct json_node *
json_getp(
    const struct json_doc *doc, const struct json_node *obj, const char *path)
{
	char key[128];

	while (obj && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_get(doc, obj, key);
		path += n + (dot ? 1 : 0);
	}
	return obj;
}

bool
json_string(const struct json_doc *doc, const struct json_node *n, char *buf,
    size_t buflen, size_t *len)
{
	size_t r;

	if (n == NULL || n->type != JSON_STRING || buflen == 0)
		return false;
	r = span_decode(
	    doc->text + n->off, n->len, n->flags & JSON_F_ESC, buf, buflen);
	if (r == SIZE_MAX)
		return false;
	if (len)
		*len = r;
	return true;
}

bool
json_cstr(const struct json_doc *doc, const struct json_node *n, char *buf,
    size_t buflen)
{
	size_t len;

	return json_string(doc, n, buf, buflen, &len) &&
	    memchr(buf, '\0', len) == NULL;
}

size_t
json_string_len(const struct json_doc *doc, const struct json_node *n)
{
	if (n == NULL || n->type != JSON_STRING)
		return 0;
	return span_decode(
	    doc->text + n->off, n->len, n->flags & JSON_F_ESC, NULL, 0);
}

bool
json_int(const struct json_node *n, int64_t *v)
{
	if (n == NULL || n->type != JSON_NUMBER || !(n->flags & JSON_F_INT))
		return false;
	*v = n->i;
	return true;
}

bool
json_bool(const struct json_node *n, bool *v)
{
	if (n == NULL || (n->type != JSON_TRUE && n->type != JSON_FALSE))
		return false;
	*v = n->type == JSON_TRUE;
	return true;
}

/* ------------------------------------------------------------------ */
/* Writer */

static void
write_span(struct strbuf *out, const char *s, size_t len, bool esc)
{
	static const char hex[] = "0123456789abcdef";
	size_t pos = 0;

	strbuf_putc(out, '"');
	while (pos < len) {
		unsigned cp;

		if (!esc && (unsigned char)s[pos] < 0x80)
			cp = (unsigned char)s[pos++];
		else
			cp = decode_next(s, len, &pos);
		switch (cp) {
		case '"':
			strbuf_puts(out, "\\\"");
			continue;
		case '\\':
			strbuf_puts(out, "\\\\");
			continue;
		case '\n':
			strbuf_puts(out, "\\n");
			continue;
		case '\r':
			strbuf_puts(out, "\\r");
			continue;
		case '\t':
			strbuf_puts(out, "\\t");
			continue;
		}
		if (cp >= 0x20 && cp < 0x7f) {
			strbuf_putc(out, (char)cp);
			continue;
		}
		if (cp >= 0x10000) {
			unsigned v = cp - 0x10000;
			unsigned hi = 0xd800 + (v >> 10),
			         lo = 0xdc00 + (v & 0x3ff);

			strbuf_printf(out, "\\u%c%c%c%c\\u%c%c%c%c",
			    hex[hi >> 12], hex[hi >> 8 & 15], hex[hi >> 4 & 15],
			    hex[hi & 15], hex[lo >> 12], hex[lo >> 8 & 15],
			    hex[lo >> 4 & 15], hex[lo & 15]);
			continue;
		}
		strbuf_printf(out, "\\u%c%c%c%c", hex[cp >> 12],
		    hex[cp >> 8 & 15], hex[cp >> 4 & 15], hex[cp & 15]);
	}
	strbuf_putc(out, '"');
}

static void
write_indent(struct strbuf *out, int indent, int level)
{
	int i;

	if (indent <= 0)
		return;
	strbuf_putc(out, '\n');
	for (i = 0; i < indent * level; i++)
		strbuf_putc(out, ' ');
}

static void
write_value(const struct json_doc *doc, const struct json_node *n,
    struct strbuf *out, int indent, int level)
{
	const struct json_node *c;
	bool obj;

	switch ((enum json_type)n->type) {
	case JSON_NULL:
		strbuf_puts(out, "null");
		return;
	case JSON_FALSE:
		strbuf_puts(out, "false");
		return;
	case JSON_TRUE:
		strbuf_puts(out, "true");
		return;
	case JSON_NUMBER:
		strbuf_add(out, doc->text + n->off, n->len);
		return;
	case JSON_STRING:
		write_span(
		    out, doc->text + n->off, n->len, n->flags & JSON_F_ESC);
		return;
	case JSON_ARRAY:
	case JSON_OBJECT:
		break;
	}
	obj = n->type == JSON_OBJECT;
	strbuf_putc(out, obj ? '{' : '[');
	for (c = json_child(doc, n); c; c = json_next(doc, c)) {
		write_indent(out, indent, level + 1);
		if (obj) {
			write_span(out, doc->text + c->key_off, c->key_len,
			    c->flags & JSON_F_KEY_ESC);
			strbuf_puts(out, indent > 0 ? ": " : ":");
		}
		/* the depth is bounded by the parser's JSON_MAX_DEPTH */
		write_value(doc, c, out, indent, level + 1);
		if (c->next)
			strbuf_putc(out, ',');
	}
	if (n->count)
		write_indent(out, indent, level);
	strbuf_putc(out, obj ? '}' : ']');
}

void
json_write(const struct json_doc *doc, const struct json_node *n,
    struct strbuf *out, int indent)
{
	if (n == NULL) {
		strbuf_puts(out, "null");
		return;
	}
	write_value(doc, n, out, indent, 0);
}
