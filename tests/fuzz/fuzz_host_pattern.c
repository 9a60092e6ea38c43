/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the host-pattern compiler and matcher, and the hostname
 * normalizer they share. Input: "pattern\nhost".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *nl = memchr(s, '\n', size);
	size_t plen = nl ? (size_t)(nl - s) : size;
	struct host_pattern p, p2;
	struct hostname h;
	enum hostname_err herr;
	char canon[HOSTNAME_MAX + 64];

	if (host_pattern_compile(s, plen, &p, &herr) == MATCH_OK) {
		/* the canonical form compiles to the same pattern */
		host_pattern_format(&p, canon, sizeof(canon));
		if (host_pattern_compile(canon, strlen(canon), &p2, &herr) !=
		        MATCH_OK ||
		    p2.kind != p.kind || strcmp(p2.suffix, p.suffix) != 0)
			abort();
		if (!host_pattern_overlap(&p, &p2))
			abort();
		if (nl &&
		    hostname_normalize(nl + 1, size - plen - 1, &h) ==
		        HOSTNAME_OK) {
			bool m = host_pattern_match(&p, &h);

			/* an exact name pattern matches exactly itself */
			if (p.kind == HOSTPAT_EXACT &&
			    h.kind == HOSTNAME_NAME &&
			    m != (strcmp(p.suffix, h.name) == 0))
				abort();
		}
	}
	if (hostname_normalize(s, size, &h) == HOSTNAME_OK &&
	    (h.len > HOSTNAME_MAX || strlen(h.name) != h.len))
		abort();
	return 0;
}
