/* SPDX-License-Identifier: ISC */
/*
 * Bounds-checked reading of a byte span, for the pure parsers (ClientHello,
 * DNS messages, HTTP heads). Every read either succeeds or leaves the cursor
 * unchanged and returns false; nothing here allocates or logs.
 */
#ifndef EGRESSD_CURSOR_H
#define EGRESSD_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cursor {
	const uint8_t *p;
	size_t len;
	size_t off;
};

static inline struct cursor
cursor_make(const void *p, size_t len)
{
	struct cursor c = {(const uint8_t *)p, len, 0};
	return c;
}

static inline size_t
cursor_left(const struct cursor *c)
{
	return c->len - c->off;
}

static inline bool
cursor_u8(struct cursor *c, uint8_t *v)
{
	if (cursor_left(c) < 1)
		return false;
	*v = c->p[c->off++];
	return true;
}

static inline bool
cursor_u16(struct cursor *c, uint16_t *v)
{
	if (cursor_left(c) < 2)
		return false;
	*v = (uint16_t)(c->p[c->off] << 8 | c->p[c->off + 1]);
	c->off += 2;
	return true;
}

static inline bool
cursor_u24(struct cursor *c, uint32_t *v)
{
	if (cursor_left(c) < 3)
		return false;
	*v = (uint32_t)c->p[c->off] << 16 | (uint32_t)c->p[c->off + 1] << 8 |
	    c->p[c->off + 2];
	c->off += 3;
	return true;
}

static inline bool
cursor_u32(struct cursor *c, uint32_t *v)
{
	if (cursor_left(c) < 4)
		return false;
	*v = (uint32_t)c->p[c->off] << 24 | (uint32_t)c->p[c->off + 1] << 16 |
	    (uint32_t)c->p[c->off + 2] << 8 | c->p[c->off + 3];
	c->off += 4;
	return true;
}

/* Points *out at the next n bytes and advances past them. */
static inline bool
cursor_bytes(struct cursor *c, size_t n, const uint8_t **out)
{
	if (cursor_left(c) < n)
		return false;
	*out = c->p + c->off;
	c->off += n;
	return true;
}

static inline bool
cursor_skip(struct cursor *c, size_t n)
{
	if (cursor_left(c) < n)
		return false;
	c->off += n;
	return true;
}

/* Splits off the next n bytes as their own cursor (a length-prefixed
 * vector), advancing the parent past them. */
static inline bool
cursor_sub(struct cursor *c, size_t n, struct cursor *sub)
{
	const uint8_t *p;

	if (!cursor_bytes(c, n, &p))
		return false;
	*sub = cursor_make(p, n);
	return true;
}

#endif
