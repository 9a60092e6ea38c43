/* SPDX-License-Identifier: ISC */
/*
 * A growable text buffer with a hard cap, and JSON-escaped appends. Used to
 * build log records, 403 bodies and checker output; a buffer that would pass
 * its cap stops growing and remembers that it was truncated.
 */
#ifndef EGRESSD_STRBUF_H
#define EGRESSD_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *s; /* always NUL-terminated once anything was appended */
	size_t len;
	size_t size;
	size_t cap; /* maximum len; 0 means 1 MiB */
	bool truncated;
};

void strbuf_init(struct strbuf *sb, size_t cap);
void strbuf_free(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* Returns the text ("" for an empty buffer); valid until the next append. */
const char *strbuf_str(const struct strbuf *sb);

void strbuf_add(struct strbuf *sb, const char *p, size_t n);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_putc(struct strbuf *sb, char c);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends s (n bytes) as the inside of a JSON string: quotes, backslashes,
 * control characters and non-ASCII bytes are escaped, so that nothing from a
 * client is ever reflected raw. */
void strbuf_json_esc(struct strbuf *sb, const char *s, size_t n);
/* Appends s for a terminal: printable ASCII as is, every other byte as
 * \xHH (so a client-chosen name cannot drive the operator's terminal). */
void strbuf_put_safe(struct strbuf *sb, const char *s);
/* Appends "s" with quotes; NULL appends null. */
void strbuf_json_str(struct strbuf *sb, const char *s);
/* Appends ,"key": when not the first member (*first tracks that). */
void strbuf_json_key(struct strbuf *sb, bool *first, const char *key);

#endif
