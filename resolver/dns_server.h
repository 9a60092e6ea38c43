/* SPDX-License-Identifier: ISC */
/*
 * The policy DNS server inside a sandbox: A and AAAA only, only for names
 * some policy could allow (answered after resolving them upstream and
 * dropping non-public answers), REFUSED for every other name without any
 * upstream query (DNS exfiltration), over UDP and TCP. Remembers which name
 * each address was given out for (dns_map.h).
 */
#ifndef EGRESSD_DNS_SERVER_H
#define EGRESSD_DNS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"

struct event_base;
struct resolver;
struct dns_map;
struct policy;
struct dns_server;

enum dns_server_outcome {
	DNS_SERVER_ANSWERED, /* NOERROR with the validated addresses */
	DNS_SERVER_REFUSED,  /* name not in the policy, or not A/AAAA */
	DNS_SERVER_FAILED,   /* upstream failure: SERVFAIL / NXDOMAIN */
	DNS_SERVER_MALFORMED,
};

struct dns_server_event {
	enum dns_server_outcome outcome;
	const char *name; /* normalized when possible, else as sent */
	uint16_t qtype;
	bool tcp;
	const struct addr *src;
	uint16_t src_port;
	const struct addr *local; /* where the query arrived */
	uint16_t local_port;
	int fd; /* TCP: the client's connection (for caller lookup), else -1 */
	unsigned rcode;
	size_t nanswers;
	const char *why; /* reason code of policies/reason.h or a detail */
	bool would_deny; /* audit mode: answered although no policy has it */
};

struct dns_server_opts {
	struct event_base *base;
	struct resolver *resolver;
	struct dns_map *map;
	const struct cidr *trust;
	size_t ntrust;
	/* the policy in force now */
	const struct policy *(*policy)(void *arg);
	/* every query's outcome, for the log */
	void (*report)(const struct dns_server_event *ev, void *arg);
	void *arg;
	bool audit; /* --audit-all: answer unknown names too, report them */
	uint32_t ttl_max_s;   /* cap on TTLs handed to the sandbox */
	uint64_t map_keep_ms; /* how long addresses stay named */
	unsigned tcp_idle_ms; /* TCP clients idle longer are closed */
	unsigned max_pending; /* queries waiting for upstream */
	unsigned max_tcp_clients;
};

struct dns_server_stats {
	uint64_t queries, answered, refused, failed, malformed, tcp_queries;
	uint64_t upstream_waits;
};

void dns_server_opts_default(struct dns_server_opts *o);
struct dns_server *dns_server_new(const struct dns_server_opts *opts);
void dns_server_free(struct dns_server *s);
/* Serves a bound UDP socket / a listening TCP socket (taken over). */
bool dns_server_add_udp(struct dns_server *s, int fd);
bool dns_server_add_tcp(struct dns_server *s, int fd);
void dns_server_get_stats(
    const struct dns_server *s, struct dns_server_stats *st);

#endif
