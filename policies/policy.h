/* SPDX-License-Identifier: ISC */
/*
 * The compiled policy: loaded from YAML (the sandbox format of DESIGN.md §5),
 * validated strictly, then immutable and reference-counted. Readers hold a
 * reference for as long as they use it; a reload builds a new one and swaps.
 */
#ifndef EGRESSD_POLICY_H
#define EGRESSD_POLICY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "match.h"

struct strbuf;

enum policy_protocol {
	PROTO_L4 = 0, /* absent: decided on host and port */
	PROTO_REST,   /* HTTP inspected inside TLS: access and rules apply */
	PROTO_TCP,    /* raw TCP allowed, even when only DNS names it */
};

enum policy_enforcement { ENFORCE_ENFORCE = 0, ENFORCE_AUDIT };

enum policy_access {
	ACCESS_UNSET = 0,
	ACCESS_READ_ONLY,
	ACCESS_READ_WRITE,
	ACCESS_FULL,
};

struct l7_query {
	char *key;
	char **globs; /* any of them matches */
	size_t nglobs;
};

/* One request rule: method ("*" = any) and path glob, optional query. */
struct l7_rule {
	char *method;
	char *path; /* NULL = any path */
	struct l7_query *query;
	size_t nquery;
	int line, col;
};

struct policy_endpoint {
	struct host_pattern host;
	char *host_text; /* canonical pattern text */
	struct port_range *ports;
	size_t nports;
	enum policy_protocol protocol;
	enum policy_enforcement enforcement;
	enum policy_access access;
	struct l7_rule *rules; /* allow rules */
	size_t nrules;
	struct l7_rule *deny_rules;
	size_t ndeny_rules;
	struct cidr *allowed_ips;
	size_t nallowed_ips;
	bool allow_encoded_slash;
	int line, col;
};

enum binary_state {
	BINARY_UNCHECKED = 0, /* a glob, or not looked at */
	BINARY_OK,            /* a regular file at exactly this path */
	BINARY_MISSING,
	BINARY_SYMLINK, /* the path (or a directory in it) is a symlink */
	BINARY_NOT_FILE,
};

struct policy_binary {
	char *path;
	bool glob;
	bool ancestors; /* also match when an ancestor process runs it */
	bool has_sha256;
	uint8_t sha256[32];
	int line, col;
	/* Facts found at load time (under the policy's root directory): */
	enum binary_state state;
	char *real;        /* resolved real path when it differs */
	char *interpreter; /* real path of the "#!" interpreter of a script */
};

struct policy_block {
	char *key;  /* the map key under network_policies */
	char *name; /* optional display name */
	bool deny;  /* action: deny */
	struct policy_endpoint *endpoints;
	size_t nendpoints;
	struct policy_binary *binaries;
	size_t nbinaries;
	struct cidr *clients; /* gateway mode: source addresses */
	size_t nclients;
	int line, col;
};

struct policy {
	atomic_int refs;
	char *file;
	char *root; /* where binary paths were resolved ("/" by default) */
	uint64_t generation;
	struct policy_block *blocks;
	size_t nblocks;
};

struct policy_load_opts {
	const char *root;  /* resolve binary paths under this directory */
	bool no_fs_checks; /* skip symlink/existence checks (fuzzing) */
};

/*
 * Loads, validates and compiles a policy. Every problem goes to d (which the
 * caller initialised with the file name). Returns NULL when there is any
 * error; warnings alone do not fail the load.
 */
struct policy *policy_load_file(
    const char *path, const struct policy_load_opts *opts, struct diags *d);
struct policy *policy_load_buffer(const char *text, size_t len,
    const char *name, const struct policy_load_opts *opts, struct diags *d);

struct policy *policy_ref(struct policy *p);
void policy_unref(struct policy *p);

/* The normalized policy as YAML that loads back to the same policy. */
void policy_dump_yaml(const struct policy *p, struct strbuf *out);
/* The same as one JSON object. */
void policy_dump_json(const struct policy *p, struct strbuf *out);

const char *policy_protocol_name(enum policy_protocol p);
const char *policy_enforcement_name(enum policy_enforcement e);
const char *policy_access_name(enum policy_access a);
/* "block 'github'" or "block 'github' (GitHub)" style label. */
const char *policy_block_label(const struct policy_block *b);

#endif
