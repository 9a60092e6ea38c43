/* SPDX-License-Identifier: ISC */
/*
 * Strict IP literal parsing, CIDR ranges and address classification. Owns the
 * table of special-purpose ranges (RFC 6890 and successors); leaves the
 * decision of what a class may reach to the resolver and the policy.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses exactly four decimal octets into out[0..3]. */
static bool
parse_quad(const char *s, size_t len, uint8_t out[4])
{
	size_t i = 0;
	int part;

	for (part = 0; part < 4; part++) {
		unsigned v = 0;
		size_t start = i;

		if (part > 0) {
			if (i >= len || s[i] != '.')
				return false;
			start = ++i;
		}
		while (i < len && is_digit(s[i]) && i - start < 3)
			v = v * 10 + (unsigned)(s[i++] - '0');
		if (i == start || v > 255)
			return false;
		/* "010" is octal to inet_aton: refuse the ambiguity. */
		if (s[start] == '0' && i - start > 1)
			return false;
		out[part] = (uint8_t)v;
	}
	return i == len;
}

bool
addr_parse_ipv4(const char *s, size_t len, struct addr *out)
{
	struct addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET;
	if (!parse_quad(s, len, a.b))
		return false;
	*out = a;
	return true;
}

bool
addr_parse_ipv6(const char *s, size_t len, struct addr *out)
{
	uint16_t words[8];
	int nw = 0, gap = -1;
	size_t i = 0;
	struct addr a;

	if (len < 2 || len > ADDR_STRLEN - 1)
		return false;
	if (s[0] == ':') {
		if (s[1] != ':')
			return false;
		gap = 0;
		i = 2;
		if (i == len)
			goto done;
	}
	for (;;) {
		size_t start = i;
		unsigned v = 0;
		int h;

		while (i < len && (h = hex_val(s[i])) >= 0 && i - start < 4) {
			v = v << 4 | (unsigned)h;
			i++;
		}
		if (i < len && s[i] == '.') {
			/* Dotted-quad tail: takes the last two words. */
			uint8_t q[4];

			if (nw > 6 || !parse_quad(s + start, len - start, q))
				return false;
			words[nw++] = (uint16_t)(q[0] << 8 | q[1]);
			words[nw++] = (uint16_t)(q[2] << 8 | q[3]);
			break;
		}
		if (i == start || nw >= 8)
			return false;
		words[nw++] = (uint16_t)v;
		if (i == len)
			break;
		if (s[i] != ':')
			return false;
		i++;
		if (i < len && s[i] == ':') {
			if (gap >= 0)
				return false;
			gap = nw;
			i++;
			if (i == len)
				break;
		} else if (i == len) {
			return false; /* trailing single colon */
		}
	}
done:
	if (gap < 0 ? nw != 8 : nw > 7)
		return false;
	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	{
		int k, tail = gap < 0 ? 0 : nw - gap;
		int head = gap < 0 ? nw : gap;

		for (k = 0; k < head; k++) {
			a.b[2 * k] = (uint8_t)(words[k] >> 8);
			a.b[2 * k + 1] = (uint8_t)words[k];
		}
		for (k = 0; k < tail; k++) {
			int w = 8 - tail + k;

			a.b[2 * w] = (uint8_t)(words[head + k] >> 8);
			a.b[2 * w + 1] = (uint8_t)words[head + k];
		}
	}
	*out = a;
	return true;
}

bool
addr_parse(const char *s, size_t len, struct addr *out)
{
	if (memchr(s, ':', len))
		return addr_parse_ipv6(s, len, out);
	return addr_parse_ipv4(s, len, out);
}

bool
addr_parse_cidr(const char *s, size_t len, struct cidr *out)
{
	const char *slash = memchr(s, '/', len);
	struct cidr c;
	unsigned max, p = 0, bit;
	size_t i;

	memset(&c, 0, sizeof(c));
	if (!addr_parse(s, slash ? (size_t)(slash - s) : len, &c.base))
		return false;
	max = c.base.family == AF_INET ? 32 : 128;
	if (slash == NULL) {
		c.prefix = max;
		*out = c;
		return true;
	}
	i = (size_t)(slash - s) + 1;
	if (i == len || i + 3 < len || (s[i] == '0' && len - i > 1))
		return false;
	for (; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
		p = p * 10 + (unsigned)(s[i] - '0');
	}
	if (p > max)
		return false;
	/* Host bits set means the author meant something else: refuse. */
	for (bit = p; bit < max; bit++)
		if (c.base.b[bit / 8] & (0x80 >> (bit % 8)))
			return false;
	c.prefix = p;
	*out = c;
	return true;
}

bool
addr_equal(const struct addr *a, const struct addr *b)
{
	size_t n = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && memcmp(a->b, b->b, n) == 0;
}

bool
cidr_contains(const struct cidr *c, const struct addr *a)
{
	unsigned full = c->prefix / 8, rest = c->prefix % 8;

	if (a->family != c->base.family)
		return false;
	if (memcmp(a->b, c->base.b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a->b[full] ^ c->base.b[full]) & (0xff << (8 - rest))) == 0;
}

char *
addr_format(const struct addr *a, char *buf)
{
	if (inet_ntop(a->family, a->b, buf, ADDR_STRLEN) == NULL)
		snprintf(buf, ADDR_STRLEN, "?");
	return buf;
}

char *
cidr_format(const struct cidr *c, char *buf, size_t len)
{
	char a[ADDR_STRLEN];

	snprintf(buf, len, "%s/%u", addr_format(&c->base, a), c->prefix);
	return buf;
}

struct range {
	const char *text;
	enum addr_class cls;
};

/*
 * Special-purpose ranges (RFC 6890, RFC 8190, RFC 6598, RFC 6052, RFC 8215,
 * RFC 9637). Looked up most specific first, so a /32 metadata address wins
 * over its enclosing link-local /16.
 */
static const struct range ranges4[] = {
    {"169.254.169.254/32", ADDR_METADATA}, /* AWS, GCP, Azure, ... */
    {"169.254.170.2/32", ADDR_METADATA},   /* ECS task metadata */
    {"100.100.100.200/32", ADDR_METADATA}, /* Alibaba Cloud */
    {"192.0.0.192/32", ADDR_METADATA},     /* Oracle Cloud */
    {"255.255.255.255/32", ADDR_RESERVED},
    {"0.0.0.0/8", ADDR_UNSPECIFIED},
    {"10.0.0.0/8", ADDR_PRIVATE},
    {"100.64.0.0/10", ADDR_CGNAT},
    {"127.0.0.0/8", ADDR_LOOPBACK},
    {"169.254.0.0/16", ADDR_LINKLOCAL},
    {"172.16.0.0/12", ADDR_PRIVATE},
    {"192.0.0.0/24", ADDR_RESERVED},
    {"192.0.2.0/24", ADDR_RESERVED},
    {"192.88.99.0/24", ADDR_RESERVED},
    {"192.168.0.0/16", ADDR_PRIVATE},
    {"198.18.0.0/15", ADDR_RESERVED},
    {"198.51.100.0/24", ADDR_RESERVED},
    {"203.0.113.0/24", ADDR_RESERVED},
    {"224.0.0.0/4", ADDR_MULTICAST},
    {"240.0.0.0/4", ADDR_RESERVED},
};

static const struct range ranges6[] = {
    {"::/128", ADDR_UNSPECIFIED},
    {"::1/128", ADDR_LOOPBACK},
    {"fd00:ec2::254/128", ADDR_METADATA}, /* AWS IMDS over IPv6 */
    {"64:ff9b:1::/48", ADDR_EMBEDDED},    /* local-use NAT64 */
    {"100::/64", ADDR_RESERVED},          /* discard-only */
    {"2001:db8::/32", ADDR_RESERVED},
    {"2001::/23", ADDR_RESERVED},
    {"3fff::/20", ADDR_RESERVED},
    {"5f00::/16", ADDR_RESERVED},
    {"fc00::/7", ADDR_ULA},
    {"fe80::/10", ADDR_LINKLOCAL},
    {"fec0::/10", ADDR_PRIVATE}, /* deprecated site-local */
    {"ff00::/8", ADDR_MULTICAST},
};

static enum addr_class
lookup(
    const struct range *t, size_t n, const struct addr *a, enum addr_class dflt)
{
	unsigned best = 0;
	enum addr_class cls = dflt;
	bool found = false;
	size_t i;

	for (i = 0; i < n; i++) {
		struct cidr c;

		if (!addr_parse_cidr(t[i].text, strlen(t[i].text), &c))
			continue; /* the table is tested; cannot happen */
		if (cidr_contains(&c, a) && (!found || c.prefix > best)) {
			best = c.prefix;
			cls = t[i].cls;
			found = true;
		}
	}
	return cls;
}

static enum addr_class
classify4(const struct addr *a)
{
	return lookup(
	    ranges4, sizeof(ranges4) / sizeof(ranges4[0]), a, ADDR_PUBLIC);
}

static struct addr
v4_from(const uint8_t *p, bool invert)
{
	struct addr v;
	int i;

	memset(&v, 0, sizeof(v));
	v.family = AF_INET;
	for (i = 0; i < 4; i++)
		v.b[i] = invert ? (uint8_t)~p[i] : p[i];
	return v;
}

/* An embedded IPv4 address keeps its own class when that class can never be
 * opened (so ::ffff:127.0.0.1 is loopback); otherwise it is "embedded". */
static enum addr_class
embedded(const struct addr *v4)
{
	enum addr_class c = classify4(v4);

	return addr_class_never(c) ? c : ADDR_EMBEDDED;
}

static enum addr_class
worst(enum addr_class x, enum addr_class y)
{
	return x < y ? x : y;
}

enum addr_class
addr_classify(const struct addr *a)
{
	static const uint8_t mapped[12] = {
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t zero12[12];
	static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
	const uint8_t *b = a->b;
	struct addr v;

	if (a->family == AF_INET)
		return classify4(a);
	if (memcmp(b, mapped, 12) == 0) {
		v = v4_from(b + 12, false);
		return embedded(&v);
	}
	if (memcmp(b, zero12, 12) == 0) {
		/* ::, ::1, and the deprecated IPv4-compatible ::a.b.c.d */
		enum addr_class c = lookup(ranges6,
		    sizeof(ranges6) / sizeof(ranges6[0]), a, ADDR_PUBLIC);
		if (c != ADDR_PUBLIC)
			return c;
		v = v4_from(b + 12, false);
		return embedded(&v);
	}
	if (memcmp(b, nat64, 12) == 0) {
		v = v4_from(b + 12, false);
		return embedded(&v);
	}
	if (b[0] == 0x20 && b[1] == 0x02) { /* 6to4: 2002:V4ADDR::/48 */
		v = v4_from(b + 2, false);
		return embedded(&v);
	}
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
		/* Teredo: server in bits 32-63, client inverted in 96-127. */
		struct addr srv = v4_from(b + 4, false);
		struct addr cli = v4_from(b + 12, true);
		return worst(embedded(&srv), embedded(&cli));
	}
	if ((b[0] & 0xe0) != 0x20) /* outside 2000::/3 global unicast */
		return lookup(ranges6, sizeof(ranges6) / sizeof(ranges6[0]), a,
		    ADDR_RESERVED);
	return lookup(
	    ranges6, sizeof(ranges6) / sizeof(ranges6[0]), a, ADDR_PUBLIC);
}

const char *
addr_class_name(enum addr_class c)
{
	switch (c) {
	case ADDR_LOOPBACK:
		return "loopback";
	case ADDR_UNSPECIFIED:
		return "unspecified";
	case ADDR_LINKLOCAL:
		return "link-local";
	case ADDR_METADATA:
		return "metadata";
	case ADDR_MULTICAST:
		return "multicast";
	case ADDR_PRIVATE:
		return "private";
	case ADDR_CGNAT:
		return "cgnat";
	case ADDR_ULA:
		return "ula";
	case ADDR_EMBEDDED:
		return "ipv4-embedded";
	case ADDR_RESERVED:
		return "reserved";
	case ADDR_PUBLIC:
		return "public";
	}
	return "unknown";
}

bool
addr_class_never(enum addr_class c)
{
	return c == ADDR_LOOPBACK || c == ADDR_UNSPECIFIED ||
	    c == ADDR_LINKLOCAL || c == ADDR_METADATA || c == ADDR_MULTICAST;
}

bool
addr_from_sockaddr(const struct sockaddr *sa, struct addr *out, uint16_t *port)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		out->family = AF_INET;
		memcpy(out->b, &in->sin_addr, 4);
		if (port)
			*port = ntohs(in->sin_port);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 =
		    (const struct sockaddr_in6 *)sa;

		out->family = AF_INET6;
		memcpy(out->b, &in6->sin6_addr, 16);
		if (port)
			*port = ntohs(in6->sin6_port);
		return true;
	}
	return false;
}

unsigned
addr_to_sockaddr(const struct addr *a, uint16_t port, void *ss)
{
	if (a->family == AF_INET) {
		struct sockaddr_in *in = ss;

		memset(in, 0, sizeof(*in));
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, a->b, 4);
		return sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = ss;

		memset(in6, 0, sizeof(*in6));
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, a->b, 16);
		return sizeof(*in6);
	}
}
