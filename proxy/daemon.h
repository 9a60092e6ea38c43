/* SPDX-License-Identifier: ISC */
/*
 * The daemon: one context that owns the event loop, the current policy, the
 * listeners, the resolver, the caller-identity context, the audit log and
 * every session; signal handling (SIGTERM drains, SIGUSR1 reopens logs,
 * SIGHUP reloads) and the accept loop with its back-off on fd exhaustion.
 */
#ifndef EGRESSD_DAEMON_H
#define EGRESSD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "addr.h"
#include "decide.h"
#include "histogram.h"
#include "reason.h"
#include "resolve.h"

#define DAEMON_MAX_LISTEN 16
#define DAEMON_MAX_TRUST  16

enum listener_kind {
	LISTEN_EXPLICIT,    /* HTTP proxy: CONNECT and absolute-form */
	LISTEN_UNIX,        /* the same over a Unix socket (SO_PEERCRED) */
	LISTEN_TRANSPARENT, /* redirected TCP (SO_ORIGINAL_DST) */
	LISTEN_DNS_UDP,     /* the policy DNS server */
	LISTEN_DNS_TCP,
};

struct listen_spec {
	enum listener_kind kind;
	const char *text; /* "ADDR:PORT", or a path for LISTEN_UNIX */
	bool in_sandbox;  /* created inside --netns */
};

struct daemon_config {
	const char *policy_file; /* NULL: the built-in default */
	const char *root;        /* binary paths resolved under it */
	struct listen_spec listens[DAEMON_MAX_LISTEN];
	size_t nlistens;
	const char *netns; /* sandbox namespace name or path, or NULL */
	const char *log_json;
	bool human_log;
	enum decide_override override;
	struct resolver_opts dns;
	struct cidr trust[DAEMON_MAX_TRUST]; /* treated as public */
	size_t ntrust;
	unsigned head_timeout_ms;
	unsigned hello_timeout_ms;
	unsigned sniff_timeout_ms; /* transparent: wait for client bytes */
	unsigned connect_timeout_ms;
	unsigned idle_timeout_ms;
	unsigned drain_timeout_ms;
	unsigned max_conns;
	unsigned max_conns_per_caller;
	bool tofu;        /* trust executables' hashes on first use */
	size_t pipe_size; /* a bulk direction's pipe grows to it */
	int verbose;
	const char *control_path; /* NULL: no control socket */
	const char *metrics_addr; /* "ADDR:PORT" or NULL (off) */
	bool watch;               /* reload when the policy file changes */
	/* TLS interception (protocol: rest) */
	const char *ca_cert, *ca_key; /* load the CA; NULL: generate one */
	const char *ca_dir;           /* where ca.pem and bundle.pem go */
	const char *upstream_ca;      /* roots for upstream; NULL: system */
};

struct event;
struct event_base;
struct policy;
struct identity;
struct identity_ctx;
struct ct_ctx;
struct exehash;
struct audit;
struct caller_table;
struct session;
struct dns_map;
struct dns_server;
struct control;
struct metrics;
struct tls_ca;

struct listener {
	struct daemon *d;
	enum listener_kind kind;
	int fd;
	struct event *ev;
	struct event *backoff; /* re-enables accept after fd exhaustion */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char name[128]; /* as printed in logs */
	bool in_sandbox;
};

struct daemon_stats {
	uint64_t accepted, allowed, denied, would_deny, closed;
	uint64_t accept_backoffs, conn_limit;
	uint64_t bytes_up, bytes_down;
	/* every decision record, by verdict, reason and mode */
	uint64_t decisions[3][REASON__COUNT][2];
	struct histogram identity_us; /* caller lookups */
	struct histogram dns_us;      /* upstream resolutions (not cached) */
	uint64_t reloads, reload_failures;
	uint64_t loaded_at_s; /* wall clock of the current policy */
};

struct daemon {
	struct daemon_config cfg;
	struct event_base *base;
	struct policy *policy; /* current; sessions hold their own ref */
	uint64_t generation;
	struct resolver *resolver;
	struct identity_ctx *identity;
	struct ct_ctx *ct;        /* NULL: no ctnetlink (see transparent.c) */
	struct identity *scratch; /* one lookup at a time, ~13 KiB */
	struct exehash *hash;
	struct audit *audit;
	struct caller_table *callers;
	struct dns_map *dnsmap; /* names given out by the policy DNS */
	struct dns_server *dns; /* the policy DNS server, if listening */
	struct listener listeners[DAEMON_MAX_LISTEN];
	size_t nlisteners;
	struct session *sessions; /* every live session */
	unsigned nsessions;
	uint64_t next_id;
	bool draining;
	uint64_t started_ms;
	struct event *sig_term, *sig_int, *sig_usr1, *sig_hup;
	struct event *sweep, *drain_timer;
	struct daemon_stats stats;
	struct tls_ca *ca;       /* interception CA and TLS contexts */
	struct control *control; /* egressctl's socket */
	struct metrics *metrics; /* the Prometheus endpoint */
	struct event *watch_ev, *watch_timer;
	int watch_fd;
	int own_netns;     /* fd of egressd's own network namespace */
	int sandbox_netns; /* fd of --netns, or -1 */
};

/* Defaults for everything (see egressd --help). */
void daemon_config_default(struct daemon_config *cfg);

/*
 * Reloads the policy file: full validation first; on any error the running
 * policy stays and the diagnostics are in d (initialised by the caller).
 * On success the new policy is swapped in and every open connection is
 * decided again: still allowed ones are untouched, newly denied ones closed
 * (enforce) or flagged (audit), each outcome logged.
 */
struct diags;
bool daemon_reload(struct daemon *d, struct diags *diags, unsigned *revoked,
    unsigned *flagged);

/* Loads the policy, opens the listeners and runs until SIGTERM/SIGINT has
 * drained every session (or the drain deadline passed). Returns the exit
 * status. */
int daemon_run(const struct daemon_config *cfg);

#endif
