/* SPDX-License-Identifier: ISC */
/*
 * Transparent connections: TCP redirected to egressd by the sandbox's
 * nftables rules. The destination comes from SO_ORIGINAL_DST; its name from
 * the TLS ClientHello (SNI), the HTTP Host header, or, for anything else,
 * the policy DNS server's record of which name was given out for that
 * address. Then the same identity, decision, log and relay as the explicit
 * proxy; a denied connection is reset.
 */
#ifndef EGRESSD_TRANSPARENT_H
#define EGRESSD_TRANSPARENT_H

struct listener;
struct sockaddr;

struct transparent;

/* Takes over a socket accepted on a transparent listener, with the peer
 * address accept(2) gave. */
void transparent_accept(
    struct listener *l, int fd, const struct sockaddr *peer);
/* Frees the pre-relay state (NULL is a no-op). */
void transparent_free(struct transparent *t);

#endif
