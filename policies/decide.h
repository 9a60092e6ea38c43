/* SPDX-License-Identifier: ISC */
/*
 * The decision function: (policy, caller, destination, mode override) ->
 * allow / deny / audit-allow, with the matched block and endpoint, a stable
 * reason code, a human reason and a hint naming the rule that would allow the
 * connection. Pure: the daemon and `egressctl explain` run the same code.
 */
#ifndef EGRESSD_DECIDE_H
#define EGRESSD_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostname.h"
#include "policy.h"
#include "reason.h"

/* Who is calling, as identified by the proxy. */
struct decide_caller {
	const char *exe; /* kernel-resolved executable; NULL if unknown */
	const char *invoked_as; /* argv[0] path when it resolves elsewhere */
	const char *const *ancestors; /* exe of parent, grandparent, ... */
	size_t nancestors;
	const uint8_t *sha256;    /* exe hash, NULL when not computed */
	const struct addr *src;   /* source address (gateway clients) */
	enum reason identity_err; /* REASON_ALLOWED when identity is known */
};

/* How the destination name was learned: raw TCP named only by DNS or by
 * address needs an endpoint with `protocol: tcp`. */
enum decide_source {
	DECIDE_SRC_CONNECT, /* HTTP CONNECT authority */
	DECIDE_SRC_HTTP,    /* absolute-form target or Host header */
	DECIDE_SRC_SNI,     /* TLS server_name */
	DECIDE_SRC_DNS,     /* policy DNS record of the original dest */
	DECIDE_SRC_ADDR,    /* nothing but the original destination */
};

struct decide_dest {
	const struct hostname *host; /* normalized name or IP literal */
	uint16_t port;
	enum decide_source source;
};

enum decide_override {
	DECIDE_MODE_POLICY = 0, /* each endpoint's enforcement */
	DECIDE_MODE_ENFORCE,    /* --enforce-all / EGRESSD_ENFORCE_ALL */
	DECIDE_MODE_AUDIT,      /* --audit-all / EGRESSD_AUDIT_ALL */
};

enum verdict {
	VERDICT_ALLOW,
	VERDICT_DENY,
	VERDICT_AUDIT, /* would be denied; allowed because of audit mode */
};

#define DECIDE_TEXT_MAX 768

struct decision {
	enum verdict verdict;
	enum reason reason;
	enum policy_enforcement mode; /* the mode that applied */
	bool overridden;              /* mode came from the daemon override */
	/* allowed: the block and endpoint that allow it (the broadest one when
	 * several do); denied: the explicit deny, or the endpoint the hint is
	 * about; NULL when no endpoint is involved */
	const struct policy_block *block;
	const struct policy_endpoint *endpoint;
	/* effective settings over every allowing endpoint */
	enum policy_protocol protocol;
	enum policy_access access;
	enum policy_enforcement l7_mode; /* enforcement for request checks */
	char reason_text[DECIDE_TEXT_MAX];
	char hint[DECIDE_TEXT_MAX];
};

void decide(const struct policy *p, const struct decide_caller *caller,
    const struct decide_dest *dest, enum decide_override override,
    struct decision *out);

/* One endpoint as the decision saw it, for `egressctl explain`. */
struct decide_step {
	const struct policy_block *block;
	const struct policy_endpoint *endpoint;
	bool host_match, port_match;
	/* "match", "no", "client", "script", "symlink", "hash_unavailable",
	 * "hash_mismatch", or "skipped" (host or port did not match) */
	const char *caller;
	const char *result; /* short English: "allows", "binary not listed" */
	bool allows;        /* this endpoint allows the connection */
};

/* decide(), calling trace for every endpoint of every block in order. */
void decide_traced(const struct policy *p, const struct decide_caller *caller,
    const struct decide_dest *dest, enum decide_override override,
    struct decision *out,
    void (*trace)(const struct decide_step *st, void *arg), void *arg);

/*
 * The endpoints that allow this connection (blocks OR-ed): an intercepted
 * connection's requests are decided against all of them. Returns how many
 * (at most max are stored).
 */
size_t decide_allowing(const struct policy *p,
    const struct decide_caller *caller, const struct decide_dest *dest,
    const struct policy_endpoint **out, size_t max);

/*
 * Whether some allow block has an endpoint whose host pattern matches the
 * name h, for any binary and port: the policy DNS server answers only such
 * names. The matching endpoints' allowed_ips go into allowed[0..max).
 */
bool decide_name_known(const struct policy *p, const struct hostname *h,
    struct cidr *allowed, size_t max, size_t *nallowed);

const char *verdict_name(
    enum verdict v); /* "allowed", "denied", "would_deny" */

/* Maps a verdict to the OCSF disposition and action words used in logs. */
const char *verdict_action(enum verdict v); /* "Allowed" / "Denied" */

#endif
