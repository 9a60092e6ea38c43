/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for resolver/addr.c and resolver/hostname.c: strict literal
 * parsing (the forms getaddrinfo accepts and we must not), CIDR, every
 * special-purpose range with its boundaries, IPv4 embedded in IPv6, and the
 * hostname normalizer. Every parse also runs on a guard page.
 */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "addr.h"
#include "hostname.h"
#include "tap.h"

static struct tap_guard guard;

static bool
parse_guarded(const char *s, struct addr *a)
{
	size_t n = strlen(s);
	const char *g = (const char *)tap_guard_copy(&guard, s, n);

	return addr_parse(g, n, a);
}

struct lit_case {
	const char *in;
	bool ok;
	const char *canon; /* expected inet_ntop form */
};

static const struct lit_case lits[] = {
    {"0.0.0.0", true, "0.0.0.0"},
    {"1.2.3.4", true, "1.2.3.4"},
    {"255.255.255.255", true, "255.255.255.255"},
    {"192.168.1.10", true, "192.168.1.10"},
    {"256.1.1.1", false, NULL},
    {"1.2.3", false, NULL},
    {"1.2.3.4.5", false, NULL},
    {"127.1", false, NULL},
    {"127.0.1", false, NULL},
    {"2130706433", false, NULL},
    {"0x7f.0.0.1", false, NULL},
    {"0x7f000001", false, NULL},
    {"0177.0.0.1", false, NULL},
    {"010.0.0.1", false, NULL},
    {"01.2.3.4", false, NULL},
    {"1.2.3.04", false, NULL},
    {"1.2.3.4 ", false, NULL},
    {" 1.2.3.4", false, NULL},
    {"1..3.4", false, NULL},
    {"1.2.3.", false, NULL},
    {".1.2.3", false, NULL},
    {"1.2.3.4/32", false, NULL},
    {"1.2.-3.4", false, NULL},
    {"1.2.+3.4", false, NULL},
    {"1.2.3.1000", false, NULL},
    {"1.2.3.4a", false, NULL},
    {"", false, NULL},
    {"::", true, "::"},
    {"::1", true, "::1"},
    {"1::", true, "1::"},
    {"2001:db8::1", true, "2001:db8::1"},
    {"2001:DB8::A", true, "2001:db8::a"},
    {"2001:0db8:0000:0000:0000:0000:0000:0001", true, "2001:db8::1"},
    {"1:2:3:4:5:6:7:8", true, "1:2:3:4:5:6:7:8"},
    {"1:2:3:4:5:6:7::", true, "1:2:3:4:5:6:7:0"},
    {"::2:3:4:5:6:7:8", true, "0:2:3:4:5:6:7:8"},
    {"::ffff:1.2.3.4", true, "::ffff:1.2.3.4"},
    {"::ffff:127.0.0.1", true, "::ffff:127.0.0.1"},
    {"64:ff9b::192.0.2.33", true, "64:ff9b::c000:221"},
    {"1:2:3:4:5:6:1.2.3.4", true, "1:2:3:4:5:6:102:304"},
    {"1:2:3:4:5:6:7:1.2.3.4", false, NULL},
    {"::ffff:1.2.3", false, NULL},
    {"::ffff:01.2.3.4", false, NULL},
    {"1:2:3:4:5:6:7:8:9", false, NULL},
    {"1:2:3:4:5:6:7", false, NULL},
    {":::", false, NULL},
    {"1:::2", false, NULL},
    {"1::2::3", false, NULL},
    {":1::2", false, NULL},
    {"1::2:", false, NULL},
    {"12345::1", false, NULL},
    {"g::1", false, NULL},
    {"fe80::1%eth0", false, NULL},
    {"[::1]", false, NULL},
    {"::1 ", false, NULL},
};

static void
test_literals(void)
{
	size_t i;

	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		struct addr a;
		char buf[ADDR_STRLEN];
		bool ok = parse_guarded(lits[i].in, &a);

		tap_ok(ok == lits[i].ok, "literal '%s' %s", lits[i].in,
		    lits[i].ok ? "parses" : "is refused");
		if (ok && lits[i].ok)
			tap_is_str(addr_format(&a, buf), lits[i].canon,
			    "literal '%s' canonical form", lits[i].in);
	}
	/* Agreement with inet_pton on every valid v6 case. */
	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		struct addr a;
		unsigned char ref[16];

		if (!lits[i].ok || strchr(lits[i].in, ':') == NULL)
			continue;
		addr_parse(lits[i].in, strlen(lits[i].in), &a);
		tap_ok(inet_pton(AF_INET6, lits[i].in, ref) == 1 &&
		        memcmp(ref, a.b, 16) == 0,
		    "'%s' agrees with inet_pton", lits[i].in);
	}
}

struct cidr_case {
	const char *in;
	bool ok;
};

static const struct cidr_case cidrs[] = {
    {"10.0.0.0/8", true},
    {"10.0.0.0/08", false},
    {"10.0.0.1/8", false},
    {"10.0.0.0/33", false},
    {"10.0.0.0/", false},
    {"10.0.0.0/-1", false},
    {"0.0.0.0/0", true},
    {"1.2.3.4", true},
    {"1.2.3.4/32", true},
    {"2001:db8::/32", true},
    {"2001:db8::/129", false},
    {"2001:db8::1/32", false},
    {"::/0", true},
    {"fd00::/8", true},
    {"10.0.0.0/8x", false},
    {"10.0.0.0/1234", false},
};

struct contains_case {
	const char *cidr, *addr;
	bool in;
};

static const struct contains_case contains[] = {
    {"10.0.0.0/8", "10.0.0.0", true},
    {"10.0.0.0/8", "10.255.255.255", true},
    {"10.0.0.0/8", "11.0.0.0", false},
    {"10.0.0.0/8", "9.255.255.255", false},
    {"172.16.0.0/12", "172.31.255.255", true},
    {"172.16.0.0/12", "172.32.0.0", false},
    {"192.0.2.0/26", "192.0.2.63", true},
    {"192.0.2.0/26", "192.0.2.64", false},
    {"0.0.0.0/0", "255.255.255.255", true},
    {"2001:db8::/32", "2001:db8:ffff::1", true},
    {"2001:db8::/32", "2001:db9::", false},
    {"2001:db8::/33", "2001:db8:8000::", false},
    {"2001:db8::/33", "2001:db8:7fff::", true},
    {"10.0.0.0/8", "::ffff:10.0.0.1", false}, /* families differ */
    {"::/0", "1.2.3.4", false},
};

static void
test_cidr(void)
{
	size_t i;

	for (i = 0; i < sizeof(cidrs) / sizeof(cidrs[0]); i++) {
		struct cidr c;

		tap_ok(addr_parse_cidr(cidrs[i].in, strlen(cidrs[i].in), &c) ==
		        cidrs[i].ok,
		    "cidr '%s' %s", cidrs[i].in,
		    cidrs[i].ok ? "parses" : "is refused");
	}
	for (i = 0; i < sizeof(contains) / sizeof(contains[0]); i++) {
		struct cidr c;
		struct addr a;

		addr_parse_cidr(contains[i].cidr, strlen(contains[i].cidr), &c);
		addr_parse(contains[i].addr, strlen(contains[i].addr), &a);
		tap_ok(cidr_contains(&c, &a) == contains[i].in, "%s %s %s",
		    contains[i].cidr, contains[i].in ? "contains" : "excludes",
		    contains[i].addr);
	}
}

struct class_case {
	const char *in;
	enum addr_class cls;
};

static const struct class_case classes[] = {
    /* IPv4, each range at its edges */
    {"8.8.8.8", ADDR_PUBLIC},
    {"1.1.1.1", ADDR_PUBLIC},
    {"0.0.0.0", ADDR_UNSPECIFIED},
    {"0.255.255.255", ADDR_UNSPECIFIED},
    {"1.0.0.0", ADDR_PUBLIC},
    {"9.255.255.255", ADDR_PUBLIC},
    {"10.0.0.0", ADDR_PRIVATE},
    {"10.255.255.255", ADDR_PRIVATE},
    {"11.0.0.0", ADDR_PUBLIC},
    {"100.63.255.255", ADDR_PUBLIC},
    {"100.64.0.0", ADDR_CGNAT},
    {"100.127.255.255", ADDR_CGNAT},
    {"100.128.0.0", ADDR_PUBLIC},
    {"100.100.100.200", ADDR_METADATA},
    {"126.255.255.255", ADDR_PUBLIC},
    {"127.0.0.0", ADDR_LOOPBACK},
    {"127.0.0.1", ADDR_LOOPBACK},
    {"127.255.255.255", ADDR_LOOPBACK},
    {"128.0.0.0", ADDR_PUBLIC},
    {"169.253.255.255", ADDR_PUBLIC},
    {"169.254.0.0", ADDR_LINKLOCAL},
    {"169.254.169.254", ADDR_METADATA},
    {"169.254.169.253", ADDR_LINKLOCAL},
    {"169.254.170.2", ADDR_METADATA},
    {"169.254.255.255", ADDR_LINKLOCAL},
    {"169.255.0.0", ADDR_PUBLIC},
    {"172.15.255.255", ADDR_PUBLIC},
    {"172.16.0.0", ADDR_PRIVATE},
    {"172.31.255.255", ADDR_PRIVATE},
    {"172.32.0.0", ADDR_PUBLIC},
    {"192.0.0.0", ADDR_RESERVED},
    {"192.0.0.192", ADDR_METADATA},
    {"192.0.1.255", ADDR_PUBLIC},
    {"192.0.2.1", ADDR_RESERVED},
    {"192.88.99.1", ADDR_RESERVED},
    {"192.167.255.255", ADDR_PUBLIC},
    {"192.168.0.0", ADDR_PRIVATE},
    {"192.168.255.255", ADDR_PRIVATE},
    {"192.169.0.0", ADDR_PUBLIC},
    {"198.17.255.255", ADDR_PUBLIC},
    {"198.18.0.0", ADDR_RESERVED},
    {"198.19.255.255", ADDR_RESERVED},
    {"198.20.0.0", ADDR_PUBLIC},
    {"198.51.100.7", ADDR_RESERVED},
    {"203.0.113.9", ADDR_RESERVED},
    {"223.255.255.255", ADDR_PUBLIC},
    {"224.0.0.1", ADDR_MULTICAST},
    {"239.255.255.255", ADDR_MULTICAST},
    {"240.0.0.1", ADDR_RESERVED},
    {"255.255.255.255", ADDR_RESERVED},
    /* IPv6 */
    {"::", ADDR_UNSPECIFIED},
    {"::1", ADDR_LOOPBACK},
    {"2606:4700::1111", ADDR_PUBLIC},
    {"2001:4860:4860::8888", ADDR_PUBLIC},
    {"2001:db8::1", ADDR_RESERVED},
    {"2001:10::1", ADDR_RESERVED},
    {"3fff::1", ADDR_RESERVED},
    {"fc00::1", ADDR_ULA},
    {"fdff:ffff::1", ADDR_ULA},
    {"fd00:ec2::254", ADDR_METADATA},
    {"fe80::1", ADDR_LINKLOCAL},
    {"febf::1", ADDR_LINKLOCAL},
    {"fec0::1", ADDR_PRIVATE},
    {"ff02::1", ADDR_MULTICAST},
    {"100::1", ADDR_RESERVED},
    {"4000::1", ADDR_RESERVED},
    {"1fff::1", ADDR_RESERVED},
    /* IPv4 embedded in IPv6: mapped, compatible, NAT64, 6to4, Teredo */
    {"::ffff:8.8.8.8", ADDR_EMBEDDED},
    {"::ffff:127.0.0.1", ADDR_LOOPBACK},
    {"::ffff:169.254.169.254", ADDR_METADATA},
    {"::ffff:10.0.0.1", ADDR_EMBEDDED},
    {"::ffff:0.0.0.0", ADDR_UNSPECIFIED},
    {"::127.0.0.1", ADDR_LOOPBACK},
    {"::8.8.8.8", ADDR_EMBEDDED},
    {"::169.254.169.254", ADDR_METADATA},
    {"64:ff9b::8.8.8.8", ADDR_EMBEDDED},
    {"64:ff9b::127.0.0.1", ADDR_LOOPBACK},
    {"64:ff9b::a9fe:a9fe", ADDR_METADATA},
    {"64:ff9b:1::1", ADDR_EMBEDDED},
    {"2002:7f00:1::", ADDR_LOOPBACK},
    {"2002:a9fe:a9fe::1", ADDR_METADATA},
    {"2002:808:808::1", ADDR_EMBEDDED},
    {"2001:0:4136:e378:8000:63bf:3fff:fdd2", ADDR_EMBEDDED},
    /* Teredo with client 127.0.0.1 (stored inverted: 80ff:fffe) */
    {"2001:0:4136:e378::80ff:fffe", ADDR_LOOPBACK},
    /* Teredo with server 169.254.169.254 */
    {"2001:0:a9fe:a9fe::1", ADDR_METADATA},
};

static void
test_classify(void)
{
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		struct addr a;

		if (!tap_ok(
		        addr_parse(classes[i].in, strlen(classes[i].in), &a),
		        "classify: '%s' parses", classes[i].in))
			continue;
		tap_is_str(addr_class_name(addr_classify(&a)),
		    addr_class_name(classes[i].cls), "classify %s",
		    classes[i].in);
	}
	tap_ok(addr_class_never(ADDR_LOOPBACK) &&
	        addr_class_never(ADDR_METADATA) &&
	        addr_class_never(ADDR_LINKLOCAL) &&
	        addr_class_never(ADDR_UNSPECIFIED) &&
	        !addr_class_never(ADDR_PRIVATE) &&
	        !addr_class_never(ADDR_PUBLIC) &&
	        !addr_class_never(ADDR_EMBEDDED),
	    "never-openable classes are exactly loopback, unspecified, link-local, metadata, multicast");
}

struct host_case {
	const char *in;
	enum hostname_err err;
	enum hostname_kind kind;
	const char *norm;
};

static const struct host_case hosts[] = {
    {"example.com", HOSTNAME_OK, HOSTNAME_NAME, "example.com"},
    {"EXAMPLE.com", HOSTNAME_OK, HOSTNAME_NAME, "example.com"},
    {"example.com.", HOSTNAME_OK, HOSTNAME_NAME, "example.com"},
    {"example.com..", HOSTNAME_ERR_EMPTY_LABEL, 0, NULL},
    {"localhost", HOSTNAME_OK, HOSTNAME_NAME, "localhost"},
    {"a-b.c-d.example", HOSTNAME_OK, HOSTNAME_NAME, "a-b.c-d.example"},
    {"xn--bcher-kva.example", HOSTNAME_OK, HOSTNAME_NAME,
        "xn--bcher-kva.example"},
    {"xn--.example", HOSTNAME_ERR_HYPHEN, 0, NULL},
    {"xn--a.example", HOSTNAME_OK, HOSTNAME_NAME, "xn--a.example"},
    {"ab--c.example", HOSTNAME_ERR_RESERVED_LABEL, 0, NULL},
    {"-a.example", HOSTNAME_ERR_HYPHEN, 0, NULL},
    {"a-.example", HOSTNAME_ERR_HYPHEN, 0, NULL},
    {"a_b.example", HOSTNAME_ERR_CHAR, 0, NULL},
    {"a b.example", HOSTNAME_ERR_CHAR, 0, NULL},
    {"a*.example", HOSTNAME_ERR_CHAR, 0, NULL},
    {"caf\xc3\xa9.example", HOSTNAME_ERR_NON_ASCII, 0, NULL},
    {"", HOSTNAME_ERR_EMPTY, 0, NULL},
    {".", HOSTNAME_ERR_EMPTY_LABEL, 0, NULL},
    {".example.com", HOSTNAME_ERR_EMPTY_LABEL, 0, NULL},
    {"a..b", HOSTNAME_ERR_EMPTY_LABEL, 0, NULL},
    {"1.2.3.4", HOSTNAME_OK, HOSTNAME_IPV4, "1.2.3.4"},
    {"1.2.3.4.", HOSTNAME_OK, HOSTNAME_IPV4, "1.2.3.4"},
    {"127.1", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"2130706433", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"0x7f.0.0.1", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"0x7f000001", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"1.2.3.0x4", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"017.0.0.1", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"example.123", HOSTNAME_ERR_NUMERIC, 0, NULL},
    {"123.example", HOSTNAME_OK, HOSTNAME_NAME, "123.example"},
    {"[::1]", HOSTNAME_OK, HOSTNAME_IPV6, "::1"},
    {"::1", HOSTNAME_OK, HOSTNAME_IPV6, "::1"},
    {"[2001:DB8::1]", HOSTNAME_OK, HOSTNAME_IPV6, "2001:db8::1"},
    {"[::1", HOSTNAME_ERR_BAD_IPV6, 0, NULL},
    {"[]", HOSTNAME_ERR_BAD_IPV6, 0, NULL},
    {"[1.2.3.4]", HOSTNAME_ERR_BAD_IPV6, 0, NULL},
    {"a:b", HOSTNAME_ERR_BAD_IPV6, 0, NULL},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example",
        HOSTNAME_OK, HOSTNAME_NAME,
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example"},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example",
        HOSTNAME_ERR_LABEL_TOO_LONG, 0, NULL},
};

static void
test_hostnames(void)
{
	size_t i;
	char longname[300];
	struct hostname h;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		size_t n = strlen(hosts[i].in);
		const char *g =
		    (const char *)tap_guard_copy(&guard, hosts[i].in, n);
		enum hostname_err e = hostname_normalize(g, n, &h);

		tap_is_int(e, hosts[i].err, "hostname '%s': %s", hosts[i].in,
		    hostname_strerror(hosts[i].err));
		if (e == HOSTNAME_OK && hosts[i].err == HOSTNAME_OK) {
			tap_is_int(h.kind, hosts[i].kind, "hostname '%s' kind",
			    hosts[i].in);
			tap_is_str(h.name, hosts[i].norm,
			    "hostname '%s' normalized", hosts[i].in);
		}
	}
	/* 253 characters is the limit, one trailing dot aside. */
	memset(longname, 'a', sizeof(longname));
	for (i = 63; i < 253; i += 64)
		longname[i] = '.';
	longname[253] = '\0';
	tap_is_int(hostname_normalize(longname, 253, &h), HOSTNAME_OK,
	    "253-character name accepted");
	longname[253] = '.';
	tap_is_int(hostname_normalize(longname, 254, &h), HOSTNAME_OK,
	    "253 characters plus a trailing dot accepted");
	longname[253] = 'a';
	tap_is_int(hostname_normalize(longname, 254, &h), HOSTNAME_ERR_TOO_LONG,
	    "254-character name refused");
	tap_is_int(hostname_normalize("a\0b.com", 7, &h), HOSTNAME_ERR_CHAR,
	    "NUL inside a name refused");
}

int
main(void)
{
	test_literals();
	test_cidr();
	test_classify();
	test_hostnames();
	tap_guard_free(&guard);
	return tap_done();
}
