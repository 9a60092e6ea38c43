/* SPDX-License-Identifier: ISC */
/*
 * Request decisions on a session whose endpoints inspect requests
 * (protocol: rest): which endpoints allow the connection, the decision of
 * one request under the daemon's mode override, and its record. Shared by
 * the TLS interception (intercept.c), plain HTTP on the transparent path
 * (intercept.c without TLS) and the explicit forward proxy (forward.c), so
 * every path decides and logs a request the same way.
 */
#ifndef EGRESSD_REQUEST_H
#define EGRESSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "decide.h"
#include "l7.h"

struct session;
struct policy;
struct hostname;

/* The endpoints of p that allow s's caller to reach host:s->port, in
 * policy order, into eps[0..max); returns how many were stored. */
size_t request_endpoints(const struct session *s, const struct policy *p,
    const struct hostname *host, const struct policy_endpoint **eps,
    size_t max);

/*
 * Decides one request (method as sent, target[0..len) its path and query)
 * against eps[0..n): l7_request_decide() into *out, then the verdict under
 * the daemon's override (out->mode follows the override). scratch holds
 * the canonical path afterwards.
 */
enum verdict request_decide(const struct session *s,
    const struct policy_endpoint *const *eps, size_t n, const char *method,
    const char *target, size_t len, bool upgrade, struct l7_request *scratch,
    struct l7_decision *out);

/* One record per request decision (OCSF HTTP Activity). */
void request_record(const struct session *s, const char *method,
    const char *path, enum verdict v, enum reason why,
    enum policy_enforcement mode, const char *policy, const char *text,
    const char *hint, const char *detail);

#endif
