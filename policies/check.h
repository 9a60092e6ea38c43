/* SPDX-License-Identifier: ISC */
/*
 * `egressd -t`: loads a policy, prints every diagnostic and the normalized
 * effective policy, human-readable or as JSON.
 */
#ifndef EGRESSD_CHECK_H
#define EGRESSD_CHECK_H

#include <stdbool.h>
#include <stdio.h>

struct policy;

/* Returns the process exit status: 0 valid, 1 invalid. */
int check_policy(const char *file, const char *root, bool json, FILE *out);
/* Same for an in-memory policy text (the built-in default). */
int check_policy_buffer(const char *text, size_t len, const char *name,
    const char *root, bool json, FILE *out);

/* Appends the per-binary effective view as YAML comments. */
struct strbuf;
void check_effective(const struct policy *p, struct strbuf *out);

#endif
