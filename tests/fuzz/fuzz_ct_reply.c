/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the parser of ctnetlink answers (proxy/conntrack.c). The
 * input is one datagram; the sequence number asked for is the first
 * message's, so that inputs reach the attribute parsers. Checks, beyond
 * not crashing: a found tuple is TCP over IPv4 or IPv6 and builds a GET
 * request again, and the answer does not depend on bytes past the
 * datagram.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conntrack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_tuple t, t2;
	uint8_t req[CT_MSG_MAX], *copy;
	uint32_t seq = 0;
	enum ct_result r, r2;
	int err, err2;

	if (size >= 12)
		memcpy(&seq, data + 8, 4); /* nlmsg_seq of the first header */
	r = ct_parse_reply(data, size, seq, &t, &err);
	if (r == CT_FOUND) {
		if (t.family != AF_INET && t.family != AF_INET6)
			abort();
		if (ct_build_get(req, sizeof(req), seq, &t) == 0)
			abort();
	}
	/* the same bytes followed by garbage: the same answer */
	if ((copy = malloc(size + 16)) == NULL)
		return 0;
	memcpy(copy, data, size);
	memset(copy + size, 0xa5, 16);
	r2 = ct_parse_reply(copy, size, seq, &t2, &err2);
	free(copy);
	if (r2 != r || (r == CT_FOUND && memcmp(&t, &t2, sizeof(t)) != 0) ||
	    (r == CT_ERROR && err != err2))
		abort();
	return 0;
}
