/* SPDX-License-Identifier: ISC */
/*
 * HTTP body framing over evbuffers. Owns nothing but the framing state; the
 * chunked grammar is http_parse.c's.
 */
#include <event2/buffer.h>
#include <string.h>

#include "http_body.h"

void
http_body_init(struct http_body *b, enum http_framing framing, uint64_t len)
{
	memset(b, 0, sizeof(*b));
	b->framing = framing;
	b->left = len;
	http_chunked_init(&b->chunked);
	b->done = framing == HTTP_FRAMING_NONE ||
	    (framing == HTTP_FRAMING_CONTENT_LENGTH && len == 0);
}

bool
http_body_move(struct http_body *b, struct evbuffer *src, struct evbuffer *dst,
    uint64_t *count, bool src_eof)
{
	while (!b->done && evbuffer_get_length(src) > 0) {
		size_t n = evbuffer_get_length(src);

		switch (b->framing) {
		case HTTP_FRAMING_CONTENT_LENGTH:
			if (n > b->left)
				n = (size_t)b->left;
			b->left -= n;
			b->done = b->left == 0;
			break;
		case HTTP_FRAMING_CHUNKED: {
			struct evbuffer_iovec v;
			size_t used = 0;
			enum http_result r;

			if (evbuffer_peek(src, -1, NULL, &v, 1) < 1)
				return false;
			r = http_chunked_feed(
			    &b->chunked, v.iov_base, v.iov_len, &used);
			if (r != HTTP_OK && r != HTTP_NEED_MORE)
				return false;
			n = r == HTTP_OK ? used : v.iov_len;
			b->done = r == HTTP_OK;
			break;
		}
		case HTTP_FRAMING_CLOSE:
		case HTTP_FRAMING_TUNNEL:
		case HTTP_FRAMING_SWITCH:
			break; /* everything, until EOF */
		default:
			return false;
		}
		if (dst) {
			if (evbuffer_remove_buffer(src, dst, n) != (int)n)
				return false;
		} else if (evbuffer_drain(src, n) != 0) {
			return false;
		}
		*count += n;
	}
	if (b->framing == HTTP_FRAMING_CLOSE && src_eof)
		b->done = true;
	return true;
}
