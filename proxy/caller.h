/* SPDX-License-Identifier: ISC */
/*
 * The caller of one connection, as kept for its whole life: a compact copy
 * of what proxy/identity.c found at accept (exe interned, command line and
 * ancestors sized exactly), the per-executable connection count, and the
 * view the decision function takes.
 */
#ifndef EGRESSD_CALLER_H
#define EGRESSD_CALLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "decide.h"
#include "exehash.h"

struct identity;

/* One executable path, shared by every connection that runs it. */
struct caller_exe {
	char *path;
	unsigned refs;
	unsigned active; /* open connections, for the per-caller cap */
	struct caller_exe *next;
};

struct caller_table;

struct caller {
	struct caller_exe *exe; /* NULL when identity failed */
	pid_t pid;
	uid_t uid;
	enum reason identity_err; /* REASON_ALLOWED when known */
	char *cmdline;            /* may be NULL */
	char *invoked_as;      /* NULL unless argv[0] names exe another way */
	char *identity_detail; /* why identity failed, for the log */
	char **ancestors;      /* exe paths, parent first */
	size_t nancestors;
	bool has_sha256;
	uint8_t sha256[32];
	bool has_key; /* exe_key is valid (for hashing) */
	struct exehash_key exe_key;
	bool counted; /* holds a slot in exe->active */
};

struct caller_table *caller_table_new(void);
void caller_table_free(struct caller_table *t);

/*
 * Fills c from an identity lookup result (err as returned by the lookup).
 * Identity errors become the reason codes of policies/reason.h.
 */
void caller_from_identity(struct caller_table *t, struct caller *c,
    int identity_err, const struct identity *id);
/* Releases what c holds (not c itself). */
void caller_release(struct caller_table *t, struct caller *c);

/* The decision function's view of c (valid while c is). */
void caller_view(
    const struct caller *c, const struct addr *src, struct decide_caller *out);

/* Takes a connection slot for c's executable; false when max is reached
 * (0 = unlimited). */
bool caller_take_slot(struct caller *c, unsigned max);

/* Number of distinct executables seen and still referenced. */
size_t caller_table_size(const struct caller_table *t);

#endif
