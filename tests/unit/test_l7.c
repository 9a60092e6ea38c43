/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for policies/l7.c: path canonicalization (every rule, whole,
 * every prefix, on a guard page, idempotence, output bounds), query
 * parsing, path and value globs (against a reference matcher, and
 * pathological patterns by step count), and request decisions (presets per
 * method, git smart HTTP, rules, query matchers, deny rules, OR-ed
 * endpoints, upgrades, invalid paths, audit and enforce).
 */
#include <sys/mman.h>
#include <sys/socket.h>

#include "l7.h"
#include "strbuf.h"
#include "tap.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- canonicalization --------------------------------------------------- */

struct canon_case {
	const char *name;
	const char *in;
	bool slash; /* allow_encoded_slash */
	enum l7_path_result r;
	const char *path;  /* canonical path when OK */
	const char *query; /* raw query when OK and present, else NULL */
	int err_off;       /* -1: not checked */
};

#define OK   L7_PATH_OK
#define NA   NULL
#define SKIP (-1)

static const struct canon_case canon_cases[] = {
    /* plain paths pass unchanged */
    {"root", "/", false, OK, "/", NA, SKIP},
    {"one segment", "/a", false, OK, "/a", NA, SKIP},
    {"two segments", "/a/b", false, OK, "/a/b", NA, SKIP},
    {"trailing slash kept", "/a/b/", false, OK, "/a/b/", NA, SKIP},
    {"pypi simple index", "/simple/requests/", false, OK, "/simple/requests/",
        NA, SKIP},
    {"npm package", "/left-pad", false, OK, "/left-pad", NA, SKIP},
    {"npm scoped package", "/@types%2fnode", true, OK, "/@types%2Fnode", NA,
        SKIP},
    {"docker manifest", "/v2/library/ubuntu/manifests/22.04", false, OK,
        "/v2/library/ubuntu/manifests/22.04", NA, SKIP},
    {"all sub-delims, colon and at", "/!$&'()*+,;=:@", false, OK,
        "/!$&'()*+,;=:@", NA, SKIP},
    {"unreserved", "/AZaz09-._~", false, OK, "/AZaz09-._~", NA, SKIP},
    {"case preserved", "/Repos/ABC", false, OK, "/Repos/ABC", NA, SKIP},
    {"dots inside names", "/a/..b/b../.../c.d", false, OK, "/a/..b/b../.../c.d",
        NA, SKIP},
    {"path parameter kept", "/a;v=1/b", false, OK, "/a;v=1/b", NA, SKIP},
    {"segment starting with dot-dot-letter and semicolon", "/..a;b", false, OK,
        "/..a;b", NA, SKIP},
    /* unreserved escapes are decoded (RFC 3986 §2.3, §6.2.2.2) */
    {"decode letters", "/%41%42c", false, OK, "/ABc", NA, SKIP},
    {"decode lowercase hex letter", "/%61", false, OK, "/a", NA, SKIP},
    {"decode digit", "/a%30", false, OK, "/a0", NA, SKIP},
    {"decode tilde lowercase", "/%7euser", false, OK, "/~user", NA, SKIP},
    {"decode tilde uppercase", "/%7Euser", false, OK, "/~user", NA, SKIP},
    {"decode hyphen underscore", "/%2D%5F", false, OK, "/-_", NA, SKIP},
    {"decode dot inside name", "/a%2Eb", false, OK, "/a.b", NA, SKIP},
    {"decode dash in git path", "/o/r/git%2dupload%2Dpack", false, OK,
        "/o/r/git-upload-pack", NA, SKIP},
    /* other escapes stay, with uppercase hex (§6.2.2.1) */
    {"star stays encoded", "/a%2a", false, OK, "/a%2A", NA, SKIP},
    {"utf-8 e-acute", "/%c3%a9", false, OK, "/%C3%A9", NA, SKIP},
    {"space", "/a%20b", false, OK, "/a%20b", NA, SKIP},
    {"semicolon encoded", "/a%3bb", false, OK, "/a%3Bb", NA, SKIP},
    {"question mark encoded", "/a%3f", false, OK, "/a%3F", NA, SKIP},
    {"hash encoded", "/a%23", false, OK, "/a%23", NA, SKIP},
    {"percent encoded", "/100%25", false, OK, "/100%25", NA, SKIP},
    {"percent then letters", "/%25zz", false, OK, "/%25zz", NA, SKIP},
    {"percent then one hex", "/%25a", false, OK, "/%25a", NA, SKIP},
    {"at sign encoded", "/%40scope", false, OK, "/%40scope", NA, SKIP},
    {"mixed case hex", "/%3a%5B%5d", true, OK, "/%3A%5B%5D", NA, SKIP},
    {"emoji", "/%F0%9F%98%80", false, OK, "/%F0%9F%98%80", NA, SKIP},
    {"three-byte char", "/%E2%82%AC", false, OK, "/%E2%82%AC", NA, SKIP},
    {"max code point", "/%F4%8F%BF%BF", false, OK, "/%F4%8F%BF%BF", NA, SKIP},
    /* dot segments (§5.2.4) */
    {"dot", "/a/./b", false, OK, "/a/b", NA, SKIP},
    {"dot-dot", "/a/../b", false, OK, "/b", NA, SKIP},
    {"dot-dot at end", "/a/b/..", false, OK, "/a/", NA, SKIP},
    {"dot at end", "/a/b/.", false, OK, "/a/b/", NA, SKIP},
    {"root dot", "/.", false, OK, "/", NA, SKIP},
    {"back to root", "/a/..", false, OK, "/", NA, SKIP},
    {"back to root with slash", "/a/../", false, OK, "/", NA, SKIP},
    {"several dot-dots", "/a/b/c/../../d", false, OK, "/a/d", NA, SKIP},
    {"dot-dot then dot", "/a/b/.././c", false, OK, "/a/c", NA, SKIP},
    {"encoded dot-dot lowercase", "/a/%2e%2e/b", false, OK, "/b", NA, SKIP},
    {"encoded dot-dot uppercase", "/a/%2E%2E/b", false, OK, "/b", NA, SKIP},
    {"half-encoded dot-dot", "/a/.%2e/b", false, OK, "/b", NA, SKIP},
    {"half-encoded dot-dot other half", "/a/%2E./b", false, OK, "/b", NA, SKIP},
    {"encoded dot", "/a/%2e/b", false, OK, "/a/b", NA, SKIP},
    {"dot-dot climbs into allowed prefix", "/admin/../repos/x", false, OK,
        "/repos/x", NA, SKIP},
    {"dot-dot out of allowed prefix", "/repos/../admin", false, OK, "/admin",
        NA, SKIP},
    {"above root", "/..", false, L7_PATH_ERR_ABOVE_ROOT, NA, NA, 1},
    {"above root later", "/a/../..", false, L7_PATH_ERR_ABOVE_ROOT, NA, NA, 6},
    {"above root first", "/../a", false, L7_PATH_ERR_ABOVE_ROOT, NA, NA, 1},
    {"above root encoded", "/%2e%2e", false, L7_PATH_ERR_ABOVE_ROOT, NA, NA, 1},
    {"above root after dot", "/./..", false, L7_PATH_ERR_ABOVE_ROOT, NA, NA, 3},
    {"above root trailing slash", "/a/b/../../../", false,
        L7_PATH_ERR_ABOVE_ROOT, NA, NA, 11},
    /* empty segments collapse, before dot segments */
    {"double slash", "//", false, OK, "/", NA, SKIP},
    {"leading double slash", "//a", false, OK, "/a", NA, SKIP},
    {"inner double slash", "/a//b", false, OK, "/a/b", NA, SKIP},
    {"many slashes", "/a///b//", false, OK, "/a/b/", NA, SKIP},
    {"slash then dot-dot", "/a//../b", false, OK, "/b", NA, SKIP},
    {"dot then slash", "/a/.//b", false, OK, "/a/b", NA, SKIP},
    {"only slashes and dots", "//.//./", false, OK, "/", NA, SKIP},
    /* encoded slash */
    {"encoded slash refused", "/a%2Fb", false, L7_PATH_ERR_ENCODED_SLASH, NA,
        NA, 2},
    {"encoded slash lowercase refused", "/a%2fb", false,
        L7_PATH_ERR_ENCODED_SLASH, NA, NA, 2},
    {"encoded slash allowed, stays", "/a%2fb", true, OK, "/a%2Fb", NA, SKIP},
    {"encoded slash is not a separator", "/group%2Fproject/x/..", true, OK,
        "/group%2Fproject/", NA, SKIP},
    {"encoded slash at segment end", "/a%2F", true, OK, "/a%2F", NA, SKIP},
    {"dot-dot before encoded slash", "/a/..%2Fb", true, L7_PATH_ERR_ENCODED_DOT,
        NA, NA, 3},
    {"dot-dot after encoded slash", "/a/b%2F..", true, L7_PATH_ERR_ENCODED_DOT,
        NA, NA, 3},
    {"dot between encoded slashes", "/a%2F.%2Fb", true, L7_PATH_ERR_ENCODED_DOT,
        NA, NA, 1},
    {"encoded dot-dot and encoded slash", "/%2e%2e%2fadmin", true,
        L7_PATH_ERR_ENCODED_DOT, NA, NA, 1},
    {"dot-dot encoded slash without allow", "/a/..%2Fb", false,
        L7_PATH_ERR_ENCODED_SLASH, NA, NA, 5},
    {"dots inside name next to encoded slash", "/a..%2F..b", true, OK,
        "/a..%2F..b", NA, SKIP},
    /* backslashes */
    {"backslash", "/a\\b", false, L7_PATH_ERR_BACKSLASH, NA, NA, 2},
    {"backslash dot-dot", "/a/..\\admin", false, L7_PATH_ERR_BACKSLASH, NA, NA,
        5},
    {"encoded backslash", "/a%5Cb", false, L7_PATH_ERR_ENCODED_BACKSLASH, NA,
        NA, 2},
    {"encoded backslash lowercase", "/a%5cb", true,
        L7_PATH_ERR_ENCODED_BACKSLASH, NA, NA, 2},
    /* NUL and malformed escapes */
    {"encoded NUL", "/a%00", false, L7_PATH_ERR_NUL, NA, NA, 2},
    {"encoded NUL mid", "/a%00.txt", false, L7_PATH_ERR_NUL, NA, NA, 2},
    {"lone percent", "/%", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 1},
    {"percent at end", "/a%", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 2},
    {"percent one digit", "/%1", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 1},
    {"percent non-hex first", "/%G1", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 1},
    {"percent non-hex second", "/%1G", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA,
        1},
    {"percent space", "/% 1", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 1},
    {"percent before slash", "/%2/", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 1},
    {"percent before query", "/a%?x", false, L7_PATH_ERR_BAD_ESCAPE, NA, NA, 2},
    {"double encoded dot-dot", "/a/%252e%252e/b", false,
        L7_PATH_ERR_DOUBLE_ENCODED, NA, NA, 3},
    {"double encoded slash", "/a%252Fb", true, L7_PATH_ERR_DOUBLE_ENCODED, NA,
        NA, 1},
    {"double encoding via decoded digits", "/%25%34%31", false,
        L7_PATH_ERR_DOUBLE_ENCODED, NA, NA, 1},
    /* raw bytes outside the path characters (§3.3) */
    {"space", "/a b", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"tab", "/a\tb", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"double quote", "/a\"", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"less than", "/<x>", false, L7_PATH_ERR_CHAR, NA, NA, 1},
    {"caret", "/a^b", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"backquote", "/a`b", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"braces", "/a{b}", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"pipe", "/a|b", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"brackets", "/a[0]", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"DEL", "/a\x7f", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"high byte", "/a\x80", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"raw utf-8", "/caf\xc3\xa9", false, L7_PATH_ERR_CHAR, NA, NA, 4},
    {"fragment", "/a#frag", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"CR", "/a\r", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    {"LF", "/a\n", false, L7_PATH_ERR_CHAR, NA, NA, 2},
    /* not origin-form */
    {"empty", "", false, L7_PATH_ERR_EMPTY, NA, NA, 0},
    {"relative", "a/b", false, L7_PATH_ERR_NOT_ABSOLUTE, NA, NA, 0},
    {"asterisk form", "*", false, L7_PATH_ERR_NOT_ABSOLUTE, NA, NA, 0},
    {"absolute form", "http://x/", false, L7_PATH_ERR_NOT_ABSOLUTE, NA, NA, 0},
    {"query only", "?q", false, L7_PATH_ERR_NOT_ABSOLUTE, NA, NA, 0},
    {"backslash first", "\\a", false, L7_PATH_ERR_NOT_ABSOLUTE, NA, NA, 0},
    {"encoded slash first", "%2Fa", true, L7_PATH_ERR_NOT_ABSOLUTE, NA, NA, 0},
    /* UTF-8 of escaped bytes (RFC 3629 §4) */
    {"overlong dot", "/a/%C0%AE%C0%AE/b", false, L7_PATH_ERR_BAD_UTF8, NA, NA,
        3},
    {"overlong slash two bytes", "/a%C0%AFb", false, L7_PATH_ERR_BAD_UTF8, NA,
        NA, 2},
    {"overlong slash three bytes", "/a%E0%80%AFb", false, L7_PATH_ERR_BAD_UTF8,
        NA, NA, 5},
    {"overlong four bytes", "/%F0%80%80%AF", false, L7_PATH_ERR_BAD_UTF8, NA,
        NA, 4},
    {"C1 lead", "/%C1%81", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 1},
    {"surrogate", "/%ED%A0%80", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 4},
    {"above U+10FFFF", "/%F4%90%80%80", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 4},
    {"F5 lead", "/%F5%80%80%80", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 1},
    {"FF byte", "/%FF", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 1},
    {"lone continuation", "/%80", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 1},
    {"truncated at end", "/%C3", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 4},
    {"truncated at slash", "/%C3/x", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 4},
    {"truncated at query", "/%E2%82?x", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 7},
    {"truncated by raw byte", "/%C3a", false, L7_PATH_ERR_BAD_UTF8, NA, NA, 4},
    {"truncated by decoded ascii", "/%C3%41", false, L7_PATH_ERR_BAD_UTF8, NA,
        NA, 4},
    /* dot segments with parameters (servlet containers) */
    {"dot-dot semicolon", "/a/..;/b", false, L7_PATH_ERR_DOT_PARAMS, NA, NA, 3},
    {"dot semicolon", "/a/.;x/b", false, L7_PATH_ERR_DOT_PARAMS, NA, NA, 3},
    {"dot-dot encoded semicolon", "/a/..%3b/b", false, L7_PATH_ERR_DOT_PARAMS,
        NA, NA, 3},
    {"encoded dot-dot semicolon", "/a/%2e%2e;/b", false, L7_PATH_ERR_DOT_PARAMS,
        NA, NA, 3},
    {"dot-dot semicolon at end", "/a/..;", false, L7_PATH_ERR_DOT_PARAMS, NA,
        NA, 3},
    {"dot-dot semicolon jsessionid", "/x/..;jsessionid=1/admin", false,
        L7_PATH_ERR_DOT_PARAMS, NA, NA, 3},
    /* the query is split off, not canonicalized */
    {"query", "/a?x=1", false, OK, "/a", "x=1", SKIP},
    {"empty query", "/?", false, OK, "/", "", SKIP},
    {"query after dot-dot", "/a/../b?c", false, OK, "/b", "c", SKIP},
    {"dots in query stay", "/a?b/../c", false, OK, "/a", "b/../c", SKIP},
    {"second question mark in query", "/a?b?c", false, OK, "/a", "b?c", SKIP},
    {"query not validated here", "/a?%zz", false, OK, "/a", "%zz", SKIP},
    {"git info refs", "/o/r.git/info/refs?service=git-upload-pack", false, OK,
        "/o/r.git/info/refs", "service=git-upload-pack", SKIP},
    {"trailing slash and query", "/simple/pip/?format=json", false, OK,
        "/simple/pip/", "format=json", SKIP},
    {"above root before query", "/%2e%2e?x", false, L7_PATH_ERR_ABOVE_ROOT, NA,
        NA, 1},
};

/* A writable buffer whose last byte is followed by an inaccessible page. */
struct wguard {
	char *base;
	size_t size, pg;
};

static char *
wguard_buf(struct wguard *g, size_t len)
{
	if (g->base == NULL) {
		g->pg = (size_t)sysconf(_SC_PAGESIZE);
		g->size = ((L7_PATH_MAX + 64 + g->pg - 1) / g->pg + 1) * g->pg;
		g->base = mmap(NULL, g->size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g->base == MAP_FAILED)
			exit(2);
		mprotect(g->base + g->size - g->pg, g->pg, PROT_NONE);
	}
	return g->base + g->size - g->pg - len;
}

static struct tap_guard guard;
static struct wguard wguard;

/* Canonicalizes in[0..len) from a guard page into an exactly sized
 * guarded output buffer. */
static enum l7_path_result
canon_guarded(const char *in, size_t len, bool slash, char *copy,
    size_t copy_cap, struct l7_target *t, size_t *err_off)
{
	const char *g = (const char *)tap_guard_copy(&guard, in, len);
	size_t cap = (len > L7_PATH_MAX ? L7_PATH_MAX : len) + 1;
	char *out = wguard_buf(&wguard, cap);
	enum l7_path_result r;

	r = l7_path_canon(g, len, slash, out, cap, t, err_off);
	if (r == L7_PATH_OK && t->path_len < copy_cap) {
		memcpy(copy, out, t->path_len + 1);
	} else if (copy_cap) {
		copy[0] = '\0';
	}
	return r;
}

static bool
idempotent(const char *canon, bool slash)
{
	char again[L7_PATH_MAX + 1];
	struct l7_target t;
	size_t off;

	return l7_path_canon(canon, strlen(canon), slash, again, sizeof(again),
	           &t, &off) == L7_PATH_OK &&
	    strcmp(again, canon) == 0 && !t.has_query;
}

static void
test_canon_table(void)
{
	size_t i, k;

	for (i = 0; i < NELEM(canon_cases); i++) {
		const struct canon_case *c = &canon_cases[i];
		size_t len = strlen(c->in), off = SIZE_MAX;
		char out[L7_PATH_MAX + 1];
		struct l7_target t;
		enum l7_path_result r;
		bool prefixes_ok = true;

		r = canon_guarded(
		    c->in, len, c->slash, out, sizeof(out), &t, &off);
		if (!tap_ok(r == c->r, "canon %s: %s", c->name,
		        l7_path_strerror(c->r)))
			tap_diag("got %s (at %zu) for \"%s\"",
			    l7_path_strerror(r), off, c->in);
		if (r == OK && c->r == OK) {
			tap_is_str(out, c->path, "canon %s: path", c->name);
			if (c->query) {
				tap_ok(t.has_query &&
				        t.query.len == strlen(c->query) &&
				        memcmp(c->in + t.query.off, c->query,
				            t.query.len) == 0,
				    "canon %s: query span", c->name);
			} else {
				tap_ok(!t.has_query, "canon %s: no query",
				    c->name);
			}
			tap_ok(idempotent(out, c->slash),
			    "canon %s: idempotent", c->name);
			tap_ok(t.path_len <= len && t.path_len == strlen(out),
			    "canon %s: never longer than the input", c->name);
		}
		if (r != OK && c->err_off >= 0)
			tap_is_int(
			    off, c->err_off, "canon %s: error offset", c->name);
		/* Every prefix: no crash on a guard page, a known result,
		 * and an idempotent canonical form when valid. */
		for (k = 0; k <= len; k++) {
			char o2[L7_PATH_MAX + 1];
			struct l7_target t2;
			size_t off2 = 0;
			enum l7_path_result r2 = canon_guarded(
			    c->in, k, c->slash, o2, sizeof(o2), &t2, &off2);

			if (r2 > L7_PATH_ERR_PATTERN_DOT ||
			    r2 == L7_PATH_ERR_BUFFER ||
			    (r2 == OK && !idempotent(o2, c->slash)) ||
			    (r2 != OK && off2 > k)) {
				prefixes_ok = false;
				tap_diag("prefix %zu of \"%s\": %s", k, c->in,
				    l7_path_strerror(r2));
			}
		}
		tap_ok(prefixes_ok, "canon %s: every prefix", c->name);
	}
}

static void
test_canon_limits(void)
{
	static char big[L7_PATH_MAX + 2], out[L7_PATH_MAX + 1];
	struct l7_target t;
	size_t off = 0, i;
	enum l7_path_result r;

	big[0] = '/';
	for (i = 1; i < sizeof(big) - 1; i++)
		big[i] = i % 8 == 0 ? '/' : 'a';
	r = canon_guarded(big, L7_PATH_MAX, false, out, sizeof(out), &t, &off);
	tap_is_int(r, OK, "canon limits: exactly 8192 bytes pass");
	tap_is_int(t.path_len, L7_PATH_MAX, "canon limits: unchanged length");
	r = canon_guarded(
	    big, L7_PATH_MAX + 1, false, out, sizeof(out), &t, &off);
	tap_is_int(r, L7_PATH_ERR_TOO_LONG, "canon limits: 8193 bytes refused");
	tap_is_int(off, L7_PATH_MAX, "canon limits: too long at 8192");

	/* output buffers smaller than needed: BUFFER, never an overrun */
	for (i = 0; i < 12; i++) {
		char *o = wguard_buf(&wguard, i);

		r = l7_path_canon("/abc/def/", 9, false, o, i, &t, &off);
		if (i >= 10)
			tap_ok(r == OK && strcmp(o, "/abc/def/") == 0,
			    "canon limits: output buffer of %zu is enough", i);
		else
			tap_is_int(r, L7_PATH_ERR_BUFFER,
			    "canon limits: output buffer of %zu refused", i);
	}
	/* the buffer must hold the input's path, not only the result */
	{
		char o[4];

		r = l7_path_canon(
		    "/a/b/../../x", 12, false, o, sizeof(o), &t, &off);
		tap_is_int(r, L7_PATH_ERR_BUFFER,
		    "canon limits: output sized by the input, not the result");
	}
	/* deep dot-dot chains are linear and exact */
	{
		static char deep[L7_PATH_MAX + 1];
		size_t n = 0;

		while (n + 2 <= 4000) {
			deep[n++] = '/';
			deep[n++] = 'a';
		}
		while (n + 3 <= 8000) {
			memcpy(deep + n, "/..", 3);
			n += 3;
		}
		r = l7_path_canon(deep, n, false, out, sizeof(out), &t, &off);
		tap_is_int(r, OK, "canon limits: 2000 segments, 1333 dot-dots");
		{
			static char want[L7_PATH_MAX];
			size_t k, w = 0;

			for (k = 0; k < 2000 - 1333; k++) {
				want[w++] = '/';
				want[w++] = 'a';
			}
			want[w++] = '/';
			want[w] = '\0';
			tap_is_str(out, want,
			    "canon limits: 667 segments left, trailing slash");
		}
	}
	/* raw NUL in the input (explicit length) */
	r = l7_path_canon("/a\0b", 4, false, out, sizeof(out), &t, &off);
	tap_ok(r == L7_PATH_ERR_CHAR && off == 2,
	    "canon limits: raw NUL byte is a bad character");
}

/* Every single byte after "/" and every escape %00..%FF: what happens
 * to each is decided by exactly one rule. */
static void
test_canon_bytes(void)
{
	int b, bad = 0;

	for (b = 0; b < 256; b++) {
		char in[3] = {'/', (char)b, 0}, out[8];
		struct l7_target t;
		size_t off;
		enum l7_path_result r =
		    l7_path_canon(in, 2, false, out, sizeof(out), &t, &off);
		bool pchar = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
		    (b >= '0' && b <= '9') ||
		    (b && strchr("-._~!$&'()*+,;=:@", b));
		enum l7_path_result want = pchar ? OK :
		    b == '/' || b == '?'         ? OK :
		    b == '\\'                    ? L7_PATH_ERR_BACKSLASH :
		    b == '%'                     ? L7_PATH_ERR_BAD_ESCAPE :
		                                   L7_PATH_ERR_CHAR;

		if (r != want) {
			bad++;
			tap_diag("raw byte 0x%02x: %s", b, l7_path_strerror(r));
		}
	}
	tap_is_int(bad, 0, "canon bytes: every raw byte classified");
	bad = 0;
	for (b = 0; b < 256; b++) {
		char in[8], out[16];
		struct l7_target t;
		size_t off;
		enum l7_path_result r, want;
		bool unres = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
		    (b >= '0' && b <= '9') || (b && strchr("-._~", b));

		snprintf(in, sizeof(in), "/x%%%02x", b);
		r = l7_path_canon(in, 5, false, out, sizeof(out), &t, &off);
		want = b == 0 ? L7_PATH_ERR_NUL :
		    b == '/'  ? L7_PATH_ERR_ENCODED_SLASH :
		    b == '\\' ? L7_PATH_ERR_ENCODED_BACKSLASH :
		    b >= 0x80 ? L7_PATH_ERR_BAD_UTF8 :
		                OK;
		if (r != want) {
			bad++;
			tap_diag("escape %%%02x: %s", b, l7_path_strerror(r));
		} else if (r == OK) {
			char exp[8];

			if (unres)
				snprintf(exp, sizeof(exp), "/x%c", b);
			else
				snprintf(exp, sizeof(exp), "/x%%%02X", b);
			if (strcmp(out, exp) != 0) {
				bad++;
				tap_diag("escape %%%02x gave %s", b, out);
			}
		}
	}
	tap_is_int(bad, 0, "canon bytes: every escape decoded or uppercased");
}

/* ---- queries ------------------------------------------------------------ */

struct query_case {
	const char *name;
	const char *q;
	enum l7_path_result r;
	const char *want; /* "[k]=[v][k2]" rendering, when OK */
	int err_off;
};

static const struct query_case query_cases[] = {
    {"empty", "", OK, "", SKIP},
    {"one pair", "a=1", OK, "[a]=[1]", SKIP},
    {"key alone", "a", OK, "[a]", SKIP},
    {"empty value", "a=", OK, "[a]=[]", SKIP},
    {"empty key", "=1", OK, "[]=[1]", SKIP},
    {"equals alone", "=", OK, "[]=[]", SKIP},
    {"two pairs", "a=1&b=2", OK, "[a]=[1][b]=[2]", SKIP},
    {"empty pieces skipped", "&a=1&&b=2&", OK, "[a]=[1][b]=[2]", SKIP},
    {"only ampersands", "&&&", OK, "", SKIP},
    {"second equals in value", "a=b=c", OK, "[a]=[b=c]", SKIP},
    {"plus is space", "a+b=c+d", OK, "[a b]=[c d]", SKIP},
    {"escapes decoded", "a%20b=%41%62", OK, "[a b]=[Ab]", SKIP},
    {"encoded plus", "a=%2B", OK, "[a]=[+]", SKIP},
    {"encoded ampersand is data", "a=%26b=1", OK, "[a]=[&b=1]", SKIP},
    {"encoded equals in key", "a%3Db=1", OK, "[a=b]=[1]", SKIP},
    {"semicolon is not a separator", "a=1;b=2", OK, "[a]=[1;b=2]", SKIP},
    {"slash and question mark", "q=/x?y", OK, "[q]=[/x?y]", SKIP},
    {"git service", "service=git-receive-pack", OK,
        "[service]=[git-receive-pack]", SKIP},
    {"duplicate keys kept", "s=a&s=b", OK, "[s]=[a][s]=[b]", SKIP},
    {"utf-8 escape", "q=%C3%A9", OK, "[q]=[\xc3\xa9]", SKIP},
    {"sub-delims", "a=!$'()*,:@", OK, "[a]=[!$'()*,:@]", SKIP},
    {"lone percent", "a=%", L7_PATH_ERR_QUERY_ESCAPE, NA, 2},
    {"percent one digit", "a=%4", L7_PATH_ERR_QUERY_ESCAPE, NA, 2},
    {"percent non-hex", "a=%G0", L7_PATH_ERR_QUERY_ESCAPE, NA, 2},
    {"percent in key", "%zz=1", L7_PATH_ERR_QUERY_ESCAPE, NA, 0},
    {"encoded NUL", "a=%00", L7_PATH_ERR_QUERY_NUL, NA, 2},
    {"space", "a b", L7_PATH_ERR_QUERY_CHAR, NA, 1},
    {"double quote", "a=\"", L7_PATH_ERR_QUERY_CHAR, NA, 2},
    {"hash", "a=#", L7_PATH_ERR_QUERY_CHAR, NA, 2},
    {"pipe", "a=|", L7_PATH_ERR_QUERY_CHAR, NA, 2},
    {"brackets", "a[]=1", L7_PATH_ERR_QUERY_CHAR, NA, 1},
    {"backslash", "a=\\", L7_PATH_ERR_QUERY_CHAR, NA, 2},
    {"high byte", "a=\xc3\xa9", L7_PATH_ERR_QUERY_CHAR, NA, 2},
    {"control", "a=\x01", L7_PATH_ERR_QUERY_CHAR, NA, 2},
};

static void
render_query(const struct l7_query_params *q, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < q->n && off < len; i++) {
		int n;

		if (q->p[i].has_value)
			n = snprintf(buf + off, len - off, "[%s]=[%s]",
			    q->p[i].key, q->p[i].value);
		else
			n = snprintf(buf + off, len - off, "[%s]", q->p[i].key);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static bool
query_consistent(const struct l7_query_params *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (strlen(q->p[i].key) != q->p[i].key_len ||
		    strlen(q->p[i].value) != q->p[i].value_len ||
		    (!q->p[i].has_value && q->p[i].value_len))
			return false;
	return true;
}

static void
test_query_table(void)
{
	static struct l7_query_params q;
	size_t i, k;

	for (i = 0; i < NELEM(query_cases); i++) {
		const struct query_case *c = &query_cases[i];
		size_t len = strlen(c->q), off = SIZE_MAX;
		const char *g = (const char *)tap_guard_copy(&guard, c->q, len);
		enum l7_path_result r = l7_query_parse(g, len, &q, &off);
		char got[1024];
		bool prefixes_ok = true;

		if (!tap_ok(r == c->r, "query %s: %s", c->name,
		        l7_path_strerror(c->r)))
			tap_diag("got %s at %zu", l7_path_strerror(r), off);
		if (r == OK && c->r == OK) {
			render_query(&q, got, sizeof(got));
			tap_is_str(got, c->want, "query %s: params", c->name);
			tap_ok(
			    query_consistent(&q), "query %s: lengths", c->name);
		}
		if (r != OK && c->err_off >= 0)
			tap_is_int(
			    off, c->err_off, "query %s: error offset", c->name);
		for (k = 0; k <= len; k++) {
			g = (const char *)tap_guard_copy(&guard, c->q, k);
			r = l7_query_parse(g, k, &q, &off);
			if ((r == OK && !query_consistent(&q)) ||
			    (r != OK && off > k))
				prefixes_ok = false;
		}
		tap_ok(prefixes_ok, "query %s: every prefix", c->name);
	}
}

static void
test_query_limits(void)
{
	static struct l7_query_params q;
	static char big[L7_PATH_MAX + 2];
	size_t i, n = 0, off;
	enum l7_path_result r;

	for (i = 0; i < L7_QUERY_MAX_PARAMS; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "k%zu=v&", i);
	r = l7_query_parse(big, n, &q, &off);
	tap_ok(r == OK && q.n == L7_QUERY_MAX_PARAMS,
	    "query limits: 64 parameters pass");
	n += (size_t)snprintf(big + n, sizeof(big) - n, "one=more");
	r = l7_query_parse(big, n, &q, &off);
	tap_is_int(r, L7_PATH_ERR_QUERY_TOO_MANY,
	    "query limits: the 65th parameter is refused");
	/* the decode buffer holds the worst case: 64 one-byte keys with
	 * values filling the rest, every pair adding a NUL */
	memset(big, 'x', sizeof(big));
	n = 0;
	for (i = 0; i < L7_QUERY_MAX_PARAMS - 1; i++) {
		big[n++] = 'k';
		big[n++] = '&';
	}
	big[n++] = 'v';
	big[n++] = '=';
	n = L7_PATH_MAX;
	r = l7_query_parse(big, n, &q, &off);
	tap_ok(r == OK && q.n == L7_QUERY_MAX_PARAMS &&
	        q.p[63].value_len == L7_PATH_MAX - 128,
	    "query limits: 8192 bytes in 64 parameters fit the buffer");
	r = l7_query_parse(big, L7_PATH_MAX + 1, &q, &off);
	tap_is_int(r, L7_PATH_ERR_TOO_LONG, "query limits: 8193 bytes refused");
}

/* ---- globs -------------------------------------------------------------- */

struct glob_case {
	const char *pattern, *path;
	bool match;
};

static const struct glob_case glob_cases[] = {
    {"/repos/**", "/repos", true},
    {"/repos/**", "/repos/", true},
    {"/repos/**", "/repos/a", true},
    {"/repos/**", "/repos/a/b", true},
    {"/repos/**", "/reposx", false},
    {"/repos/**", "/repo", false},
    {"/repos/**", "/", false},
    {"/repos/**", "/x/repos/a", false},
    {"/**", "/", true},
    {"/**", "/a", true},
    {"/**", "/a/b/c/", true},
    {"/**/info/refs", "/x/y.git/info/refs", true},
    {"/**/info/refs", "/info/refs", true},
    {"/**/info/refs", "/x/info/refs/", true},
    {"/**/info/refs", "/x/info/refsx", false},
    {"/**/info/refs", "/x/info/refs/y", false},
    {"/**/info/refs", "/x/info", false},
    {"/**/git-upload-pack", "/o/r.git/git-upload-pack", true},
    {"/a/*/c", "/a/b/c", true},
    {"/a/*/c", "/a/bb/c", true},
    {"/a/*/c", "/a/b/x/c", false},
    {"/a/*/c", "/a/c", false},
    {"/a/*", "/a/b", true},
    {"/a/*", "/a/b/", true},
    {"/a/*", "/a", false},
    {"/a/*", "/a/", false},
    {"/a/*", "/a/b/c", false},
    {"/a*", "/a", true},
    {"/a*", "/abc", true},
    {"/a*", "/a/b", false},
    {"/*a", "/a", true},
    {"/*a", "/ba", true},
    {"/*a", "/ab", false},
    {"/*.tar.gz", "/x.tar.gz", true},
    {"/*.tar.gz", "/.tar.gz", true},
    {"/*.tar.gz", "/x.tar.gz/y", false},
    {"/*.tar.gz", "/x.tar.gzz", false},
    {"/a/**/b/**/c", "/a/b/c", true},
    {"/a/**/b/**/c", "/a/x/b/y/c", true},
    {"/a/**/b/**/c", "/a/x/y/b/c", true},
    {"/a/**/b/**/c", "/a/x/b/y", false},
    {"/a/**/b/**/c", "/a/b/b/c/c", true},
    {"/a/**/b/**/c", "/a/c/b", false},
    {"/**/**", "/", true},
    {"/**/**", "/a/b", true},
    {"/**/a/**", "/a", true},
    {"/**/a/**", "/x/a/y", true},
    {"/**/a/**", "/x/y", false},
    {"/v2/*/manifests/*", "/v2/library/ubuntu/manifests/latest", false},
    {"/v2/**/manifests/*", "/v2/library/ubuntu/manifests/latest", true},
    {"/v2/**/blobs/*", "/v2/library/ubuntu/blobs/sha256:abc", true},
    {"/files/%2A", "/files/*", false},
    {"/files/*", "/files/%2A", true},
    {"/api/v4/projects/*/repository/**",
        "/api/v4/projects/group%2Fproj/repository/files", true},
    {"/api/v4/projects/*", "/api/v4/projects/a%2Fb", true},
    {"/Repos/**", "/repos/a", false},
    {"/a**b", "/axxb", true},
    {"/a**b", "/ab", true},
    {"/a**b", "/a/b", false},
    {"/", "/", true},
    {"/", "/a", false},
    {"/a/", "/a", true},
    {"/a", "/a/", true},
    {"/a", "/b", false},
    {"/a", "/ab", false},
    {"/ab", "/a", false},
    {"/*a*b*c*", "/xaybzc", true},
    {"/*a*b*c*", "/xaybz", false},
    {"/*", "/", false},
    {"/*", "/x", true},
    {"/*/*", "/x/y", true},
    {"/*/*", "/x", false},
    {"/simple/*/", "/simple/pip/", true},
    {"/simple/*/", "/simple/pip", true},
    {"/packages/**/*.whl", "/packages/ab/cd/x-1.0-py3-none-any.whl", true},
    {"/packages/**/*.whl", "/packages/ab/cd/x-1.0.tar.gz", false},
    {"/**/*.whl", "/x.whl", true},
};

static void
test_glob_table(void)
{
	size_t i;

	for (i = 0; i < NELEM(glob_cases); i++) {
		const struct glob_case *c = &glob_cases[i];
		size_t steps = 0;
		enum l7_glob_result r =
		    l7_glob_path(c->pattern, c->path, &steps);

		tap_is_int(r, c->match ? L7_GLOB_MATCH : L7_GLOB_NO_MATCH,
		    "glob %s %s %s", c->pattern,
		    c->match ? "matches" : "misses", c->path);
	}
}

struct value_case {
	const char *pattern, *value;
	bool match;
};

static const struct value_case value_cases[] = {
    {"*", "", true},
    {"*", "anything/at/all", true},
    {"a", "a", true},
    {"a", "A", false},
    {"a", "ab", false},
    {"a*", "abc", true},
    {"*c", "abc", true},
    {"a*c", "a/b/c", true},
    {"a*c", "ab", false},
    {"git-upload-pack", "git-upload-pack", true},
    {"git-upload-pack", "git-receive-pack", false},
    {"", "", true},
    {"", "x", false},
    {"b*", "b", true},
    {"*a*a*", "aa", true},
    {"*a*a*", "a", false},
    {"t-*", "t-123", true},
    {"t-*", "T-123", false},
};

static void
test_value_globs(void)
{
	size_t i;

	for (i = 0; i < NELEM(value_cases); i++) {
		const struct value_case *c = &value_cases[i];

		tap_is_int(
		    l7_glob_value(c->pattern, c->value, strlen(c->value), NULL),
		    c->match ? L7_GLOB_MATCH : L7_GLOB_NO_MATCH,
		    "value glob \"%s\" %s \"%s\"", c->pattern,
		    c->match ? "matches" : "misses", c->value);
	}
	/* values are length-delimited, not NUL-terminated */
	tap_is_int(l7_glob_value("ab", "abc", 2, NULL), L7_GLOB_MATCH,
	    "value glob: length decides, not NUL");
}

/* Reference matcher: the obvious recursion, exponential but exact. */
static bool
ref_seg(const char *p, size_t pn, const char *s, size_t sn)
{
	if (pn == 0)
		return sn == 0;
	if (p[0] == '*')
		return ref_seg(p + 1, pn - 1, s, sn) ||
		    (sn > 0 && ref_seg(p, pn, s + 1, sn - 1));
	return sn > 0 && p[0] == s[0] && ref_seg(p + 1, pn - 1, s + 1, sn - 1);
}

struct segs {
	const char *p[32];
	size_t n[32];
	size_t count;
};

static void
split_segs(const char *s, struct segs *out)
{
	out->count = 0;
	while (*s) {
		const char *b;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		b = s;
		while (*s && *s != '/')
			s++;
		out->p[out->count] = b;
		out->n[out->count++] = (size_t)(s - b);
	}
}

static bool
ref_path(const struct segs *pat, size_t i, const struct segs *pth, size_t j)
{
	if (i == pat->count)
		return j == pth->count;
	if (pat->n[i] == 2 && memcmp(pat->p[i], "**", 2) == 0)
		return ref_path(pat, i + 1, pth, j) ||
		    (j < pth->count && ref_path(pat, i, pth, j + 1));
	return j < pth->count &&
	    ref_seg(pat->p[i], pat->n[i], pth->p[j], pth->n[j]) &&
	    ref_path(pat, i + 1, pth, j + 1);
}

static uint32_t rng = 12345;

static uint32_t
rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 16) % n;
}

static void
test_glob_reference(void)
{
	static const char *const ptok[] = {
	    "a", "b", "*", "**", "a*", "*b", "*a*", "ab", "**", "b*a"};
	static const char *const stok[] = {"a", "b", "ab", "ba", "aa", "bab"};
	int i, mismatches = 0, matches = 0;

	for (i = 0; i < 30000; i++) {
		char pat[128] = "", path[128] = "";
		struct segs ps, ss;
		int k, np = (int)rnd(6), ns = (int)rnd(7);
		bool want, got;

		for (k = 0; k < np; k++) {
			strcat(pat, "/");
			strcat(pat, ptok[rnd(NELEM(ptok))]);
		}
		if (np == 0 || rnd(4) == 0)
			strcat(pat, "/");
		for (k = 0; k < ns; k++) {
			strcat(path, "/");
			strcat(path, stok[rnd(NELEM(stok))]);
		}
		if (ns == 0 || rnd(4) == 0)
			strcat(path, "/");
		split_segs(pat, &ps);
		split_segs(path, &ss);
		want = ref_path(&ps, 0, &ss, 0);
		got = l7_glob_path(pat, path, NULL) == L7_GLOB_MATCH;
		matches += want;
		if (want != got && mismatches++ < 5)
			tap_diag("%s vs %s: reference %d, l7 %d", pat, path,
			    want, got);
	}
	tap_is_int(mismatches, 0,
	    "glob agrees with the reference matcher on 30000 random pairs");
	tap_ok(matches > 1000 && matches < 29000,
	    "glob reference: both outcomes well represented (%d matches)",
	    matches);
	/* the same for value globs */
	mismatches = 0;
	for (i = 0; i < 30000; i++) {
		char pat[16], val[16];
		int k, np = (int)rnd(8), nv = (int)rnd(10);

		for (k = 0; k < np; k++)
			pat[k] = "ab*"[rnd(3)];
		pat[np] = '\0';
		for (k = 0; k < nv; k++)
			val[k] = "ab/"[rnd(3)];
		val[nv] = '\0';
		if (ref_seg(pat, (size_t)np, val, (size_t)nv) !=
		    (l7_glob_value(pat, val, (size_t)nv, NULL) ==
		        L7_GLOB_MATCH))
			mismatches++;
	}
	tap_is_int(mismatches, 0,
	    "value glob agrees with the reference on 30000 random pairs");
}

static void
test_glob_pathological(void)
{
	static char pat[L7_PATH_MAX + 1], path[L7_PATH_MAX + 1];
	size_t i, n, steps = 0, pl, sl;
	enum l7_glob_result r;

	/* "*a*a*...*a*b" against "aaaa...": a backtracking matcher takes
	 * time exponential in the number of stars; one backtrack point
	 * bounds it by pattern length times path length. */
	n = 0;
	pat[n++] = '/';
	for (i = 0; i < 20; i++) {
		pat[n++] = '*';
		pat[n++] = 'a';
	}
	pat[n++] = '*';
	pat[n++] = 'b';
	pat[n] = '\0';
	pl = n;
	path[0] = '/';
	memset(path + 1, 'a', 200);
	path[201] = '\0';
	sl = 201;
	r = l7_glob_path(pat, path, &steps);
	tap_is_int(r, L7_GLOB_NO_MATCH, "pathological star segment: no match");
	tap_ok(steps <= (pl + 1) * (sl + 1),
	    "pathological star segment: %zu steps <= %zu", steps,
	    (pl + 1) * (sl + 1));
	tap_ok(steps > 200, "pathological star segment: the counter counts");

	/* the same with "**" segments over many path segments */
	n = 0;
	for (i = 0; i < 20; i++)
		n += (size_t)snprintf(pat + n, sizeof(pat) - n, "/**/a");
	n += (size_t)snprintf(pat + n, sizeof(pat) - n, "/**/b");
	pl = n;
	n = 0;
	for (i = 0; i < 400; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "/a");
	sl = n;
	r = l7_glob_path(pat, path, &steps);
	tap_is_int(r, L7_GLOB_NO_MATCH, "pathological starstar: no match");
	tap_ok(steps <= (pl + 1) * (sl + 1),
	    "pathological starstar: %zu steps <= %zu", steps,
	    (pl + 1) * (sl + 1));

	/* and when it does match at the very end */
	path[n - 1] = 'b';
	r = l7_glob_path(pat, path, &steps);
	tap_is_int(r, L7_GLOB_MATCH, "pathological starstar: match at the end");
	tap_ok(steps <= (pl + 1) * (sl + 1),
	    "pathological starstar match: %zu steps", steps);

	/* value globs */
	n = 0;
	for (i = 0; i < 30; i++) {
		pat[n++] = '*';
		pat[n++] = 'a';
	}
	pat[n++] = '*';
	pat[n++] = 'b';
	pat[n] = '\0';
	memset(path, 'a', 1000);
	r = l7_glob_value(pat, path, 1000, &steps);
	tap_is_int(r, L7_GLOB_NO_MATCH, "pathological value glob: no match");
	tap_ok(steps <= (n + 1) * 1001,
	    "pathological value glob: %zu steps <= %zu", steps, (n + 1) * 1001);

	/* beyond the budget: a definite, bounded answer. One star before a
	 * long literal makes every backtrack re-match the literal. */
	n = 0;
	pat[n++] = '/';
	pat[n++] = '*';
	memset(pat + n, 'a', 4000);
	n += 4000;
	pat[n++] = 'b';
	pat[n] = '\0';
	path[0] = '/';
	memset(path + 1, 'a', 8000);
	path[8001] = '\0';
	r = l7_glob_path(pat, path, &steps);
	tap_is_int(r, L7_GLOB_TOO_COMPLEX, "runaway glob: too complex");
	tap_ok(steps <= L7_GLOB_MAX_STEPS + 1,
	    "runaway glob: stopped at the budget (%zu steps)", steps);
	r = l7_glob_value(pat + 1, path + 1, 8000, &steps);
	tap_is_int(r, L7_GLOB_TOO_COMPLEX, "runaway value glob: too complex");
	/* below the budget the same shape still answers exactly */
	pat[2 + 100] = 'b';
	pat[2 + 101] = '\0';
	path[1 + 300] = '\0';
	r = l7_glob_path(pat, path, &steps);
	tap_is_int(r, L7_GLOB_NO_MATCH, "long literal after a star: no match");
	tap_ok(steps <= 103 * 301 && steps > 100 * 100,
	    "long literal after a star: %zu steps, quadratic not exponential",
	    steps);

	/* ordinary patterns over long paths stay linear */
	n = 0;
	for (i = 0; i < 2000; i++)
		n += (size_t)snprintf(
		    path + n, sizeof(path) - n, "/x%zu", i % 10);
	snprintf(path + n, sizeof(path) - n, "/info/refs");
	r = l7_glob_path("/**/info/refs", path, &steps);
	tap_is_int(r, L7_GLOB_MATCH, "long path: matches");
	tap_ok(steps < 4 * strlen(path), "long path: %zu steps for %zu bytes",
	    steps, strlen(path));
}

struct pattern_case {
	const char *pat;
	enum l7_path_result check; /* l7_pattern_check */
	const char *canon;         /* l7_pattern_canon when it passes */
};

static const struct pattern_case pattern_cases[] = {
    {"/repos/**", OK, "/repos/**"},
    {"/**/info/refs", OK, "/**/info/refs"},
    {"/~user/*", OK, "/~user/*"},
    {"/%7euser/*", OK, "/~user/*"},
    {"/a%2fb/**", OK, "/a%2Fb/**"},
    {"/a//b/", OK, "/a/b/"},
    {"/", OK, "/"},
    {"/*.tar.gz", OK, "/*.tar.gz"},
    {"/a/**b", L7_PATH_ERR_PATTERN_STARSTAR, "/a/**b"},
    {"/a/b**", L7_PATH_ERR_PATTERN_STARSTAR, "/a/b**"},
    {"/***", L7_PATH_ERR_PATTERN_STARSTAR, "/***"},
    {"/a/./b", L7_PATH_ERR_PATTERN_DOT, "/a/b"},
    {"/a/../b", L7_PATH_ERR_PATTERN_DOT, "/b"},
    {"/a/%2e%2E/b", L7_PATH_ERR_PATTERN_DOT, "/b"},
    {"/a/.", L7_PATH_ERR_PATTERN_DOT, "/a/"},
    {"/a?x=1", L7_PATH_ERR_PATTERN_QUERY, NULL},
    {"/a#x", L7_PATH_ERR_PATTERN_QUERY, NULL},
    {"a/b", L7_PATH_ERR_NOT_ABSOLUTE, NULL},
    {"", L7_PATH_ERR_EMPTY, NULL},
    {"/a\\b", L7_PATH_ERR_BACKSLASH, NULL},
    {"/a b", L7_PATH_ERR_CHAR, NULL},
    {"/a%zz", L7_PATH_ERR_BAD_ESCAPE, NULL},
    {"/..", L7_PATH_ERR_ABOVE_ROOT, NULL},
    {"/a/..;/b", L7_PATH_ERR_DOT_PARAMS, NULL},
    {"/a%5Cb", L7_PATH_ERR_ENCODED_BACKSLASH, NULL},
};

static void
test_patterns(void)
{
	size_t i;

	for (i = 0; i < NELEM(pattern_cases); i++) {
		const struct pattern_case *c = &pattern_cases[i];
		char out[L7_PATH_MAX + 1];
		size_t off;
		enum l7_path_result r = l7_pattern_check(c->pat, &off);

		if (!tap_ok(r == c->check, "pattern check \"%s\": %s", c->pat,
		        l7_path_strerror(c->check)))
			tap_diag("got %s", l7_path_strerror(r));
		r = l7_pattern_canon(c->pat, out, sizeof(out), &off);
		if (c->canon)
			tap_ok(r == OK && strcmp(out, c->canon) == 0,
			    "pattern canon \"%s\" is \"%s\"", c->pat, c->canon);
		else
			tap_ok(r != OK, "pattern canon \"%s\" fails", c->pat);
	}
}

static void
test_strerror(void)
{
	int r, bad = 0;

	for (r = L7_PATH_OK; r <= L7_PATH_ERR_PATTERN_DOT; r++) {
		const char *s = l7_path_strerror((enum l7_path_result)r);

		if (s == NULL || strcmp(s, "invalid request path") == 0)
			bad++;
	}
	tap_is_int(bad, 0, "every path result has its own message");
}

/* ---- decisions ---------------------------------------------------------- */

static const char policy_text[] =
    "network_policies:\n"
    "  t:\n"
    "    endpoints:\n"
    /* E0 line 4 */
    "      - { host: ro.example.com, port: 443, protocol: rest, access: read-only }\n"
    /* E1 line 5 */
    "      - { host: rw.example.com, port: 443, protocol: rest, access: read-write }\n"
    /* E2 line 6 */
    "      - { host: full.example.com, port: 443, protocol: rest, access: full }\n"
    /* E3 line 7: rules only */
    "      - host: rules.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        rules:\n"
    "          - allow: { method: GET, path: \"/repos/**\" }\n" /* 11 */
    "          - allow: { method: POST, path: \"/upload/*\", query: { kind: { any: [a, \"b*\"] } } }\n" /* 12 */
    "          - allow: { method: \"*\", path: \"/ws/**\" }\n"        /* 13 */
    "          - allow: { path: \"/any/**\" }\n"                      /* 14 */
    "          - allow: { method: GET, query: { token: \"t-*\" } }\n" /* 15 */
    "          - allow: { method: PUT, path: \"/%7euser/*\" }\n"      /* 16 */
    /* E4 line 17: read-only, a rule, deny rules */
    "      - host: rodeny.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        access: read-only\n"
    "        rules:\n"
    "          - allow: { method: POST, path: /api/graphql }\n" /* 22 */
    "        deny_rules:\n"
    "          - { method: GET, path: \"/admin/**\" }\n"     /* 24 */
    "          - { path: \"/secret*\" }\n"                   /* 25 */
    "          - { method: GET, query: { debug: \"*\" } }\n" /* 26 */
    /* E5 line 27 */
    "      - { host: audit.example.com, port: 443, protocol: rest, access: read-only, enforcement: audit }\n"
    /* E6 line 28 */
    "      - host: auditrw.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        access: read-write\n"
    "        enforcement: audit\n"
    "        deny_rules: [ { method: PUT } ]\n" /* 33 */
    /* E7 line 34 */
    "      - host: slash.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        allow_encoded_slash: true\n"
    "        rules:\n"
    "          - allow: { method: GET, path: \"/api/v4/projects/*/repository/**\" }\n" /* 39 */
    /* E8 line 40 */
    "      - { host: plain.example.com, port: 443 }\n"
    /* E9 line 41 */
    "      - host: fulldeny.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        access: full\n"
    "        deny_rules: [ { method: DELETE }, { method: GET, path: \"/ws/private/**\" } ]\n" /* 45 */
    /* E10 line 46: the loader refuses such patterns; load() puts them
     * back to test that the decision still fails closed on them */
    "      - host: badpat.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        rules:\n"
    "          - allow: { method: GET, path: \"/a-b\" }\n" /* 50 */
    "        deny_rules:\n"
    "          - { method: POST, path: \"/x-y\" }\n" /* 52 */
    /* E11 line 53: GET rule on a websocket path */
    "      - host: getws.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        rules:\n"
    "          - allow: { method: GET, path: \"/ws/**\" }\n" /* 57 */
    /* E12 line 58: audit, rules only */
    "      - host: auditrules.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        enforcement: audit\n"
    "        rules: [ { allow: { method: GET, path: \"/ok/**\" } } ]\n" /* 62 */
    /* E13 line 63: audit read-only with a deny rule */
    "      - host: auditdeny.example.com\n"
    "        port: 443\n"
    "        protocol: rest\n"
    "        access: read-only\n"
    "        enforcement: audit\n"
    "        deny_rules: [ { method: GET, path: \"/private/**\" }, { method: DELETE, path: \"/private/**\" } ]\n" /* 68 */
    "    binaries:\n"
    "      - path: /usr/bin/curl\n";

static struct policy *pol;

static const struct policy_endpoint *
ep(size_t i)
{
	return &pol->blocks[0].endpoints[i];
}

enum {
	A = 1, /* allowed */
	D = 0, /* denied */
};

#define E_ENF ENFORCE_ENFORCE
#define E_AUD ENFORCE_AUDIT

struct dcase {
	const char *name;
	const char *eps; /* endpoint indices: "0", "0,4" */
	const char *method, *target;
	bool upgrade;
	int allowed;
	enum reason reason;
	enum l7_by by;
	enum policy_enforcement mode;
	int line;         /* rule or endpoint line that decided, 0: unchecked */
	const char *hint; /* substring of the hint (or reason text), or NULL */
};

#define R_ALLOW REASON_ALLOWED
#define R_METH  REASON_METHOD_NOT_ALLOWED
#define R_REQ   REASON_REQUEST_NOT_ALLOWED
#define R_DEN   REASON_REQUEST_DENIED
#define R_GIT   REASON_GIT_PUSH_NOT_ALLOWED
#define R_UPG   REASON_UPGRADE_NOT_ALLOWED
#define R_PATH  REASON_REQUEST_PATH_INVALID
#define BP      L7_BY_PRESET
#define BR      L7_BY_RULE
#define BD      L7_BY_DENY_RULE
#define BN      L7_BY_NONE
#define BU      L7_BY_UNINSPECTED
#define BPA     L7_BY_PATH

static const struct dcase dcases[] = {
    /* git smart HTTP under read-only */
    {"ro: clone discovery", "0", "GET",
        "/o/r.git/info/refs?service=git-upload-pack", 0, A, R_ALLOW, BP, E_ENF,
        4, NULL},
    {"ro: fetch pack", "0", "POST", "/o/r.git/git-upload-pack", 0, A, R_ALLOW,
        BP, E_ENF, 4, NULL},
    {"ro: fetch pack at root", "0", "POST", "/git-upload-pack", 0, A, R_ALLOW,
        BP, E_ENF, 4, NULL},
    {"ro: fetch pack trailing slash", "0", "POST", "/o/r/git-upload-pack/", 0,
        A, R_ALLOW, BP, E_ENF, 4, NULL},
    {"ro: fetch pack with encoded dash", "0", "POST", "/o/r/git%2Dupload-pack",
        0, A, R_ALLOW, BP, E_ENF, 4, NULL},
    {"ro: dumb http info/refs", "0", "GET", "/o/r.git/info/refs", 0, A, R_ALLOW,
        BP, E_ENF, 4, NULL},
    {"ro: push discovery", "0", "GET",
        "/o/r.git/info/refs?service=git-receive-pack", 0, D, R_GIT, BP, E_ENF,
        4, "access: read-write"},
    {"ro: push pack", "0", "POST", "/o/r.git/git-receive-pack", 0, D, R_GIT, BP,
        E_ENF, 4, "to allow git push"},
    {"ro: push discovery HEAD", "0", "HEAD",
        "/o/r/info/refs?service=git-receive-pack", 0, D, R_GIT, BP, E_ENF, 4,
        NULL},
    {"ro: push discovery upper case path", "0", "GET",
        "/o/r/INFO/REFS?service=git-receive-pack", 0, D, R_GIT, BP, E_ENF, 4,
        NULL},
    {"ro: push discovery upper case key", "0", "GET",
        "/o/r/info/refs?SERVICE=git-receive-pack", 0, D, R_GIT, BP, E_ENF, 4,
        NULL},
    {"ro: push discovery after upload-pack duplicate", "0", "GET",
        "/o/r/info/refs?service=git-upload-pack&service=git-receive-pack", 0, D,
        R_GIT, BP, E_ENF, 4, NULL},
    {"ro: push discovery before duplicate", "0", "GET",
        "/o/r/info/refs?service=git-receive-pack&service=git-upload-pack", 0, D,
        R_GIT, BP, E_ENF, 4, NULL},
    {"ro: push discovery encoded value", "0", "GET",
        "/o/r/info/refs?service=git%2Dreceive%2Dpack", 0, D, R_GIT, BP, E_ENF,
        4, NULL},
    {"ro: unknown service refused", "0", "GET",
        "/o/r/info/refs?service=git-upload-archive", 0, D, R_GIT, BP, E_ENF, 4,
        NULL},
    {"ro: empty service refused", "0", "GET", "/o/r/info/refs?service", 0, D,
        R_GIT, BP, E_ENF, 4, NULL},
    {"ro: push discovery with path parameter", "0", "GET",
        "/o/r/info/refs;x=1?service=git-receive-pack", 0, D, R_GIT, BP, E_ENF,
        4, NULL},
    {"ro: push discovery with info parameter", "0", "GET",
        "/o/r/info;x/refs?service=git-receive-pack", 0, D, R_GIT, BP, E_ENF, 4,
        NULL},
    {"ro: push pack with jsessionid", "0", "POST",
        "/o/r/git-receive-pack;jsessionid=1", 0, D, R_GIT, BP, E_ENF, 4, NULL},
    {"ro: push pack upper case", "0", "POST", "/o/r/GIT-RECEIVE-PACK", 0, D,
        R_GIT, BP, E_ENF, 4, NULL},
    {"ro: push pack encoded letters", "0", "POST", "/o/r/%67it-receive-pack", 0,
        D, R_GIT, BP, E_ENF, 4, NULL},
    {"ro: GET on receive-pack refused", "0", "GET", "/o/r/git-receive-pack", 0,
        D, R_GIT, BP, E_ENF, 4, NULL},
    {"ro: push pack through dot-dot", "0", "POST",
        "/o/r/git-upload-pack/../git-receive-pack", 0, D, R_GIT, BP, E_ENF, 4,
        NULL},
    {"ro: upload-pack only by exact name", "0", "POST", "/o/r/GIT-UPLOAD-PACK",
        0, D, R_METH, BP, E_ENF, 4, NULL},
    {"ro: upload-pack with parameter is not upload-pack", "0", "POST",
        "/o/r/git-upload-pack;x", 0, D, R_METH, BP, E_ENF, 4, NULL},
    {"ro: upload-pack as a directory", "0", "POST", "/o/r/git-upload-pack/x", 0,
        D, R_METH, BP, E_ENF, 4, NULL},
    {"ro: upload-pack suffix only", "0", "POST", "/o/r/xgit-upload-pack", 0, D,
        R_METH, BP, E_ENF, 4, NULL},
    {"ro: lfs batch needs read-write", "0", "POST",
        "/o/r.git/info/lfs/objects/batch", 0, D, R_METH, BP, E_ENF, 4,
        "access: read-write"},
    {"ro: refs not under info", "0", "GET",
        "/o/r/refs?service=git-receive-pack", 0, A, R_ALLOW, BP, E_ENF, 4,
        NULL},
    /* git under read-write and full */
    {"rw: push discovery", "1", "GET",
        "/o/r.git/info/refs?service=git-receive-pack", 0, A, R_ALLOW, BP, E_ENF,
        5, NULL},
    {"rw: push pack", "1", "POST", "/o/r.git/git-receive-pack", 0, A, R_ALLOW,
        BP, E_ENF, 5, NULL},
    {"rw: clone", "1", "POST", "/o/r.git/git-upload-pack", 0, A, R_ALLOW, BP,
        E_ENF, 5, NULL},
    {"rw: lfs batch", "1", "POST", "/o/r.git/info/lfs/objects/batch", 0, A,
        R_ALLOW, BP, E_ENF, 5, NULL},
    {"full: push pack", "2", "POST", "/o/r.git/git-receive-pack", 0, A, R_ALLOW,
        BP, E_ENF, 6, NULL},
    {"full: push discovery", "2", "GET",
        "/o/r/info/refs?service=git-receive-pack", 0, A, R_ALLOW, BP, E_ENF, 6,
        NULL},
    /* package managers */
    {"pip index", "0", "GET", "/simple/requests/", 0, A, R_ALLOW, BP, E_ENF, 4,
        NULL},
    {"pip file", "0", "GET",
        "/packages/ab/cd/requests-2.31.0-py3-none-any.whl#sha256", 0, D, R_PATH,
        BPA, E_ENF, 0, NULL},
    {"npm publish on read-only", "0", "PUT", "/left-pad", 0, D, R_METH, BP,
        E_ENF, 4, "access: read-write"},
    {"npm publish on read-write", "1", "PUT", "/left-pad", 0, A, R_ALLOW, BP,
        E_ENF, 5, NULL},
    {"npm unpublish on read-write", "1", "DELETE", "/left-pad/-rev/1", 0, D,
        R_METH, BP, E_ENF, 5, "access: full"},
    {"docker pull HEAD manifest", "0", "HEAD",
        "/v2/library/ubuntu/manifests/22.04", 0, A, R_ALLOW, BP, E_ENF, 4,
        NULL},
    {"docker push blob upload start", "0", "POST", "/v2/me/app/blobs/uploads/",
        0, D, R_METH, BP, E_ENF, 4,
        "method: POST, path: \"/v2/me/app/blobs/uploads/\""},
    {"docker push blob chunk", "1", "PATCH", "/v2/me/app/blobs/uploads/u1", 0,
        A, R_ALLOW, BP, E_ENF, 5, NULL},
    /* rules only */
    {"rules: GET under repos", "3", "GET", "/repos/a/b", 0, A, R_ALLOW, BR,
        E_ENF, 11, NULL},
    {"rules: GET repos itself", "3", "GET", "/repos", 0, A, R_ALLOW, BR, E_ENF,
        11, NULL},
    {"rules: GET repos via dot-dot", "3", "GET", "/x/../repos/a", 0, A, R_ALLOW,
        BR, E_ENF, 11, NULL},
    {"rules: dot-dot out of repos (near miss: the path-less query rule)", "3",
        "GET", "/repos/../admin", 0, D, R_REQ, BN, E_ENF, 15,
        "method: GET, path: \"/admin\""},
    {"rules: HEAD not covered by GET rule", "3", "HEAD", "/repos/a", 0, D,
        R_REQ, BN, E_ENF, 7, NULL},
    {"rules: POST upload with kind a", "3", "POST", "/upload/x?kind=a", 0, A,
        R_ALLOW, BR, E_ENF, 12, NULL},
    {"rules: POST upload with kind b-glob", "3", "POST", "/upload/x?kind=bzz",
        0, A, R_ALLOW, BR, E_ENF, 12, NULL},
    {"rules: query key must be present", "3", "POST", "/upload/x", 0, D, R_REQ,
        BN, E_ENF, 12, "not its query matchers"},
    {"rules: query value must match", "3", "POST", "/upload/x?kind=c", 0, D,
        R_REQ, BN, E_ENF, 12, "not its query matchers"},
    {"rules: every duplicate value must match", "3", "POST",
        "/upload/x?kind=a&kind=c", 0, D, R_REQ, BN, E_ENF, 12, NULL},
    {"rules: all duplicates matching", "3", "POST", "/upload/x?kind=a&kind=b1",
        0, A, R_ALLOW, BR, E_ENF, 12, NULL},
    {"rules: query key case-sensitive", "3", "POST", "/upload/x?KIND=a", 0, D,
        R_REQ, BN, E_ENF, 12, NULL},
    {"rules: query value decoded", "3", "POST", "/upload/x?kind=%61", 0, A,
        R_ALLOW, BR, E_ENF, 12, NULL},
    {"rules: upload star is one segment", "3", "POST", "/upload/x/y?kind=a", 0,
        D, R_REQ, BN, E_ENF, 7, NULL},
    {"rules: method star rule", "3", "DELETE", "/ws/x", 0, A, R_ALLOW, BR,
        E_ENF, 13, NULL},
    {"rules: method absent means any", "3", "PROPFIND", "/any/thing", 0, A,
        R_ALLOW, BR, E_ENF, 14, NULL},
    {"rules: path absent means any path", "3", "GET", "/x/y?token=t-1", 0, A,
        R_ALLOW, BR, E_ENF, 15, NULL},
    {"rules: path-less rule query glob", "3", "GET", "/x/y?token=u-1", 0, D,
        R_REQ, BN, E_ENF, 15, NULL},
    {"rules: pattern canonicalized", "3", "PUT", "/~user/f", 0, A, R_ALLOW, BR,
        E_ENF, 16, NULL},
    {"rules: pattern canonicalized, path encoded", "3", "PUT", "/%7Euser/f", 0,
        A, R_ALLOW, BR, E_ENF, 16, NULL},
    {"rules: nothing matches", "3", "GET", "/other", 0, D, R_REQ, BN, E_ENF, 15,
        "to the rules of the endpoint at test_l7.yaml:7"},
    {"rules: nothing matches, no near miss", "3", "DELETE", "/other", 0, D,
        R_REQ, BN, E_ENF, 7, "method: DELETE, path: \"/other\""},
    /* read-only with rules and deny rules */
    {"rodeny: GET allowed", "4", "GET", "/x", 0, A, R_ALLOW, BP, E_ENF, 17,
        NULL},
    {"rodeny: POST rule", "4", "POST", "/api/graphql", 0, A, R_ALLOW, BR, E_ENF,
        22, NULL},
    {"rodeny: POST elsewhere", "4", "POST", "/api/other", 0, D, R_METH, BP,
        E_ENF, 17, NULL},
    {"rodeny: deny admin", "4", "GET", "/admin/users", 0, D, R_DEN, BD, E_ENF,
        24, "deny rule at test_l7.yaml:24"},
    {"rodeny: deny admin itself", "4", "GET", "/admin", 0, D, R_DEN, BD, E_ENF,
        24, NULL},
    {"rodeny: deny admin via dot-dot", "4", "GET", "/x/../admin/a", 0, D, R_DEN,
        BD, E_ENF, 24, NULL},
    {"rodeny: deny admin via encoded dots", "4", "GET", "/x/%2e%2e/admin/a", 0,
        D, R_DEN, BD, E_ENF, 24, NULL},
    {"rodeny: deny admin via double slash", "4", "GET", "//admin//a", 0, D,
        R_DEN, BD, E_ENF, 24, NULL},
    {"rodeny: deny admin via encoded letter", "4", "GET", "/%61dmin/a", 0, D,
        R_DEN, BD, E_ENF, 24, NULL},
    {"rodeny: HEAD admin not denied", "4", "HEAD", "/admin/a", 0, A, R_ALLOW,
        BP, E_ENF, 17, NULL},
    {"rodeny: deny any method secret", "4", "HEAD", "/secret-file", 0, D, R_DEN,
        BD, E_ENF, 25, NULL},
    {"rodeny: deny secret wins over POST rule", "4", "OPTIONS", "/secret", 0, D,
        R_DEN, BD, E_ENF, 25, NULL},
    {"rodeny: deny by query key", "4", "GET", "/x?debug=1", 0, D, R_DEN, BD,
        E_ENF, 26, NULL},
    {"rodeny: deny by query key without value", "4", "GET", "/x?debug", 0, D,
        R_DEN, BD, E_ENF, 26, NULL},
    {"rodeny: deny by any duplicate", "4", "GET", "/x?a=1&debug=0&a=2", 0, D,
        R_DEN, BD, E_ENF, 26, NULL},
    {"rodeny: query key absent", "4", "GET", "/x?debugx=1", 0, A, R_ALLOW, BP,
        E_ENF, 17, NULL},
    {"rodeny: admin prefix is a segment", "4", "GET", "/administrator", 0, A,
        R_ALLOW, BP, E_ENF, 17, NULL},
    /* several endpoints: OR-ed, deny wins */
    {"or: read-write allows what read-only does not", "0,1", "POST", "/x", 0, A,
        R_ALLOW, BP, E_ENF, 5, NULL},
    {"or: first allowing endpoint reported", "0,1", "GET", "/x", 0, A, R_ALLOW,
        BP, E_ENF, 4, NULL},
    {"or: git push allowed by read-write", "0,1", "POST",
        "/o/r/git-receive-pack", 0, A, R_ALLOW, BP, E_ENF, 5, NULL},
    {"or: deny of one wins over full", "2,4", "GET", "/admin/x", 0, D, R_DEN,
        BD, E_ENF, 24, NULL},
    {"or: deny of one wins over rules", "3,4", "GET", "/repos/x?debug=1", 0, D,
        R_DEN, BD, E_ENF, 26, NULL},
    {"or: rules endpoint allows POST", "0,3", "POST", "/upload/f?kind=a", 0, A,
        R_ALLOW, BR, E_ENF, 12, NULL},
    {"or: most telling refusal is git push", "3,0", "POST",
        "/o/r/git-receive-pack", 0, D, R_GIT, BP, E_ENF, 4, NULL},
    {"or: method refusal beats rules refusal", "3,0", "DELETE", "/x", 0, D,
        R_METH, BP, E_ENF, 4, NULL},
    {"or: uninspected endpoint allows all", "0,8", "DELETE", "/x", 0, A,
        R_ALLOW, BU, E_ENF, 40, NULL},
    {"or: uninspected endpoint skips deny rules", "4,8", "GET", "/admin/x", 0,
        A, R_ALLOW, BU, E_ENF, 40, NULL},
    {"or: uninspected endpoint with an invalid path", "8", "GET", "/../x", 0, A,
        R_ALLOW, BU, E_ENF, 40, NULL},
    {"or: full with deny rule", "9", "DELETE", "/x", 0, D, R_DEN, BD, E_ENF, 45,
        NULL},
    {"or: full with deny rule other method", "9", "PURGE", "/x", 0, A, R_ALLOW,
        BP, E_ENF, 41, NULL},
    /* upgrades */
    {"upgrade: full", "2", "GET", "/socket", 1, A, R_ALLOW, BP, E_ENF, 6, NULL},
    {"upgrade: read-only", "0", "GET", "/socket", 1, D, R_UPG, BP, E_ENF, 4,
        "access: full"},
    {"upgrade: read-write", "1", "GET", "/socket", 1, D, R_UPG, BP, E_ENF, 5,
        "method: \"*\""},
    {"upgrade: star rule", "3", "GET", "/ws/chat", 1, A, R_ALLOW, BR, E_ENF, 13,
        NULL},
    {"upgrade: star rule elsewhere", "3", "GET", "/repos/x", 1, D, R_UPG, BN,
        E_ENF, 7, NULL},
    {"upgrade: method-less rule counts as star", "3", "GET", "/any/x", 1, A,
        R_ALLOW, BR, E_ENF, 14, NULL},
    {"upgrade: GET rule does not open websocket", "11", "GET", "/ws/x", 1, D,
        R_UPG, BN, E_ENF, 53, NULL},
    {"upgrade: GET rule without upgrade", "11", "GET", "/ws/x", 0, A, R_ALLOW,
        BR, E_ENF, 57, NULL},
    {"upgrade: deny rule applies", "9", "GET", "/ws/private/x", 1, D, R_DEN, BD,
        E_ENF, 45, NULL},
    {"upgrade: OR with full", "0,2", "GET", "/socket", 1, A, R_ALLOW, BP, E_ENF,
        6, NULL},
    {"upgrade: most telling over rules", "4,0", "GET", "/socket", 1, D, R_UPG,
        BP, E_ENF, 17, NULL},
    /* invalid paths */
    {"invalid: above root", "0", "GET", "/..", 0, D, R_PATH, BPA, E_ENF, 0,
        "unambiguous"},
    {"invalid: backslash", "0", "GET", "/a\\..\\b", 0, D, R_PATH, BPA, E_ENF, 0,
        NULL},
    {"invalid: encoded slash", "0", "GET", "/a%2Fb", 0, D, R_PATH, BPA, E_ENF,
        0, "'allow_encoded_slash: true' on the endpoint at test_l7.yaml:4"},
    {"invalid: control bytes not echoed", "0", "GET", "/a\x1b[2J\x01", 0, D,
        R_PATH, BPA, E_ENF, 0, "\"/a?[2J?\""},
    {"invalid: bad escape", "0", "GET", "/a%zz", 0, D, R_PATH, BPA, E_ENF, 0,
        NULL},
    {"invalid: bad query escape", "0", "GET", "/a?x=%zz", 0, D, R_PATH, BPA,
        E_ENF, 0, NULL},
    {"invalid: asterisk form", "2", "OPTIONS", "*", 0, D, R_PATH, BPA, E_ENF, 0,
        NULL},
    {"invalid: dot-dot semicolon", "2", "GET", "/a/..;/admin", 0, D, R_PATH,
        BPA, E_ENF, 0, NULL},
    {"invalid: audit endpoint only", "5", "GET", "/..", 0, D, R_PATH, BPA,
        E_AUD, 0, NULL},
    {"encoded slash: allowed endpoint", "7", "GET",
        "/api/v4/projects/g%2Fp/repository/files", 0, A, R_ALLOW, BR, E_ENF, 39,
        NULL},
    {"encoded slash: rule star spans it", "7", "GET",
        "/api/v4/projects/g%2Fsub%2Fp/repository/tree", 0, A, R_ALLOW, BR,
        E_ENF, 39, NULL},
    {"encoded slash: dot-dot next to it", "7", "GET",
        "/api/v4/projects/..%2Fadmin/repository/x", 0, D, R_PATH, BPA, E_ENF, 0,
        NULL},
    {"encoded slash: only one endpoint accepts it", "7,0", "GET",
        "/api/v4/projects/g%2Fp/repository/files", 0, A, R_ALLOW, BR, E_ENF, 39,
        NULL},
    {"encoded slash: the other refuses it", "0,7", "GET", "/x%2Fy", 0, D, R_REQ,
        BN, E_ENF, 34, NULL},
    {"encoded slash: refused alone", "7,0", "HEAD", "/x%2Fy", 0, D, R_REQ, BN,
        E_ENF, 34, NULL},
    /* fail closed on patterns the loader let through */
    {"bad pattern: allow rule never matches", "10", "GET", "/a", 0, D, R_REQ,
        BN, E_ENF, 46, NULL},
    {"bad pattern: deny rule matches everything", "10", "POST", "/anything", 0,
        D, R_DEN, BD, E_ENF, 52, NULL},
    {"bad pattern: deny rule keeps its method", "10", "GET", "/anything", 0, D,
        R_REQ, BN, E_ENF, 46, NULL},
    /* modes */
    {"mode: audit endpoint refuses as audit", "5", "POST", "/x", 0, D, R_METH,
        BP, E_AUD, 27, NULL},
    {"mode: audit allowed", "5", "GET", "/x", 0, A, R_ALLOW, BP, E_AUD, 27,
        NULL},
    {"mode: audit and enforce refuse: enforce", "5,0", "POST", "/x", 0, D,
        R_METH, BP, E_ENF, 27, NULL},
    {"mode: enforce and audit refuse: enforce", "0,5", "DELETE", "/x", 0, D,
        R_METH, BP, E_ENF, 4, NULL},
    {"mode: audit deny rule, allowed otherwise", "6", "PUT", "/x", 0, D, R_DEN,
        BD, E_AUD, 33, NULL},
    {"mode: audit deny rule, enforce endpoint allows", "6,1", "PUT", "/x", 0, D,
        R_DEN, BD, E_AUD, 33, NULL},
    {"mode: audit deny rule, enforce endpoint refuses", "6,0", "PUT", "/x", 0,
        D, R_DEN, BD, E_AUD, 33, NULL},
    {"mode: audit deny rule, the audit endpoint allows", "13,3", "GET",
        "/private/x/../y", 0, D, R_DEN, BD, E_AUD, 68, NULL},
    {"mode: audit deny rule, an enforce endpoint allows too", "13,0", "GET",
        "/private/x", 0, D, R_DEN, BD, E_AUD, 68, NULL},
    {"mode: audit deny rule, nothing allows, one enforces", "13,3", "DELETE",
        "/private/x", 0, D, R_DEN, BD, E_ENF, 68, NULL},
    {"mode: audit deny rule, nothing allows, all audit", "13", "DELETE",
        "/private/x", 0, D, R_DEN, BD, E_AUD, 68, NULL},
    {"mode: audit deny rule, nothing allows, audit rules", "13,12", "DELETE",
        "/private/x", 0, D, R_DEN, BD, E_AUD, 68, NULL},
    {"mode: enforce deny beats audit", "13,4", "GET", "/admin/x", 0, D, R_DEN,
        BD, E_ENF, 24, NULL},
    {"mode: enforce deny reported over audit deny", "6,9", "DELETE", "/x", 0, D,
        R_DEN, BD, E_ENF, 45, NULL},
    {"mode: audit rules-only refusal", "12", "GET", "/nope", 0, D, R_REQ, BN,
        E_AUD, 58, NULL},
    {"mode: audit rules-only allows", "12", "GET", "/ok/x", 0, A, R_ALLOW, BR,
        E_AUD, 62, NULL},
    {"mode: all audit refuse", "12,5", "POST", "/x", 0, D, R_METH, BP, E_AUD,
        27, NULL},
};

static size_t
parse_eps(const char *s, const struct policy_endpoint **eps, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		eps[n++] = ep(v);
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static int
decided_line(const struct l7_decision *d)
{
	if (d->rule)
		return d->rule->line;
	return d->endpoint ? d->endpoint->line : 0;
}

static void
test_decide_table(void)
{
	static struct l7_request req;
	size_t i;

	for (i = 0; i < NELEM(dcases); i++) {
		const struct dcase *c = &dcases[i];
		const struct policy_endpoint *eps[8];
		size_t n = parse_eps(c->eps, eps, 8);
		struct l7_decision d;
		bool ok;

		l7_request_decide(eps, n, c->method, c->target,
		    strlen(c->target), c->upgrade, "test_l7.yaml", &req, &d);
		ok = d.allowed == (c->allowed == A) && d.reason == c->reason &&
		    d.by == c->by && d.mode == c->mode &&
		    (c->line == 0 || decided_line(&d) == c->line) &&
		    (c->hint == NULL || strstr(d.hint, c->hint) ||
		        strstr(d.reason_text, c->hint)) &&
		    (d.allowed ?
		            d.hint[0] == '\0' :
		            d.hint[0] != '\0' && d.reason_text[0] != '\0') &&
		    d.by_text[0] != '\0' &&
		    (d.endpoint == NULL || d.endpoint == eps[d.endpoint_index]);
		if (!tap_ok(ok, "decide %s", c->name)) {
			tap_diag("%s %s on [%s]: %s %s by=%d mode=%s line=%d",
			    c->method, c->target, c->eps,
			    d.allowed ? "allowed" : "denied",
			    reason_code(d.reason), d.by,
			    policy_enforcement_name(d.mode), decided_line(&d));
			tap_diag("by: %s", d.by_text);
			tap_diag("reason: %s", d.reason_text);
			tap_diag("hint: %s", d.hint);
		}
	}
}

/* Presets against every method: the preset alone decides. */
static void
test_preset_matrix(void)
{
	static const char *const methods[] = {"GET", "HEAD", "OPTIONS", "POST",
	    "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND", "CONNECT", "PURGE"};
	/* allowed per preset: read-only, read-write, full */
	static const bool allow[][3] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1},
	    {0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1},
	    {0, 0, 1}, {0, 0, 1}};
	static struct l7_request req;
	size_t m, k;

	for (m = 0; m < NELEM(methods); m++) {
		for (k = 0; k < 3; k++) {
			const struct policy_endpoint *e = ep(k);
			struct l7_decision d;
			bool want = allow[m][k];

			l7_request_decide(&e, 1, methods[m], "/x/y", 4, false,
			    "f.yaml", &req, &d);
			tap_ok(d.allowed == want &&
			        d.reason == (want ? R_ALLOW : R_METH) &&
			        d.by == BP,
			    "preset %s %s %s", policy_access_name(e->access),
			    want ? "allows" : "refuses", methods[m]);
			/* and as an upgrade: only full */
			l7_request_decide(&e, 1, methods[m], "/x/y", 4, true,
			    "f.yaml", &req, &d);
			tap_ok(d.allowed == (k == 2) &&
			        d.reason == (k == 2 ? R_ALLOW : R_UPG),
			    "preset %s %s an upgrade with %s",
			    policy_access_name(e->access),
			    k == 2 ? "allows" : "refuses", methods[m]);
		}
	}
}

static void
test_decide_direct(void)
{
	const struct policy_endpoint *eps[2] = {ep(0), ep(1)};
	struct l7_decision d;
	static struct l7_query_params q;
	size_t off;

	/* l7_decide with a parsed query */
	l7_query_parse("service=git-receive-pack", 24, &q, &off);
	l7_decide(eps, 1, "GET", "/o/r/info/refs", &q, false, "f.yaml", &d);
	tap_ok(!d.allowed && d.reason == R_GIT, "direct: push discovery");
	l7_decide(eps, 1, "GET", "/o/r/info/refs", NULL, false, "f.yaml", &d);
	tap_ok(d.allowed, "direct: no query is dumb http");
	/* no endpoints: denied, enforced */
	l7_decide(eps, 0, "GET", "/", NULL, false, "f.yaml", &d);
	tap_ok(!d.allowed && d.reason == R_REQ && d.mode == E_ENF &&
	        d.endpoint == NULL,
	    "direct: no endpoint denies, enforced");
	/* not canonical input */
	l7_decide(eps, 1, "GET", "relative", NULL, false, "f.yaml", &d);
	tap_ok(
	    !d.allowed && d.reason == R_PATH, "direct: relative path refused");
	l7_decide(eps, 1, "GET", NULL, NULL, false, "f.yaml", &d);
	tap_ok(!d.allowed && d.reason == R_PATH, "direct: NULL path refused");
	/* file NULL */
	l7_decide(eps, 1, "POST", "/x", NULL, false, NULL, &d);
	tap_ok(!d.allowed && strstr(d.hint, "-:4"),
	    "direct: no file name gives '-'");
	/* texts */
	l7_decide(eps, 2, "POST", "/x", NULL, false, "p.yaml", &d);
	tap_is_str(
	    d.by_text, "access: read-write (p.yaml:5)", "direct: by text");
	tap_ok(strstr(d.reason_text, "rw.example.com:443 (p.yaml:5)") != NULL,
	    "direct: reason names the endpoint");
	l7_decide(eps, 1, "POST", "/x", NULL, false, "p.yaml", &d);
	tap_is_str(d.hint,
	    "set 'access: read-write' on the endpoint at p.yaml:4, or add '- allow: { method: POST, path: \"/x\" }' to its rules",
	    "direct: method hint");
	/* long paths are suggested by their first segment */
	{
		static char longp[400];

		memset(longp, 'a', sizeof(longp) - 1);
		longp[0] = '/';
		memcpy(longp + 1, "top/", 4);
		l7_decide(eps, 1, "PUT", longp, NULL, false, "p.yaml", &d);
		tap_ok(strstr(d.hint, "path: \"/top/**\"") != NULL,
		    "direct: long path suggested as its first segment");
	}
}

/* Rules whose globs run past the step budget fail closed: an allow rule
 * does not match, a deny rule does. */
static void
test_runaway_rules(void)
{
	static char text[16384], target[L7_PATH_MAX + 1], glob[2100];
	static struct l7_request req;
	struct policy_load_opts opts = {NULL, true};
	const struct policy_endpoint *e;
	struct l7_decision d;
	struct diags dg;
	struct policy *p;
	size_t n;

	glob[0] = '*';
	memset(glob + 1, 'a', 2000);
	glob[2001] = 'b';
	glob[2002] = '\0';
	snprintf(text, sizeof(text),
	    "network_policies:\n"
	    "  r:\n"
	    "    endpoints:\n"
	    "      - host: r.example.com\n"
	    "        port: 443\n"
	    "        protocol: rest\n"
	    "        access: read-write\n"
	    "        rules:\n"
	    "          - allow: { method: DELETE, path: /q, query: { v: \"%s\" } }\n"
	    "          - allow: { method: DELETE, path: \"/%s\" }\n"
	    "        deny_rules:\n"
	    "          - { method: POST, query: { v: \"%s\" } }\n"
	    "          - { method: PUT, path: \"/%s\" }\n"
	    "    binaries: [{ path: /usr/bin/curl }]\n",
	    glob, glob, glob, glob);
	diags_init(&dg, "runaway");
	p = policy_load_buffer(text, strlen(text), "r.yaml", &opts, &dg);
	diags_free(&dg);
	if (!tap_ok(p != NULL, "runaway rules: policy loads"))
		return;
	e = &p->blocks[0].endpoints[0];
	n = (size_t)snprintf(target, sizeof(target), "/q?v=");
	memset(target + n, 'a', 6000);
	target[n + 6000] = '\0';
	n += 6000;
	l7_request_decide(
	    &e, 1, "DELETE", target, n, false, "r.yaml", &req, &d);
	tap_ok(!d.allowed && d.reason == R_METH,
	    "runaway rules: a query glob too complex to decide does not allow");
	l7_request_decide(&e, 1, "POST", target, n, false, "r.yaml", &req, &d);
	tap_ok(!d.allowed && d.reason == R_DEN && d.rule == &e->deny_rules[0],
	    "runaway rules: a query glob too complex to decide denies");
	l7_request_decide(
	    &e, 1, "POST", "/q?v=ab", 7, false, "r.yaml", &req, &d);
	tap_ok(d.allowed, "runaway rules: the same deny glob, short value");
	target[0] = '/';
	memset(target + 1, 'a', 6000);
	target[6001] = '\0';
	l7_request_decide(
	    &e, 1, "DELETE", target, 6001, false, "r.yaml", &req, &d);
	tap_ok(!d.allowed && d.reason == R_METH,
	    "runaway rules: a path glob too complex to decide does not allow");
	l7_request_decide(
	    &e, 1, "PUT", target, 6001, false, "r.yaml", &req, &d);
	tap_ok(!d.allowed && d.reason == R_DEN && d.rule == &e->deny_rules[1],
	    "runaway rules: a path glob too complex to decide denies");
	policy_unref(p);
}

static void
test_verdicts(void)
{
	struct l7_decision d;

	memset(&d, 0, sizeof(d));
	d.allowed = true;
	tap_is_int(l7_verdict(&d, DECIDE_MODE_ENFORCE), VERDICT_ALLOW,
	    "verdict: allowed stays allowed under enforce-all");
	d.allowed = false;
	d.mode = ENFORCE_ENFORCE;
	tap_is_int(l7_verdict(&d, DECIDE_MODE_POLICY), VERDICT_DENY,
	    "verdict: enforce denies");
	tap_is_int(l7_verdict(&d, DECIDE_MODE_AUDIT), VERDICT_AUDIT,
	    "verdict: audit-all lets it pass");
	d.mode = ENFORCE_AUDIT;
	tap_is_int(l7_verdict(&d, DECIDE_MODE_POLICY), VERDICT_AUDIT,
	    "verdict: audit mode would deny");
	tap_is_int(l7_verdict(&d, DECIDE_MODE_ENFORCE), VERDICT_DENY,
	    "verdict: enforce-all denies audit");
}

static void
test_collect(void)
{
	static const char text[] =
	    "network_policies:\n"
	    "  a:\n"
	    "    endpoints:\n"
	    "      - { host: api.example.com, port: 443, protocol: rest, access: read-only }\n"
	    "      - { host: other.example.com, port: 443, protocol: rest, access: full }\n"
	    "    binaries: [{ path: /usr/bin/curl }]\n"
	    "  b:\n"
	    "    endpoints:\n"
	    "      - { host: \"*.example.com\", port: 443, protocol: rest, access: read-write }\n"
	    "    binaries: [{ path: /usr/bin/curl }]\n"
	    "  c:\n"
	    "    endpoints:\n"
	    "      - { host: api.example.com, port: 443, protocol: rest, access: full }\n"
	    "    binaries: [{ path: /usr/bin/git }]\n";
	struct policy_load_opts opts = {NULL, true};
	struct diags dg;
	struct policy *p;
	struct decide_caller c;
	struct decide_dest dd;
	struct hostname h;
	const struct policy_endpoint *eps[4];
	struct l7_decision d;
	static struct l7_request req;
	size_t n;

	diags_init(&dg, "collect");
	p = policy_load_buffer(text, sizeof(text) - 1, "c.yaml", &opts, &dg);
	diags_free(&dg);
	if (!tap_ok(p != NULL, "collect: policy loads"))
		return;
	memset(&c, 0, sizeof(c));
	c.exe = "/usr/bin/curl";
	c.identity_err = REASON_ALLOWED;
	hostname_normalize("api.example.com", 15, &h);
	dd.host = &h;
	dd.port = 443;
	dd.source = DECIDE_SRC_SNI;
	n = l7_endpoints_collect(p, &c, &dd, eps, 4);
	tap_ok(n == 2 && eps[0] == &p->blocks[0].endpoints[0] &&
	        eps[1] == &p->blocks[1].endpoints[0],
	    "collect: both allowing endpoints, in order, not the other binary's");
	l7_request_decide(eps, n, "POST", "/x", 2, false, p->file, &req, &d);
	tap_ok(d.allowed && d.endpoint == eps[1] && d.endpoint_index == 1,
	    "collect: POST allowed by the read-write block");
	l7_request_decide(eps, n, "DELETE", "/x", 2, false, p->file, &req, &d);
	tap_ok(!d.allowed && strstr(d.hint, "c.yaml:") != NULL,
	    "collect: DELETE refused, hint names the file");
	tap_ok(l7_endpoints_collect(p, &c, &dd, eps, 1) == 2,
	    "collect: count beyond max is reported");
	c.exe = "/usr/bin/wget";
	tap_ok(l7_endpoints_collect(p, &c, &dd, eps, 4) == 0,
	    "collect: an unlisted binary gets no endpoint");
	policy_unref(p);
}

static struct policy *
load(void)
{
	struct policy_load_opts opts = {NULL, true};
	struct diags d;
	struct policy *p;
	struct strbuf sb;

	diags_init(&d, "test_l7");
	p = policy_load_buffer(
	    policy_text, sizeof(policy_text) - 1, "test_l7.yaml", &opts, &d);
	if (p == NULL) {
		strbuf_init(&sb, 0);
		diags_format(&d, &sb);
		printf("%s", strbuf_str(&sb));
		strbuf_free(&sb);
	}
	diags_free(&d);
	if (p) {
		/* E10: rule paths that cannot be canonicalized, as only a
		 * policy built around the loader could hold */
		struct policy_endpoint *e = &p->blocks[0].endpoints[10];

		free(e->rules[0].path);
		e->rules[0].path = strdup("/a?b");
		free(e->deny_rules[0].path);
		e->deny_rules[0].path = strdup("/x?y");
	}
	return p;
}

int
main(void)
{
	test_canon_table();
	test_canon_limits();
	test_canon_bytes();
	test_query_table();
	test_query_limits();
	test_glob_table();
	test_value_globs();
	test_glob_reference();
	test_glob_pathological();
	test_patterns();
	test_strerror();
	pol = load();
	if (tap_ok(pol != NULL, "decision policy loads")) {
		tap_is_int(pol->blocks[0].nendpoints, 14,
		    "decision policy: every endpoint");
		test_decide_table();
		test_preset_matrix();
		test_decide_direct();
		test_runaway_rules();
		test_verdicts();
		test_collect();
		policy_unref(pol);
	}
	tap_guard_free(&guard);
	return tap_done();
}
