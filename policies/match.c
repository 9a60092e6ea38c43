/* SPDX-License-Identifier: ISC */
/*
 * Host pattern, port range and path glob compilers and matchers. Owns the
 * wildcard semantics (dot boundaries, apex exclusion, component-bounded
 * globs); leaves name normalization to resolver/hostname.c.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "match.h"

static bool
has_star(const char *s, size_t len)
{
	return memchr(s, '*', len) != NULL;
}

/* Classifies a misplaced star: a label that is exactly "*" or "**" is a
 * wildcard in the wrong place, anything else a partial label. */
static enum match_err
star_error(const char *s, size_t len)
{
	const char *star = memchr(s, '*', len), *b = star, *e = star;

	while (b > s && b[-1] != '.')
		b--;
	while (e < s + len && *e != '.')
		e++;
	if (e - b == 1 || (e - b == 2 && b[0] == '*' && b[1] == '*'))
		return MATCH_ERR_INNER_WILDCARD;
	return MATCH_ERR_PARTIAL_LABEL;
}

enum match_err
host_pattern_compile(const char *s, size_t len, struct host_pattern *out,
    enum hostname_err *herr)
{
	struct hostname h;
	const char *rest = s;
	size_t rlen = len;

	memset(out, 0, sizeof(*out));
	*herr = HOSTNAME_OK;
	if (len == 0)
		return MATCH_ERR_EMPTY;
	if (memchr(s, '/', len)) {
		if (!addr_parse_cidr(s, len, &out->cidr))
			return MATCH_ERR_CIDR;
		out->kind = HOSTPAT_CIDR;
		return MATCH_OK;
	}
	if ((len == 1 && s[0] == '*') ||
	    (len == 2 && s[0] == '*' && s[1] == '*') ||
	    (len == 2 && s[0] == '*' && s[1] == '.') ||
	    (len == 3 && memcmp(s, "**.", 3) == 0))
		return MATCH_ERR_BARE_WILDCARD;
	if (len > 3 && memcmp(s, "**.", 3) == 0) {
		out->kind = HOSTPAT_ANY_LABELS;
		rest = s + 3;
		rlen = len - 3;
	} else if (len > 2 && memcmp(s, "*.", 2) == 0) {
		out->kind = HOSTPAT_ONE_LABEL;
		rest = s + 2;
		rlen = len - 2;
	} else if (has_star(s, len)) {
		return star_error(s, len);
	} else {
		out->kind = HOSTPAT_EXACT;
	}
	if (has_star(rest, rlen))
		return star_error(rest, rlen);
	if ((*herr = hostname_normalize(rest, rlen, &h)) != HOSTNAME_OK)
		return MATCH_ERR_HOST;
	if (h.kind != HOSTNAME_NAME) {
		if (out->kind != HOSTPAT_EXACT) {
			*herr = HOSTNAME_ERR_NUMERIC;
			return MATCH_ERR_HOST;
		}
		out->kind = HOSTPAT_IP;
		out->cidr.base = h.addr;
		out->cidr.prefix = h.addr.family == AF_INET ? 32 : 128;
		return MATCH_OK;
	}
	if (out->kind != HOSTPAT_EXACT && memchr(h.name, '.', h.len) == NULL)
		return MATCH_ERR_TLD_WILDCARD;
	memcpy(out->suffix, h.name, h.len + 1);
	out->suffix_len = h.len;
	return MATCH_OK;
}

const char *
match_strerror(enum match_err e)
{
	switch (e) {
	case MATCH_OK:
		return "ok";
	case MATCH_ERR_EMPTY:
		return "empty host";
	case MATCH_ERR_BARE_WILDCARD:
		return "a bare wildcard matches every host; name the hosts (e.g. *.example.com)";
	case MATCH_ERR_TLD_WILDCARD:
		return "a wildcard over a whole top-level domain is not allowed; use at least two labels after the wildcard (e.g. *.example.com)";
	case MATCH_ERR_PARTIAL_LABEL:
		return "wildcards must be a whole label: '*.' (one label) or '**.' (one or more labels) at the start";
	case MATCH_ERR_INNER_WILDCARD:
		return "a wildcard is only allowed as the leftmost label ('*.' or '**.')";
	case MATCH_ERR_HOST:
		return "invalid host name";
	case MATCH_ERR_CIDR:
		return "invalid CIDR (ADDRESS/PREFIX with the host bits zero)";
	}
	return "invalid host pattern";
}

/* Does name end with "." + suffix, leaving a non-empty prefix? */
static bool
under_suffix(const struct hostname *h, const char *suffix, size_t slen,
    size_t *prefix_len)
{
	if (h->len < slen + 2)
		return false;
	if (h->name[h->len - slen - 1] != '.')
		return false;
	if (memcmp(h->name + h->len - slen, suffix, slen) != 0)
		return false;
	*prefix_len = h->len - slen - 1;
	return true;
}

bool
host_pattern_match(const struct host_pattern *p, const struct hostname *h)
{
	size_t plen;

	switch (p->kind) {
	case HOSTPAT_EXACT:
		return h->kind == HOSTNAME_NAME && h->len == p->suffix_len &&
		    memcmp(h->name, p->suffix, h->len) == 0;
	case HOSTPAT_ONE_LABEL:
		return h->kind == HOSTNAME_NAME &&
		    under_suffix(h, p->suffix, p->suffix_len, &plen) &&
		    memchr(h->name, '.', plen) == NULL;
	case HOSTPAT_ANY_LABELS:
		return h->kind == HOSTNAME_NAME &&
		    under_suffix(h, p->suffix, p->suffix_len, &plen);
	case HOSTPAT_IP:
	case HOSTPAT_CIDR:
		return h->kind != HOSTNAME_NAME &&
		    cidr_contains(&p->cidr, &h->addr);
	}
	return false;
}

void
host_pattern_format(const struct host_pattern *p, char *buf, size_t len)
{
	char a[ADDR_STRLEN];

	switch (p->kind) {
	case HOSTPAT_EXACT:
		snprintf(buf, len, "%s", p->suffix);
		break;
	case HOSTPAT_ONE_LABEL:
		snprintf(buf, len, "*.%s", p->suffix);
		break;
	case HOSTPAT_ANY_LABELS:
		snprintf(buf, len, "**.%s", p->suffix);
		break;
	case HOSTPAT_IP:
		snprintf(buf, len, "%s", addr_format(&p->cidr.base, a));
		break;
	case HOSTPAT_CIDR:
		cidr_format(&p->cidr, buf, len);
		break;
	}
}

static bool
is_ip_pattern(const struct host_pattern *p)
{
	return p->kind == HOSTPAT_IP || p->kind == HOSTPAT_CIDR;
}

bool
host_pattern_overlap(const struct host_pattern *a, const struct host_pattern *b)
{
	const struct host_pattern *lng, *shr;
	struct hostname h;

	if (is_ip_pattern(a) || is_ip_pattern(b)) {
		if (!is_ip_pattern(a) || !is_ip_pattern(b))
			return false;
		return cidr_contains(&a->cidr, &b->cidr.base) ||
		    cidr_contains(&b->cidr, &a->cidr.base);
	}
	if (a->kind == HOSTPAT_EXACT || b->kind == HOSTPAT_EXACT) {
		const struct host_pattern *e = a->kind == HOSTPAT_EXACT ? a : b;
		const struct host_pattern *o = e == a ? b : a;

		memset(&h, 0, sizeof(h));
		h.kind = HOSTNAME_NAME;
		memcpy(h.name, e->suffix, e->suffix_len + 1);
		h.len = e->suffix_len;
		return host_pattern_match(o, &h);
	}
	if (a->suffix_len == b->suffix_len)
		return memcmp(a->suffix, b->suffix, a->suffix_len) == 0;
	lng = a->suffix_len > b->suffix_len ? a : b;
	shr = lng == a ? b : a;
	/* lng's hosts sit at least two labels under shr's suffix: only a
	 * "**." shr reaches that deep. */
	memset(&h, 0, sizeof(h));
	h.kind = HOSTNAME_NAME;
	memcpy(h.name, lng->suffix, lng->suffix_len + 1);
	h.len = lng->suffix_len;
	return shr->kind == HOSTPAT_ANY_LABELS && host_pattern_match(shr, &h);
}

bool
port_ranges_match(const struct port_range *r, size_t n, uint16_t port)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (port >= r[i].lo && port <= r[i].hi)
			return true;
	return false;
}

bool
port_ranges_overlap(const struct port_range *a, size_t na,
    const struct port_range *b, size_t nb)
{
	size_t i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i].lo <= b[j].hi && b[j].lo <= a[i].hi)
				return true;
	return false;
}

enum glob_err
path_glob_check(const char *pattern, bool *is_glob)
{
	const char *p = pattern, *seg;
	int starstar = 0;

	*is_glob = strchr(pattern, '*') != NULL;
	if (*p != '/')
		return GLOB_ERR_NOT_ABSOLUTE;
	while (*p == '/') {
		size_t n;

		seg = ++p;
		while (*p && *p != '/') {
			unsigned char c = (unsigned char)*p;

			if (c < 0x20 || c == 0x7f || c == '?' || c == '[' ||
			    c == ']' || c == '\\')
				return GLOB_ERR_CHAR;
			p++;
		}
		n = (size_t)(p - seg);
		if (n == 0)
			return GLOB_ERR_EMPTY_SEGMENT;
		if ((n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return GLOB_ERR_DOT_SEGMENT;
		if (n == 2 && seg[0] == '*' && seg[1] == '*') {
			if (++starstar > GLOB_MAX_STARSTAR)
				return GLOB_ERR_TOO_COMPLEX;
		} else if (memmem(seg, n, "**", 2) != NULL) {
			return GLOB_ERR_STARSTAR;
		}
	}
	return GLOB_OK;
}

const char *
glob_strerror(enum glob_err e)
{
	switch (e) {
	case GLOB_OK:
		return "ok";
	case GLOB_ERR_NOT_ABSOLUTE:
		return "binary paths must be absolute (start with '/')";
	case GLOB_ERR_DOT_SEGMENT:
		return "'.' and '..' are not allowed in binary paths; write the real path";
	case GLOB_ERR_EMPTY_SEGMENT:
		return "empty path component ('//' or a trailing '/')";
	case GLOB_ERR_STARSTAR:
		return "'**' must be a whole path component (e.g. /opt/**/bin/tool)";
	case GLOB_ERR_CHAR:
		return "only '*' and '**' are supported as wildcards ('?', '[', ']', '\\' and control characters are not allowed)";
	case GLOB_ERR_TOO_COMPLEX:
		return "too many '**' components (at most 4)";
	}
	return "invalid path";
}

/* "*" within one component: iterative match with one backtrack point,
 * linear in practice. */
static bool
seg_match(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t pi = 0, si = 0, star = (size_t)-1, mark = 0;

	while (si < sn) {
		if (pi < pn && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < pn && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			si = ++mark;
		} else {
			return false;
		}
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

#define GLOB_MAX_COMPONENTS 128

struct comps {
	const char *p[GLOB_MAX_COMPONENTS];
	size_t n[GLOB_MAX_COMPONENTS];
	size_t count;
};

static bool
split(const char *s, struct comps *c)
{
	c->count = 0;
	while (*s == '/') {
		const char *seg = ++s;

		while (*s && *s != '/')
			s++;
		if (c->count == GLOB_MAX_COMPONENTS || s == seg)
			return false; /* too deep, or an empty component */
		c->p[c->count] = seg;
		c->n[c->count++] = (size_t)(s - seg);
	}
	return *s == '\0';
}

static bool
comps_match(
    const struct comps *pat, size_t i, const struct comps *path, size_t j)
{
	for (; i < pat->count; i++, j++) {
		if (pat->n[i] == 2 && memcmp(pat->p[i], "**", 2) == 0) {
			size_t k;

			/* A trailing "**" needs at least one component:
			 * "/home/" followed by "**" covers what is under /home. */
			if (i + 1 == pat->count)
				return j < path->count;
			for (k = j; k <= path->count; k++)
				if (comps_match(pat, i + 1, path, k))
					return true;
			return false;
		}
		if (j >= path->count ||
		    !seg_match(pat->p[i], pat->n[i], path->p[j], path->n[j]))
			return false;
	}
	return j == path->count;
}

bool
path_glob_match(const char *pattern, const char *path)
{
	struct comps pat, pth;

	if (!split(pattern, &pat) || !split(path, &pth))
		return false;
	return comps_match(&pat, 0, &pth, 0);
}
