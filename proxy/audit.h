/* SPDX-License-Identifier: ISC */
/*
 * Decision and connection records: one JSON line per decision and per closed
 * connection (OCSF Network Activity, class 4001; HTTP Activity 4002 for
 * request decisions) into a log file, and a short human line on stderr.
 */
#ifndef EGRESSD_AUDIT_H
#define EGRESSD_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "addr.h"
#include "decide.h"

enum audit_activity {
	AUDIT_OPEN,  /* a connection was decided (allowed or refused) */
	AUDIT_CLOSE, /* an allowed connection ended */
	AUDIT_HTTP,  /* one HTTP request was decided */
	AUDIT_DNS,   /* the policy DNS server refused or answered a name */
};

struct audit_record {
	enum audit_activity activity;
	uint64_t conn_id;
	const char *ingress; /* "connect", "http", "tls", "tcp", "unix", ... */
	/* source */
	const struct addr *src;
	uint16_t src_port;
	/* destination: host as decided, address dialed (NULL when none) */
	const char *host;
	uint16_t port;
	const struct addr *dst;
	/* actor */
	pid_t pid; /* 0 when unknown */
	uid_t uid;
	const char *exe, *cmdline, *invoked_as;
	/* decision */
	enum verdict verdict;
	enum reason reason;
	enum policy_enforcement mode;
	bool overridden;
	const char *policy;   /* block key, NULL for none */
	const char *endpoint; /* endpoint host pattern */
	const char *reason_text, *hint;
	const char *detail;  /* extra context (parser error, ...) */
	uint64_t generation; /* policy generation that decided */
	/* HTTP request decisions */
	const char *method, *path;
	/* close */
	uint64_t bytes_up, bytes_down, duration_ms;
};

struct audit;

/* json_path: JSON lines file, or NULL for none; human: write the human line
 * to stderr. */
struct audit *audit_new(
    const char *json_path, bool human, char *err, size_t errlen);
void audit_free(struct audit *a);
/* Reopens the JSON file (after log rotation, on SIGUSR1). */
bool audit_reopen(struct audit *a, char *err, size_t errlen);
void audit_log(struct audit *a, const struct audit_record *r);

/* Registers a function that sees every JSON line (live tail, counters). */
void audit_set_tap(struct audit *a,
    void (*tap)(const struct audit_record *r, const char *json, void *arg),
    void *arg);

/* The JSON form of a record, without the newline (for tests and taps). */
struct strbuf;
void audit_format_json(const struct audit_record *r, struct strbuf *out);
void audit_format_human(const struct audit_record *r, struct strbuf *out);

#endif
