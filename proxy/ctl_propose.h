/* SPDX-License-Identifier: ISC */
/*
 * `egressctl propose`: turns observed denials and would-be denials into
 * policy blocks that would allow them, grouped by the binaries that were seen
 * and the registrable-looking suffix of the host, with the risky parts
 * flagged as YAML comments. Reading the denials is ctl_records.c's job;
 * whether the result is a good idea is the operator's.
 */
#ifndef EGRESSD_CTL_PROPOSE_H
#define EGRESSD_CTL_PROPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_records.h"
#include "policy.h"
#include "reason.h"

struct strbuf;

#define CTL_PROPOSE_KEY_MAX 64 /* the loader's limit on block keys */

struct ctl_prop_port {
	uint16_t port;
	bool audit_only; /* seen only as would_deny */
};

struct ctl_prop_endpoint {
	char *host; /* normalized name or IP literal */
	bool is_ip;
	bool tcp; /* protocol: tcp (raw TCP was refused) */
	struct ctl_prop_port *ports;
	size_t nports;                      /* sorted */
	char *allowed_ips[CTL_RECORDS_IPS]; /* "/32" or "/128", sorted */
	size_t nallowed_ips;
	char *risky;        /* why allowed_ips is there, or NULL */
	const char *shared; /* the shared-content domain, or NULL */
	/* with --merge: settings copied from the endpoint that already names
	 * this host and port for other binaries (like_block: its block) */
	const char *like_block;
	int like_line;
	bool rest; /* protocol: rest with access */
	enum policy_access access;
	enum policy_enforcement enforcement;
	bool rules_elsewhere; /* that endpoint has request rules */
};

struct ctl_prop_block {
	char *key;
	char *family; /* "github.com"; "" for IP destinations */
	char **binaries;
	size_t nbinaries; /* sorted */
	struct ctl_prop_endpoint *endpoints;
	size_t nendpoints; /* sorted by host, then first port */
	size_t count;      /* denials behind the block */
	size_t reasons[REASON__COUNT];
};

/* Denials no policy change could allow, grouped by reason and why. */
struct ctl_prop_skip {
	char *reason, *why, *example;
	size_t count;
};

struct ctl_proposal {
	struct ctl_prop_block *blocks;
	size_t nblocks;
	struct ctl_prop_skip *skips;
	size_t nskips;
	size_t total;   /* denials considered */
	size_t already; /* already allowed by the merged policy */
};

/*
 * The registrable-looking suffix of a normalized name: its last two labels,
 * or three when the second-to-last is a common second level (co, com, org,
 * net, ac, gov, edu) under a two-letter top-level domain ("bbc.co.uk"); the
 * name itself when it has fewer labels. A heuristic, not the Public Suffix
 * List.
 */
void ctl_propose_family(const char *host, char *out, size_t outlen);

/* A block key from a family: letters, digits, '-' kept, anything else '_'
 * ("github.com" -> "github_com"), at most CTL_PROPOSE_KEY_MAX - 8 bytes. */
void ctl_propose_key(const char *family, char *out, size_t outlen);

/*
 * Builds the proposal from aggregated denials (sorted or not). With merge,
 * destinations that merge already allows for that binary (decide() says
 * allowed) are left out, and block keys avoid merge's keys.
 */
void ctl_propose_build(const struct ctl_denials *dn, const struct policy *merge,
    struct ctl_proposal *pr);
void ctl_proposal_free(struct ctl_proposal *pr);

/* The YAML: a header comment (what was skipped and why), then merge's
 * normalized form when given, then the new blocks. source names where the
 * denials came from. */
void ctl_propose_format(const struct ctl_proposal *pr,
    const struct policy *merge, const char *source, struct strbuf *out);

/* `egressctl propose ARGS`: 0, or 2 for usage and errors. */
int ctl_propose_main(int argc, char **argv);

#endif
