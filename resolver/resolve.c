/* SPDX-License-Identifier: ISC */
/*
 * Resolver client on evdns. Owns the cache (a hash table with LRU eviction),
 * request coalescing and the A/AAAA fan-out; leaves the dial decision to
 * resolve_validate() and its callers.
 */
#include <arpa/inet.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "hostname.h"
#include "log.h"
#include "resolve.h"

#define RESOLVE_BUCKETS 1024

struct resolve_req {
	struct resolve_entry *entry;
	struct resolve_req *next;
	void (*cb)(const struct resolve_result *, void *);
	void *arg;
	bool cancelled;
	/* cache hits are delivered from the loop through this event */
	struct event *deliver;
	struct resolve_result result;
	struct resolver *r;
};

/* One name: cached answer, or a lookup in flight with its waiters. */
struct resolve_entry {
	char name[HOSTNAME_MAX + 1];
	struct resolve_entry *hnext;         /* hash chain */
	struct resolve_entry *lprev, *lnext; /* LRU list, most recent first */
	bool pending;
	int outstanding; /* evdns queries still running (A, AAAA) */
	struct resolve_req *waiters;
	struct resolve_result result;
	int v4_err, v6_err;
	uint64_t expires_us;
	uint64_t started_us;
	struct resolver *r;
};

struct resolver {
	struct event_base *base;
	struct evdns_base *dns;
	struct resolver_opts opts;
	struct resolve_entry *buckets[RESOLVE_BUCKETS];
	struct resolve_entry *lru_head, *lru_tail;
	struct resolver_stats stats;
};

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static unsigned
name_hash(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % RESOLVE_BUCKETS;
}

void
resolver_opts_default(struct resolver_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->timeout_ms = 2000;
	opts->attempts = 2;
	opts->cache_max = 4096;
	opts->ttl_min_s = 0;
	opts->ttl_max_s = 300;
	opts->negative_ttl_s = 5;
}

struct resolver *
resolver_new(struct event_base *base, const struct resolver_opts *opts,
    char *err, size_t errlen)
{
	struct resolver *r = calloc(1, sizeof(*r));
	char buf[32];
	size_t i;

	if (r == NULL)
		fatal("out of memory");
	r->base = base;
	r->opts = *opts;
	r->dns = evdns_base_new(base,
	    opts->nservers ? 0 :
	                     EVDNS_BASE_INITIALIZE_NAMESERVERS |
	            EVDNS_BASE_NAMESERVERS_NO_DEFAULT);
	if (r->dns == NULL) {
		snprintf(err, errlen,
		    "cannot set up DNS: no usable nameserver in /etc/resolv.conf (use --dns ADDR)");
		free(r);
		return NULL;
	}
	for (i = 0; i < opts->nservers; i++)
		if (evdns_base_nameserver_ip_add(r->dns, opts->servers[i]) !=
		    0) {
			snprintf(err, errlen,
			    "invalid DNS server '%s' (want ADDR or ADDR:PORT)",
			    opts->servers[i]);
			evdns_base_free(r->dns, 0);
			free(r);
			return NULL;
		}
	if (evdns_base_count_nameservers(r->dns) == 0) {
		snprintf(
		    err, errlen, "no DNS server configured (use --dns ADDR)");
		evdns_base_free(r->dns, 0);
		free(r);
		return NULL;
	}
	snprintf(buf, sizeof(buf), "%u.%03u", opts->timeout_ms / 1000,
	    opts->timeout_ms % 1000);
	evdns_base_set_option(r->dns, "timeout:", buf);
	snprintf(buf, sizeof(buf), "%u", opts->attempts);
	evdns_base_set_option(r->dns, "attempts:", buf);
	/* no search domains: a name is what it says */
	evdns_base_set_option(r->dns, "ndots:", "0");
	evdns_base_search_clear(r->dns);
	return r;
}

static void
lru_unlink(struct resolver *r, struct resolve_entry *e)
{
	if (e->lprev)
		e->lprev->lnext = e->lnext;
	else
		r->lru_head = e->lnext;
	if (e->lnext)
		e->lnext->lprev = e->lprev;
	else
		r->lru_tail = e->lprev;
	e->lprev = e->lnext = NULL;
}

static void
lru_push_front(struct resolver *r, struct resolve_entry *e)
{
	e->lprev = NULL;
	e->lnext = r->lru_head;
	if (r->lru_head)
		r->lru_head->lprev = e;
	r->lru_head = e;
	if (r->lru_tail == NULL)
		r->lru_tail = e;
}

static void
entry_remove(struct resolver *r, struct resolve_entry *e)
{
	struct resolve_entry **pp = &r->buckets[name_hash(e->name)];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	lru_unlink(r, e);
	r->stats.cache_entries--;
	free(e);
}

static struct resolve_entry *
entry_find(struct resolver *r, const char *name)
{
	struct resolve_entry *e;

	for (e = r->buckets[name_hash(name)]; e; e = e->hnext)
		if (strcmp(e->name, name) == 0)
			return e;
	return NULL;
}

/* Evicts the least recently used finished entries beyond the cap. */
static void
cache_trim(struct resolver *r)
{
	struct resolve_entry *e = r->lru_tail, *prev;

	while (e && r->stats.cache_entries > r->opts.cache_max) {
		prev = e->lprev;
		if (!e->pending)
			entry_remove(r, e);
		e = prev;
	}
}

void
resolver_free(struct resolver *r)
{
	size_t i;

	if (r == NULL)
		return;
	/* Pending entries are released by their evdns callbacks, which
	 * evdns_base_free(..., 1) runs with DNS_ERR_SHUTDOWN. */
	evdns_base_free(r->dns, 1);
	for (i = 0; i < RESOLVE_BUCKETS; i++) {
		struct resolve_entry *e = r->buckets[i], *n;

		for (; e; e = n) {
			n = e->hnext;
			free(e);
		}
	}
	free(r);
}

static void
deliver_cb(evutil_socket_t fd, short what, void *arg)
{
	struct resolve_req *q = arg;

	(void)fd;
	(void)what;
	event_free(q->deliver);
	if (!q->cancelled)
		q->cb(&q->result, q->arg);
	free(q);
}

/* Hands a result to a waiter through the loop, never re-entrantly. */
static void
schedule(
    struct resolver *r, struct resolve_req *q, const struct resolve_result *res)
{
	q->result = *res;
	q->deliver = event_new(r->base, -1, 0, deliver_cb, q);
	if (q->deliver == NULL)
		fatal("out of memory");
	event_active(q->deliver, 0, 0);
}

static enum resolve_status
status_of(int err)
{
	switch (err) {
	case DNS_ERR_NONE:
		return RESOLVE_OK;
	case DNS_ERR_NOTEXIST:
		return RESOLVE_NXDOMAIN;
	case DNS_ERR_TIMEOUT:
		return RESOLVE_TIMEOUT;
	default:
		return RESOLVE_FAILED;
	}
}

static void
entry_finish(struct resolve_entry *e)
{
	struct resolver *r = e->r;
	struct resolve_result *res = &e->result;
	struct resolve_req *q, *next;
	uint32_t ttl;

	if (res->naddrs > 0)
		res->status = RESOLVE_OK;
	else if (e->v4_err == DNS_ERR_NONE || e->v6_err == DNS_ERR_NONE)
		res->status = RESOLVE_NODATA;
	else if (e->v4_err == DNS_ERR_NOTEXIST || e->v6_err == DNS_ERR_NOTEXIST)
		res->status = RESOLVE_NXDOMAIN;
	else
		res->status = status_of(e->v4_err);
	if (res->status == RESOLVE_TIMEOUT)
		r->stats.timeouts++;
	else if (res->status != RESOLVE_OK)
		r->stats.failures++;
	ttl = res->status == RESOLVE_OK ? res->ttl_s : r->opts.negative_ttl_s;
	if (ttl < r->opts.ttl_min_s)
		ttl = r->opts.ttl_min_s;
	if (ttl > r->opts.ttl_max_s)
		ttl = r->opts.ttl_max_s;
	/* timeouts and server failures are not cached at all */
	if (res->status == RESOLVE_TIMEOUT || res->status == RESOLVE_FAILED)
		ttl = 0;
	res->ttl_s = ttl;
	res->elapsed_us = now_us() - e->started_us;
	e->expires_us = now_us() + (uint64_t)ttl * 1000000u;
	e->pending = false;
	for (q = e->waiters; q; q = next) {
		next = q->next;
		q->entry = NULL;
		schedule(r, q, res);
	}
	e->waiters = NULL;
	if (ttl == 0)
		entry_remove(r, e);
	else
		cache_trim(r);
}

/* evdns reports errors with type 0, so each family has its own callback. */
static void
answer(struct resolve_entry *e, bool v6, int result, char type, int count,
    int ttl, void *addresses)
{
	struct resolve_result *res = &e->result;
	int i;

	if (result == DNS_ERR_SHUTDOWN) {
		/* the resolver is going away; resolver_free frees e */
		return;
	}
	if (v6)
		e->v6_err = result;
	else
		e->v4_err = result;
	if (result == DNS_ERR_NONE && addresses) {
		for (i = 0; i < count && res->naddrs < RESOLVE_MAX_ADDRS; i++) {
			struct addr *a = &res->addrs[res->naddrs];

			memset(a, 0, sizeof(*a));
			if (type == DNS_IPv4_A) {
				a->family = AF_INET;
				memcpy(a->b, (const uint8_t *)addresses + 4 * i,
				    4);
			} else if (type == DNS_IPv6_AAAA) {
				a->family = AF_INET6;
				memcpy(a->b,
				    (const uint8_t *)addresses + 16 * i, 16);
			} else {
				continue;
			}
			res->naddrs++;
		}
		if (ttl >= 0 && (uint32_t)ttl < res->ttl_s)
			res->ttl_s = (uint32_t)ttl;
	}
	if (--e->outstanding == 0)
		entry_finish(e);
}

static void
evdns_v4_cb(
    int result, char type, int count, int ttl, void *addresses, void *arg)
{
	answer(arg, false, result, type, count, ttl, addresses);
}

static void
evdns_v6_cb(
    int result, char type, int count, int ttl, void *addresses, void *arg)
{
	answer(arg, true, result, type, count, ttl, addresses);
}

struct resolve_req *
resolve_start(struct resolver *r, const char *name,
    void (*cb)(const struct resolve_result *res, void *arg), void *arg)
{
	struct resolve_req *q = calloc(1, sizeof(*q));
	struct resolve_entry *e;
	unsigned h;

	if (q == NULL)
		return NULL;
	q->cb = cb;
	q->arg = arg;
	q->r = r;
	r->stats.queries++;
	e = entry_find(r, name);
	if (e && !e->pending && e->expires_us <= now_us()) {
		entry_remove(r, e);
		e = NULL;
	}
	if (e && !e->pending) {
		struct resolve_result res = e->result;

		r->stats.cache_hits++;
		res.cached = true;
		res.elapsed_us = 0;
		res.ttl_s = (uint32_t)((e->expires_us - now_us()) / 1000000u);
		lru_unlink(r, e);
		lru_push_front(r, e);
		schedule(r, q, &res);
		return q;
	}
	if (e) {
		r->stats.coalesced++;
		q->entry = e;
		q->next = e->waiters;
		e->waiters = q;
		return q;
	}
	if ((e = calloc(1, sizeof(*e))) == NULL) {
		free(q);
		return NULL;
	}
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->r = r;
	e->pending = true;
	e->started_us = now_us();
	e->result.ttl_s = UINT32_MAX;
	e->v4_err = e->v6_err = -1;
	e->outstanding = 2;
	e->waiters = q;
	q->entry = e;
	h = name_hash(name);
	e->hnext = r->buckets[h];
	r->buckets[h] = e;
	lru_push_front(r, e);
	r->stats.cache_entries++;
	r->stats.upstream++;
	/* evdns may call back synchronously on immediate failure; the waiter
	 * is still delivered through the loop by schedule(). */
	if (evdns_base_resolve_ipv4(
	        r->dns, name, DNS_QUERY_NO_SEARCH, evdns_v4_cb, e) == NULL)
		answer(e, false, DNS_ERR_UNKNOWN, 0, 0, 0, NULL);
	if (evdns_base_resolve_ipv6(
	        r->dns, name, DNS_QUERY_NO_SEARCH, evdns_v6_cb, e) == NULL)
		answer(e, true, DNS_ERR_UNKNOWN, 0, 0, 0, NULL);
	return q;
}

void
resolve_cancel(struct resolve_req *q)
{
	struct resolve_req **pp;

	if (q == NULL)
		return;
	if (q->entry == NULL) {
		/* already scheduled for delivery: suppress the callback */
		q->cancelled = true;
		return;
	}
	for (pp = &q->entry->waiters; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	free(q);
}

void
resolver_get_stats(const struct resolver *r, struct resolver_stats *st)
{
	*st = r->stats;
}

static bool
in_ranges(const struct cidr *c, size_t n, const struct addr *a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cidr_contains(&c[i], a))
			return true;
	return false;
}

size_t
resolve_validate(const struct addr *in, size_t nin, const struct cidr *allowed,
    size_t nallowed, const struct cidr *trusted, size_t ntrusted,
    struct addr *out, size_t outmax, enum addr_class *worst)
{
	size_t i, n = 0;

	*worst = ADDR_PUBLIC;
	for (i = 0; i < nin; i++) {
		enum addr_class c = addr_classify(&in[i]);
		bool ok = c == ADDR_PUBLIC ||
		    (!addr_class_never(c) &&
		        (in_ranges(allowed, nallowed, &in[i]) ||
		            in_ranges(trusted, ntrusted, &in[i])));

		if (!ok) {
			if (c < *worst)
				*worst = c;
			continue;
		}
		if (n < outmax)
			out[n++] = in[i];
	}
	return n;
}
