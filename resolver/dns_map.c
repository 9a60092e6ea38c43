/* SPDX-License-Identifier: ISC */
/*
 * Address -> name map: an open hash on the address with an LRU list for
 * eviction. Owns only the memory of its entries.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_map.h"
#include "log.h"

#define DNS_MAP_BUCKETS 1024

struct map_entry {
	struct addr a;
	char name[HOSTNAME_MAX + 1];
	uint64_t expires_ms;
	struct map_entry *hnext, *lprev, *lnext;
};

struct dns_map {
	struct map_entry *buckets[DNS_MAP_BUCKETS];
	struct map_entry *head, *tail; /* most recent first */
	size_t n, max;
};

static unsigned
addr_hash(const struct addr *a)
{
	size_t i, len = a->family == AF_INET ? 4 : 16;
	unsigned h = 2166136261u;

	for (i = 0; i < len; i++)
		h = (h ^ a->b[i]) * 16777619u;
	return h % DNS_MAP_BUCKETS;
}

struct dns_map *
dns_map_new(size_t max_entries)
{
	struct dns_map *m = calloc(1, sizeof(*m));

	if (m == NULL)
		fatal("out of memory");
	m->max = max_entries ? max_entries : 1;
	return m;
}

void
dns_map_free(struct dns_map *m)
{
	struct map_entry *e, *n;

	if (m == NULL)
		return;
	for (e = m->head; e; e = n) {
		n = e->lnext;
		free(e);
	}
	free(m);
}

static void
lru_unlink(struct dns_map *m, struct map_entry *e)
{
	if (e->lprev)
		e->lprev->lnext = e->lnext;
	else
		m->head = e->lnext;
	if (e->lnext)
		e->lnext->lprev = e->lprev;
	else
		m->tail = e->lprev;
}

static void
lru_front(struct dns_map *m, struct map_entry *e)
{
	e->lprev = NULL;
	e->lnext = m->head;
	if (m->head)
		m->head->lprev = e;
	m->head = e;
	if (m->tail == NULL)
		m->tail = e;
}

static struct map_entry *
find(struct dns_map *m, const struct addr *a, struct map_entry ***slot)
{
	struct map_entry **pp = &m->buckets[addr_hash(a)];

	for (; *pp; pp = &(*pp)->hnext)
		if (addr_equal(&(*pp)->a, a)) {
			if (slot)
				*slot = pp;
			return *pp;
		}
	return NULL;
}

static void
remove_entry(struct dns_map *m, struct map_entry *e)
{
	struct map_entry **pp;

	if (find(m, &e->a, &pp) == e)
		*pp = e->hnext;
	lru_unlink(m, e);
	m->n--;
	free(e);
}

void
dns_map_record(struct dns_map *m, const char *name, const struct addr *a,
    uint64_t now_ms, uint64_t keep_ms)
{
	struct map_entry *e = find(m, a, NULL);

	if (e == NULL) {
		if (m->n >= m->max && m->tail)
			remove_entry(m, m->tail);
		if ((e = calloc(1, sizeof(*e))) == NULL)
			fatal("out of memory");
		e->a = *a;
		e->hnext = m->buckets[addr_hash(a)];
		m->buckets[addr_hash(a)] = e;
		m->n++;
	} else {
		lru_unlink(m, e);
	}
	lru_front(m, e);
	strncpy(e->name, name, HOSTNAME_MAX);
	e->name[HOSTNAME_MAX] = '\0';
	e->expires_ms = now_ms + keep_ms;
}

bool
dns_map_lookup(struct dns_map *m, const struct addr *a, uint64_t now_ms,
    char name[HOSTNAME_MAX + 1])
{
	struct map_entry *e = find(m, a, NULL);

	if (e == NULL)
		return false;
	if (e->expires_ms <= now_ms) {
		remove_entry(m, e);
		return false;
	}
	memcpy(name, e->name, HOSTNAME_MAX + 1);
	return true;
}

size_t
dns_map_size(const struct dns_map *m)
{
	return m->n;
}
