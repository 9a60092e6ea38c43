/* SPDX-License-Identifier: ISC */
/*
 * What the policy DNS server told the sandbox: which name each address was
 * given out for. The transparent listener uses it to name connections that
 * carry neither TLS nor HTTP (ssh, databases), so that a policy written with
 * names can still decide them. Bounded, with least-recently-used eviction.
 */
#ifndef EGRESSD_DNS_MAP_H
#define EGRESSD_DNS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "hostname.h"

struct dns_map;

struct dns_map *dns_map_new(size_t max_entries);
void dns_map_free(struct dns_map *m);

/* Remembers that name resolved to a, until now_ms + keep_ms. */
void dns_map_record(struct dns_map *m, const char *name, const struct addr *a,
    uint64_t now_ms, uint64_t keep_ms);
/* The name most recently given out for a, if still remembered. */
bool dns_map_lookup(struct dns_map *m, const struct addr *a, uint64_t now_ms,
    char name[HOSTNAME_MAX + 1]);
size_t dns_map_size(const struct dns_map *m);

#endif
