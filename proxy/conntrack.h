/* SPDX-License-Identifier: ISC */
/*
 * The original tuple of a redirected connection, from the sandbox's
 * conntrack table (ctnetlink). SO_ORIGINAL_DST gives only the destination;
 * the client's own source port can differ from the one egressd sees when
 * NAT remapped it to keep the redirected flows apart (a client reusing a
 * source port towards another destination while the previous flow is still
 * in conntrack). The caller lookup needs the client socket's real tuple.
 *
 * The message builder and the reply parser are pure (unit tested, fuzzed);
 * conntrack_original() does one GET request on a socket opened in the
 * sandbox's network namespace.
 */
#ifndef EGRESSD_CONNTRACK_H
#define EGRESSD_CONNTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* One direction of a TCP flow; addresses in network order, ports in host
 * order. family is AF_INET (4 bytes of the arrays used) or AF_INET6. */
struct ct_tuple {
	int family;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

#define CT_MSG_MAX 128 /* a GET request fits */

/* Writes a ctnetlink GET request for the flow whose reply direction is
 * reply into buf; returns its length, 0 if cap is too small. */
size_t ct_build_get(
    uint8_t *buf, size_t cap, uint32_t seq, const struct ct_tuple *reply);

enum ct_result {
	CT_FOUND,     /* orig set */
	CT_NOT_FOUND, /* no such flow (ENOENT) */
	CT_ERROR,     /* the kernel's error (errno set in *err) */
	CT_MALFORMED, /* a message that does not parse */
	CT_NONE,      /* nothing for seq in buf */
};

/* Looks through one datagram of replies for the answer to seq: the
 * original-direction TCP tuple of the flow. */
enum ct_result ct_parse_reply(const uint8_t *buf, size_t len, uint32_t seq,
    struct ct_tuple *orig, int *err);

struct ct_ctx;
/* A ctnetlink socket in the network namespace netns_fd (-1: ours). NULL
 * with a message in err when it cannot be had. */
struct ct_ctx *conntrack_new(int netns_fd, char *err, size_t errlen);
void conntrack_free(struct ct_ctx *ct);

/* The original tuple of the flow egressd accepted with local and peer as
 * its addresses: orig_src is the client socket's own address, orig_dst
 * where it connected to. */
enum ct_result conntrack_original(struct ct_ctx *ct,
    const struct sockaddr *local, const struct sockaddr *peer,
    struct sockaddr_storage *orig_src, struct sockaddr_storage *orig_dst,
    int *err);

#endif
