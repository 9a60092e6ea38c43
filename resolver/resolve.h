/* SPDX-License-Identifier: ISC */
/*
 * Asynchronous name resolution for the proxy: libevent's evdns against the
 * configured upstream servers, A and AAAA in parallel, concurrent lookups of
 * one name coalesced, answers cached within TTL bounds. Only normalized names
 * come here (never IP literals, never raw client text), and nothing here
 * decides whether an address may be dialed: resolve_validate() does, after.
 */
#ifndef EGRESSD_RESOLVE_H
#define EGRESSD_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"

struct event_base;

#define RESOLVE_MAX_ADDRS   16
#define RESOLVE_MAX_SERVERS 8

enum resolve_status {
	RESOLVE_OK,
	RESOLVE_NXDOMAIN, /* the name does not exist */
	RESOLVE_NODATA,   /* it exists but has no A/AAAA records */
	RESOLVE_TIMEOUT,
	RESOLVE_FAILED, /* SERVFAIL, REFUSED, malformed replies, ... */
};

struct resolve_result {
	enum resolve_status status;
	size_t naddrs;
	struct addr addrs[RESOLVE_MAX_ADDRS];
	uint32_t ttl_s; /* as cached (clamped) */
	bool cached;    /* answered from the cache */
	uint64_t elapsed_us;
};

struct resolver_opts {
	const char *servers[RESOLVE_MAX_SERVERS]; /* "ADDR" or "ADDR:PORT";
						     none: /etc/resolv.conf */
	size_t nservers;
	unsigned timeout_ms; /* per attempt */
	unsigned attempts;
	size_t cache_max; /* entries */
	uint32_t ttl_min_s, ttl_max_s;
	uint32_t negative_ttl_s;
};

struct resolver_stats {
	uint64_t queries, cache_hits, coalesced, upstream, failures, timeouts;
	size_t cache_entries;
};

struct resolver;
struct resolve_req;

/* Fills opts with the defaults (2 s x 2 attempts, 4096 entries, TTL within
 * [0 s, 300 s], 5 s negative caching). */
void resolver_opts_default(struct resolver_opts *opts);

struct resolver *resolver_new(struct event_base *base,
    const struct resolver_opts *opts, char *err, size_t errlen);
void resolver_free(struct resolver *r);

/*
 * Starts resolving name (normalized, not an IP literal). cb runs exactly once
 * from the event loop (never from inside this call), unless the request is
 * cancelled first. Returns NULL only when out of memory.
 */
struct resolve_req *resolve_start(struct resolver *r, const char *name,
    void (*cb)(const struct resolve_result *res, void *arg), void *arg);
/* Cancels a pending request: its callback will not run. */
void resolve_cancel(struct resolve_req *req);

void resolver_get_stats(const struct resolver *r, struct resolver_stats *st);

/*
 * The addresses of res that may be dialed, in order: public ones, plus
 * non-public ones inside an allowed range (an endpoint's allowed_ips or the
 * daemon's trusted ranges). Loopback, unspecified, link-local, metadata and
 * multicast addresses are never returned. *worst is the class of the most
 * dangerous rejected address (ADDR_PUBLIC when none was rejected).
 */
size_t resolve_validate(const struct addr *in, size_t nin,
    const struct cidr *allowed, size_t nallowed, const struct cidr *trusted,
    size_t ntrusted, struct addr *out, size_t outmax, enum addr_class *worst);

#endif
