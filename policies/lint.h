/* SPDX-License-Identifier: ISC */
/*
 * Load-time diagnostics that need more than the YAML: binary paths checked
 * on disk (symlinks, missing files, scripts and their interpreters), risky
 * entries (interpreters, loaders, wildcards on shared-content domains) and
 * overlapping endpoints with their effective result per binary.
 */
#ifndef EGRESSD_LINT_H
#define EGRESSD_LINT_H

#include <stddef.h>

#include "policy.h"

enum lint_resolve {
	LINT_RESOLVE_OK,
	LINT_RESOLVE_MISSING, /* a component does not exist */
	LINT_RESOLVE_LOOP,    /* more than 40 symlinks */
	LINT_RESOLVE_ERROR,   /* too long, or unreadable */
};

/*
 * Resolves path the way the kernel would inside root (a chroot-like walk:
 * every component, absolute symlink targets restart at root, ".." never
 * climbs above it). out receives the real path relative to root.
 */
enum lint_resolve lint_resolve_under(
    const char *root, const char *path, char *out, size_t outlen);

/* Fills in the binaries' load-time facts and adds warnings to d. */
void policy_lint(
    struct policy *p, const struct policy_load_opts *opts, struct diags *d);

/* True when the basename looks like a language interpreter or the dynamic
 * loader: allowing it allows whatever it runs. */
bool lint_is_interpreter(const char *path);

/* The shared-content domain (githubusercontent.com, s3.amazonaws.com, ...:
 * where anyone can publish) that the normalized name equals or lies under;
 * NULL when none. */
const char *lint_shared_content_domain(const char *name);

#endif
