/* SPDX-License-Identifier: ISC */
/*
 * Capped growable buffer and JSON escaping. Owns its memory; the caller owns
 * the struct.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "log.h"
#include "strbuf.h"

#define STRBUF_DEFAULT_CAP (1u << 20)

void
strbuf_init(struct strbuf *sb, size_t cap)
{
	memset(sb, 0, sizeof(*sb));
	sb->cap = cap ? cap : STRBUF_DEFAULT_CAP;
}

void
strbuf_free(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = sb->size = 0;
}

void
strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->truncated = false;
	if (sb->s)
		sb->s[0] = '\0';
}

const char *
strbuf_str(const struct strbuf *sb)
{
	return sb->s ? sb->s : "";
}

/* Makes room for n more bytes plus the NUL; false when past the cap. */
static bool
strbuf_grow(struct strbuf *sb, size_t n)
{
	size_t need, size;
	char *s;

	if (n > sb->cap - sb->len) {
		sb->truncated = true;
		return false;
	}
	need = sb->len + n + 1;
	if (need <= sb->size)
		return true;
	size = sb->size ? sb->size : 256;
	while (size < need)
		size *= 2;
	if ((s = realloc(sb->s, size)) == NULL)
		fatal("out of memory");
	sb->s = s;
	sb->size = size;
	return true;
}

void
strbuf_add(struct strbuf *sb, const char *p, size_t n)
{
	if (!strbuf_grow(sb, n))
		return;
	memcpy(sb->s + sb->len, p, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

void
strbuf_puts(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_putc(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void
strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !strbuf_grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence (2-4 bytes) at s, or 0 (RFC 3629:
 * no overlongs, no surrogates, nothing above U+10FFFF). */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void
strbuf_json_esc(struct strbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7] = {
		    '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
		size_t u;

		switch (c) {
		case '"':
			strbuf_add(sb, "\\\"", 2);
			break;
		case '\\':
			strbuf_add(sb, "\\\\", 2);
			break;
		case '\n':
			strbuf_add(sb, "\\n", 2);
			break;
		case '\t':
			strbuf_add(sb, "\\t", 2);
			break;
		case '\r':
			strbuf_add(sb, "\\r", 2);
			break;
		default:
			if (c >= 0x80 &&
			    (u = utf8_len(
			         (const unsigned char *)s + i, n - i))) {
				/* valid UTF-8 passes as it is */
				strbuf_add(sb, s + i, u);
				i += u - 1;
			} else if (c < 0x20 || c >= 0x7f || c == '<' ||
			    c == '>') {
				/* control characters, and bytes that are not
				 * UTF-8 (as U+0080..U+00FF): the output stays
				 * valid JSON whatever a client sent */
				strbuf_add(sb, esc, 6);
			} else {
				strbuf_add(sb, s + i, 1);
			}
		}
	}
}

void
strbuf_put_safe(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			strbuf_putc(sb, (char)c);
		} else {
			char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};

			strbuf_add(sb, esc, 4);
		}
	}
}

void
strbuf_json_str(struct strbuf *sb, const char *s)
{
	if (s == NULL) {
		strbuf_puts(sb, "null");
		return;
	}
	strbuf_putc(sb, '"');
	strbuf_json_esc(sb, s, strlen(s));
	strbuf_putc(sb, '"');
}

void
strbuf_json_key(struct strbuf *sb, bool *first, const char *key)
{
	if (!*first)
		strbuf_putc(sb, ',');
	*first = false;
	strbuf_json_str(sb, key);
	strbuf_putc(sb, ':');
}
