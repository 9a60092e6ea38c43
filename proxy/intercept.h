/* SPDX-License-Identifier: ISC */
/*
 * TLS interception for endpoints with `protocol: rest`: egressd terminates
 * the client's TLS with a leaf from its CA, opens its own verified TLS
 * connection upstream, and decides every HTTP request on its own (method,
 * path, query against the endpoint's access preset and rules) before it
 * passes it on.
 */
#ifndef EGRESSD_INTERCEPT_H
#define EGRESSD_INTERCEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct intercept;
struct policy_endpoint;

#define INTERCEPT_MAX_ENDPOINTS 16

/*
 * Takes over s's client and upstream sockets (both connected). held[0..len)
 * are client bytes already read: the start of its ClientHello (tls), or of
 * its first request (plain HTTP, tls false: no TLS on either side). eps
 * are the endpoints that allow the connection (their rules decide the
 * requests). Closes s when done.
 */
struct intercept *intercept_start(struct session *s,
    const struct policy_endpoint *const *eps, size_t neps, const uint8_t *held,
    size_t len, bool tls);
void intercept_free(struct intercept *ic);
/* After a reload: requests are decided by these endpoints of p from now on
 * (the intercept holds a reference to p). */
struct policy;
void intercept_rebind(struct intercept *ic, struct policy *p,
    const struct policy_endpoint *const *eps, size_t neps);
uint64_t intercept_last_active_ms(const struct intercept *ic);

#endif
