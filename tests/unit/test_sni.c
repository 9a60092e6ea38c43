/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for proxy/sni.c: a table of named ClientHellos, built here with
 * a small record/extension builder or taken from real captures, each run
 * whole, fed one byte more per call (every prefix on a guard page), split in
 * two at every offset, and against the expected result and fields. The
 * integration tests own real clients through the proxy.
 */
#include <stdint.h>

#include "sni.h"
#include "tap.h"

#include "sni_vectors.h"

/* ------------------------------------------------------------------ */
/* Builder */

#define BLD_MAX (6 * SNI_HELLO_MAX + 8192)

struct bld {
	uint8_t b[BLD_MAX];
	size_t len;
};

static void
die(const char *what)
{
	fprintf(stderr, "test_sni: builder: %s\n", what);
	exit(2);
}

static void
put8(struct bld *b, unsigned v)
{
	if (b->len >= BLD_MAX)
		die("overflow");
	b->b[b->len++] = (uint8_t)v;
}

static void
put16(struct bld *b, unsigned v)
{
	put8(b, v >> 8 & 0xff);
	put8(b, v & 0xff);
}

static void
put24(struct bld *b, unsigned long v)
{
	put8(b, (unsigned)(v >> 16 & 0xff));
	put16(b, (unsigned)(v & 0xffff));
}

static void
putn(struct bld *b, const void *p, size_t n)
{
	if (n > BLD_MAX - b->len)
		die("overflow");
	if (n)
		memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void
putfill(struct bld *b, unsigned v, size_t n)
{
	while (n--)
		put8(b, v);
}

/* Length-prefixed vectors: open() reserves the prefix, close() fills it. */
static size_t
vec_open(struct bld *b, int width)
{
	size_t at = b->len;

	putfill(b, 0, (size_t)width);
	return at;
}

static void
vec_close(struct bld *b, size_t at, int width)
{
	size_t n = b->len - at - (size_t)width;
	int i;

	for (i = width - 1; i >= 0; i--, n >>= 8)
		b->b[at + (size_t)i] = (uint8_t)(n & 0xff);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits, spaces ignored. */
static void
puthex(struct bld *b, const char *s)
{
	int hi, lo;

	for (; *s; s++) {
		if (*s == ' ')
			continue;
		if ((hi = hexval(s[0])) < 0 || (lo = hexval(s[1])) < 0)
			die("bad hex");
		put8(b, (unsigned)(hi << 4 | lo));
		s++;
	}
}

/* Text with %XX escapes (for NUL and non-ASCII in names). */
static void
putesc(struct bld *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			put8(b,
			    (unsigned)(hexval(s[i + 1]) << 4 |
			        hexval(s[i + 2])));
			i += 2;
		} else
			put8(b, (unsigned char)s[i]);
	}
}

/*
 * Extension block mini-language: extensions separated by ';', words by ' '.
 *   sni NAME                 server_name with one host_name entry
 *   snilist T:NAME ...       server_name with explicit entries (T decimal)
 *   alpn P ...               ALPN protocol list (may be empty)
 *   sv HHHH ...              supported_versions
 *   ks GGGG:LEN ...          key_share with client shares of LEN bytes
 *   ech                      encrypted_client_hello, outer, GREASE-shaped
 *   pad N                    padding (21) of N zero bytes
 *   raw TTTT [HEX]           extension TTTT with the given body
 *   bytes HEX                raw bytes in the block (broken headers)
 * Names and protocols take %XX escapes.
 */
static unsigned
hex16(const char *w)
{
	char *end;
	unsigned long v = strtoul(w, &end, 16);

	if (*end != '\0' && *end != ':')
		die("bad hex16");
	return (unsigned)v;
}

static void
put_ext(struct bld *b, char *spec)
{
	char *save = NULL, *w, *kind;
	size_t e, l;

	if ((kind = strtok_r(spec, " ", &save)) == NULL)
		return;
	if (strcmp(kind, "bytes") == 0) {
		while ((w = strtok_r(NULL, " ", &save)) != NULL)
			puthex(b, w);
		return;
	}
	if (strcmp(kind, "raw") == 0) {
		put16(b, hex16(strtok_r(NULL, " ", &save)));
		e = vec_open(b, 2);
		while ((w = strtok_r(NULL, " ", &save)) != NULL)
			puthex(b, w);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "sni") == 0) {
		put16(b, 0);
		e = vec_open(b, 2);
		l = vec_open(b, 2);
		put8(b, 0);
		w = strtok_r(NULL, " ", &save);
		size_t n = vec_open(b, 2);
		if (w)
			putesc(b, w, strlen(w));
		vec_close(b, n, 2);
		vec_close(b, l, 2);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "snilist") == 0) {
		put16(b, 0);
		e = vec_open(b, 2);
		l = vec_open(b, 2);
		while ((w = strtok_r(NULL, " ", &save)) != NULL) {
			char *colon = strchr(w, ':');
			if (!colon)
				die("snilist entry");
			put8(b, (unsigned)strtoul(w, NULL, 10));
			size_t n = vec_open(b, 2);
			putesc(b, colon + 1, strlen(colon + 1));
			vec_close(b, n, 2);
		}
		vec_close(b, l, 2);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "alpn") == 0) {
		put16(b, 16);
		e = vec_open(b, 2);
		l = vec_open(b, 2);
		while ((w = strtok_r(NULL, " ", &save)) != NULL) {
			size_t n = vec_open(b, 1);
			putesc(b, w, strlen(w));
			vec_close(b, n, 1);
		}
		vec_close(b, l, 2);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "sv") == 0) {
		put16(b, 43);
		e = vec_open(b, 2);
		l = vec_open(b, 1);
		while ((w = strtok_r(NULL, " ", &save)) != NULL)
			put16(b, hex16(w));
		vec_close(b, l, 1);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "ks") == 0) {
		put16(b, 51);
		e = vec_open(b, 2);
		l = vec_open(b, 2);
		while ((w = strtok_r(NULL, " ", &save)) != NULL) {
			char *colon = strchr(w, ':');
			if (!colon)
				die("ks entry");
			put16(b, hex16(w));
			size_t n = (size_t)strtoul(colon + 1, NULL, 10);
			put16(b, (unsigned)n);
			putfill(b, 0x5a, n);
		}
		vec_close(b, l, 2);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "ech") == 0) {
		/* draft-ietf-tls-esni §5: outer(0), HPKE suite, config_id,
		 * enc<0..2^16-1>, payload<1..2^16-1>: the GREASE shape. */
		put16(b, 0xfe0d);
		e = vec_open(b, 2);
		put8(b, 0);
		put16(b, 0x0001);
		put16(b, 0x0001);
		put8(b, 0x42);
		put16(b, 32);
		putfill(b, 0xec, 32);
		put16(b, 144);
		putfill(b, 0xed, 144);
		vec_close(b, e, 2);
		return;
	}
	if (strcmp(kind, "pad") == 0) {
		put16(b, 21);
		e = vec_open(b, 2);
		putfill(b, 0,
		    (size_t)strtoul(strtok_r(NULL, " ", &save), NULL, 10));
		vec_close(b, e, 2);
		return;
	}
	die(kind);
}

static void
put_exts(struct bld *b, const char *dsl)
{
	char copy[4096], *save = NULL, *spec;

	if (strlen(dsl) >= sizeof(copy))
		die("dsl too long");
	strcpy(copy, dsl);
	for (spec = strtok_r(copy, ";", &save); spec;
	     spec = strtok_r(NULL, ";", &save))
		put_ext(b, spec);
}

/* ------------------------------------------------------------------ */
/* Cases */

enum {
	W_IP = 1 << 0,    /* sni_is_ip */
	W_TLS13 = 1 << 1, /* tls13_offered */
	W_ECH = 1 << 2,   /* has_ech */
	W_H2 = 1 << 3,    /* alpn_h2 */
	W_H11 = 1 << 4,   /* alpn_http11 */
};

#define CT_ALERT_REC "15 0303 0002 0100"
#define CT_CCS_REC   "14 0303 0001 01"
#define CT_APP_REC   "17 0303 0005 0102030405"
#define R32          "0101010101010101010101010101010101010101010101010101010101010101"
#define ALPN_DEF     "alpn h2 http/1.1"

/* A Chrome-like TLS 1.3 hello with an X25519MLKEM768 key share (1216-byte
 * client share, group 0x11ec) and GREASE; OpenSSL 3.0 here cannot produce
 * one, so it is synthesized (about 1.8 KiB). */
#define CHROME_PQ_EXTS \
	"raw 3a3a; sni www.google.com; raw 0017; raw ff01 00;" \
	"raw 000a 000a 2a2a 11ec 001d 0017 0018; raw 000b 0100; raw 0023;" \
	"alpn h2 http/1.1; raw 0005 0100000000;" \
	"raw 000d 0012 0403 0804 0401 0503 0805 0501 0806 0601 0201;" \
	"raw 0012; ks 2a2a:1 11ec:1216 001d:32; raw 002d 0101;" \
	"sv 5a5a 0304 0303; raw 001b 020002; raw 4469 0003 02 6832; ech;" \
	"raw 1a1a 00"

struct tcase {
	const char *name;
	enum sni_result want;

	/* Input, one of: a built hello (the default), a capture (reshaped
	 * into records when frag/insert/trail is set), or verbatim bytes. */
	const uint8_t *capture;
	size_t capture_len;
	const char *text; /* verbatim text */
	const char *hex;  /* verbatim hex */

	/* Body of a built hello. */
	const char *body;        /* hex: replaces the whole body */
	unsigned legacy_version; /* 0: 0x0303 */
	int sid_len;             /* 0: 32, -1: empty */
	const char *exts;        /* NULL: no extensions block */
	int ext_block_delta;     /* added to the block's length field */
	const char *body_extra;  /* hex after the extensions block */
	size_t pad_to;           /* padding to this hello_len */

	/* Handshake header. */
	int msg_type1;         /* message type + 1; 0: ClientHello */
	long msg_len_delta;    /* added to the declared length */
	unsigned long msg_len; /* declared length, if nonzero */

	/* Records. */
	size_t frag;            /* fragment size (0: 2^14) */
	size_t frag_first;      /* size of the first fragment (0: frag) */
	unsigned rec_version;   /* 0: 0x0301 */
	const char *insert;     /* hex record inserted after fragment #1 */
	const char *trail;      /* hex appended inside the last record */
	const char *after;      /* hex after the hello's records */
	const char *after_text; /* text after the hello's records */
	size_t scratch_len;     /* 0: SNI_HELLO_MAX */

	/* Expectations beyond the result. */
	const char *host;           /* SNI_OK: the normalized name, or NULL */
	unsigned flags;             /* W_* that must be set (others clear) */
	const char *alpn;           /* SNI_OK: "p1,p2" as stored, NULL: none */
	enum hostname_err name_err; /* SNI_ERR_BAD_NAME */
	bool check_off;
	size_t off; /* the error offset, if check_off */
};

#define AT(x) .check_off = true, .off = (x)

/* Offsets inside a default built hello in one record: 5 record header, 4
 * handshake header, 2 version, 32 random, 1+32 session id, 2+10 suites
 * (5 of them), 1+1 compression, then the 2-byte extensions length. */
#define OFF_SID        (5 + 4 + 2 + 32)
#define OFF_CS         (OFF_SID + 1 + 32)
#define OFF_COMP       (OFF_CS + 2 + 10)
#define OFF_EXTS       (OFF_COMP + 2)
#define OFF_EXT0       (OFF_EXTS + 2)
#define SNI_EXT_LEN(n) (4 + 2 + 3 + (n))

static const struct tcase cases[] = {
    /* --- valid ---------------------------------------------------- */
    {"basic sni", SNI_OK, .exts = "sni example.com", .host = "example.com"},
    {"sni with alpn and tls13", SNI_OK,
        .exts = "sni api.github.com; " ALPN_DEF "; sv 0304 0303",
        .host = "api.github.com", .flags = W_TLS13 | W_H2 | W_H11,
        .alpn = "h2,http/1.1"},
    {"sni last of several", SNI_OK,
        .exts = "raw 0017; raw ff01 00; sv 0303; sni pypi.org",
        .host = "pypi.org"},
    {"no extensions block at all (TLS 1.0 style)", SNI_OK, .exts = NULL},
    {"empty extensions block", SNI_OK, .exts = ""},
    {"extensions without server_name", SNI_OK,
        .exts = "raw 0017; sv 0304; " ALPN_DEF, .flags = W_TLS13 | W_H2 | W_H11,
        .alpn = "h2,http/1.1"},
    {"empty session id", SNI_OK, .sid_len = -1, .exts = "sni a.example",
        .host = "a.example"},
    {"short session id", SNI_OK, .sid_len = 8, .exts = "sni a.example",
        .host = "a.example"},
    {"uppercase sni normalized", SNI_OK, .exts = "sni ExAmPle.COM",
        .host = "example.com"},
    {"trailing dot normalized", SNI_OK, .exts = "sni example.com.",
        .host = "example.com"},
    {"uppercase and trailing dot", SNI_OK, .exts = "sni WWW.PyPI.Org.",
        .host = "www.pypi.org"},
    {"punycode sni", SNI_OK, .exts = "sni xn--bcher-kva.example",
        .host = "xn--bcher-kva.example"},
    {"single label sni", SNI_OK, .exts = "sni localhost", .host = "localhost"},
    {"63-char label", SNI_OK,
        .exts =
            "sni "
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com",
        .host =
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com"},
    {"ipv4 literal sni", SNI_OK, .exts = "sni 192.0.2.1", .host = "192.0.2.1",
        .flags = W_IP},
    {"ipv6 literal sni", SNI_OK, .exts = "sni 2001:DB8::1",
        .host = "2001:db8::1", .flags = W_IP},
    {"bracketed ipv6 literal sni", SNI_OK, .exts = "sni [2001:db8::1]",
        .host = "2001:db8::1", .flags = W_IP},
    {"loopback literal sni", SNI_OK, .exts = "sni 127.0.0.1",
        .host = "127.0.0.1", .flags = W_IP},
    {"tls13 offered among others", SNI_OK,
        .exts = "sni a.example; sv 7f1c 0304 0303 0302", .host = "a.example",
        .flags = W_TLS13},
    {"supported_versions without 1.3", SNI_OK,
        .exts = "sni a.example; sv 0303 0302", .host = "a.example"},
    {"ech present, outer sni decides", SNI_OK,
        .exts = "sni public.example; ech; sv 0304", .host = "public.example",
        .flags = W_ECH | W_TLS13},
    {"ech without sni", SNI_OK, .exts = "ech; sv 0304",
        .flags = W_ECH | W_TLS13},
    {"alpn h2 only", SNI_OK, .exts = "sni a.example; alpn h2",
        .host = "a.example", .flags = W_H2, .alpn = "h2"},
    {"alpn http/1.1 only", SNI_OK, .exts = "alpn http/1.1", .flags = W_H11,
        .alpn = "http/1.1"},
    {"alpn other protocols", SNI_OK, .exts = "alpn acme-tls/1 imap",
        .alpn = "acme-tls/1,imap"},
    {"alpn h2c is not h2", SNI_OK, .exts = "alpn h2c http/1.0",
        .alpn = "h2c,http/1.0"},
    {"alpn ten protocols, eight kept", SNI_OK,
        .exts = "alpn p1 p2 p3 p4 p5 p6 p7 p8 h2 http/1.1",
        .flags = W_H2 | W_H11, .alpn = "p1,p2,p3,p4,p5,p6,p7,p8"},
    {"alpn long name truncated copy", SNI_OK,
        .exts = "alpn "
                "x123456789012345678901234567890123456789012345678901234567890",
        .alpn = "x1234567890123456789012345678901"},
    {"alpn name with NUL byte", SNI_OK, .exts = "alpn a%00b", .alpn = "a?b"},
    {"grease extensions", SNI_OK,
        .exts = "raw 0a0a; sni a.example; raw fafa 00", .host = "a.example"},
    {"unknown extension types", SNI_OK,
        .exts = "raw 1234 deadbeef; raw ffff; sni a.example",
        .host = "a.example"},
    {"chrome-like post-quantum hello (~1.8 KiB)", SNI_OK,
        .exts = CHROME_PQ_EXTS, .host = "www.google.com",
        .flags = W_TLS13 | W_ECH | W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"chrome-like pq hello, one byte per record", SNI_OK,
        .exts = CHROME_PQ_EXTS, .frag = 1, .host = "www.google.com",
        .flags = W_TLS13 | W_ECH | W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"chrome-like pq hello, 7-byte records", SNI_OK, .exts = CHROME_PQ_EXTS,
        .frag = 7, .host = "www.google.com",
        .flags = W_TLS13 | W_ECH | W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"mlkem1024-sized key share (~2.2 KiB)", SNI_OK,
        .exts = "sni a.example; ks 0202:1568 001d:32; sv 0304",
        .host = "a.example", .flags = W_TLS13},
    {"padded to 512", SNI_OK, .exts = "sni a.example", .pad_to = 512,
        .host = "a.example"},

    /* Record layer shapes. */
    {"record version 3.3", SNI_OK, .rec_version = 0x0303,
        .exts = "sni a.example", .host = "a.example"},
    {"record version 3.0", SNI_OK, .rec_version = 0x0300,
        .exts = "sni a.example", .host = "a.example"},
    {"record version 3.2", SNI_OK, .rec_version = 0x0302,
        .exts = "sni a.example", .host = "a.example"},
    {"one byte per record", SNI_OK, .frag = 1, .exts = "sni a.example",
        .host = "a.example"},
    {"two bytes per record", SNI_OK, .frag = 2, .exts = "sni a.example",
        .host = "a.example"},
    {"three bytes per record", SNI_OK, .frag = 3, .exts = "sni a.example",
        .host = "a.example"},
    {"handshake header split 1+rest", SNI_OK, .frag_first = 1,
        .exts = "sni a.example", .host = "a.example"},
    {"handshake header split 3+rest", SNI_OK, .frag_first = 3,
        .exts = "sni a.example", .host = "a.example"},
    {"header in its own record", SNI_OK, .frag_first = 4,
        .exts = "sni a.example", .host = "a.example"},
    {"split inside the server_name", SNI_OK, .frag_first = OFF_EXT0 + 8,
        .exts = "sni a.example", .host = "a.example"},
    {"early data after the hello's records", SNI_OK,
        .exts = "sni a.example; raw 002a", .after = CT_APP_REC,
        .host = "a.example"},
    {"ccs after the hello's records", SNI_OK, .exts = "sni a.example",
        .after = CT_CCS_REC, .host = "a.example"},
    {"garbage after the hello's records", SNI_OK, .exts = "sni a.example",
        .after = "ffffffffff00", .host = "a.example"},
    {"second hello after the hello's records", SNI_OK, .exts = "sni a.example",
        .after = "16 0301 0008 01 000004 0303 0000", .host = "a.example"},
    {"fragmented hello then garbage", SNI_OK, .frag = 5,
        .exts = "sni a.example", .after = "474554", .host = "a.example"},

    /* Caps. */
    {"hello exactly at SNI_HELLO_MAX", SNI_OK, .exts = "sni a.example",
        .pad_to = SNI_HELLO_MAX, .host = "a.example"},
    {"hello at cap, two bytes per record", SNI_OK, .exts = "sni a.example",
        .pad_to = SNI_HELLO_MAX, .frag = 2, .host = "a.example"},
    {"hello at cap, 1000-byte records", SNI_OK, .exts = "sni a.example",
        .pad_to = SNI_HELLO_MAX, .frag = 1000, .host = "a.example"},
    {"records end exactly at SNI_RAW_MAX", SNI_OK, .exts = "sni a.example",
        .pad_to = 10926, .frag_first = 5, .frag = 1, .host = "a.example"},
    {"small scratch, hello fits exactly", SNI_OK, .exts = "sni a.example",
        .pad_to = 300, .scratch_len = 296, .host = "a.example"},

    /* Real captures. */
    {"capture: openssl 3.0 tls1.3", SNI_OK,
        .capture = cap_openssl30_tls13_example_com,
        .capture_len = sizeof(cap_openssl30_tls13_example_com),
        .host = "example.com", .flags = W_TLS13},
    {"capture: openssl 3.0 tls1.2 alpn", SNI_OK,
        .capture = cap_openssl30_tls12_alpn_github,
        .capture_len = sizeof(cap_openssl30_tls12_alpn_github),
        .host = "api.github.com", .flags = W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"capture: openssl 3.0 -noservername", SNI_OK,
        .capture = cap_openssl30_noservername,
        .capture_len = sizeof(cap_openssl30_noservername), .flags = W_TLS13},
    {"capture: openssl 3.0 uppercase trailing dot", SNI_OK,
        .capture = cap_openssl30_upper_trailing_dot,
        .capture_len = sizeof(cap_openssl30_upper_trailing_dot),
        .host = "www.example.org", .flags = W_TLS13},
    {"capture: openssl 3.0 ip servername", SNI_OK,
        .capture = cap_openssl30_ip_servername,
        .capture_len = sizeof(cap_openssl30_ip_servername), .host = "192.0.2.7",
        .flags = W_TLS13 | W_IP},
    {"capture: curl 7.88 pypi.org", SNI_OK, .capture = cap_curl788_pypi,
        .capture_len = sizeof(cap_curl788_pypi), .host = "pypi.org",
        .flags = W_TLS13 | W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"capture: curl 7.88 ip literal", SNI_OK, .capture = cap_curl788_ip_literal,
        .capture_len = sizeof(cap_curl788_ip_literal),
        .flags = W_TLS13 | W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"capture: curl, one byte per record", SNI_OK, .capture = cap_curl788_pypi,
        .capture_len = sizeof(cap_curl788_pypi), .frag = 1, .host = "pypi.org",
        .flags = W_TLS13 | W_H2 | W_H11, .alpn = "h2,http/1.1"},
    {"capture: openssl, 100-byte records", SNI_OK,
        .capture = cap_openssl30_tls13_example_com,
        .capture_len = sizeof(cap_openssl30_tls13_example_com), .frag = 100,
        .host = "example.com", .flags = W_TLS13},
    {"capture: curl with early data after", SNI_OK, .capture = cap_curl788_pypi,
        .capture_len = sizeof(cap_curl788_pypi), .after = CT_APP_REC,
        .host = "pypi.org", .flags = W_TLS13 | W_H2 | W_H11,
        .alpn = "h2,http/1.1"},
    {"capture: openssl with alert interleaved", SNI_ERR_RECORD,
        .capture = cap_openssl30_tls13_example_com,
        .capture_len = sizeof(cap_openssl30_tls13_example_com), .frag = 50,
        .insert = CT_ALERT_REC, AT(55)},
    {"capture: curl with trailing byte in record", SNI_ERR_MALFORMED,
        .capture = cap_curl788_pypi, .capture_len = sizeof(cap_curl788_pypi),
        .trail = "00", AT(517)},

    /* --- not TLS -------------------------------------------------- */
    {"http GET", SNI_ERR_NOT_TLS, .text = "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        AT(0)},
    {"http CONNECT", SNI_ERR_NOT_TLS,
        .text = "CONNECT a.example:443 HTTP/1.1\r\n\r\n", AT(0)},
    {"ssh banner", SNI_ERR_NOT_TLS, .text = "SSH-2.0-OpenSSH_9.2\r\n", AT(0)},
    {"sslv2 compatible hello", SNI_ERR_NOT_TLS,
        .hex = "802e 01 0301 0015 0000 0010 010080 030080 0700c0 000035 "
               "00002f 00000a 0102030405060708090a0b0c0d0e0f10",
        AT(0)},
    {"sslv2 hello with 3-byte header", SNI_ERR_NOT_TLS,
        .hex = "002e00 01 0301 0015", AT(0)},
    {"alert record first", SNI_ERR_NOT_TLS, .hex = CT_ALERT_REC, AT(0)},
    {"ccs record first", SNI_ERR_NOT_TLS, .hex = CT_CCS_REC, AT(0)},
    {"application data first", SNI_ERR_NOT_TLS, .hex = CT_APP_REC, AT(0)},
    {"zero byte first", SNI_ERR_NOT_TLS, .hex = "00", AT(0)},
    {"single byte 0x17", SNI_ERR_NOT_TLS, .hex = "17", AT(0)},
    {"0x16 later, not first", SNI_ERR_NOT_TLS, .hex = "2016030100", AT(0)},

    /* --- record errors -------------------------------------------- */
    {"record version 2.0", SNI_ERR_RECORD, .rec_version = 0x0200,
        .exts = "sni a.example", AT(1)},
    {"record version 3.4", SNI_ERR_RECORD, .rec_version = 0x0304,
        .exts = "sni a.example", AT(1)},
    {"record version 4.3", SNI_ERR_RECORD, .rec_version = 0x0403,
        .exts = "sni a.example", AT(1)},
    {"record version 0.3", SNI_ERR_RECORD, .rec_version = 0x0003,
        .exts = "sni a.example", AT(1)},
    {"record version ff.ff", SNI_ERR_RECORD, .rec_version = 0xffff,
        .exts = "sni a.example", AT(1)},
    {"0x16 then http text", SNI_ERR_RECORD, .text = "\x16GET / HTTP/1.1",
        AT(1)},
    {"zero-length first record", SNI_ERR_RECORD, .hex = "16 0301 0000", AT(3)},
    {"zero-length record mid-hello", SNI_ERR_RECORD, .frag = 20,
        .exts = "sni a.example", .insert = "16 0303 0000", AT(25 + 3)},
    {"record longer than 2^14", SNI_ERR_RECORD, .hex = "16 0301 4001 01",
        AT(3)},
    {"record length 0xffff", SNI_ERR_RECORD, .hex = "16 0301 ffff", AT(3)},
    {"alert interleaved", SNI_ERR_RECORD, .frag = 10, .exts = "sni a.example",
        .insert = CT_ALERT_REC, AT(15)},
    {"ccs interleaved", SNI_ERR_RECORD, .frag = 10, .exts = "sni a.example",
        .insert = CT_CCS_REC, AT(15)},
    {"application data interleaved", SNI_ERR_RECORD, .frag = 10,
        .exts = "sni a.example", .insert = CT_APP_REC, AT(15)},
    {"heartbeat interleaved", SNI_ERR_RECORD, .frag = 10,
        .exts = "sni a.example", .insert = "18 0303 0003 010000", AT(15)},
    {"unknown type interleaved", SNI_ERR_RECORD, .frag = 1,
        .exts = "sni a.example", .insert = "ff 0303 0001 00", AT(6)},
    {"bad version in a later record", SNI_ERR_RECORD, .frag = 10,
        .exts = "sni a.example", .insert = "16 0304 0001 00", AT(16)},
    {"oversized later record", SNI_ERR_RECORD, .frag = 10,
        .exts = "sni a.example", .insert = "16 0303 4001", AT(18)},
    {"alert one byte per record", SNI_ERR_RECORD, .frag = 1,
        .exts = "sni a.example", .insert = CT_ALERT_REC, AT(6)},

    /* --- not a ClientHello ------------------------------------------ */
    {"server hello", SNI_ERR_NOT_CLIENT_HELLO, .msg_type1 = 2 + 1,
        .exts = "sni a.example", AT(5)},
    {"hello request", SNI_ERR_NOT_CLIENT_HELLO, .msg_type1 = 0 + 1,
        .exts = "sni a.example", AT(5)},
    {"certificate", SNI_ERR_NOT_CLIENT_HELLO, .msg_type1 = 11 + 1,
        .exts = "sni a.example", AT(5)},
    {"client key exchange", SNI_ERR_NOT_CLIENT_HELLO, .msg_type1 = 16 + 1,
        AT(5)},
    {"type 0xff", SNI_ERR_NOT_CLIENT_HELLO, .msg_type1 = 0xff + 1, AT(5)},
    {"server hello, one byte per record", SNI_ERR_NOT_CLIENT_HELLO,
        .msg_type1 = 2 + 1, .frag = 1, AT(5)},

    /* --- malformed --------------------------------------------------- */
    {"empty body", SNI_ERR_MALFORMED, .body = "", AT(9)},
    {"body only a version", SNI_ERR_MALFORMED, .body = "0303", AT(9)},
    {"random truncated", SNI_ERR_MALFORMED, .body = "0303 0102", AT(9)},
    {"session id missing", SNI_ERR_MALFORMED, .body = "0303" R32, AT(OFF_SID)},
    {"session id 33 bytes", SNI_ERR_MALFORMED,
        .body = "0303" R32 "21" R32 "00 0002 1301 0100", AT(OFF_SID)},
    {"session id overruns", SNI_ERR_MALFORMED, .body = "0303" R32 "20 0102",
        AT(OFF_SID)},
    {"cipher suites odd", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0003 130113 0100", AT(OFF_SID + 1)},
    {"cipher suites empty", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0000 0100", AT(OFF_SID + 1)},
    {"cipher suites overrun", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0010 1301 0100", AT(OFF_SID + 1)},
    {"compression empty", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0002 1301 00", AT(OFF_SID + 5)},
    {"compression missing", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0002 1301", AT(OFF_SID + 5)},
    {"compression overruns", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0002 1301 0300", AT(OFF_SID + 5)},
    {"one stray byte after compression", SNI_ERR_MALFORMED,
        .body = "0303" R32 "00 0002 1301 0100 00", AT(OFF_SID + 7)},
    {"extensions block too long", SNI_ERR_MALFORMED, .exts = "sni a.example",
        .ext_block_delta = 1, AT(OFF_EXTS)},
    {"extensions block too short", SNI_ERR_MALFORMED, .exts = "sni a.example",
        .ext_block_delta = -1, AT(OFF_EXT0 + SNI_EXT_LEN(9) - 1)},
    {"bytes after the extensions block", SNI_ERR_MALFORMED,
        .exts = "sni a.example", .body_extra = "00",
        AT(OFF_EXT0 + SNI_EXT_LEN(9))},
    {"hello with bytes after it in the message", SNI_ERR_MALFORMED, .exts = "",
        .body_extra = "0000"},
    {"extension header truncated", SNI_ERR_MALFORMED,
        .exts = "sni a.example; bytes 0010", AT(OFF_EXT0 + SNI_EXT_LEN(9))},
    {"extension header 3 bytes", SNI_ERR_MALFORMED, .exts = "bytes 001000",
        AT(OFF_EXT0)},
    {"extension length overruns block", SNI_ERR_MALFORMED,
        .exts = "bytes 0010 0005 0003", AT(OFF_EXT0 + 2)},
    {"server_name empty extension", SNI_ERR_MALFORMED, .exts = "raw 0000",
        AT(OFF_EXT0 + 4)},
    {"server_name one byte", SNI_ERR_MALFORMED, .exts = "raw 0000 00",
        AT(OFF_EXT0 + 4)},
    {"server_name empty list", SNI_ERR_MALFORMED, .exts = "raw 0000 0000",
        AT(OFF_EXT0 + 4)},
    {"server_name list longer than extension", SNI_ERR_MALFORMED,
        .exts = "raw 0000 0010 00 0003 616263", AT(OFF_EXT0 + 4)},
    {"server_name list shorter than extension", SNI_ERR_MALFORMED,
        .exts = "raw 0000 0006 00 0003 616263 00", AT(OFF_EXT0 + 4)},
    {"server_name name overruns list", SNI_ERR_MALFORMED,
        .exts = "raw 0000 0006 00 0004 616263", AT(OFF_EXT0 + 6)},
    {"server_name entry truncated", SNI_ERR_MALFORMED,
        .exts = "raw 0000 0002 00 00", AT(OFF_EXT0 + 6)},
    {"server_name second entry truncated", SNI_ERR_MALFORMED,
        .exts = "raw 0000 0008 00 0003 616263 00 00", AT(OFF_EXT0 + 12)},
    {"alpn empty extension", SNI_ERR_MALFORMED, .exts = "raw 0010",
        AT(OFF_EXT0 + 4)},
    {"alpn empty list", SNI_ERR_MALFORMED, .exts = "alpn", AT(OFF_EXT0 + 4)},
    {"alpn list of one byte", SNI_ERR_MALFORMED, .exts = "raw 0010 0001 00",
        AT(OFF_EXT0 + 4)},
    {"alpn empty protocol name", SNI_ERR_MALFORMED,
        .exts = "raw 0010 0003 00 0168", AT(OFF_EXT0 + 6)},
    {"alpn list length mismatch", SNI_ERR_MALFORMED,
        .exts = "raw 0010 0004 02 6832", AT(OFF_EXT0 + 4)},
    {"alpn trailing bytes in extension", SNI_ERR_MALFORMED,
        .exts = "raw 0010 0003 02 6832 00", AT(OFF_EXT0 + 4)},
    {"alpn name overruns list", SNI_ERR_MALFORMED,
        .exts = "raw 0010 0003 05 6832", AT(OFF_EXT0 + 6)},
    {"supported_versions odd", SNI_ERR_MALFORMED, .exts = "raw 002b 03 030403",
        AT(OFF_EXT0 + 4)},
    {"supported_versions empty list", SNI_ERR_MALFORMED, .exts = "raw 002b 00",
        AT(OFF_EXT0 + 4)},
    {"supported_versions empty extension", SNI_ERR_MALFORMED,
        .exts = "raw 002b", AT(OFF_EXT0 + 4)},
    {"supported_versions length mismatch", SNI_ERR_MALFORMED,
        .exts = "raw 002b 04 0304", AT(OFF_EXT0 + 4)},
    {"ech empty", SNI_ERR_MALFORMED, .exts = "sni a.example; raw fe0d",
        AT(OFF_EXT0 + SNI_EXT_LEN(9) + 2)},
    {"message length one short: trailing byte in record", SNI_ERR_MALFORMED,
        .exts = "sni a.example", .msg_len_delta = -1},
    {"trailing garbage in the hello's record", SNI_ERR_MALFORMED,
        .exts = "sni a.example", .trail = "deadbeef"},
    {"trailing second handshake message in record", SNI_ERR_MALFORMED,
        .exts = "sni a.example", .trail = "01000000"},
    {"trailing byte in the last of many records", SNI_ERR_MALFORMED, .frag = 3,
        .exts = "sni a.example", .trail = "00"},
    {"declared length zero", SNI_ERR_MALFORMED, .hex = "16 0301 0004 01 000000",
        AT(9)},

    /* --- duplicate extensions -------------------------------------- */
    {"server_name twice", SNI_ERR_DUP_EXTENSION,
        .exts = "sni a.example; sni b.example", AT(OFF_EXT0 + SNI_EXT_LEN(9))},
    {"server_name twice, same name", SNI_ERR_DUP_EXTENSION,
        .exts = "sni a.example; sni a.example", AT(OFF_EXT0 + SNI_EXT_LEN(9))},
    {"server_name twice, far apart", SNI_ERR_DUP_EXTENSION,
        .exts = "sni a.example; raw 0017; " ALPN_DEF "; sni b.example"},
    {"server_name twice, second empty", SNI_ERR_DUP_EXTENSION,
        .exts = "sni a.example; raw 0000"},
    {"alpn twice", SNI_ERR_DUP_EXTENSION,
        .exts = "sni a.example; alpn h2; alpn http/1.1"},
    {"supported_versions twice", SNI_ERR_DUP_EXTENSION,
        .exts = "sv 0304; sv 0303"},
    {"ech twice", SNI_ERR_DUP_EXTENSION, .exts = "ech; ech"},
    {"unknown type twice", SNI_ERR_DUP_EXTENSION,
        .exts = "raw 1234; sni a.example; raw 1234 00",
        AT(OFF_EXT0 + 4 + SNI_EXT_LEN(9))},
    {"grease value twice", SNI_ERR_DUP_EXTENSION,
        .exts = "raw 0a0a; raw 0a0a 00"},
    {"padding twice", SNI_ERR_DUP_EXTENSION, .exts = "pad 4; pad 8"},
    {"type 0xffff twice", SNI_ERR_DUP_EXTENSION, .exts = "raw ffff; raw ffff"},
    {"key_share twice", SNI_ERR_DUP_EXTENSION,
        .exts = "ks 001d:32; ks 0017:65"},

    /* --- multiple names -------------------------------------------- */
    {"two host names", SNI_ERR_MULTIPLE_NAMES,
        .exts = "snilist 0:a.example 0:b.example", AT(OFF_EXT0 + 6 + 12)},
    {"same host name twice", SNI_ERR_MULTIPLE_NAMES,
        .exts = "snilist 0:a.example 0:a.example"},
    {"host name then type 1", SNI_ERR_MULTIPLE_NAMES,
        .exts = "snilist 0:a.example 1:b.example"},
    {"type 1 then host name", SNI_ERR_MULTIPLE_NAMES,
        .exts = "snilist 1:b.example 0:a.example"},
    {"three names", SNI_ERR_MULTIPLE_NAMES,
        .exts = "snilist 0:a.example 0:b.example 0:c.example"},
    {"host name then empty entry", SNI_ERR_MULTIPLE_NAMES,
        .exts = "snilist 0:a.example 0:"},

    /* --- bad names ------------------------------------------------- */
    {"name_type 1", SNI_ERR_BAD_NAME, .exts = "snilist 1:a.example",
        AT(OFF_EXT0 + 6)},
    {"name_type 255", SNI_ERR_BAD_NAME, .exts = "snilist 255:a.example",
        AT(OFF_EXT0 + 6)},
    {"empty name", SNI_ERR_BAD_NAME,
        .exts = "snilist 0:", .name_err = HOSTNAME_ERR_EMPTY, AT(OFF_EXT0 + 9)},
    {"NUL inside name", SNI_ERR_BAD_NAME, .exts = "sni exa%00mple.com",
        .name_err = HOSTNAME_ERR_CHAR, AT(OFF_EXT0 + 9)},
    {"NUL at end of name", SNI_ERR_BAD_NAME, .exts = "sni example.com%00",
        .name_err = HOSTNAME_ERR_CHAR},
    {"NUL only", SNI_ERR_BAD_NAME, .exts = "sni %00",
        .name_err = HOSTNAME_ERR_CHAR},
    {"underscore", SNI_ERR_BAD_NAME, .exts = "sni under_score.example",
        .name_err = HOSTNAME_ERR_CHAR},
    {"utf-8 name", SNI_ERR_BAD_NAME, .exts = "sni b%c3%bccher.example",
        .name_err = HOSTNAME_ERR_NON_ASCII},
    {"latin-1 name", SNI_ERR_BAD_NAME, .exts = "sni b%fccher.example",
        .name_err = HOSTNAME_ERR_NON_ASCII},
    {"space in name", SNI_ERR_BAD_NAME, .exts = "sni a%20b.example",
        .name_err = HOSTNAME_ERR_CHAR},
    {"name with port", SNI_ERR_BAD_NAME, .exts = "sni a.example:443",
        .name_err = HOSTNAME_ERR_BAD_IPV6},
    {"empty label", SNI_ERR_BAD_NAME, .exts = "sni a..example",
        .name_err = HOSTNAME_ERR_EMPTY_LABEL},
    {"leading dot", SNI_ERR_BAD_NAME, .exts = "sni .example",
        .name_err = HOSTNAME_ERR_EMPTY_LABEL},
    {"dot only", SNI_ERR_BAD_NAME, .exts = "sni .",
        .name_err = HOSTNAME_ERR_EMPTY_LABEL},
    {"two trailing dots", SNI_ERR_BAD_NAME, .exts = "sni a.example..",
        .name_err = HOSTNAME_ERR_EMPTY_LABEL},
    {"leading hyphen", SNI_ERR_BAD_NAME, .exts = "sni -a.example",
        .name_err = HOSTNAME_ERR_HYPHEN},
    {"reserved label", SNI_ERR_BAD_NAME, .exts = "sni ab--c.example",
        .name_err = HOSTNAME_ERR_RESERVED_LABEL},
    {"short numeric ip", SNI_ERR_BAD_NAME, .exts = "sni 127.1",
        .name_err = HOSTNAME_ERR_NUMERIC},
    {"hex ip", SNI_ERR_BAD_NAME, .exts = "sni 0x7f.0.0.1",
        .name_err = HOSTNAME_ERR_NUMERIC},
    {"decimal ip", SNI_ERR_BAD_NAME, .exts = "sni 2130706433",
        .name_err = HOSTNAME_ERR_NUMERIC},
    {"bad ipv6", SNI_ERR_BAD_NAME, .exts = "sni [::1",
        .name_err = HOSTNAME_ERR_BAD_IPV6},
    {"64-char label", SNI_ERR_BAD_NAME,
        .exts =
            "sni "
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com",
        .name_err = HOSTNAME_ERR_LABEL_TOO_LONG},
    {"254-char name", SNI_ERR_BAD_NAME,
        .exts = "sni "
                "a123456789.a123456789.a123456789.a123456789.a123456789."
                "a123456789.a123456789.a123456789.a123456789.a123456789."
                "a123456789.a123456789.a123456789.a123456789.a123456789."
                "a123456789.a123456789.a123456789.a123456789.a123456789."
                "a123456789.a123456789.a12345678901",
        .name_err = HOSTNAME_ERR_TOO_LONG},
    {"slash in name", SNI_ERR_BAD_NAME, .exts = "sni a.example/x",
        .name_err = HOSTNAME_ERR_CHAR},
    {"wildcard in name", SNI_ERR_BAD_NAME, .exts = "sni *.example",
        .name_err = HOSTNAME_ERR_CHAR},
    {"bad name one byte per record", SNI_ERR_BAD_NAME, .frag = 1,
        .exts = "sni under_score.example", .name_err = HOSTNAME_ERR_CHAR},

    /* --- too large ------------------------------------------------- */
    {"hello one byte over SNI_HELLO_MAX", SNI_ERR_TOO_LARGE,
        .exts = "sni a.example", .pad_to = SNI_HELLO_MAX + 1, AT(6)},
    {"declared length 0xffffff", SNI_ERR_TOO_LARGE,
        .hex = "16 0301 0004 01 ffffff", AT(6)},
    {"declared length 16381", SNI_ERR_TOO_LARGE,
        .hex = "16 0301 4000 01 003ffd", AT(6)},
    {"declared length over cap, split header", SNI_ERR_TOO_LARGE,
        .hex = "16 0301 0001 01 16 0301 0001 00 16 0301 0002 4000", AT(11)},
    {"records past SNI_RAW_MAX by one byte", SNI_ERR_TOO_LARGE,
        .exts = "sni a.example", .pad_to = 10927, .frag_first = 6, .frag = 1},
    {"16 KiB hello, one byte per record", SNI_ERR_TOO_LARGE,
        .exts = "sni a.example", .pad_to = SNI_HELLO_MAX, .frag = 1},
    {"small scratch, hello one byte too long", SNI_ERR_TOO_LARGE,
        .exts = "sni a.example", .pad_to = 301, .scratch_len = 296, AT(6)},
    {"zero scratch", SNI_ERR_TOO_LARGE, .exts = "sni a.example",
        .scratch_len = (size_t)-1, AT(6)},

    /* --- incomplete ------------------------------------------------ */
    {"declared longer than sent", SNI_NEED_MORE, .exts = "sni a.example",
        .msg_len_delta = 10},
    {"record header only", SNI_NEED_MORE, .hex = "16 0301 0100"},
    {"first byte only", SNI_NEED_MORE, .hex = "16"},
    {"empty input", SNI_NEED_MORE, .text = ""},
};

/* ------------------------------------------------------------------ */
/* Building a case's input */

static void
build_body(const struct tcase *tc, struct bld *body)
{
	struct bld *e = calloc(1, sizeof(*e));
	static const char *suites = "1301 1302 1303 c02b c02f";
	size_t fixed, want, at;
	int sid = tc->sid_len == 0 ? 32 : tc->sid_len < 0 ? 0 : tc->sid_len;

	if (e == NULL)
		die("calloc");
	if (tc->body) {
		puthex(body, tc->body);
		free(e);
		return;
	}
	put16(body, tc->legacy_version ? tc->legacy_version : 0x0303);
	putfill(body, 0x01, 32);
	put8(body, (unsigned)sid);
	putfill(body, 0xa5, (size_t)sid);
	at = vec_open(body, 2);
	puthex(body, suites);
	vec_close(body, at, 2);
	puthex(body, "0100");
	if (tc->exts || tc->pad_to)
		put_exts(e, tc->exts ? tc->exts : "");
	if (tc->pad_to) {
		/* handshake header + fixed fields + block length + exts +
		 * padding header + padding = pad_to */
		fixed = 4 + body->len + 2 + e->len + 4 +
		    (tc->body_extra ? strlen(tc->body_extra) / 2 : 0);
		if (tc->pad_to < fixed)
			die("pad_to too small");
		want = tc->pad_to - fixed;
		put16(e, 21);
		put16(e, (unsigned)want);
		putfill(e, 0, want);
	}
	if (tc->exts || tc->pad_to) {
		put16(body, (unsigned)((long)e->len + tc->ext_block_delta));
		putn(body, e->b, e->len);
	}
	if (tc->body_extra)
		puthex(body, tc->body_extra);
	free(e);
}

/* The handshake message carried by a captured first flight. */
static void
capture_message(const struct tcase *tc, struct bld *msg)
{
	size_t off = 0, n;

	while (off + 5 <= tc->capture_len) {
		n = (size_t)tc->capture[off + 3] << 8 | tc->capture[off + 4];
		if (tc->capture[off] != 22 || off + 5 + n > tc->capture_len)
			die("capture");
		putn(msg, tc->capture + off + 5, n);
		off += 5 + n;
	}
}

/*
 * Fills in with the case's input; *hello_end is where the hello's records
 * end (what hello_raw_len must be on SNI_OK).
 */
static void
build_input(const struct tcase *tc, struct bld *in, size_t *hello_end)
{
	struct bld *msg = calloc(1, sizeof(*msg));
	struct bld *body = calloc(1, sizeof(*body));
	size_t off, n, first, idx, trail_len;
	unsigned long declared;

	if (msg == NULL || body == NULL)
		die("calloc");
	in->len = 0;
	if (tc->text || tc->hex) {
		if (tc->text)
			putn(in, tc->text, strlen(tc->text));
		else
			puthex(in, tc->hex);
		*hello_end = in->len;
		goto out;
	}
	if (tc->capture && !tc->frag && !tc->insert && !tc->trail) {
		putn(in, tc->capture, tc->capture_len);
	} else {
		if (tc->capture)
			capture_message(tc, msg);
		else {
			build_body(tc, body);
			put8(msg,
			    tc->msg_type1 ? (unsigned)tc->msg_type1 - 1 : 1);
			declared = tc->msg_len ?
			    tc->msg_len :
			    (unsigned long)((long)body->len +
			        tc->msg_len_delta);
			put24(msg, declared);
			putn(msg, body->b, body->len);
		}
		trail_len = 0;
		if (tc->trail) {
			trail_len = strlen(tc->trail) / 2;
			puthex(msg, tc->trail);
		}
		/* Split msg into records; the trailing bytes stay with the
		 * last fragment. */
		n = tc->frag ? tc->frag : 16384;
		first = tc->frag_first ? tc->frag_first : n;
		for (off = 0, idx = 0; off < msg->len; idx++) {
			size_t f = idx == 0 ? first : n;
			if (f > msg->len - off)
				f = msg->len - off;
			if (msg->len - off - f > 0 &&
			    msg->len - off - f <= trail_len)
				f = msg->len - off;
			put8(in, 22);
			put16(in, tc->rec_version ? tc->rec_version : 0x0301);
			put16(in, (unsigned)f);
			putn(in, msg->b + off, f);
			off += f;
			if (idx == 0 && tc->insert)
				puthex(in, tc->insert);
		}
	}
	*hello_end = in->len;
	if (tc->after)
		puthex(in, tc->after);
	if (tc->after_text)
		putn(in, tc->after_text, strlen(tc->after_text));
out:
	free(msg);
	free(body);
}

/* ------------------------------------------------------------------ */
/* Running a case */

static uint8_t *
scratch_for(struct tap_guard *g, size_t len)
{
	/* The scratch also ends at a guard page: a write past it faults. */
	static const uint8_t zeros[SNI_HELLO_MAX];

	return (uint8_t *)(uintptr_t)tap_guard_copy(g, zeros, len);
}

static bool
info_eq(const struct sni_info *a, const struct sni_info *b)
{
	size_t i;

	if (a->has_sni != b->has_sni || a->sni_is_ip != b->sni_is_ip ||
	    a->host.kind != b->host.kind || a->host.len != b->host.len ||
	    strcmp(a->host.name, b->host.name) != 0 ||
	    a->name_err != b->name_err ||
	    a->legacy_version != b->legacy_version ||
	    a->tls13_offered != b->tls13_offered || a->has_ech != b->has_ech ||
	    a->has_alpn != b->has_alpn || a->alpn_h2 != b->alpn_h2 ||
	    a->alpn_http11 != b->alpn_http11 ||
	    a->alpn_count != b->alpn_count || a->ext_count != b->ext_count ||
	    a->record_count != b->record_count ||
	    a->hello_len != b->hello_len ||
	    a->hello_raw_len != b->hello_raw_len)
		return false;
	for (i = 0; i < a->alpn_count && i < SNI_ALPN_MAX; i++)
		if (a->alpn[i].len != b->alpn[i].len ||
		    memcmp(a->alpn[i].name, b->alpn[i].name,
		        a->alpn[i].len < SNI_ALPN_NAME_MAX ?
		            a->alpn[i].len :
		            SNI_ALPN_NAME_MAX) != 0)
			return false;
	return true;
}

/* "p1,p2" from the stored ALPN copies; bytes outside printable ASCII
 * become '?'. */
static void
alpn_str(const struct sni_info *info, char *s, size_t size)
{
	size_t i, j, k = 0, n;

	s[0] = '\0';
	for (i = 0; i < info->alpn_count && i < SNI_ALPN_MAX; i++) {
		n = info->alpn[i].len < SNI_ALPN_NAME_MAX ? info->alpn[i].len :
		                                            SNI_ALPN_NAME_MAX;
		if (i > 0 && k + 1 < size)
			s[k++] = ',';
		for (j = 0; j < n && k + 1 < size; j++) {
			uint8_t c = info->alpn[i].name[j];
			s[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
	}
	s[k] = '\0';
}

static unsigned
flags_of(const struct sni_info *info)
{
	return (info->sni_is_ip ? W_IP : 0) |
	    (info->tls13_offered ? W_TLS13 : 0) | (info->has_ech ? W_ECH : 0) |
	    (info->alpn_h2 ? W_H2 : 0) | (info->alpn_http11 ? W_H11 : 0);
}

struct outcome {
	enum sni_result res;
	size_t off;
	struct sni_info info;
	const char *detail;
};

static struct tap_guard in_guard, scratch_guard;

static size_t
scratch_len_of(const struct tcase *tc)
{
	if (tc->scratch_len == (size_t)-1)
		return 0;
	return tc->scratch_len ? tc->scratch_len : SNI_HELLO_MAX;
}

static bool
outcome_eq(const struct outcome *a, const struct outcome *b)
{
	if (a->res != b->res)
		return false;
	if (a->res == SNI_NEED_MORE)
		return true;
	if (a->off != b->off || strcmp(a->detail, b->detail) != 0)
		return false;
	if (a->res == SNI_OK)
		return info_eq(&a->info, &b->info);
	if (a->res == SNI_ERR_BAD_NAME)
		return a->info.name_err == b->info.name_err;
	return true;
}

/* A later call after a final result: same result and offset, *out left
 * alone on OK (it still holds feed()'s fill pattern). */
static bool
sticky_eq(const struct outcome *first, const struct outcome *again)
{
	static struct sni_info untouched;

	memset(&untouched, 0xee, sizeof(untouched));
	if (again->res != first->res || again->off != first->off)
		return false;
	if (again->res == SNI_OK)
		return memcmp(&again->info, &untouched, sizeof(untouched)) == 0;
	if (again->res == SNI_ERR_BAD_NAME)
		return again->info.name_err == first->info.name_err;
	return true;
}

static void
feed(struct sni_reader *r, const uint8_t *p, size_t n, struct outcome *o)
{
	memset(&o->info, 0xee, sizeof(o->info));
	o->off = (size_t)-7;
	o->res = sni_reader_feed(r, p, n, &o->info, &o->off);
	o->detail = sni_reader_detail(r);
}

static const char *
res_name(enum sni_result res)
{
	static const char *names[] = {"OK", "NEED_MORE", "NOT_TLS", "RECORD",
	    "NOT_CLIENT_HELLO", "MALFORMED", "DUP_EXTENSION", "MULTIPLE_NAMES",
	    "BAD_NAME", "TOO_LARGE"};

	return (unsigned)res < sizeof(names) / sizeof(names[0]) ? names[res] :
	                                                          "?";
}

static void
check_expectations(const struct tcase *tc, const struct outcome *o,
    size_t in_len, size_t hello_end)
{
	char alpn[512];
	struct hostname again;

	if (!tap_ok(o->res == tc->want, "%s: result %s", tc->name,
	        res_name(tc->want)))
		tap_diag(
		    "got %s at %zu: %s", res_name(o->res), o->off, o->detail);
	if (o->res != tc->want)
		return;
	if (o->res == SNI_OK) {
		tap_is_int(o->info.hello_raw_len, hello_end,
		    "%s: hello_raw_len is the end of its records", tc->name);
		tap_ok(o->off == 0 && o->detail[0] == '\0',
		    "%s: no error offset or detail on OK", tc->name);
		tap_is_int(
		    o->info.has_sni, tc->host != NULL, "%s: has_sni", tc->name);
		tap_is_str(o->info.host.name, tc->host ? tc->host : "",
		    "%s: host", tc->name);
		if (o->info.has_sni) {
			tap_ok(hostname_normalize(o->info.host.name,
			           o->info.host.len, &again) == HOSTNAME_OK &&
			        strcmp(again.name, o->info.host.name) == 0 &&
			        again.kind == o->info.host.kind,
			    "%s: host is normalized", tc->name);
			tap_is_int(o->info.host.len, strlen(o->info.host.name),
			    "%s: host.len", tc->name);
		}
		tap_is_int(
		    flags_of(&o->info), tc->flags, "%s: flags", tc->name);
		alpn_str(&o->info, alpn, sizeof(alpn));
		tap_is_int(o->info.has_alpn, tc->alpn != NULL, "%s: has_alpn",
		    tc->name);
		tap_is_str(
		    alpn, tc->alpn ? tc->alpn : "", "%s: alpn", tc->name);
		tap_ok(o->info.hello_len >= 4 &&
		        o->info.hello_len <= SNI_HELLO_MAX &&
		        o->info.hello_len + 5 * o->info.record_count ==
		            hello_end,
		    "%s: hello_len and record_count add up to the raw length",
		    tc->name);
	} else if (o->res == SNI_NEED_MORE) {
		tap_ok(
		    o->off == 0, "%s: no error offset on NEED_MORE", tc->name);
	} else {
		tap_ok(o->off <= in_len && o->detail[0] != '\0',
		    "%s: error offset %zu within input, detail \"%s\"",
		    tc->name, o->off, o->detail);
		if (tc->check_off)
			tap_is_int(
			    o->off, tc->off, "%s: error offset", tc->name);
		if (o->res == SNI_ERR_BAD_NAME)
			tap_is_int(o->info.name_err, tc->name_err,
			    "%s: name_err %s", tc->name,
			    hostname_strerror(tc->name_err));
	}
}

static void
run_case(const struct tcase *tc)
{
	static struct bld in;
	struct sni_reader r;
	struct outcome whole, g, o, o2;
	const uint8_t *p;
	uint8_t *scratch;
	size_t hello_end, k, slen = scratch_len_of(tc), stride, final_at = 0;
	bool ok;

	build_input(tc, &in, &hello_end);

	/* Whole, on a guard page, with the scratch on its own guard. */
	scratch = scratch_for(&scratch_guard, slen);
	p = tap_guard_copy(&in_guard, in.b, in.len);
	sni_reader_init(&r, scratch, slen);
	feed(&r, p, in.len, &whole);
	check_expectations(tc, &whole, in.len, hello_end);

	/* A final result is sticky: a later call repeats it and reads
	 * neither the input (here: the guard page itself, where any read
	 * faults) nor the scratch (overwritten: a re-parse would differ). */
	memset(scratch, 0xff, slen);
	feed(&r, in_guard.base + in_guard.size - (size_t)sysconf(_SC_PAGESIZE),
	    in.len, &o);
	tap_ok(sticky_eq(&whole, &o), "%s: repeated call gives the same",
	    tc->name);

	/* One byte more per call, every prefix ending on a guard page and at
	 * a new address (the caller may move its buffer). */
	sni_reader_init(&r, scratch, slen);
	ok = true;
	for (k = 0; k <= in.len; k++) {
		p = tap_guard_copy(&in_guard, in.b, k);
		feed(&r, p, k, &g);
		if (g.res == SNI_NEED_MORE && k < in.len)
			continue;
		if (!outcome_eq(&g, &whole)) {
			tap_diag("prefix %zu: %s at %zu (%s), whole %s", k,
			    res_name(g.res), g.off, g.detail,
			    res_name(whole.res));
			ok = false;
		}
		final_at = k;
		break;
	}
	tap_ok(ok, "%s: growing prefixes agree with the whole input", tc->name);
	if (whole.res == SNI_OK)
		tap_is_int(final_at, whole.info.hello_raw_len,
		    "%s: OK exactly when the hello's last record is in",
		    tc->name);
	else if (whole.res != SNI_NEED_MORE)
		tap_ok(whole.off <= final_at,
		    "%s: error offset %zu within the prefix that decided (%zu)",
		    tc->name, whole.off, final_at);

	/* Two calls: a fresh reader fed [0, k) then everything. */
	stride = in.len <= 4096 ? 1 : in.len / 512;
	ok = true;
	for (k = 0; k <= in.len && ok; k += stride) {
		sni_reader_init(&r, scratch, slen);
		feed(&r, in.b, k, &o);
		feed(&r, in.b, in.len, &o2);
		if (o.res != SNI_NEED_MORE ?
		        !outcome_eq(&o, &whole) || !sticky_eq(&o, &o2) :
		        !outcome_eq(&o2, &whole)) {
			tap_diag("split at %zu: %s then %s, whole %s", k,
			    res_name(o.res), res_name(o2.res),
			    res_name(whole.res));
			ok = false;
		}
	}
	tap_ok(ok, "%s: split in two at every offset agrees", tc->name);
}

/* ------------------------------------------------------------------ */
/* Tests beyond the table */

/* Feeding a 16 KiB hello one byte per call reads each byte a bounded
 * number of times: counted, not timed. */
static void
test_linear_cost(void)
{
	static struct bld in;
	static uint8_t scratch[SNI_HELLO_MAX];
	struct tcase tc = {
	    .name = "cost", .exts = "sni a.example", .pad_to = SNI_HELLO_MAX};
	struct tcase tc1 = {.name = "cost1",
	    .exts = "sni a.example",
	    .pad_to = 10000,
	    .frag = 1};
	struct sni_reader r;
	struct sni_info info;
	enum sni_result res = SNI_NEED_MORE;
	size_t k, end;

	build_input(&tc, &in, &end);
	sni_reader_init(&r, scratch, sizeof(scratch));
	for (k = 1; k <= in.len && res == SNI_NEED_MORE; k++)
		res = sni_reader_feed(&r, in.b, k, &info, NULL);
	tap_ok(res == SNI_OK, "cost: 16 KiB hello fed one byte per call");
	tap_ok(r.examined_len < 4 * in.len,
	    "cost: %zu bytes examined for %zu input bytes (< 4x)",
	    r.examined_len, in.len);

	build_input(&tc1, &in, &end);
	sni_reader_init(&r, scratch, sizeof(scratch));
	res = SNI_NEED_MORE;
	for (k = 1; k <= in.len && res == SNI_NEED_MORE; k++)
		res = sni_reader_feed(&r, in.b, k, &info, NULL);
	tap_ok(res == SNI_OK,
	    "cost: 10000-byte hello in one-byte records, one byte per call");
	tap_ok(r.examined_len < 4 * in.len,
	    "cost: %zu bytes examined for %zu input bytes (< 4x)",
	    r.examined_len, in.len);

	/* Calls that bring nothing new cost nothing. */
	sni_reader_init(&r, scratch, sizeof(scratch));
	for (k = 0; k < 100000; k++)
		(void)sni_reader_feed(&r, in.b, 3, &info, NULL);
	tap_ok(r.examined_len == 3,
	    "cost: 100000 calls without new bytes examine nothing more (%zu)",
	    r.examined_len);
}

/*
 * A caller that buffers SNI_RAW_MAX bytes always gets a final answer: a
 * hello claiming 16380 bytes sent in one-byte records, with the first
 * record f bytes long so that records straddle the cap differently.
 */
static void
test_raw_max_is_final(void)
{
	static uint8_t buf[SNI_RAW_MAX], scratch[SNI_HELLO_MAX];
	static const uint8_t msg_start[4] = {0x01, 0x00, 0x3f, 0xfc};
	struct sni_reader r;
	struct sni_info info;
	enum sni_result res;
	size_t f, pos, m, n, off;

	for (f = 1; f <= 6; f++) {
		pos = m = 0;
		while (pos < sizeof(buf)) {
			n = m == 0 ? f : 1;
			uint8_t rec[5 + 6] = {
			    0x16, 0x03, 0x01, 0x00, (uint8_t)n};
			for (size_t j = 0; j < n; j++, m++)
				rec[5 + j] = m < 4 ? msg_start[m] : 0;
			for (size_t j = 0; j < 5 + n && pos < sizeof(buf); j++)
				buf[pos++] = rec[j];
		}
		sni_reader_init(&r, scratch, sizeof(scratch));
		res = sni_reader_feed(&r, buf, sizeof(buf), &info, &off);
		tap_ok(res == SNI_ERR_TOO_LARGE && off <= sizeof(buf),
		    "raw cap: SNI_RAW_MAX bytes of one-byte records (first %zu) "
		    "give TOO_LARGE at %zu (%s)",
		    f, off, res_name(res));
	}
}

/* A record that starts inside SNI_RAW_MAX but would end past it is refused
 * at its length field, before its bytes arrive. */
static void
test_record_crossing_raw_max(void)
{
	static uint8_t buf[SNI_RAW_MAX], scratch[SNI_HELLO_MAX];
	static const uint8_t first[9] = {
	    0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x00, 0x3f, 0xfc};
	static const uint8_t one[6] = {0x16, 0x03, 0x01, 0x00, 0x01, 0x00};
	static const uint8_t big[5] = {0x16, 0x03, 0x01, 0x00, 0xc8};
	struct sni_reader r;
	struct sni_info info;
	enum sni_result res;
	size_t pos, off;

	memcpy(buf, first, sizeof(first));
	for (pos = sizeof(first); pos + sizeof(one) <= 65400;
	     pos += sizeof(one))
		memcpy(buf + pos, one, sizeof(one));
	memcpy(buf + pos, big, sizeof(big));
	sni_reader_init(&r, scratch, sizeof(scratch));
	res = sni_reader_feed(&r, buf, pos + sizeof(big), &info, &off);
	tap_ok(res == SNI_ERR_TOO_LARGE,
	    "raw cap: a 200-byte record at %zu would cross SNI_RAW_MAX (%s)",
	    pos, res_name(res));
	tap_is_int(off, pos + 3, "raw cap: offset of that record's length");
}

static void
test_strerror(void)
{
	enum sni_result a, b;
	bool distinct = true;

	for (a = SNI_OK; a <= SNI_ERR_TOO_LARGE; a++)
		for (b = a + 1; b <= SNI_ERR_TOO_LARGE; b++)
			if (strcmp(sni_strerror(a), sni_strerror(b)) == 0)
				distinct = false;
	tap_ok(distinct, "sni_strerror: one distinct message per result");
	tap_is_str(sni_strerror(SNI_ERR_MULTIPLE_NAMES),
	    "ClientHello server_name lists more than one name",
	    "sni_strerror: MULTIPLE_NAMES");
	tap_ok(sni_strerror((enum sni_result)99) != NULL,
	    "sni_strerror: unknown value still gives a message");
}

/* Bytes after the hello are never read: they may change under us. */
static void
test_after_hello_unread(void)
{
	static struct bld in;
	static uint8_t scratch[SNI_HELLO_MAX];
	struct tcase tc = {
	    .name = "unread", .exts = "sni a.example", .after = "ffffffff"};
	struct sni_reader r;
	struct sni_info info;
	size_t end;
	const uint8_t *p;

	build_input(&tc, &in, &end);
	sni_reader_init(&r, scratch, sizeof(scratch));
	/* Guard right after the hello: reading past it would fault. */
	p = tap_guard_copy(&in_guard, in.b, end);
	tap_ok(sni_reader_feed(&r, p, end, &info, NULL) == SNI_OK,
	    "unread: OK with the hello alone");
	/* A longer buffer with different tail bytes: still OK, same info. */
	in.b[end] = 0x15;
	tap_ok(sni_reader_feed(&r, in.b, in.len, &info, NULL) == SNI_OK &&
	        strcmp(info.host.name, "a.example") == 0 &&
	        info.hello_raw_len == end,
	    "unread: later bytes do not change the answer");
}

/*
 * test_sni --write-corpus DIR writes each case's input (up to 20 KiB) to
 * DIR/NAME, to seed tests/fuzz/corpus/client_hello.
 */
static int
write_corpus(const char *dir)
{
	static struct bld in;
	char path[512], name[128];
	size_t i, j, end;
	FILE *f;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		build_input(&cases[i], &in, &end);
		if (in.len > 20000)
			continue;
		for (j = 0; cases[i].name[j] && j + 1 < sizeof(name); j++) {
			char c = cases[i].name[j];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			name[j] = (c >= 'a' && c <= 'z') ||
			        (c >= '0' && c <= '9') || c == '-' ?
			    c :
			    '_';
		}
		name[j] = '\0';
		snprintf(path, sizeof(path), "%s/case_%s", dir, name);
		if ((f = fopen(path, "wb")) == NULL ||
		    fwrite(in.b, 1, in.len, f) != in.len || fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
		return write_corpus(argv[2]);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_linear_cost();
	test_raw_max_is_final();
	test_record_crossing_raw_max();
	test_strerror();
	test_after_hello_unread();
	tap_guard_free(&in_guard);
	tap_guard_free(&scratch_guard);
	tap_diag("%zu table cases", sizeof(cases) / sizeof(cases[0]));
	return tap_done();
}
