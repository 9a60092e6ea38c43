/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: request path canonicalization (twice: the canonical form must
 * be a fixed point), the query parser, and the request globs on
 * fuzzer-chosen pattern and path pairs, checked against a bounded reference
 * matcher. Input: the first byte picks options, then "target\npattern".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "l7.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char out1[L7_PATH_MAX + 1], out2[L7_PATH_MAX + 1];
static char pat[L7_PATH_MAX + 1], cpat[L7_PATH_MAX + 1];
static struct l7_query_params q;

static bool
is_path_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') ||
	    (c && strchr("-._~!$&'()*+,;=:@%/", c) != NULL);
}

static int
uhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* What the canonical form promises, checked byte by byte. */
static void
check_canonical(const char *s, size_t len, bool slash)
{
	size_t i;

	if (len == 0 || s[0] != '/' || strlen(s) != len)
		abort();
	for (i = 0; i < len; i++) {
		if (!is_path_char((unsigned char)s[i]))
			abort();
		if (s[i] == '/' && i + 1 < len && s[i + 1] == '/')
			abort(); /* empty segments collapsed */
		if (s[i] == '%') {
			int v;

			if (i + 2 >= len || uhex(s[i + 1]) < 0 ||
			    uhex(s[i + 2]) < 0)
				abort(); /* uppercase hex only */
			v = uhex(s[i + 1]) << 4 | uhex(s[i + 2]);
			if ((v >= 'a' && v <= 'z') || (v >= 'A' && v <= 'Z') ||
			    (v >= '0' && v <= '9') || v == '-' || v == '.' ||
			    v == '_' || v == '~' || v == 0 || v == '\\' ||
			    (v == '/' && !slash))
				abort(); /* would have been decoded or refused */
		}
	}
	/* no dot segments */
	for (i = 0; i < len; i++) {
		if (s[i] != '/')
			continue;
		if ((i + 2 <= len && s[i + 1] == '.' &&
		        (i + 2 == len || s[i + 2] == '/')) ||
		    (i + 3 <= len && s[i + 1] == '.' && s[i + 2] == '.' &&
		        (i + 3 == len || s[i + 3] == '/')))
			abort();
	}
}

/* A reference matcher by dynamic programming: exact, independent of the
 * greedy algorithm, and polynomial (only run on small inputs). */
#define REF_MAX 64

static bool
ref_seg(const char *p, size_t pn, const char *s, size_t sn)
{
	bool m[REF_MAX + 1][REF_MAX + 1];
	size_t i, j;

	/* m[i][j]: p[i..) matches s[j..) */
	for (i = pn + 1; i-- > 0;) {
		for (j = sn + 1; j-- > 0;) {
			if (i == pn)
				m[i][j] = j == sn;
			else if (p[i] == '*')
				m[i][j] =
				    m[i + 1][j] || (j < sn && m[i][j + 1]);
			else
				m[i][j] =
				    j < sn && p[i] == s[j] && m[i + 1][j + 1];
		}
	}
	return m[0][0];
}

struct segs {
	const char *p[16];
	size_t n[16];
	size_t count;
};

static bool
split(const char *s, struct segs *o)
{
	o->count = 0;
	while (*s) {
		const char *b;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		if (o->count == 16)
			return false;
		b = s;
		while (*s && *s != '/')
			s++;
		o->p[o->count] = b;
		o->n[o->count++] = (size_t)(s - b);
	}
	return true;
}

static bool
ref_path(const struct segs *a, const struct segs *b)
{
	bool m[17][17];
	size_t i, j;

	for (i = a->count + 1; i-- > 0;) {
		for (j = b->count + 1; j-- > 0;) {
			if (i == a->count)
				m[i][j] = j == b->count;
			else if (a->n[i] == 2 && a->p[i][0] == '*' &&
			    a->p[i][1] == '*')
				m[i][j] = m[i + 1][j] ||
				    (j < b->count && m[i][j + 1]);
			else
				m[i][j] = j < b->count &&
				    ref_seg(
				        a->p[i], a->n[i], b->p[j], b->n[j]) &&
				    m[i + 1][j + 1];
		}
	}
	return m[0][0];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in, *nl;
	size_t len, plen = 0, off, steps;
	struct l7_target t, t2;
	enum l7_path_result r;
	bool slash, have_path;

	if (size < 1)
		return 0;
	slash = data[0] & 1;
	in = (const char *)data + 1;
	size--;
	nl = memchr(in, '\n', size);
	len = nl ? (size_t)(nl - in) : size;

	/* 1. canonicalize, then canonicalize the result again */
	r = l7_path_canon(in, len, slash, out1, sizeof(out1), &t, &off);
	have_path = r == L7_PATH_OK;
	if (r == L7_PATH_OK) {
		if (t.path_len > len || t.path_len != strlen(out1))
			abort();
		if (t.has_query &&
		    (t.query.off + t.query.len != len || t.query.off == 0 ||
		        in[t.query.off - 1] != '?'))
			abort();
		check_canonical(out1, t.path_len, slash);
		if (l7_path_canon(out1, t.path_len, slash, out2, sizeof(out2),
		        &t2, &off) != L7_PATH_OK ||
		    strcmp(out1, out2) != 0 || t2.has_query)
			abort();
		/* an exactly sized buffer is enough */
		if (l7_path_canon(in, len, slash, out2,
		        (len > L7_PATH_MAX ? L7_PATH_MAX : len) + 1, &t2,
		        &off) != L7_PATH_OK ||
		    strcmp(out1, out2) != 0)
			abort();
		if (t.has_query &&
		    l7_query_parse(in + t.query.off, t.query.len, &q, &off) ==
		        L7_PATH_OK) {
			size_t i;

			if (q.n > L7_QUERY_MAX_PARAMS)
				abort();
			for (i = 0; i < q.n; i++)
				if (strlen(q.p[i].key) != q.p[i].key_len ||
				    strlen(q.p[i].value) != q.p[i].value_len)
					abort();
		}
		/* a path matches itself as a pattern when it has no stars
		 * (and "/" "**" matches everything) */
		if (strchr(out1, '*') == NULL &&
		    l7_glob_path(out1, out1, NULL) != L7_GLOB_MATCH)
			abort();
		if (l7_glob_path("/**", out1, NULL) != L7_GLOB_MATCH)
			abort();
	} else if (r > L7_PATH_ERR_PATTERN_DOT || off > len) {
		abort();
	}

	/* 2. the rest of the input as a rule path, matched against it */
	if (nl == NULL)
		return 0;
	plen = size - len - 1;
	if (plen > L7_PATH_MAX)
		plen = L7_PATH_MAX;
	memcpy(pat, nl + 1, plen);
	pat[plen] = '\0';
	(void)l7_pattern_check(pat, &off);
	if (l7_pattern_canon(pat, cpat, sizeof(cpat), &off) != L7_PATH_OK)
		return 0;
	if (l7_glob_path(cpat, have_path ? out1 : "/", &steps) !=
	        L7_GLOB_TOO_COMPLEX &&
	    steps > L7_GLOB_MAX_STEPS)
		abort();
	/* the pattern as a value glob over the raw target */
	(void)l7_glob_value(pat, in, len, &steps);
	if (have_path && strlen(cpat) <= REF_MAX && t.path_len <= REF_MAX) {
		struct segs a, b;

		if (split(cpat, &a) && split(out1, &b) &&
		    ref_path(&a, &b) !=
		        (l7_glob_path(cpat, out1, NULL) == L7_GLOB_MATCH))
			abort();
	}
	return 0;
}
