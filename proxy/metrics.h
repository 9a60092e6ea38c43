/* SPDX-License-Identifier: ISC */
/*
 * The Prometheus text endpoint (GET /metrics), off by default. It listens in
 * egressd's own network namespace only, never inside a sandbox.
 */
#ifndef EGRESSD_METRICS_H
#define EGRESSD_METRICS_H

#include <stddef.h>

struct daemon;
struct metrics;
struct strbuf;

struct metrics *metrics_new(
    struct daemon *d, const char *addr, char *err, size_t errlen);
void metrics_free(struct metrics *m);
/* The exposition text (also used by tests). */
void metrics_format(struct daemon *d, struct strbuf *out);

#endif
