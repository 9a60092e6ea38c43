/* SPDX-License-Identifier: ISC */
/*
 * One destination for one caller, from decision to connected socket: decide
 * with the current policy (hashing the executable first when the policy pins
 * or TOFU needs it), resolve the name once, keep only the addresses that may
 * be dialed, connect to one of them (never resolving again), and record the
 * decision. Shared by CONNECT, forwarded HTTP and transparent connections.
 */
#ifndef EGRESSD_TARGET_H
#define EGRESSD_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "decide.h"
#include "hostname.h"

struct daemon;
struct caller;
struct policy;
struct target;

struct target_req {
	uint64_t conn_id;
	const char *ingress;
	const struct addr *src;
	uint16_t src_port;
	const struct hostname *host;
	uint16_t port;
	enum decide_source source;
	/* transparent mode: the address the client connected to. It is used
	 * only if it is among the validated answers for the name. */
	const struct addr *orig_dst;
};

struct target_result {
	bool connected;        /* fd is a connected upstream socket */
	int fd;                /* -1 unless connected */
	struct addr dst;       /* the address dialed */
	struct policy *policy; /* the policy that decided (a reference) */
	struct decision dec;   /* the policy decision */
	/* the final outcome: REASON_ALLOWED with dec's reason when connected,
	 * else why not (the policy's reason, or dns_failed, ...) */
	enum reason reason;
	int http_status; /* for explicit clients: 403, 502, 503, 504 */
	const char *detail;
};

/*
 * Starts the pipeline. cb runs once, from the loop, unless the target is
 * cancelled; it owns res->fd and must policy_unref(res->policy). The caller
 * struct must outlive the target (its hash may be filled in).
 */
struct target *target_start(struct daemon *d, struct caller *caller,
    const struct target_req *req,
    void (*cb)(struct target_result *res, void *arg), void *arg);
void target_cancel(struct target *t);

/* True when a denial in this result lets the connection pass anyway
 * (audit mode): the connection goes on and is logged as would_deny. */
bool target_passes(const struct target_result *res);

#endif
