/* SPDX-License-Identifier: ISC */
/*
 * Moving one HTTP/1.1 message body between two libevent buffers as its
 * framing allows and no further (what follows belongs to the next message):
 * Content-Length, chunked (bytes passed on unchanged), or until close.
 */
#ifndef EGRESSD_HTTP_BODY_H
#define EGRESSD_HTTP_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include "http_parse.h"

struct evbuffer;

struct http_body {
	enum http_framing framing;
	uint64_t left; /* CONTENT_LENGTH: bytes still to come */
	struct http_chunked chunked;
	bool done;
};

void http_body_init(
    struct http_body *b, enum http_framing framing, uint64_t len);
/*
 * Moves body bytes from src to dst (discards them when dst is NULL),
 * adding the count to *count. src_eof ends a close-delimited body. False on
 * a framing error (malformed chunked encoding).
 */
bool http_body_move(struct http_body *b, struct evbuffer *src,
    struct evbuffer *dst, uint64_t *count, bool src_eof);

#endif
