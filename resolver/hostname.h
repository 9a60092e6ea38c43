/* SPDX-License-Identifier: ISC */
/*
 * The one hostname normalizer (SECURITY-CASES.md invariant 3): every name
 * from a client, a ClientHello, a DNS query or a policy passes here before it
 * is matched, resolved or logged. Pure.
 */
#ifndef EGRESSD_HOSTNAME_H
#define EGRESSD_HOSTNAME_H

#include <stddef.h>

#include "addr.h"

#define HOSTNAME_MAX 253

enum hostname_kind { HOSTNAME_NAME, HOSTNAME_IPV4, HOSTNAME_IPV6 };

enum hostname_err {
	HOSTNAME_OK,
	HOSTNAME_ERR_EMPTY,
	HOSTNAME_ERR_TOO_LONG,
	HOSTNAME_ERR_EMPTY_LABEL,
	HOSTNAME_ERR_LABEL_TOO_LONG,
	HOSTNAME_ERR_CHAR,           /* outside letters, digits, '-' and '.' */
	HOSTNAME_ERR_NON_ASCII,      /* IDN must arrive as punycode (xn--) */
	HOSTNAME_ERR_HYPHEN,         /* label starts or ends with '-' */
	HOSTNAME_ERR_RESERVED_LABEL, /* "ab--x" that is not "xn--" */
	HOSTNAME_ERR_NUMERIC,        /* numeric but not a strict IPv4 literal */
	HOSTNAME_ERR_BAD_IPV6, /* bracketed or colon form that does not parse */
};

struct hostname {
	enum hostname_kind kind;
	size_t len;
	char name[HOSTNAME_MAX + 1]; /* lowercase, no trailing dot */
	struct addr addr;            /* for IPV4/IPV6 */
};

/*
 * Normalizes s[0..len): lowercase, one trailing dot removed, LDH and length
 * checks, and IP literals recognised strictly (dotted decimal; IPv6 with or
 * without brackets). A name whose last label is numeric or hex ("127.1",
 * "0x7f.1", "2130706433") is refused rather than guessed at.
 */
enum hostname_err hostname_normalize(
    const char *s, size_t len, struct hostname *out);
/* A short English description of an error. */
const char *hostname_strerror(enum hostname_err e);

#endif
