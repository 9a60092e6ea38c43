/* SPDX-License-Identifier: ISC */
/*
 * IP addresses as egressd sees them: strict literal parsing (never
 * getaddrinfo/inet_aton, which accept 127.1, 0x7f.1 and 2130706433), CIDR
 * ranges, and the classification every address passes before it is dialed
 * (SECURITY-CASES.md invariant 4). Pure: no allocation, no I/O.
 */
#ifndef EGRESSD_ADDR_H
#define EGRESSD_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest text form: a full IPv6 address with an embedded IPv4 tail. */
#define ADDR_STRLEN 46

struct addr {
	int family;    /* AF_INET or AF_INET6 */
	uint8_t b[16]; /* network order; IPv4 uses b[0..3] */
};

struct cidr {
	struct addr base; /* host bits are zero */
	unsigned prefix;
};

/*
 * Classes, from the most to the least dangerous. The first four can never be
 * opened by a policy; the others only by an endpoint's allowed_ips (or the
 * daemon's --trust-range).
 */
enum addr_class {
	ADDR_LOOPBACK,
	ADDR_UNSPECIFIED,
	ADDR_LINKLOCAL,
	ADDR_METADATA,
	ADDR_MULTICAST,
	ADDR_PRIVATE,
	ADDR_CGNAT,
	ADDR_ULA,
	ADDR_EMBEDDED, /* IPv4 inside IPv6: mapped, compat, NAT64, 6to4, Teredo */
	ADDR_RESERVED,
	ADDR_PUBLIC,
};

/* Dotted decimal, exactly four parts, no leading zeros, each <= 255. */
bool addr_parse_ipv4(const char *s, size_t len, struct addr *out);
/* RFC 4291 §2.2 text form, optional dotted-quad tail; no zone index, no
 * brackets. */
bool addr_parse_ipv6(const char *s, size_t len, struct addr *out);
/* Either of the above (the caller strips brackets). */
bool addr_parse(const char *s, size_t len, struct addr *out);
/* ADDR/PREFIX with host bits zero; a bare address is a full-length prefix. */
bool addr_parse_cidr(const char *s, size_t len, struct cidr *out);

bool addr_equal(const struct addr *a, const struct addr *b);
bool cidr_contains(const struct cidr *c, const struct addr *a);

/* Formats into buf (ADDR_STRLEN bytes); returns buf. */
char *addr_format(const struct addr *a, char *buf);
char *cidr_format(const struct cidr *c, char *buf, size_t len);

/*
 * Classifies a, after unwrapping IPv4 embedded in IPv6: an embedded loopback
 * or metadata address is reported as such, any other embedded address as
 * ADDR_EMBEDDED (unless the IPv6 form itself is worse).
 */
enum addr_class addr_classify(const struct addr *a);
/* Stable lowercase name of a class ("loopback", "private", ...). */
const char *addr_class_name(enum addr_class c);
/* True for classes that no policy or flag can ever open. */
bool addr_class_never(enum addr_class c);

/* From/to the socket API. */
struct sockaddr;
bool addr_from_sockaddr(
    const struct sockaddr *sa, struct addr *out, uint16_t *port);
/* Fills ss (a struct sockaddr_storage) and returns its length. */
unsigned addr_to_sockaddr(const struct addr *a, uint16_t port, void *ss);

#endif
