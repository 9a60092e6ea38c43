/* SPDX-License-Identifier: ISC */
/*
 * Table tests for resolver/dns_msg.c: names, queries, the server's replies,
 * upstream replies and TCP framing. Messages are written in a small spec
 * language (see spec_build) so each case reads like its wire layout; every
 * parse also runs on a guard page, every prefix of every message must fail
 * cleanly, and every single-byte mutation must not break an invariant.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "dns_msg.h"
#include "tap.h"

static struct tap_guard guard;

/*
 * With DNS_MSG_CORPUS=DIR in the environment, every table message is also
 * written to DIR/PREFIX-NAME: how tests/fuzz/corpus/dns_msg was seeded.
 */
static void
corpus_dump(
    const char *prefix, const char *name, const uint8_t *msg, size_t len)
{
	const char *dir = getenv("DNS_MSG_CORPUS");
	char path[512], clean[128];
	size_t i;
	FILE *f;

	if (dir == NULL)
		return;
	for (i = 0; name[i] && i + 1 < sizeof(clean); i++)
		clean[i] = isalnum((unsigned char)name[i]) ? name[i] : '-';
	clean[i] = '\0';
	snprintf(path, sizeof(path), "%s/%s-%s", dir, prefix, clean);
	if ((f = fopen(path, "wb")) == NULL)
		return;
	fwrite(msg, 1, len, f);
	fclose(f);
}

/*
 * Spec language, tokens separated by blanks:
 *   0a1b...     hex octets (an even number of digits)
 *   n:a.b       a name in wire form, root-terminated ("n:." is the root)
 *   l:abc       one length-prefixed label, no terminator
 *   s:abc       raw text
 *   L:N:c       one label of N copies of c (N may exceed 63)
 *   R:N:hex     hex repeated N times
 *   { ... }     a 16-bit length (RDLENGTH) of what is inside
 *   m:x / P:x   remember this offset as x / a compression pointer to it
 *   p:N         a compression pointer to decimal offset N
 */
#define SPEC_MAX 70000

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void
spec_put(uint8_t *out, size_t *n, uint8_t b)
{
	if (*n >= SPEC_MAX) {
		fprintf(stderr, "spec too long\n");
		exit(2);
	}
	out[(*n)++] = b;
}

static size_t
spec_build(const char *spec, uint8_t *out)
{
	size_t n = 0, marks[26] = {0}, stack[8], depth = 0;
	const char *p = spec;

	while (*p) {
		const char *t;
		size_t tl, i;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!*p)
			break;
		t = p;
		while (*p && *p != ' ' && *p != '\n' && *p != '\t')
			p++;
		tl = (size_t)(p - t);
		if (tl == 1 && t[0] == '{') {
			stack[depth++] = n;
			spec_put(out, &n, 0);
			spec_put(out, &n, 0);
		} else if (tl == 1 && t[0] == '}') {
			size_t at = stack[--depth], l = n - at - 2;

			out[at] = (uint8_t)(l >> 8);
			out[at + 1] = (uint8_t)l;
		} else if (tl >= 2 && t[1] == ':') {
			const char *v = t + 2;
			size_t vl = tl - 2;

			switch (t[0]) {
			case 'n': {
				size_t s = 0;

				if (vl == 1 && v[0] == '.')
					vl = 0;
				for (i = 0; i <= vl && vl > 0; i++) {
					if (i < vl && v[i] != '.')
						continue;
					spec_put(out, &n, (uint8_t)(i - s));
					for (; s < i; s++)
						spec_put(
						    out, &n, (uint8_t)v[s]);
					s = i + 1;
				}
				spec_put(out, &n, 0);
				break;
			}
			case 'l':
				spec_put(out, &n, (uint8_t)vl);
				/* fall through */
			case 's':
				for (i = 0; i < vl; i++)
					spec_put(out, &n, (uint8_t)v[i]);
				break;
			case 'L': {
				unsigned long k = strtoul(v, NULL, 10);
				const char *c = strchr(v, ':') + 1;

				spec_put(out, &n, (uint8_t)k);
				for (i = 0; i < k; i++)
					spec_put(out, &n, (uint8_t)*c);
				break;
			}
			case 'R': {
				unsigned long k = strtoul(v, NULL, 10), j;
				const char *h = strchr(v, ':') + 1;
				size_t hl = (size_t)(t + tl - h);

				for (j = 0; j < k; j++)
					for (i = 0; i + 1 < hl; i += 2)
						spec_put(out, &n,
						    (uint8_t)(hexval(h[i])
						            << 4 |
						        hexval(h[i + 1])));
				break;
			}
			case 'm':
				marks[v[0] - 'a'] = n;
				break;
			case 'P':
				spec_put(out, &n,
				    (uint8_t)(0xc0 | marks[v[0] - 'a'] >> 8));
				spec_put(out, &n, (uint8_t)marks[v[0] - 'a']);
				break;
			case 'p': {
				unsigned long k = strtoul(v, NULL, 10);

				spec_put(out, &n, (uint8_t)(0xc0 | k >> 8));
				spec_put(out, &n, (uint8_t)k);
				break;
			}
			default:
				fprintf(stderr, "bad spec token %.*s\n",
				    (int)tl, t);
				exit(2);
			}
		} else {
			if (tl % 2) {
				fprintf(stderr, "odd hex %.*s\n", (int)tl, t);
				exit(2);
			}
			for (i = 0; i < tl; i += 2) {
				int hi = hexval(t[i]), lo = hexval(t[i + 1]);

				if (hi < 0 || lo < 0) {
					fprintf(stderr, "bad hex %.*s\n",
					    (int)tl, t);
					exit(2);
				}
				spec_put(out, &n, (uint8_t)(hi << 4 | lo));
			}
		}
	}
	if (depth != 0) {
		fprintf(stderr, "unbalanced braces in spec\n");
		exit(2);
	}
	return n;
}

/* "A 198.18.0.1/300, CNAME b.example/60": answers as text, for comparing
 * against the tables and round trips. */
static void
answers_summary(const struct dns_answer *a, size_t n, char *out, size_t cap)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < n && o < cap; i++) {
		char ab[ADDR_STRLEN];
		const char *what = a[i].type == DNS_TYPE_CNAME ?
		    a[i].target :
		    addr_format(&a[i].addr, ab);
		const char *tn = a[i].type == DNS_TYPE_A ? "A" :
		    a[i].type == DNS_TYPE_AAAA           ? "AAAA" :
		    a[i].type == DNS_TYPE_CNAME          ? "CNAME" :
		                                           "?";

		o += (size_t)snprintf(out + o, cap - o, "%s%s %s/%lu",
		    i ? ", " : "", tn, what, (unsigned long)a[i].ttl);
	}
}

/* The reverse of answers_summary. */
static size_t
answers_parse(const char *s, struct dns_answer *a, size_t max)
{
	size_t n = 0;
	char buf[4096], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save)) {
		char type[8], what[300];
		unsigned long ttl;
		char *slash;

		while (*tok == ' ')
			tok++;
		if (sscanf(tok, "%7s %299s", type, what) != 2 ||
		    (slash = strrchr(what, '/')) == NULL) {
			fprintf(stderr, "bad answer spec %s\n", tok);
			exit(2);
		}
		*slash = '\0';
		ttl = strtoul(slash + 1, NULL, 10);
		memset(&a[n], 0, sizeof(a[n]));
		a[n].ttl = (uint32_t)ttl;
		if (strcmp(type, "CNAME") == 0) {
			a[n].type = DNS_TYPE_CNAME;
			a[n].target_len = strlen(what);
			if (a[n].target_len >= sizeof(a[n].target)) {
				fprintf(stderr, "target too long %s\n", what);
				exit(2);
			}
			memcpy(a[n].target, what, a[n].target_len + 1);
		} else {
			a[n].type =
			    strcmp(type, "A") == 0 ? DNS_TYPE_A : DNS_TYPE_AAAA;
			if (!addr_parse(what, strlen(what), &a[n].addr)) {
				fprintf(stderr, "bad address %s\n", what);
				exit(2);
			}
		}
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Names */

struct name_case {
	const char *name;
	const char *msg;
	size_t off;
	enum dns_result want;
	const char *want_name; /* NULL: only the length is checked */
	size_t want_len;
	size_t want_end;
};

#define HDR0 "R:12:00 "

static const struct name_case name_cases[] = {
    {"simple", HDR0 "n:www.example.com", 12, DNS_OK, "www.example.com", 15, 29},
    {"root", HDR0 "00", 12, DNS_OK, "", 0, 13},
    {"single label", HDR0 "n:localhost", 12, DNS_OK, "localhost", 9, 23},
    {"case kept", HDR0 "n:WwW.ExAmple", 12, DNS_OK, "WwW.ExAmple", 11, 25},
    {"pointer to earlier name", HDR0 "n:example.com l:www p:12", 12 + 13,
        DNS_OK, "www.example.com", 15, 12 + 13 + 6},
    {"pointer to a suffix", HDR0 "n:www.example.com l:mail p:16", 29, DNS_OK,
        "mail.example.com", 16, 29 + 7},
    {"bare pointer", HDR0 "n:example.com p:12", 25, DNS_OK, "example.com", 11,
        27},
    {"two hops", HDR0 "n:com l:example p:12 l:www p:17", 27, DNS_OK,
        "www.example.com", 15, 33},
    {"pointer to pointer", HDR0 "n:a.b p:12 p:17", 19, DNS_OK, "a.b", 3, 21},
    {"end after first pointer", HDR0 "n:b l:a p:12 ff ff", 15, DNS_OK, "a.b", 3,
        19},
    {"label of 63", HDR0 "L:63:x 00", 12, DNS_OK, NULL, 63, 12 + 65},
    {"name of 255 octets", HDR0 "R:127:0161 00", 12, DNS_OK, NULL, 253,
        12 + 255},
    {"253 with long labels", HDR0 "L:63:a L:63:b L:63:c L:61:d 00", 12, DNS_OK,
        NULL, 253, 12 + 255},
    {"non-LDH kept", HDR0 "l:a_b 01ff 03203a40 00", 12, DNS_OK, "a_b.\xff. :@",
        9, 12 + 11},
    {"empty message", "", 0, DNS_ERR_SHORT, NULL, 0, 0},
    {"offset at end", HDR0, 12, DNS_ERR_SHORT, NULL, 0, 0},
    {"offset past end", HDR0, 13, DNS_ERR_SHORT, NULL, 0, 0},
    {"no terminator", HDR0 "l:www l:example", 12, DNS_ERR_SHORT, NULL, 0, 0},
    {"label runs past end", HDR0 "05 6162", 12, DNS_ERR_SHORT, NULL, 0, 0},
    {"half pointer", HDR0 "l:a c0", 12, DNS_ERR_SHORT, NULL, 0, 0},
    {"label of 64", HDR0 "L:64:x 00", 12, DNS_ERR_NAME, NULL, 0, 0},
    {"label type 0x40", HDR0 "41 00", 12, DNS_ERR_NAME, NULL, 0, 0},
    {"label type 0x80", HDR0 "80 00", 12, DNS_ERR_NAME, NULL, 0, 0},
    {"name of 257 octets", HDR0 "R:128:0161 00", 12, DNS_ERR_NAME, NULL, 0, 0},
    {"256 with long labels", HDR0 "L:63:a L:63:b L:63:c L:62:d 00", 12,
        DNS_ERR_NAME, NULL, 0, 0},
    {"too long through a pointer", HDR0 "L:63:a L:63:b L:63:c 00 L:63:d p:12",
        12 + 193, DNS_ERR_NAME, NULL, 0, 0},
    {"dot in a label", HDR0 "03 612e62 00", 12, DNS_ERR_NAME, NULL, 0, 0},
    {"NUL in a label", HDR0 "03 610062 00", 12, DNS_ERR_NAME, NULL, 0, 0},
    {"dot in a label behind a pointer", HDR0 "03 612e62 00 l:x p:12", 17,
        DNS_ERR_NAME, NULL, 0, 0},
    {"self pointer", HDR0 "c00c", 12, DNS_ERR_POINTER, NULL, 0, 0},
    {"forward pointer", HDR0 "c00e n:a", 12, DNS_ERR_POINTER, NULL, 0, 0},
    {"pointer into header", HDR0 "c000", 12, DNS_ERR_POINTER, NULL, 0, 0},
    {"pointer to header end", HDR0 "c00b", 12, DNS_ERR_POINTER, NULL, 0, 0},
    {"two-pointer cycle", HDR0 "c00e c00c", 14, DNS_ERR_POINTER, NULL, 0, 0},
    {"label then pointer to itself", HDR0 "01 61 c00c", 12, DNS_ERR_POINTER,
        NULL, 0, 0},
    {"pointer back into its own labels", HDR0 "n:x 01 61 c00f ff c00f", 20,
        DNS_ERR_POINTER, NULL, 0, 0},
    {"pointer past end", HDR0 "n:a c0ff", 15, DNS_ERR_POINTER, NULL, 0, 0},
    {"high pointer bits", HDR0 "n:a ff0c", 15, DNS_ERR_POINTER, NULL, 0, 0},
};

static void
test_names(void)
{
	static uint8_t msg[SPEC_MAX];
	size_t i;

	for (i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
		const struct name_case *t = &name_cases[i];
		size_t len = spec_build(t->msg, msg), off = t->off;
		size_t out_len = 9999;
		char out[DNS_NAME_MAX + 1];
		const uint8_t *g;
		enum dns_result r;

		r = dns_name_read(msg, len, &off, out, &out_len);
		tap_is_int(r, t->want, "name %s: result", t->name);
		if (t->want == DNS_OK) {
			tap_ok(out_len == t->want_len &&
			        strlen(out) == out_len &&
			        (t->want_name == NULL ||
			            strcmp(out, t->want_name) == 0) &&
			        off == t->want_end,
			    "name %s: '%s' len %zu end %zu", t->name, out,
			    out_len, off);
		} else {
			tap_is_int(
			    off, t->off, "name %s: offset unchanged", t->name);
		}
		g = tap_guard_copy(&guard, msg, len);
		off = t->off;
		tap_is_int(dns_name_read(g, len, &off, NULL, NULL), t->want,
		    "name %s: guard page, no output", t->name);
	}
}

/* A chain of n pointers, each to the one before, ending at the root. */
static void
test_name_hops(void)
{
	static uint8_t msg[12 + 1 + 2 * 200];
	size_t n, k;

	for (n = DNS_NAME_HOPS_MAX - 1; n <= DNS_NAME_HOPS_MAX + 2; n++) {
		size_t len = 13, off;
		char out[DNS_NAME_MAX + 1];
		size_t out_len;
		enum dns_result want =
		    n <= DNS_NAME_HOPS_MAX ? DNS_OK : DNS_ERR_POINTER;
		const uint8_t *g;

		memset(msg, 0, sizeof(msg));
		for (k = 0; k < n; k++) {
			size_t target = k == 0 ? 12 : len - 2;

			msg[len++] = (uint8_t)(0xc0 | target >> 8);
			msg[len++] = (uint8_t)target;
		}
		off = len - 2;
		g = tap_guard_copy(&guard, msg, len);
		tap_is_int(dns_name_read(g, len, &off, out, &out_len), want,
		    "name: %zu pointer hops", n);
	}
}

/* ------------------------------------------------------------------ */
/* Queries */

#define QH                     "1234 0100 0001 0000 0000 0000 "
#define QHE                    "1234 0100 0001 0000 0000 0001 "
#define OPT(size_hex, ttl_hex) " 00 0029 " size_hex " " ttl_hex " 0000"
#define QAIN                   " 0001 0001"

struct query_case {
	const char *name;
	const char *msg;
	enum dns_result want;
	const char *qname;
	int qtype, qclass;
	int edns;         /* -1: none, else the UDP size */
	int version, dob; /* EDNS */
	long err_off;     /* -1: not checked */
	int opcode;       /* checked for errors that still have a header */
	uint16_t id;      /* idem */
};

#define QOK(nm, m, qn, qt, qc) \
	{ \
		nm, m, DNS_OK, qn, qt, qc, -1, 0, 0, -1, 0, 0x1234 \
	}
#define QOKE(nm, m, qn, qt, size, ver, dob) \
	{ \
		nm, m, DNS_OK, qn, qt, 1, size, ver, dob, -1, 0, 0x1234 \
	}
#define QERR(nm, m, res, off) \
	{ \
		nm, m, res, NULL, 0, 0, -1, 0, 0, off, 0, 0x1234 \
	}
#define QERRH(nm, m, res, off, opc, idv) \
	{ \
		nm, m, res, NULL, 0, 0, -1, 0, 0, off, opc, idv \
	}

static const struct query_case query_cases[] = {
    QOK("A", QH "n:www.example.com" QAIN, "www.example.com", 1, 1),
    QOK("AAAA", QH "n:www.example.com 001c 0001", "www.example.com", 28, 1),
    QOK("MX", QH "n:example.com 000f 0001", "example.com", 15, 1),
    QOK("ANY", QH "n:example.com 00ff 0001", "example.com", 255, 1),
    QOK("TXT", QH "n:x.example.com 0010 0001", "x.example.com", 16, 1),
    QOK("PTR", QH "n:1.0.18.198.in-addr.arpa 000c 0001",
        "1.0.18.198.in-addr.arpa", 12, 1),
    QOK("qtype 0", QH "n:example.com 0000 0001", "example.com", 0, 1),
    QOK("qtype 65535", QH "n:example.com ffff 0001", "example.com", 65535, 1),
    QOK("qtype OPT", QH "n:example.com 0029 0001", "example.com", 41, 1),
    QOK("mixed case", QH "n:WwW.ExAmPlE.CoM" QAIN, "WwW.ExAmPlE.CoM", 1, 1),
    QOK("upper case", QH "n:GITHUB.COM 001c 0001", "GITHUB.COM", 28, 1),
    QOK("root name", QH "00" QAIN, "", 1, 1),
    QOK("root NS", QH "00 0002 0001", "", 2, 1),
    QOK("single label", QH "n:localhost" QAIN, "localhost", 1, 1),
    QOK("class CH", QH "n:version.bind 0010 0003", "version.bind", 16, 3),
    QOK("class ANY", QH "n:example.com 0001 00ff", "example.com", 1, 255),
    QOK("no RD", "1234 0000 0001 0000 0000 0000 n:a.example" QAIN, "a.example",
        1, 1),
    QOK("CD and AD", "1234 0130 0001 0000 0000 0000 n:a.example" QAIN,
        "a.example", 1, 1),
    QOK("TC in a query", "1234 0300 0001 0000 0000 0000 n:a.example" QAIN,
        "a.example", 1, 1),
    QOK("rcode bits in a query",
        "1234 0105 0001 0000 0000 0000 n:a.example" QAIN, "a.example", 1, 1),
    {"id 0", "0000 0100 0001 0000 0000 0000 n:a.example" QAIN, DNS_OK,
        "a.example", 1, 1, -1, 0, 0, -1, 0, 0x0000},
    {"id ffff", "ffff 0100 0001 0000 0000 0000 n:a.example" QAIN, DNS_OK,
        "a.example", 1, 1, -1, 0, 0, -1, 0, 0xffff},
    QOK("underscore kept", QH "n:_dmarc.example.com 0010 0001",
        "_dmarc.example.com", 16, 1),
    QOK("high byte kept", QH "01 ff n:example" QAIN, "\xff.example", 1, 1),
    QOK("space kept", QH "03 612062 00" QAIN, "a b", 1, 1),
    QOK("label of 63", QH "L:63:a n:example" QAIN,
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
        "example",
        1, 1),
    QOK("name of 253", QH "L:63:a L:63:b L:63:c L:61:d 00" QAIN,
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb."
        "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc."
        "ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
        1, 1),
    QOK("127 labels", QH "R:127:0178 00" QAIN, NULL, 1, 1),
    QOKE("EDNS 1232", QHE "n:www.example.com" QAIN OPT("04d0", "00000000"),
        "www.example.com", 1, 1232, 0, 0),
    QOKE("EDNS 4096 DO", QHE "n:example.com 001c 0001" OPT("1000", "00008000"),
        "example.com", 28, 4096, 0, 1),
    QOKE("EDNS 512", QHE "n:example.com" QAIN OPT("0200", "00000000"),
        "example.com", 1, 512, 0, 0),
    QOKE("EDNS 100", QHE "n:example.com" QAIN OPT("0064", "00000000"),
        "example.com", 1, 100, 0, 0),
    QOKE("EDNS 0", QHE "n:example.com" QAIN OPT("0000", "00000000"),
        "example.com", 1, 0, 0, 0),
    QOKE("EDNS 65535", QHE "n:example.com" QAIN OPT("ffff", "00000000"),
        "example.com", 1, 65535, 0, 0),
    QOKE("EDNS version 1", QHE "n:example.com" QAIN OPT("04d0", "00010000"),
        "example.com", 1, 1232, 1, 0),
    QOKE("EDNS version 255 DO",
        QHE "n:example.com" QAIN OPT("04d0", "00ff8000"), "example.com", 1,
        1232, 255, 1),
    QOKE("EDNS cookie option",
        QHE "n:example.com 0001 0001 00 0029 04d0 00000000 "
            "{ 000a { 0102030405060708 } }",
        "example.com", 1, 1232, 0, 0),
    QOKE("EDNS two options",
        QHE "n:example.com 0001 0001 00 0029 04d0 00000000 "
            "{ 000a { 0102030405060708 } 000c { 0000 } }",
        "example.com", 1, 1232, 0, 0),
    QOKE("EDNS empty padding",
        QHE "n:example.com 0001 0001 00 0029 04d0 00000000 { 000c 0000 }",
        "example.com", 1, 1232, 0, 0),
    QOKE("EDNS root query", QHE "00 0002 0001" OPT("04d0", "00000000"), "", 2,
        1232, 0, 0),

    QERR("empty", "", DNS_ERR_SHORT, 0),
    QERR("one byte", "12", DNS_ERR_SHORT, 1),
    QERR("11 bytes", "1234 0100 0001 0000 0000 00", DNS_ERR_SHORT, 11),
    QERR("header only", QH, DNS_ERR_SHORT, 12),
    QERRH("QR set", "1234 8100 0001 0000 0000 0000 n:a.example" QAIN,
        DNS_ERR_RESPONSE, 2, 0, 0x1234),
    QERRH("QR set, id ffff", "ffff 8180 0001 0001 0000 0000", DNS_ERR_RESPONSE,
        2, 0, 0xffff),
    QERRH("IQUERY", "beef 0900 0001 0000 0000 0000 n:a.example" QAIN,
        DNS_ERR_NOT_QUERY, 2, 1, 0xbeef),
    QERRH("STATUS", "beef 1000 0000 0000 0000 0000", DNS_ERR_NOT_QUERY, 2, 2,
        0xbeef),
    QERRH("NOTIFY", "0001 2000 0001 0000 0000 0000 n:a.example 0006 0001",
        DNS_ERR_NOT_QUERY, 2, 4, 0x0001),
    QERRH("UPDATE", "0002 2800 0001 0000 0001 0000 n:a.example 0006 0001",
        DNS_ERR_NOT_QUERY, 2, 5, 0x0002),
    QERRH("opcode 15", "0003 7800 0001 0000 0000 0000", DNS_ERR_NOT_QUERY, 2,
        15, 0x0003),
    QERR("QDCOUNT 0", "1234 0100 0000 0000 0000 0000", DNS_ERR_FORMAT, 4),
    QERR("QDCOUNT 0 with question",
        "1234 0100 0000 0000 0000 0000 n:a.example" QAIN, DNS_ERR_FORMAT, 4),
    QERR("QDCOUNT 2",
        "1234 0100 0002 0000 0000 0000 n:a.example" QAIN " n:b.example" QAIN,
        DNS_ERR_TOO_MANY, 4),
    QERR("QDCOUNT 65535", "1234 0100 ffff 0000 0000 0000 n:a.example" QAIN,
        DNS_ERR_TOO_MANY, 4),
    QERR("answer in a query",
        "1234 0100 0001 0001 0000 0000 n:a.example" QAIN
        " p:12 0001 0001 0000012c { c6120001 }",
        DNS_ERR_TOO_MANY, 6),
    QERR("authority in a query",
        "1234 0100 0001 0000 0001 0000 n:a.example" QAIN
        " p:12 0002 0001 0000012c { n:ns.example }",
        DNS_ERR_TOO_MANY, 8),
    QERR("two OPT records",
        "1234 0100 0001 0000 0000 0002 n:a.example" QAIN OPT("04d0", "00000000")
            OPT("04d0", "00000000"),
        DNS_ERR_TOO_MANY, 10),
    QERR("self pointer qname", QH "c00c" QAIN, DNS_ERR_POINTER, 12),
    QERR("pointer into header", QH "c000" QAIN, DNS_ERR_POINTER, 12),
    QERR("pointer to id", QH "l:www c000" QAIN, DNS_ERR_POINTER, 16),
    QERR("forward pointer", QH "c00e n:a.example" QAIN, DNS_ERR_POINTER, 12),
    QERR("label then pointer to itself", QH "l:a c00c" QAIN, DNS_ERR_POINTER,
        14),
    QERR("label of 64", QH "L:64:a n:example" QAIN, DNS_ERR_NAME, 12),
    QERR("label type 0x40", QH "41 00" QAIN, DNS_ERR_NAME, 12),
    QERR("label type 0x80", QH "bf 00" QAIN, DNS_ERR_NAME, 12),
    QERR("name of 256", QH "L:63:a L:63:b L:63:c L:62:d 00" QAIN, DNS_ERR_NAME,
        12 + 192),
    QERR("name of 257", QH "R:128:0178 00" QAIN, DNS_ERR_NAME, 12 + 254),
    QERR("name of 300", QH "R:150:0178 00" QAIN, DNS_ERR_NAME, 12 + 254),
    QERR(
        "dot in a label", QH "09 676f6f642e65766976 00" QAIN, DNS_ERR_NAME, 12),
    QERR("NUL in a label", QH "l:good 04 6576696c 03 0063 00" QAIN,
        DNS_ERR_NAME, 22),
    QERR("question cut in name", QH "l:www l:exa", DNS_ERR_SHORT, 20),
    QERR(
        "question without terminator", QH "l:www l:example", DNS_ERR_SHORT, 24),
    QERR("question without type", QH "n:a.example", DNS_ERR_SHORT, 23),
    QERR("question without class", QH "n:a.example 0001", DNS_ERR_SHORT, 23),
    QERR("question with half class", QH "n:a.example 0001 00", DNS_ERR_SHORT,
        23),
    QERR("trailing byte", QH "n:a.example" QAIN " 00", DNS_ERR_TRAILING, 27),
    QERR("trailing garbage", QH "n:a.example" QAIN " deadbeef",
        DNS_ERR_TRAILING, 27),
    QERR("trailing after OPT",
        QHE "n:a.example" QAIN OPT("04d0", "00000000") " 00", DNS_ERR_TRAILING,
        38),
    QERR("second question unannounced",
        QH "n:a.example" QAIN " n:b.example" QAIN, DNS_ERR_TRAILING, 27),
    QERR("OPT announced, absent", QHE "n:a.example" QAIN, DNS_ERR_SHORT, 27),
    QERR("OPT cut after owner", QHE "n:a.example" QAIN " 00 0029",
        DNS_ERR_SHORT, 28),
    QERR("OPT non-root owner",
        QHE "n:a.example" QAIN " l:x 00 0029 04d0 00000000 0000", DNS_ERR_EDNS,
        27),
    QERR("OPT owner by pointer",
        QHE "n:a.example" QAIN " p:12 0029 04d0 00000000 0000", DNS_ERR_EDNS,
        27),
    QERR("additional A instead of OPT",
        QHE "n:a.example" QAIN " 00 0001 0001 00000000 { c6120001 }",
        DNS_ERR_EDNS, 28),
    QERR("additional TSIG-like",
        QHE "n:a.example" QAIN " n:key 00fa 00ff 00000000 0000", DNS_ERR_EDNS,
        27),
    QERR("OPT RDLENGTH past end",
        QHE "n:a.example" QAIN " 00 0029 04d0 00000000 0004 000a",
        DNS_ERR_SHORT, 38),
    QERR("OPT option past RDLENGTH",
        QHE "n:a.example" QAIN " 00 0029 04d0 00000000 0006 000a 0008 0102",
        DNS_ERR_EDNS, 38),
    QERR("OPT one stray byte",
        QHE "n:a.example" QAIN " 00 0029 04d0 00000000 0001 00", DNS_ERR_EDNS,
        38),
    QERR("OPT three stray bytes",
        QHE "n:a.example" QAIN " 00 0029 04d0 00000000 0003 000a 00",
        DNS_ERR_EDNS, 38),
};

/* A presentation name as dns_name_read promises it: NUL-terminated at its
 * length, labels of 1..63 octets, no empty label. */
static bool
name_shape_ok(const char *name, size_t len)
{
	size_t i, start = 0;

	if (len > DNS_NAME_MAX || strlen(name) != len)
		return false;
	for (i = 0; i <= len && len > 0; i++) {
		if (i < len && name[i] != '.')
			continue;
		if (i == start || i - start > DNS_LABEL_MAX)
			return false;
		start = i + 1;
	}
	return true;
}

/* Whatever a parse returned, the output must be self-consistent. */
static bool
query_sane(enum dns_result r, const struct dns_query *q, size_t len)
{
	if (r != DNS_OK)
		return q->err_off <= len || q->err_off == DNS_MSG_MAX;
	return q->has_header && name_shape_ok(q->qname, q->qname_len) &&
	    q->question_len >= 5 && q->question_len <= DNS_QUESTION_MAX &&
	    q->question_len + DNS_HEADER_LEN <= len;
}

/* Every prefix of a message is a different, shorter message: it must be
 * rejected, and on a guard page. Returns the first prefix that was not. */
static long
query_prefixes(const uint8_t *msg, size_t len)
{
	struct dns_query q;
	size_t k;

	for (k = 0; k < len; k++) {
		const uint8_t *g = tap_guard_copy(&guard, msg, k);
		enum dns_result r = dns_parse_query(g, k, &q);

		if (r == DNS_OK || !query_sane(r, &q, k))
			return (long)k;
	}
	return -1;
}

/* Every single-byte change of a message: no crash, and an OK result must
 * still be consistent. Returns the first offending offset. */
static long
query_mutations(const uint8_t *msg, size_t len)
{
	static const uint8_t xors[] = {
	    0x01, 0x20, 0x2e, 0x40, 0x80, 0xc0, 0xff};
	static uint8_t m[SPEC_MAX];
	struct dns_query q;
	size_t k, x;

	memcpy(m, msg, len);
	for (k = 0; k < len; k++) {
		for (x = 0; x < sizeof(xors); x++) {
			const uint8_t *g;
			enum dns_result r;

			m[k] = msg[k] ^ xors[x];
			g = tap_guard_copy(&guard, m, len);
			r = dns_parse_query(g, len, &q);
			if (!query_sane(r, &q, len))
				return (long)k;
		}
		m[k] = msg[k];
	}
	return -1;
}

static void
test_queries(void)
{
	static uint8_t msg[SPEC_MAX];
	size_t i;

	for (i = 0; i < sizeof(query_cases) / sizeof(query_cases[0]); i++) {
		const struct query_case *t = &query_cases[i];
		size_t len = spec_build(t->msg, msg);
		struct dns_query q, qg;
		enum dns_result r, rg;
		long bad;

		corpus_dump("query", t->name, msg, len);
		r = dns_parse_query(msg, len, &q);
		tap_is_int(
		    r, t->want, "query %s: %s", t->name, dns_strerror(t->want));
		rg =
		    dns_parse_query(tap_guard_copy(&guard, msg, len), len, &qg);
		tap_ok(rg == r && memcmp(&q, &qg, sizeof(q)) == 0,
		    "query %s: same on a guard page", t->name);
		tap_ok(query_sane(r, &q, len), "query %s: output consistent",
		    t->name);
		if (t->want == DNS_OK) {
			bool edns_ok = t->edns < 0 ?
			    !q.edns.present :
			    q.edns.present && q.edns.udp_size == t->edns &&
			        q.edns.version == t->version &&
			        q.edns.do_bit == (t->dob != 0);

			tap_ok((t->qname == NULL ||
			           strcmp(q.qname, t->qname) == 0) &&
			        q.qtype == t->qtype && q.qclass == t->qclass &&
			        q.id == t->id && edns_ok,
			    "query %s: qname '%s' type %u class %u edns %d/%u",
			    t->name, q.qname, q.qtype, q.qclass,
			    q.edns.present ? q.edns.udp_size : -1,
			    q.edns.version);
			tap_ok(q.question_len ==
			            q.qname_len + 1 + (q.qname_len > 0) + 4 &&
			        memcmp(q.question, msg + 12, q.question_len) ==
			            0,
			    "query %s: question bytes kept (%zu)", t->name,
			    q.question_len);
			bad = query_prefixes(msg, len);
			if (!tap_ok(bad < 0, "query %s: all %zu prefixes fail",
			        t->name, len))
				tap_diag("prefix of %ld accepted", bad);
		} else {
			if (t->err_off >= 0)
				tap_is_int(q.err_off, t->err_off,
				    "query %s: error offset", t->name);
			if (len >= 12)
				tap_ok(q.has_header && q.id == t->id &&
				        q.opcode == t->opcode,
				    "query %s: header kept (id %04x op %u)",
				    t->name, q.id, q.opcode);
			else
				tap_ok(!q.has_header, "query %s: no header",
				    t->name);
		}
		bad = query_mutations(msg, len);
		if (!tap_ok(bad < 0, "query %s: byte mutations", t->name))
			tap_diag("mutation at %ld", bad);
	}
}

static void
test_query_too_long(void)
{
	static uint8_t msg[DNS_MSG_MAX + 2];
	struct dns_query q;
	size_t len;

	len = spec_build(QH "n:a.example" QAIN, msg);
	memset(msg + len, 0, sizeof(msg) - len);
	tap_is_int(dns_parse_query(msg, sizeof(msg), &q), DNS_ERR_FORMAT,
	    "query: longer than 65535 refused");
	tap_is_int(dns_parse_query(msg, DNS_MSG_MAX, &q), DNS_ERR_TRAILING,
	    "query: 65535 with padding is trailing garbage");
}

/* ------------------------------------------------------------------ */
/* Upstream responses */

#define RH(an, ns, ar) "1234 8180 0001 " an " " ns " " ar " "
#define GQ             "n:good.example 0001 0001 "
#define GQ6            "n:good.example 001c 0001 "
#define A1             "0001 0001 0000012c { c6120001 } "
#define A2             "0001 0001 0000003c { c6120002 } "
#define V6_1           "20010db8000000000000000000000001"
#define AAAA1          "001c 0001 0000012c { " V6_1 " } "
#define CN(t)          "0005 0001 0000012c { n:" t " } "

/* clang-format off */
#define CHAIN_TO_C8							\
	"p:12 " CN("c1.example")					\
	"n:c1.example " CN("c2.example")				\
	"n:c2.example " CN("c3.example")				\
	"n:c3.example " CN("c4.example")				\
	"n:c4.example " CN("c5.example")				\
	"n:c5.example " CN("c6.example")				\
	"n:c6.example " CN("c7.example")				\
	"n:c7.example " CN("c8.example")
/* clang-format on */

struct resp_case {
	const char *name;
	const char *msg;
	const char *qname;
	uint16_t qtype;
	enum dns_result want;
	const char *answers; /* summary, for DNS_OK */
	unsigned rcode;
	size_t ignored;
};

#define ROK(nm, m, summ) \
	{ \
		nm, m, "good.example", DNS_TYPE_A, DNS_OK, summ, 0, 0 \
	}
#define ROKI(nm, m, summ, ign) \
	{ \
		nm, m, "good.example", DNS_TYPE_A, DNS_OK, summ, 0, ign \
	}
#define RERR(nm, m, res) \
	{ \
		nm, m, "good.example", DNS_TYPE_A, res, NULL, 0, 0 \
	}

static const struct resp_case resp_cases[] = {
    ROK("one A", RH("0001", "0000", "0000") GQ "p:12 " A1, "A 198.18.0.1/300"),
    ROK("two A", RH("0002", "0000", "0000") GQ "p:12 " A1 "p:12 " A2,
        "A 198.18.0.1/300, A 198.18.0.2/60"),
    ROK("owner uncompressed",
        RH("0001", "0000", "0000") GQ "n:good.example " A1, "A 198.18.0.1/300"),
    ROK("owner in other case",
        RH("0001", "0000", "0000") GQ "n:GOOD.Example " A1, "A 198.18.0.1/300"),
    ROK("question in other case",
        RH("0001", "0000", "0000") "n:GoOd.EXAMPLE 0001 0001 p:12 " A1,
        "A 198.18.0.1/300"),
    ROK("owner as label plus pointer",
        RH("0001", "0000", "0000") GQ "l:good p:17 " A1, "A 198.18.0.1/300"),
    ROK("no answer", RH("0000", "0000", "0000") GQ, ""),
    ROK("TTL 0",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 00000000 { c6120001 }",
        "A 198.18.0.1/0"),
    ROK("TTL with the high bit",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 ffffffff { c6120001 }",
        "A 198.18.0.1/4294967295"),
    ROK("metadata address kept for the caller",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 0000012c { a9fea9fe }",
        "A 169.254.169.254/300"),
    {"AAAA", RH("0001", "0000", "0000") GQ6 "p:12 " AAAA1, "good.example",
        DNS_TYPE_AAAA, DNS_OK, "AAAA 2001:db8::1/300", 0, 0},
    {"AAAA and A in AAAA reply",
        RH("0002", "0000", "0000") GQ6 "p:12 " A1 "p:12 " AAAA1, "good.example",
        DNS_TYPE_AAAA, DNS_OK, "AAAA 2001:db8::1/300", 0, 1},
    ROKI("AAAA in A reply ignored", RH("0001", "0000", "0000") GQ "p:12 " AAAA1,
        "", 1),
    ROKI("TXT ignored",
        RH("0002", "0000", "0000") GQ
        "p:12 0010 0001 0000012c { l:hello } p:12 " A1,
        "A 198.18.0.1/300", 1),
    ROKI("class CH A ignored, odd size allowed",
        RH("0002", "0000", "0000") GQ
        "p:12 0001 0003 0000012c { 010203 } p:12 " A1,
        "A 198.18.0.1/300", 1),
    ROKI("other name ignored",
        RH("0001", "0000", "0000") GQ "n:evil.example " A1, "", 1),
    ROKI("other name ignored, ours kept",
        RH("0002", "0000", "0000") GQ "n:evil.example " A1 "p:12 " A2,
        "A 198.18.0.2/60", 1),
    ROKI("subdomain of ours ignored",
        RH("0001", "0000", "0000") GQ "n:x.good.example " A1, "", 1),
    ROKI("parent of ours ignored",
        RH("0001", "0000", "0000") GQ "n:example " A1, "", 1),
    ROKI("suffix trick ignored",
        RH("0001", "0000", "0000") GQ "n:good.example.evil " A1, "", 1),
    ROK("CNAME in order",
        RH("0002", "0000", "0000") GQ "p:12 " CN("b.example") "n:b.example " A1,
        "CNAME b.example/300, A 198.18.0.1/300"),
    ROK("CNAME out of order",
        RH("0002", "0000", "0000") GQ "n:b.example " A1 "p:12 " CN("b.example"),
        "CNAME b.example/300, A 198.18.0.1/300"),
    ROK("CNAME target compressed",
        RH("0002", "0000", "0000") GQ "p:12 0005 0001 0000012c { l:cdn p:17 } "
                                      "n:cdn.example " A1,
        "CNAME cdn.example/300, A 198.18.0.1/300"),
    ROK("CNAME target and owner compressed",
        RH("0002", "0000", "0000") GQ
        "p:12 0005 0001 0000012c { m:t l:cdn p:17 } "
        "P:t " A1,
        "CNAME cdn.example/300, A 198.18.0.1/300"),
    ROK("CNAME target case",
        RH("0002", "0000", "0000") GQ "p:12 " CN("B.Example") "n:b.EXAMPLE " A1,
        "CNAME B.Example/300, A 198.18.0.1/300"),
    ROK("chain of 3 reversed",
        RH("0004", "0000", "0000") GQ "n:d.example " A1 "n:c.example " CN(
            "d.example") "n:b.example " CN("c.example") "p:12 " CN("b.example"),
        "CNAME b.example/300, CNAME c.example/300, CNAME d.example/300, "
        "A 198.18.0.1/300"),
    ROK("chain of 3 shuffled",
        RH("0004", "0000", "0000") GQ "n:c.example " CN("d.example") "p:12 " CN(
            "b.example") "n:d.example " A1 "n:b.example " CN("c.example"),
        "CNAME b.example/300, CNAME c.example/300, CNAME d.example/300, "
        "A 198.18.0.1/300"),
    /* clang-format off */
    ROK("chain of 8",
	RH("0009", "0000", "0000") GQ CHAIN_TO_C8 "n:c8.example " A1,
	"CNAME c1.example/300, CNAME c2.example/300, CNAME c3.example/300, "
	"CNAME c4.example/300, CNAME c5.example/300, CNAME c6.example/300, "
	"CNAME c7.example/300, CNAME c8.example/300, A 198.18.0.1/300"),
    RERR("chain of 9",
	RH("0009", "0000", "0000") GQ CHAIN_TO_C8 "n:c8.example "
	CN("c9.example"),
	DNS_ERR_CHAIN),
    /* clang-format on */
    RERR("CNAME to itself",
        RH("0001", "0000", "0000") GQ "p:12 " CN("good.example"),
        DNS_ERR_CHAIN),
    RERR("CNAME loop of 2",
        RH("0002", "0000", "0000") GQ
        "p:12 " CN("b.example") "n:b.example " CN("good.example"),
        DNS_ERR_CHAIN),
    RERR("CNAME loop of 3 with A",
        RH("0004", "0000", "0000") GQ "p:12 " CN("b.example") "n:b.example " CN(
            "c.example") "n:c.example " CN("GOOD.example") "n:c.example " A1,
        DNS_ERR_CHAIN),
    RERR("two CNAMEs for the qname",
        RH("0002", "0000", "0000") GQ
        "p:12 " CN("b.example") "p:12 " CN("c.example"),
        DNS_ERR_CHAIN),
    RERR("same CNAME twice",
        RH("0002", "0000", "0000") GQ
        "p:12 " CN("b.example") "p:12 " CN("b.example"),
        DNS_ERR_CHAIN),
    ROKI("A of an intermediate name ignored",
        RH("0003", "0000", "0000") GQ "p:12 " A2
                                      "p:12 " CN("b.example") "n:b.example " A1,
        "CNAME b.example/300, A 198.18.0.1/300", 1),
    ROKI("CNAME elsewhere ignored",
        RH("0002", "0000", "0000") GQ
        "n:evil.example " CN("good.example") "p:12 " A1,
        "A 198.18.0.1/300", 1),
    ROKI("CNAME to the qname from elsewhere ignored",
        RH("0002", "0000", "0000") GQ "n:x.example " CN("x.example") "p:12 " A1,
        "A 198.18.0.1/300", 1),
    ROK("CNAME without address",
        RH("0001", "0000", "0000") GQ "p:12 " CN("b.example"),
        "CNAME b.example/300"),
    ROK("CNAME to an outside name kept for the caller",
        RH("0002", "0000", "0000") GQ
        "p:12 " CN("evil.example") "n:evil.example "
                                   "0001 0001 0000012c { 0a000001 }",
        "CNAME evil.example/300, A 10.0.0.1/300"),
    ROKI("CNAME in authority ignored",
        RH("0001", "0001", "0000") GQ "p:12 " A1 "p:12 " CN("b.example"),
        "A 198.18.0.1/300", 0),
    {"NXDOMAIN with SOA",
        "1234 8183 0001 0000 0001 0000 " GQ
        "n:example 0006 0001 00000e10 { n:ns.example "
        "n:host.example 00000001 00000002 00000003 00000004 00000005 }",
        "good.example", DNS_TYPE_A, DNS_OK, "", 3, 0},
    {"SERVFAIL", "1234 8182 0001 0000 0000 0000 " GQ, "good.example",
        DNS_TYPE_A, DNS_OK, "", 2, 0},
    {"REFUSED", "1234 8185 0001 0000 0000 0000 " GQ, "good.example", DNS_TYPE_A,
        DNS_OK, "", 5, 0},
    {"NXDOMAIN after CNAME",
        "1234 8183 0001 0001 0000 0000 " GQ "p:12 " CN("gone.example"),
        "good.example", DNS_TYPE_A, DNS_OK, "CNAME gone.example/300", 3, 0},
    {"BADVERS via OPT",
        "1234 8180 0001 0000 0000 0001 " GQ " 00 0029 04d0 01000000 0000",
        "good.example", DNS_TYPE_A, DNS_OK, "", 16, 0},
    ROK("NS and glue",
        RH("0001", "0001", "0001") GQ
        "p:12 " A1 "n:example 0002 0001 0000012c { n:ns1.example } "
        "n:ns1.example " A2,
        "A 198.18.0.1/300"),
    ROK("OPT in additional",
        RH("0001", "0000", "0001") GQ "p:12 " A1 OPT("04d0", "00000000"),
        "A 198.18.0.1/300"),
    ROK("OPT with options",
        RH("0001", "0000", "0001") GQ
        "p:12 " A1
        " 00 0029 1000 00008000 { 000a { 01020304050607080910111213141516 } }",
        "A 198.18.0.1/300"),
    ROKI("empty RDATA of other type",
        RH("0002", "0000", "0000") GQ "p:12 00fe 0001 00000000 0000 p:12 " A1,
        "A 198.18.0.1/300", 1),
    ROK("AA and no RA", "1234 8500 0001 0001 0000 0000 " GQ "p:12 " A1,
        "A 198.18.0.1/300"),

    RERR("empty", "", DNS_ERR_SHORT),
    RERR("header only, short", "1234 8180 0001 0000 0000", DNS_ERR_SHORT),
    RERR("QR clear", "1234 0180 0001 0001 0000 0000 " GQ "p:12 " A1,
        DNS_ERR_NOT_RESPONSE),
    RERR("id mismatch", "1235 8180 0001 0001 0000 0000 " GQ "p:12 " A1,
        DNS_ERR_ID),
    RERR("id byte-swapped", "3412 8180 0001 0001 0000 0000 " GQ "p:12 " A1,
        DNS_ERR_ID),
    RERR("opcode STATUS", "1234 9180 0001 0001 0000 0000 " GQ "p:12 " A1,
        DNS_ERR_NOT_QUERY),
    RERR("no question", "1234 8180 0000 0001 0000 0000 n:good.example " A1,
        DNS_ERR_QUESTION),
    RERR("header-only FORMERR", "1234 8181 0000 0000 0000 0000",
        DNS_ERR_QUESTION),
    RERR("two questions", "1234 8180 0002 0000 0000 0000 " GQ GQ,
        DNS_ERR_TOO_MANY),
    RERR("other qname",
        RH("0001", "0000", "0000") "n:evil.example 0001 0001 p:12 " A1,
        DNS_ERR_QUESTION),
    RERR("qname with extra label",
        RH("0001", "0000", "0000") "n:good.example.com 0001 0001 p:12 " A1,
        DNS_ERR_QUESTION),
    RERR("qname prefix",
        RH("0001", "0000", "0000") "n:good.exampl 0001 0001 p:12 " A1,
        DNS_ERR_QUESTION),
    RERR("qname with dot in label",
        RH("0001", "0000",
            "0000") "0c 676f6f642e6578616d706c65 00 0001 0001 p:12 " A1,
        DNS_ERR_NAME),
    RERR("other qtype", RH("0001", "0000", "0000") GQ6 "p:12 " A1,
        DNS_ERR_QUESTION),
    RERR("other qclass",
        RH("0001", "0000", "0000") "n:good.example 0001 0003 p:12 " A1,
        DNS_ERR_QUESTION),
    RERR("question cut", RH("0000", "0000", "0000") "n:good.example 0001",
        DNS_ERR_SHORT),
    RERR("TC set", "1234 8380 0001 0000 0000 0000 " GQ,
        DNS_ERR_TRUNCATED_RESPONSE),
    RERR("TC set with cut answer",
        "1234 8380 0001 0002 0000 0000 " GQ "p:12 " A1 "p:12 0001",
        DNS_ERR_TRUNCATED_RESPONSE),
    RERR("A RDLENGTH 3",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 0000012c { c61200 }",
        DNS_ERR_RDATA),
    RERR("A RDLENGTH 5",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 0000012c { c612000101 }",
        DNS_ERR_RDATA),
    RERR("A RDLENGTH 16",
        RH("0001", "0000", "0000") GQ
        "p:12 0001 0001 0000012c { 20010db8000000000000000000000001 }",
        DNS_ERR_RDATA),
    RERR("A RDLENGTH 0",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 0000012c 0000",
        DNS_ERR_RDATA),
    {"AAAA RDLENGTH 4",
        RH("0001", "0000", "0000") GQ6 "p:12 001c 0001 0000012c { c6120001 }",
        "good.example", DNS_TYPE_AAAA, DNS_ERR_RDATA, NULL, 0, 0},
    {"AAAA RDLENGTH 15",
        RH("0001", "0000", "0000") GQ6
        "p:12 001c 0001 0000012c { 20010db80000000000000000000000 }",
        "good.example", DNS_TYPE_AAAA, DNS_ERR_RDATA, NULL, 0, 0},
    RERR("AAAA RDLENGTH 4 in A reply",
        RH("0001", "0000", "0000") GQ "p:12 001c 0001 0000012c { c6120001 }",
        DNS_ERR_RDATA),
    RERR("bad A of another name",
        RH("0002", "0000", "0000") GQ
        "p:12 " A1 "n:evil.example 0001 0001 0000012c { c61200 }",
        DNS_ERR_RDATA),
    RERR("bad A in additional",
        RH("0001", "0000", "0001") GQ
        "p:12 " A1 "n:ns.example 0001 0001 0000012c { c6120001ff }",
        DNS_ERR_RDATA),
    RERR("CNAME with extra byte",
        RH("0001", "0000", "0000") GQ
        "p:12 0005 0001 0000012c { n:b.example 00 }",
        DNS_ERR_RDATA),
    RERR("CNAME cut short",
        RH("0002", "0000", "0000") GQ
        "p:12 0005 0001 0000012c 0003 l:b.example p:12 " A1,
        DNS_ERR_RDATA),
    RERR("CNAME empty",
        RH("0001", "0000", "0000") GQ "p:12 0005 0001 0000012c 0000",
        DNS_ERR_RDATA),
    RERR("CNAME forward pointer",
        RH("0002", "0000", "0000") GQ
        "p:12 0005 0001 0000012c { p:60 } p:12 " A1,
        DNS_ERR_POINTER),
    RERR("CNAME self pointer",
        RH("0001", "0000", "0000") GQ "p:12 0005 0001 0000012c { p:42 }",
        DNS_ERR_POINTER),
    RERR("CNAME dot in label",
        RH("0001", "0000", "0000") GQ
        "p:12 0005 0001 0000012c { 03 612e62 00 }",
        DNS_ERR_NAME),
    RERR("CNAME label 64",
        RH("0001", "0000", "0000") GQ "p:12 0005 0001 0000012c { L:64:x 00 }",
        DNS_ERR_NAME),
    RERR("owner pointer loop", RH("0001", "0000", "0000") GQ "c01e " A1,
        DNS_ERR_POINTER),
    RERR("owner forward pointer", RH("0001", "0000", "0000") GQ "c020 " A1,
        DNS_ERR_POINTER),
    RERR("owner into header", RH("0001", "0000", "0000") GQ "c002 " A1,
        DNS_ERR_POINTER),
    RERR("RDLENGTH past end",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 0000012c 0004 c612",
        DNS_ERR_SHORT),
    RERR("RR cut in fixed part",
        RH("0001", "0000", "0000") GQ "p:12 0001 0001 00", DNS_ERR_SHORT),
    RERR("ANCOUNT too high", RH("0002", "0000", "0000") GQ "p:12 " A1,
        DNS_ERR_SHORT),
    RERR("ANCOUNT too low", RH("0001", "0000", "0000") GQ "p:12 " A1 "p:12 " A2,
        DNS_ERR_TRAILING),
    RERR("ARCOUNT 65535", RH("0001", "0000", "ffff") GQ "p:12 " A1,
        DNS_ERR_SHORT),
    RERR("trailing byte", RH("0001", "0000", "0000") GQ "p:12 " A1 "00",
        DNS_ERR_TRAILING),
    RERR("OPT in answer",
        RH("0002", "0000", "0000") GQ "p:12 " A1 OPT("04d0", "00000000"),
        DNS_ERR_EDNS),
    RERR("OPT in authority",
        RH("0001", "0001", "0000") GQ "p:12 " A1 OPT("04d0", "00000000"),
        DNS_ERR_EDNS),
    RERR("two OPTs",
        RH("0001", "0000", "0002") GQ "p:12 " A1 OPT("04d0", "00000000")
            OPT("04d0", "00000000"),
        DNS_ERR_EDNS),
    RERR("OPT non-root",
        RH("0001", "0000", "0001") GQ "p:12 " A1
                                      "l:x 00 0029 04d0 00000000 0000",
        DNS_ERR_EDNS),
    RERR("OPT bad option",
        RH("0001", "0000", "0001") GQ
        "p:12 " A1 "00 0029 04d0 00000000 { 000a 0010 0102 }",
        DNS_ERR_EDNS),
};

static bool
resp_sane(enum dns_result r, const struct dns_response_info *info,
    const struct dns_answer *a, size_t n, size_t max, size_t len)
{
	size_t i;

	if (r != DNS_OK)
		return n == 0 &&
		    (info->err_off <= len || info->err_off == DNS_MSG_MAX);
	if (n > max || info->ncname + info->naddr != n ||
	    info->ncname > DNS_CNAME_CHAIN_MAX)
		return false;
	for (i = 0; i < n; i++) {
		if (i < info->ncname) {
			if (a[i].type != DNS_TYPE_CNAME ||
			    !name_shape_ok(a[i].target, a[i].target_len))
				return false;
		} else if (!((a[i].type == DNS_TYPE_A &&
		                 a[i].addr.family == AF_INET) ||
		               (a[i].type == DNS_TYPE_AAAA &&
		                   a[i].addr.family == AF_INET6))) {
			return false;
		}
	}
	return true;
}

#define MAX_ANS 64

static long
resp_prefixes(const uint8_t *msg, size_t len, const struct resp_case *t)
{
	struct dns_answer a[MAX_ANS];
	struct dns_response_info info;
	size_t k, n;

	for (k = 0; k < len; k++) {
		const uint8_t *g = tap_guard_copy(&guard, msg, k);
		enum dns_result r = dns_parse_response(
		    g, k, 0x1234, t->qname, t->qtype, &info, a, MAX_ANS, &n);

		if (r == DNS_OK || !resp_sane(r, &info, a, n, MAX_ANS, k))
			return (long)k;
	}
	return -1;
}

static long
resp_mutations(const uint8_t *msg, size_t len, const struct resp_case *t)
{
	static const uint8_t xors[] = {
	    0x01, 0x20, 0x2e, 0x40, 0x80, 0xc0, 0xff};
	static uint8_t m[SPEC_MAX];
	struct dns_answer a[MAX_ANS];
	struct dns_response_info info;
	size_t k, x, n;

	memcpy(m, msg, len);
	for (k = 0; k < len; k++) {
		for (x = 0; x < sizeof(xors); x++) {
			const uint8_t *g;
			enum dns_result r;

			m[k] = msg[k] ^ xors[x];
			g = tap_guard_copy(&guard, m, len);
			r = dns_parse_response(g, len, 0x1234, t->qname,
			    t->qtype, &info, a, 4, &n);
			if (!resp_sane(r, &info, a, n, 4, len))
				return (long)k;
		}
		m[k] = msg[k];
	}
	return -1;
}

static void
test_responses(void)
{
	static uint8_t msg[SPEC_MAX];
	size_t i;

	for (i = 0; i < sizeof(resp_cases) / sizeof(resp_cases[0]); i++) {
		const struct resp_case *t = &resp_cases[i];
		size_t len = spec_build(t->msg, msg), n = 99, ng = 99;
		struct dns_answer a[MAX_ANS], ag[MAX_ANS];
		struct dns_response_info info, infog;
		enum dns_result r, rg;
		char got[4096];
		long bad;

		corpus_dump("response", t->name, msg, len);
		r = dns_parse_response(msg, len, 0x1234, t->qname, t->qtype,
		    &info, a, MAX_ANS, &n);
		if (!tap_ok(r == t->want, "response %s: %s", t->name,
		        dns_strerror(t->want)))
			tap_diag("got %s at offset %zu", dns_strerror(r),
			    info.err_off);
		rg = dns_parse_response(tap_guard_copy(&guard, msg, len), len,
		    0x1234, t->qname, t->qtype, &infog, ag, MAX_ANS, &ng);
		tap_ok(rg == r && ng == n &&
		        memcmp(&info, &infog, sizeof(info)) == 0 &&
		        memcmp(a, ag, n * sizeof(a[0])) == 0,
		    "response %s: same on a guard page", t->name);
		tap_ok(resp_sane(r, &info, a, n, MAX_ANS, len),
		    "response %s: output consistent", t->name);
		if (t->want != DNS_OK) {
			bad = resp_mutations(msg, len, t);
			if (!tap_ok(bad < 0, "response %s: byte mutations",
			        t->name))
				tap_diag("mutation at %ld", bad);
			continue;
		}
		answers_summary(a, n, got, sizeof(got));
		tap_is_str(got, t->answers, "response %s: answers", t->name);
		tap_ok(info.rcode == t->rcode && info.ignored == t->ignored,
		    "response %s: rcode %u ignored %zu", t->name, info.rcode,
		    info.ignored);
		bad = resp_prefixes(msg, len, t);
		if (!tap_ok(bad < 0, "response %s: all %zu prefixes fail",
		        t->name, len))
			tap_diag("prefix of %ld accepted", bad);
		bad = resp_mutations(msg, len, t);
		if (!tap_ok(bad < 0, "response %s: byte mutations", t->name))
			tap_diag("mutation at %ld", bad);
	}
}

/* Fewer answer slots than records: the chain must fit, addresses are
 * counted as dropped. */
static void
test_response_space(void)
{
	static uint8_t msg[SPEC_MAX];
	struct dns_answer a[4];
	struct dns_response_info info;
	size_t len, n;
	enum dns_result r;

	len = spec_build(RH("0004", "0000", "0000") GQ
	    "p:12 " CN("b.example") "n:b.example " A1 "n:b.example " A2
	                            "n:b.example " A1,
	    msg);
	r = dns_parse_response(
	    msg, len, 0x1234, "good.example", DNS_TYPE_A, &info, a, 2, &n);
	tap_ok(r == DNS_OK && n == 2 && info.ncname == 1 && info.naddr == 1 &&
	        info.dropped == 2,
	    "response: addresses beyond max_answers dropped and counted");
	r = dns_parse_response(
	    msg, len, 0x1234, "good.example", DNS_TYPE_A, &info, a, 1, &n);
	tap_ok(r == DNS_OK && n == 1 && info.dropped == 3,
	    "response: room for the chain only");
	r = dns_parse_response(
	    msg, len, 0x1234, "good.example", DNS_TYPE_A, &info, a, 0, &n);
	tap_ok(r == DNS_ERR_SPACE && n == 0,
	    "response: no room for the chain is DNS_ERR_SPACE");
	r = dns_parse_response(msg, len, 0x1234,
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    DNS_TYPE_A, &info, a, 4, &n);
	tap_is_int(r, DNS_ERR_ARG, "response: expected name over 253 refused");
	len =
	    spec_build(RH("0001", "0000", "0000") "00 0001 0001 p:12 " A1, msg);
	r = dns_parse_response(
	    msg, len, 0x1234, "", DNS_TYPE_A, &info, a, 4, &n);
	tap_ok(r == DNS_OK && n == 1, "response: root question");
	memset(msg, 0, sizeof(msg));
	len = spec_build(RH("0000", "0000", "0000") GQ, msg);
	tap_is_int(dns_parse_response(msg, sizeof(msg), 0x1234, "good.example",
	               DNS_TYPE_A, &info, a, 2, &n),
	    DNS_ERR_FORMAT, "response: longer than 65535 refused");
	tap_is_int(dns_parse_response(msg, len, 0x1234, "good.example",
	               DNS_TYPE_A, &info, a, 2, &n),
	    DNS_OK, "response: same message at its length");
}

/* ------------------------------------------------------------------ */
/* The server's replies */

static void
parse_spec_query(const char *spec, struct dns_query *q, uint8_t *buf)
{
	size_t len = spec_build(spec, buf);
	enum dns_result r = dns_parse_query(buf, len, q);

	if (r != DNS_OK) {
		fprintf(
		    stderr, "test query does not parse: %s\n", dns_strerror(r));
		exit(2);
	}
}

static void
lowercase(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

struct build_case {
	const char *name;
	const char *query;
	const char *answers;
	unsigned rcode;
	int tcp;
	const char *want; /* exact reply, or NULL */
	int tc;           /* the reply must be truncated */
};

static const struct build_case build_cases[] = {
    {"A, exact bytes", QH "n:Www.Example.COM" QAIN, "A 198.18.0.1/60", 0, 0,
        "1234 8180 0001 0001 0000 0000 n:Www.Example.COM 0001 0001 "
        "c00c 0001 0001 0000003c 0004 c6120001",
        0},
    {"AAAA, exact bytes", QH "n:a.example 001c 0001", "AAAA 2001:db8::1/300", 0,
        0,
        "1234 8180 0001 0001 0000 0000 n:a.example 001c 0001 "
        "c00c 001c 0001 0000012c 0010 20010db8000000000000000000000001",
        0},
    {"REFUSED, exact bytes", QH "n:evil.example" QAIN, "", 5, 0,
        "1234 8185 0001 0000 0000 0000 n:evil.example 0001 0001", 0},
    {"REFUSED keeps CD, drops AD and TC",
        "1234 0330 0001 0000 0000 0000 n:evil.example" QAIN, "", 5, 0,
        "1234 8195 0001 0000 0000 0000 n:evil.example 0001 0001", 0},
    {"REFUSED without RD", "1234 0000 0001 0000 0000 0000 n:x.example" QAIN, "",
        5, 0, "1234 8085 0001 0000 0000 0000 n:x.example 0001 0001", 0},
    {"NOTIMP for MX", QH "n:a.example 000f 0001", "", 4, 0,
        "1234 8184 0001 0000 0000 0000 n:a.example 000f 0001", 0},
    {"SERVFAIL with EDNS", QHE "n:a.example" QAIN OPT("1000", "00008000"), "",
        2, 0,
        "1234 8182 0001 0000 0000 0001 n:a.example 0001 0001 "
        "00 0029 04d0 00000000 0000",
        0},
    {"BADVERS", QHE "n:a.example" QAIN OPT("04d0", "00010000"), "", 16, 0,
        "1234 8180 0001 0000 0000 0001 n:a.example 0001 0001 "
        "00 0029 04d0 01000000 0000",
        0},
    {"NXDOMAIN", QH "n:a.example" QAIN, "", 3, 0,
        "1234 8183 0001 0000 0000 0000 n:a.example 0001 0001", 0},
    {"root question", QH "00" QAIN, "", 5, 0,
        "1234 8185 0001 0000 0000 0000 00 0001 0001", 0},
    {"CNAME then A, exact bytes", QH "n:a.example" QAIN,
        "CNAME b.example/300, A 198.18.0.1/60", 0, 0,
        "1234 8180 0001 0002 0000 0000 n:a.example 0001 0001 "
        "c00c 0005 0001 0000012c { m:t n:b.example } "
        "P:t 0001 0001 0000003c 0004 c6120001",
        0},
    {"two CNAMEs then two A", QH "n:a.example" QAIN,
        "CNAME b.example/300, CNAME c.example/30, A 198.18.0.1/60, "
        "A 198.18.0.2/60",
        0, 0,
        "1234 8180 0001 0004 0000 0000 n:a.example 0001 0001 "
        "c00c 0005 0001 0000012c { m:b n:b.example } "
        "P:b 0005 0001 0000001e { m:c n:c.example } "
        "P:c 0001 0001 0000003c 0004 c6120001 "
        "P:c 0001 0001 0000003c 0004 c6120002",
        0},
    {"A with EDNS", QHE "n:a.example" QAIN OPT("04d0", "00000000"),
        "A 198.18.0.1/60", 0, 0,
        "1234 8180 0001 0001 0000 0001 n:a.example 0001 0001 "
        "c00c 0001 0001 0000003c 0004 c6120001 00 0029 04d0 00000000 0000",
        0},
    {"echo of odd case and bytes", QH "l:A_b 01ff n:ExAmple" QAIN,
        "A 198.18.0.1/1", 0, 0,
        "1234 8180 0001 0001 0000 0000 l:A_b 01ff n:ExAmple 0001 0001 "
        "c00c 0001 0001 00000001 0004 c6120001",
        0},
    {"many A over TCP", QH "n:a.example" QAIN,
        "A 198.18.0.1/1, A 198.18.0.2/1, A 198.18.0.3/1, A 198.18.0.4/1, "
        "A 198.18.0.5/1, A 198.18.0.6/1, A 198.18.0.7/1, A 198.18.0.8/1, "
        "A 198.18.0.9/1, A 198.18.0.10/1, A 198.18.0.11/1, A 198.18.0.12/1, "
        "A 198.18.0.13/1, A 198.18.0.14/1, A 198.18.0.15/1, A 198.18.0.16/1, "
        "A 198.18.0.17/1, A 198.18.0.18/1, A 198.18.0.19/1, A 198.18.0.20/1, "
        "A 198.18.0.21/1, A 198.18.0.22/1, A 198.18.0.23/1, A 198.18.0.24/1, "
        "A 198.18.0.25/1, A 198.18.0.26/1, A 198.18.0.27/1, A 198.18.0.28/1, "
        "A 198.18.0.29/1, A 198.18.0.30/1, A 198.18.0.31/1, A 198.18.0.32/1",
        0, 1, NULL, 0},
    {"many A over UDP truncated", QH "n:a.example" QAIN,
        "A 198.18.0.1/1, A 198.18.0.2/1, A 198.18.0.3/1, A 198.18.0.4/1, "
        "A 198.18.0.5/1, A 198.18.0.6/1, A 198.18.0.7/1, A 198.18.0.8/1, "
        "A 198.18.0.9/1, A 198.18.0.10/1, A 198.18.0.11/1, A 198.18.0.12/1, "
        "A 198.18.0.13/1, A 198.18.0.14/1, A 198.18.0.15/1, A 198.18.0.16/1, "
        "A 198.18.0.17/1, A 198.18.0.18/1, A 198.18.0.19/1, A 198.18.0.20/1, "
        "A 198.18.0.21/1, A 198.18.0.22/1, A 198.18.0.23/1, A 198.18.0.24/1, "
        "A 198.18.0.25/1, A 198.18.0.26/1, A 198.18.0.27/1, A 198.18.0.28/1, "
        "A 198.18.0.29/1, A 198.18.0.30/1, A 198.18.0.31/1, A 198.18.0.32/1",
        0, 0, "1234 8380 0001 0000 0000 0000 n:a.example 0001 0001", 1},
    {"long CNAME target", QH "n:a.example" QAIN,
        "CNAME "
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb."
        "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc."
        "ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd/5, "
        "A 198.18.0.1/5",
        0, 0, NULL, 0},
};

static void
test_build(void)
{
	static uint8_t qbuf[SPEC_MAX], want[SPEC_MAX];
	uint8_t out[DNS_MSG_MAX];
	size_t i;

	for (i = 0; i < sizeof(build_cases) / sizeof(build_cases[0]); i++) {
		const struct build_case *t = &build_cases[i];
		struct dns_answer a[64], back[64];
		struct dns_response_info info;
		struct dns_query q;
		size_t na, nb = 0, out_len = 0, max;
		enum dns_result r;
		char lower[DNS_NAME_MAX + 1], sum[8192];

		parse_spec_query(t->query, &q, qbuf);
		na = answers_parse(t->answers, a, 64);
		max = dns_response_max_len(&q, t->tcp);
		r = dns_build_response(&q, t->rcode, a, na, max, out, &out_len);
		tap_is_int(r, DNS_OK, "build %s: result", t->name);
		corpus_dump("reply", t->name, out, out_len);
		if (t->want != NULL) {
			size_t wl = spec_build(t->want, want);

			if (!tap_ok(wl == out_len && memcmp(want, out, wl) == 0,
			        "build %s: bytes", t->name)) {
				size_t k;

				for (k = 0; k < out_len && k < wl; k++)
					if (want[k] != out[k])
						break;
				tap_diag("len %zu want %zu, first diff at %zu",
				    out_len, wl, k);
			}
		}
		tap_ok(out_len <= max && (out[2] & 0x02) == (t->tc ? 2 : 0),
		    "build %s: %zu <= %zu, TC %d", t->name, out_len, max,
		    t->tc);
		snprintf(lower, sizeof(lower), "%s", q.qname);
		lowercase(lower);
		r = dns_parse_response(tap_guard_copy(&guard, out, out_len),
		    out_len, q.id, lower, q.qtype, &info, back, 64, &nb);
		if (t->tc) {
			tap_is_int(r, DNS_ERR_TRUNCATED_RESPONSE,
			    "build %s: parses as truncated", t->name);
			continue;
		}
		answers_summary(back, nb, sum, sizeof(sum));
		tap_ok(r == DNS_OK && strcmp(sum, t->answers) == 0 &&
		        info.rcode == t->rcode,
		    "build %s: round trip (%s) '%s'", t->name, dns_strerror(r),
		    sum);
	}
}

/*
 * The TC boundary computed independently: header, question, n records of
 * 16 (A) or 28 (AAAA) octets behind a 0xc00c owner, 11 for the OPT.
 */
static void
test_build_sizes(void)
{
	static const struct {
		const char *name;
		const char *query;
		int tcp;
		size_t max;
	} cfg[] = {
	    {"UDP", QH "n:www.example.com 00QT 0001", 0, 512},
	    {"UDP EDNS 1232",
	        QHE "n:www.example.com 00QT 0001" OPT("04d0", "00000000"), 0,
	        1232},
	    {"UDP EDNS 4096",
	        QHE "n:www.example.com 00QT 0001" OPT("1000", "00000000"), 0,
	        1232},
	    {"UDP EDNS 600",
	        QHE "n:www.example.com 00QT 0001" OPT("0258", "00000000"), 0,
	        600},
	    {"UDP EDNS 100",
	        QHE "n:www.example.com 00QT 0001" OPT("0064", "00000000"), 0,
	        512},
	    {"UDP EDNS 0",
	        QHE "n:www.example.com 00QT 0001" OPT("0000", "00000000"), 0,
	        512},
	    {"TCP", QH "n:www.example.com 00QT 0001", 1, 65535},
	    {"TCP EDNS 1232",
	        QHE "n:www.example.com 00QT 0001" OPT("04d0", "00000000"), 1,
	        65535},
	};
	static uint8_t qbuf[SPEC_MAX];
	static struct dns_answer a[4000], back[4000];
	static uint8_t out[DNS_MSG_MAX];
	size_t c, n, k;
	int six;

	for (six = 0; six <= 1; six++) {
		for (k = 0; k < 4000; k++) {
			memset(&a[k], 0, sizeof(a[k]));
			a[k].type = six ? DNS_TYPE_AAAA : DNS_TYPE_A;
			a[k].ttl = (uint32_t)k;
			a[k].addr.family = six ? AF_INET6 : AF_INET;
			a[k].addr.b[0] = six ? 0x20 : 198;
			a[k].addr.b[1] = six ? 0x01 : 18;
			a[k].addr.b[six ? 14 : 2] = (uint8_t)(k >> 8);
			a[k].addr.b[six ? 15 : 3] = (uint8_t)k;
		}
		for (c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
			char spec[256], *qt;
			struct dns_query q;
			size_t rr = six ? 28 : 16, edns, max, fails = 0;
			size_t top = cfg[c].tcp ? 2400 : 90, checked = 0;

			snprintf(spec, sizeof(spec), "%s", cfg[c].query);
			qt = strstr(spec, "QT");
			memcpy(qt, six ? "1c" : "01", 2);
			parse_spec_query(spec, &q, qbuf);
			max = dns_response_max_len(&q, cfg[c].tcp);
			edns = q.edns.present ? DNS_OPT_LEN : 0;
			if (!tap_ok(max == cfg[c].max,
			        "size %s %s: max_len %zu", cfg[c].name,
			        six ? "AAAA" : "A", max))
				continue;
			for (n = 0; n <= top; n++) {
				size_t full = 12 + 21 + n * rr + edns;
				size_t trunc = 12 + 21 + edns, out_len = 0, nb;
				bool tc = full > max;
				struct dns_response_info info;
				enum dns_result r;

				r = dns_build_response(
				    &q, 0, a, n, max, out, &out_len);
				if (r != DNS_OK ||
				    out_len != (tc ? trunc : full) ||
				    ((out[2] & 0x02) != 0) != tc) {
					if (fails++ == 0)
						tap_diag("n %zu: %s len %zu", n,
						    dns_strerror(r), out_len);
					continue;
				}
				r = dns_parse_response(out, out_len, 0x1234,
				    "WWW.example.com", q.qtype, &info, back,
				    4000, &nb);
				if (tc ? r != DNS_ERR_TRUNCATED_RESPONSE :
				         (r != DNS_OK || nb != n ||
				             memcmp(back, a,
				                 n * sizeof(a[0])) != 0)) {
					if (fails++ == 0)
						tap_diag("n %zu: parse %s %zu",
						    n, dns_strerror(r), nb);
				}
				checked++;
			}
			tap_ok(fails == 0 && checked == top + 1,
			    "size %s %s: TC exactly past %zu octets, 0..%zu "
			    "records round-trip",
			    cfg[c].name, six ? "AAAA" : "A", max, top);
		}
	}
}

static void
test_build_errors(void)
{
	static uint8_t qbuf[SPEC_MAX];
	uint8_t out[DNS_MSG_MAX];
	struct dns_query q, qe;
	struct dns_answer a[4];
	size_t out_len = 0, n;
	char long_name[300];

	parse_spec_query(QH "n:a.example" QAIN, &q, qbuf);
	parse_spec_query(
	    QHE "n:a.example" QAIN OPT("04d0", "00000000"), &qe, qbuf);

	n = answers_parse("A 198.18.0.1/1", a, 4);
	a[0].addr.family = AF_INET6;
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len),
	    DNS_ERR_ARG, "build: A with an IPv6 address");
	n = answers_parse("AAAA ::1/1", a, 4);
	a[0].addr.family = AF_INET;
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len),
	    DNS_ERR_ARG, "build: AAAA with an IPv4 address");
	n = answers_parse("A 198.18.0.1/1", a, 4);
	a[0].type = DNS_TYPE_MX;
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len),
	    DNS_ERR_ARG, "build: MX answer");
	n = answers_parse("A 198.18.0.1/1, CNAME b.example/1", a, 4);
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len),
	    DNS_ERR_ARG, "build: CNAME after an address");
	n = answers_parse("CNAME b..example/1", a, 4);
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len),
	    DNS_ERR_NAME, "build: CNAME target with an empty label");
	n = answers_parse("CNAME .b.example/1", a, 4);
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len),
	    DNS_ERR_NAME, "build: CNAME target with a leading dot");
	memset(long_name, 'x', 64);
	strcpy(long_name + 64, ".example");
	memset(&a[0], 0, sizeof(a[0]));
	a[0].type = DNS_TYPE_CNAME;
	memcpy(a[0].target, long_name, strlen(long_name) + 1);
	a[0].target_len = strlen(long_name);
	tap_is_int(dns_build_response(&q, 0, a, 1, 512, out, &out_len),
	    DNS_ERR_NAME, "build: CNAME target label of 64");
	a[0].target_len = DNS_NAME_MAX + 2;
	tap_is_int(dns_build_response(&q, 0, a, 1, 512, out, &out_len),
	    DNS_ERR_ARG, "build: CNAME target_len out of bounds");
	n = answers_parse("CNAME b.example./1, A 198.18.0.1/1", a, 4);
	tap_is_int(dns_build_response(&q, 0, a, n, 512, out, &out_len), DNS_OK,
	    "build: CNAME target with a trailing dot");
	tap_is_int(dns_build_response(&q, 16, NULL, 0, 512, out, &out_len),
	    DNS_ERR_ARG, "build: extended rcode without EDNS");
	tap_is_int(dns_build_response(&qe, 4096, NULL, 0, 512, out, &out_len),
	    DNS_ERR_ARG, "build: rcode over 4095");
	tap_is_int(dns_build_response(&qe, 4095, NULL, 0, 512, out, &out_len),
	    DNS_OK, "build: rcode 4095 with EDNS");
	tap_ok(out[3] == 0x8f && out[out_len - 6] == 0xff,
	    "build: rcode 4095 split between header and OPT");
	tap_is_int(
	    dns_build_response(&q, 0, NULL, 0, DNS_MSG_MAX + 1, out, &out_len),
	    DNS_ERR_ARG, "build: max_len over 65535");
	/* "a.example": a question of 15 octets, an A record of 16. */
	tap_is_int(dns_build_response(&q, 5, NULL, 0, 12 + 14, out, &out_len),
	    DNS_ERR_SPACE, "build: question does not fit");
	tap_ok(dns_build_response(&q, 5, NULL, 0, 12 + 15, out, &out_len) ==
	            DNS_OK &&
	        out_len == 27,
	    "build: question just fits");
	tap_is_int(
	    dns_build_response(&qe, 5, NULL, 0, 12 + 15 + 10, out, &out_len),
	    DNS_ERR_SPACE, "build: OPT does not fit");
	n = answers_parse("A 198.18.0.1/1", a, 4);
	tap_is_int(dns_build_response(&q, 0, a, n, 12 + 14, out, &out_len),
	    DNS_ERR_SPACE, "build: with an answer, question does not fit");
	tap_ok(dns_build_response(&q, 0, a, n, 12 + 15 + 15, out, &out_len) ==
	            DNS_OK &&
	        (out[2] & 0x02) && out_len == 12 + 15 && out[7] == 0,
	    "build: one octet short of the answer sets TC");
	tap_ok(dns_build_response(&q, 0, a, n, 12 + 15 + 16, out, &out_len) ==
	            DNS_OK &&
	        !(out[2] & 0x02) && out_len == 12 + 15 + 16 && out[7] == 1,
	    "build: answer just fits");
	tap_ok(dns_build_response(
	           &qe, 0, a, n, 12 + 15 + 16 + 10, out, &out_len) == DNS_OK &&
	        (out[2] & 0x02) && out_len == 12 + 15 + 11 && out[11] == 1,
	    "build: answer fits but not with the OPT: TC, OPT kept");
	memset(&q, 0, sizeof(q));
	tap_is_int(dns_build_response(&q, 0, NULL, 0, 512, out, &out_len),
	    DNS_ERR_ARG, "build: query that did not parse");
}

/* Past 16 KiB no pointer can reach a CNAME target: the owners after it are
 * written out in full. The chain is too long to follow, but the message
 * must be well-formed (DNS_ERR_CHAIN is only reported after that check). */
#define FAR_N 100

static void
test_build_far_owner(void)
{
	static uint8_t qbuf[SPEC_MAX], out[DNS_MSG_MAX];
	static struct dns_answer a[FAR_N];
	struct dns_response_info info;
	struct dns_answer back[16];
	struct dns_query q;
	size_t k, out_len = 0, nb, off, pos = 12 + 15, owner = 12;
	size_t owner_wire = 11, last_owner = 0, full = 0;
	char name[DNS_NAME_MAX + 1];
	enum dns_result r;

	parse_spec_query(QH "n:a.example" QAIN, &q, qbuf);
	/* FAR_N - 1 CNAMEs then an A; the expected layout computed from
	 * RFC 1035 §4.1.4: a pointer has 14 bits of offset. */
	for (k = 0; k < FAR_N; k++) {
		size_t owner_len = owner < 0x4000 ? 2 : owner_wire;

		memset(&a[k], 0, sizeof(a[k]));
		last_owner = pos;
		pos += owner_len + 10;
		if (k < FAR_N - 1) {
			/* Three labels of 63, then a distinct one. */
			a[k].type = DNS_TYPE_CNAME;
			memset(a[k].target, 'a' + (int)(k % 26), 191);
			a[k].target[63] = a[k].target[127] = '.';
			snprintf(a[k].target + 191, sizeof(a[k].target) - 191,
			    ".n%zu", k);
			a[k].target_len = strlen(a[k].target);
			owner = pos;
			owner_wire = a[k].target_len + 2;
			pos += owner_wire;
		} else {
			a[k].type = DNS_TYPE_A;
			a[k].addr.family = AF_INET;
			a[k].addr.b[0] = 198;
			pos += 4;
		}
	}
	full = pos;
	r = dns_build_response(&q, 0, a, FAR_N, DNS_MSG_MAX, out, &out_len);
	tap_ok(r == DNS_OK && !(out[2] & 0x02) && out_len == full,
	    "build far owner: %s, %zu octets (want %zu)", dns_strerror(r),
	    out_len, full);
	off = last_owner;
	tap_ok(owner >= 0x4000 &&
	        dns_name_read(out, out_len, &off, name, NULL) == DNS_OK &&
	        strcmp(name, a[FAR_N - 2].target) == 0 &&
	        off == last_owner + owner_wire,
	    "build far owner: last owner written in full");
	r = dns_parse_response(out, out_len, 0x1234, "a.example", DNS_TYPE_A,
	    &info, back, 16, &nb);
	tap_is_int(r, DNS_ERR_CHAIN, "build far owner: structure valid");
}

static void
test_header_reply(void)
{
	uint8_t out[16], want[16];
	size_t out_len = 0, wl;
	struct dns_query q;
	uint8_t msg[64];

	tap_ok(dns_build_header_reply(0xbeef, 0x0100, DNS_RCODE_FORMERR, out,
	           sizeof(out), &out_len) == DNS_OK &&
	        out_len == 12 &&
	        memcmp(out, want,
	            spec_build("beef 8181 0000 0000 0000 0000", want)) == 0,
	    "header reply: FORMERR");
	wl = spec_build(
	    "0001 2000 0001 0000 0000 0000 n:a.example 0006 0001", msg);
	tap_is_int(dns_parse_query(msg, wl, &q), DNS_ERR_NOT_QUERY,
	    "header reply: NOTIFY is not a query");
	tap_ok(dns_build_header_reply(q.id, q.flags, DNS_RCODE_NOTIMP, out,
	           sizeof(out), &out_len) == DNS_OK &&
	        memcmp(out, want,
	            spec_build("0001 a084 0000 0000 0000 0000", want)) == 0,
	    "header reply: NOTIMP keeps the opcode");
	tap_ok(dns_build_header_reply(0x0102, 0x0110, DNS_RCODE_REFUSED, out,
	           sizeof(out), &out_len) == DNS_OK &&
	        memcmp(out, want,
	            spec_build("0102 8195 0000 0000 0000 0000", want)) == 0,
	    "header reply: CD kept");
	tap_is_int(dns_build_header_reply(1, 0, 16, out, sizeof(out), &out_len),
	    DNS_ERR_ARG, "header reply: rcode 16 refused");
	tap_is_int(dns_build_header_reply(1, 0, 1, out, 11, &out_len),
	    DNS_ERR_SPACE, "header reply: 11 octets of room");
	tap_ok(dns_build_header_reply(0xffff, 0xffff, 1, out, 12, &out_len) ==
	            DNS_OK &&
	        memcmp(out, want,
	            spec_build("ffff f991 0000 0000 0000 0000", want)) == 0,
	    "header reply: all query bits set");
}

static void
test_build_query(void)
{
	static const struct {
		const char *name;
		uint16_t qtype, edns;
		enum dns_result want;
		const char *wire;
	} cases[] = {
	    {"a.example", DNS_TYPE_A, 0, DNS_OK,
	        "abcd 0100 0001 0000 0000 0000 n:a.example 0001 0001"},
	    {"a.example.", DNS_TYPE_AAAA, 0, DNS_OK,
	        "abcd 0100 0001 0000 0000 0000 n:a.example 001c 0001"},
	    {"A.Example", DNS_TYPE_A, 1232, DNS_OK,
	        "abcd 0100 0001 0000 0000 0001 n:A.Example 0001 0001 "
	        "00 0029 04d0 00000000 0000"},
	    {"", DNS_TYPE_NS, 0, DNS_OK,
	        "abcd 0100 0001 0000 0000 0000 00 0002 0001"},
	    {".", DNS_TYPE_NS, 0, DNS_OK,
	        "abcd 0100 0001 0000 0000 0000 00 0002 0001"},
	    {"a..example", DNS_TYPE_A, 0, DNS_ERR_NAME, NULL},
	    {"a.example..", DNS_TYPE_A, 0, DNS_ERR_NAME, NULL},
	    {"..", DNS_TYPE_A, 0, DNS_ERR_NAME, NULL},
	    {".a", DNS_TYPE_A, 0, DNS_ERR_NAME, NULL},
	    {"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	     ".example",
	        DNS_TYPE_A, 0, DNS_ERR_NAME, NULL},
	};
	uint8_t out[600], want[600];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t out_len = 0, wl;
		struct dns_query q;
		enum dns_result r;

		r = dns_build_query(0xabcd, cases[i].name, cases[i].qtype,
		    cases[i].edns, out, sizeof(out), &out_len);
		tap_is_int(r, cases[i].want, "build query '%s': result",
		    cases[i].name);
		if (r != DNS_OK)
			continue;
		wl = spec_build(cases[i].wire, want);
		tap_ok(wl == out_len && memcmp(out, want, wl) == 0,
		    "build query '%s': bytes", cases[i].name);
		tap_ok(dns_parse_query(out, out_len, &q) == DNS_OK &&
		        q.qtype == cases[i].qtype &&
		        q.edns.present == (cases[i].edns != 0),
		    "build query '%s': parses back", cases[i].name);
	}
	tap_is_int(dns_build_query(1, "a.example", 1, 0, out, 26, NULL),
	    DNS_ERR_SPACE, "build query: one octet short");
	tap_is_int(dns_build_query(1, "a.example", 1, 0, out, 22, NULL),
	    DNS_ERR_SPACE, "build query: name does not fit");
	tap_is_int(dns_build_query(1, "a.example", 1, 0, out, 11, NULL),
	    DNS_ERR_SPACE, "build query: header does not fit");
	tap_is_int(dns_build_query(1, "a.example", 1, 1232, out, 37, NULL),
	    DNS_ERR_SPACE, "build query: OPT does not fit");
	{
		char name[300];
		size_t out_len;

		memset(name, 'a', sizeof(name));
		for (i = 1; i < 253; i += 2)
			name[i] = '.';
		name[253] = '\0';
		tap_is_int(
		    dns_build_query(1, name, 1, 0, out, sizeof(out), &out_len),
		    DNS_OK, "build query: 253 characters");
		name[253] = '.';
		name[254] = '\0';
		tap_is_int(
		    dns_build_query(1, name, 1, 0, out, sizeof(out), &out_len),
		    DNS_OK, "build query: 253 characters and a dot");
		name[253] = 'a';
		name[254] = 'a';
		name[255] = '\0';
		tap_is_int(
		    dns_build_query(1, name, 1, 0, out, sizeof(out), &out_len),
		    DNS_ERR_NAME, "build query: 255 characters");
	}
}

/* ------------------------------------------------------------------ */
/* TCP framing */

struct frame_case {
	const char *name;
	const char *bytes;
	enum dns_result want;
	size_t want_len;
};

static const struct frame_case frame_cases[] = {
    {"query", "{ 1234 0100 0001 0000 0000 0000 n:a.example 0001 0001 }", DNS_OK,
        27},
    {"header only", "{ R:12:00 }", DNS_OK, 12},
    {"pipelined", "{ R:12:00 } { R:20:00 }", DNS_OK, 12},
    {"longest", "ffff R:65535:00", DNS_OK, 65535},
    {"length 0", "0000", DNS_ERR_SHORT, 0},
    {"length 1", "0001 00", DNS_ERR_SHORT, 0},
    {"length 11", "000b R:11:00", DNS_ERR_SHORT, 0},
    {"cut", "001b R:26:00", DNS_NEED_MORE, 0},
    {"only prefix", "001b", DNS_NEED_MORE, 0},
    {"one byte", "00", DNS_NEED_MORE, 0},
    {"nothing", "", DNS_NEED_MORE, 0},
};

static void
test_frames(void)
{
	static uint8_t buf[SPEC_MAX];
	size_t i;

	for (i = 0; i < sizeof(frame_cases) / sizeof(frame_cases[0]); i++) {
		const struct frame_case *t = &frame_cases[i];
		size_t len = spec_build(t->bytes, buf), k, ml = 0;
		enum dns_result r;
		bool split_ok = true;

		r = dns_tcp_frame_len(
		    tap_guard_copy(&guard, buf, len), len, &ml);
		tap_ok(r == t->want && (r != DNS_OK || ml == t->want_len),
		    "frame %s: %s %zu", t->name, dns_strerror(r), ml);
		/* Growing prefixes: NEED_MORE until the final answer, which
		 * then never changes. */
		for (k = 0; k <= len && split_ok; k++) {
			size_t pl = 0;
			enum dns_result pr;

			/* The 64 KiB frame: its ends are enough. */
			if (len > 4096 && k == 4)
				k = len - 2;
			pr = dns_tcp_frame_len(
			    tap_guard_copy(&guard, buf, k), k, &pl);

			if (pr != DNS_NEED_MORE &&
			    (pr != t->want || (pr == DNS_OK && pl != ml)))
				split_ok = false;
			if (pr == DNS_NEED_MORE && k == len &&
			    t->want != DNS_NEED_MORE)
				split_ok = false;
		}
		tap_ok(split_ok, "frame %s: split at every byte", t->name);
	}
	{
		uint8_t p[2];

		dns_tcp_prefix(p, 0x1234);
		tap_ok(p[0] == 0x12 && p[1] == 0x34, "frame: prefix");
		dns_tcp_prefix(p, DNS_MSG_MAX);
		tap_ok(p[0] == 0xff && p[1] == 0xff, "frame: prefix 65535");
	}
}

static void
test_strerror(void)
{
	int r;
	bool ok = true;

	for (r = DNS_OK; r <= DNS_ERR_ARG; r++)
		if (strcmp(dns_strerror((enum dns_result)r),
		        "unknown DNS error") == 0)
			ok = false;
	tap_ok(ok, "strerror: every result has a text");
}

int
main(void)
{
	test_names();
	test_name_hops();
	test_queries();
	test_query_too_long();
	test_responses();
	test_response_space();
	test_build();
	test_build_sizes();
	test_build_errors();
	test_build_far_owner();
	test_header_reply();
	test_build_query();
	test_frames();
	test_strerror();
	tap_guard_free(&guard);
	return tap_done();
}
