/* SPDX-License-Identifier: ISC */
/*
 * `egressctl explain`: what egressd would decide for a binary, host and port,
 * and why, endpoint by endpoint. Offline from a policy file (the daemon's own
 * loader and decide_traced()), or from the running daemon's `explain`
 * answer; both end up in struct ctl_explain and print the same way.
 */
#ifndef EGRESSD_CTL_EXPLAIN_H
#define EGRESSD_CTL_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"

struct strbuf;

/* The question. */
struct ctl_explain_query {
	const char *binary; /* NULL with only a source address */
	const char *host;
	long port;
	const char *invoked_as, *source;
	const char *via; /* "connect", "sni", "http", "dns", "addr" */
	enum decide_override override;
};

/* One endpoint of the trace (docs/control.md, explain). */
struct ctl_explain_step {
	char *block;
	bool deny;
	char *endpoint;
	int64_t line;
	bool host, port;
	char *caller, *result;
};

/* The answer (strings owned; NULL when absent). */
struct ctl_explain {
	char *decision, *reason, *mode;
	bool overridden;
	char *policy, *endpoint;
	int64_t line; /* 0 when no endpoint */
	char *reason_text, *hint;
	char *protocol, *access; /* allowed only */
	int64_t generation;      /* 0 offline */
	char *file;
	/* offline only */
	char *root;           /* where the policy's binaries were checked */
	size_t load_warnings; /* of the policy file */
	char sha256[65];      /* the binary's digest, when a pin needed it */
	struct ctl_explain_step *steps;
	size_t nsteps, cap;
	char *daemon; /* the socket path when the daemon answered */
};

void ctl_explain_free(struct ctl_explain *x);

/* Decides q against p with the trace (p loaded by the caller). When a pinned
 * SHA-256 decides, the binary under p's root is hashed and the decision made
 * again, as the daemon does. */
void ctl_explain_offline(const struct policy *p,
    const struct ctl_explain_query *q, struct ctl_explain *x);

/* Fills x from the daemon's JSON answer; false with err when it is not one
 * (including {"error":...}). */
bool ctl_explain_from_json(const char *text, size_t len, struct ctl_explain *x,
    char *err, size_t errlen);

/* The control request line for q ("explain binary=... host=... port=..."). */
void ctl_explain_request(const struct ctl_explain_query *q, struct strbuf *out);

void ctl_explain_format_text(const struct ctl_explain_query *q,
    const struct ctl_explain *x, struct strbuf *out);
void ctl_explain_format_json(const struct ctl_explain_query *q,
    const struct ctl_explain *x, struct strbuf *out);

/* `egressctl explain ARGS`: 0 allowed, 1 denied or would deny, 2 errors. */
int ctl_explain_main(int argc, char **argv);

#endif
