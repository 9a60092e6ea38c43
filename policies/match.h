/* SPDX-License-Identifier: ISC */
/*
 * Pure matchers of the policy engine: host patterns (exact, "*." one label,
 * "**." one or more labels, IP literal, CIDR), port ranges and binary path
 * globs ("*" within one path component, "**" any number of components).
 * Compilers validate patterns at load; matchers run per connection.
 */
#ifndef EGRESSD_MATCH_H
#define EGRESSD_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "hostname.h"

enum host_pattern_kind {
	HOSTPAT_EXACT,      /* github.com */
	HOSTPAT_ONE_LABEL,  /* *.github.com: exactly one more label */
	HOSTPAT_ANY_LABELS, /* **.github.com: one or more, apex excluded */
	HOSTPAT_IP,         /* 198.51.100.7 or 2001:db8::7 */
	HOSTPAT_CIDR,       /* 198.51.100.0/24 */
};

struct host_pattern {
	enum host_pattern_kind kind;
	size_t suffix_len;
	char suffix[HOSTNAME_MAX + 1]; /* whole name for EXACT; the part
					  after "*." or "**." for wildcards */
	struct cidr cidr;              /* IP (full-length prefix) and CIDR */
};

enum match_err {
	MATCH_OK,
	MATCH_ERR_EMPTY,
	MATCH_ERR_BARE_WILDCARD,  /* "*" or "**" alone */
	MATCH_ERR_TLD_WILDCARD,   /* "*.com": a wildcard over a whole TLD */
	MATCH_ERR_PARTIAL_LABEL,  /* "gith*.com", "*github.com" */
	MATCH_ERR_INNER_WILDCARD, /* "api.*.com": wildcard not leftmost */
	MATCH_ERR_HOST,           /* the name part is not a valid host name */
	MATCH_ERR_CIDR,           /* malformed CIDR or host bits set */
};

/*
 * Compiles a policy host pattern. On MATCH_ERR_HOST, *herr says why the name
 * is invalid. Names are normalized exactly like destinations.
 */
enum match_err host_pattern_compile(const char *s, size_t len,
    struct host_pattern *out, enum hostname_err *herr);
const char *match_strerror(enum match_err e);

/* Matches a normalized destination. Name patterns never match IP
 * literals and IP patterns never match names. */
bool host_pattern_match(const struct host_pattern *p, const struct hostname *h);
/* The pattern in its canonical text form ("**.github.com"). */
void host_pattern_format(const struct host_pattern *p, char *buf, size_t len);
/* True when some host could match both patterns (used for overlap
 * warnings; conservative for two different wildcards). */
bool host_pattern_overlap(
    const struct host_pattern *a, const struct host_pattern *b);

struct port_range {
	uint16_t lo, hi; /* inclusive, 1..65535 */
};

bool port_ranges_match(const struct port_range *r, size_t n, uint16_t port);
bool port_ranges_overlap(const struct port_range *a, size_t na,
    const struct port_range *b, size_t nb);

enum glob_err {
	GLOB_OK,
	GLOB_ERR_NOT_ABSOLUTE,
	GLOB_ERR_DOT_SEGMENT,   /* "." or ".." component */
	GLOB_ERR_EMPTY_SEGMENT, /* "//" or trailing "/" */
	GLOB_ERR_STARSTAR,      /* "**" not a whole component */
	GLOB_ERR_CHAR,          /* '?', '[', '\\' or a control character */
	GLOB_ERR_TOO_COMPLEX,   /* more than GLOB_MAX_STARSTAR "**" */
};

#define GLOB_MAX_STARSTAR 4

/* Validates an absolute binary path or glob; *is_glob tells which. */
enum glob_err path_glob_check(const char *pattern, bool *is_glob);
const char *glob_strerror(enum glob_err e);
/* Matches a path against a validated glob: "*" matches within one
 * component, "**" zero or more whole components. */
bool path_glob_match(const char *pattern, const char *path);

#endif
