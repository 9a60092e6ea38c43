/* SPDX-License-Identifier: ISC */
/*
 * Plain-HTTP forward proxying on the explicit listener: absolute-form
 * requests (GET http://host/path), each one on a keep-alive connection
 * decided on its own, rewritten to origin-form, framed strictly in both
 * directions.
 */
#ifndef EGRESSD_FORWARD_H
#define EGRESSD_FORWARD_H

#include <stddef.h>
#include <stdint.h>

struct session;
struct forward;

/* Takes over s's client socket; buf[0..len) are the bytes read so far (the
 * first request head and whatever followed). Closes s when done. */
struct forward *forward_start(
    struct session *s, const uint8_t *buf, size_t len);
void forward_free(struct forward *f);
uint64_t forward_last_active_ms(const struct forward *f);

#endif
