/* SPDX-License-Identifier: ISC */
/*
 * Policy schema: validates the YAML tree key by key, reporting every problem
 * with its position, and compiles what is valid into struct policy. Owns the
 * meaning of every key and the normalized dump; leaves YAML syntax to
 * ytree.c, matching to match.c and file-system diagnostics to lint.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "l7.h"
#include "lint.h"
#include "log.h"
#include "policy.h"
#include "strbuf.h"
#include "ytree.h"
#include "xalloc.h"

struct ctx {
	struct diags *d;
	bool ok;
};

static void err(struct ctx *c, const struct ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
err(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(c->d, DIAG_ERROR, n ? n->line : 0, n ? n->col : 0, fmt, ap);
	va_end(ap);
	c->ok = false;
}

static void warn(struct ctx *c, const struct ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
warn(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(c->d, DIAG_WARNING, n ? n->line : 0, n ? n->col : 0, fmt, ap);
	va_end(ap);
}

/* ---- typed access to YAML nodes ---------------------------------------- */

static const char *
type_name(const struct ynode *n)
{
	switch (n->type) {
	case YNODE_MAP:
		return "a mapping";
	case YNODE_SEQ:
		return "a list";
	case YNODE_SCALAR:
		break;
	}
	return "a single value";
}

static bool
scalar_is(const struct ynode *n, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(n->str, *words) == 0)
			return true;
	return false;
}

/* YAML 1.1 implicit booleans: a plain `yes` or `on` is not the string. */
static bool
is_implicit_bool(const struct ynode *n)
{
	static const char *const words[] = {"y", "Y", "yes", "Yes", "YES", "n",
	    "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
	    "FALSE", "on", "On", "ON", "off", "Off", "OFF", NULL};

	return n->type == YNODE_SCALAR && n->plain && scalar_is(n, words);
}

static bool
is_null(const struct ynode *n)
{
	static const char *const words[] = {
	    "", "~", "null", "Null", "NULL", NULL};

	return n->type == YNODE_SCALAR && n->plain && scalar_is(n, words);
}

static bool
want_map(struct ctx *c, const struct ynode *n, const char *what)
{
	if (n->type == YNODE_MAP)
		return true;
	if (is_null(n))
		err(c, n, "%s is empty; it must be a mapping (key: value)",
		    what);
	else
		err(c, n, "%s must be a mapping (key: value), not %s", what,
		    type_name(n));
	return false;
}

static bool
want_seq(struct ctx *c, const struct ynode *n, const char *what)
{
	if (n->type != YNODE_SEQ) {
		if (is_null(n))
			err(c, n, "%s is empty; it must be a non-empty list",
			    what);
		else
			err(c, n, "%s must be a list (- item), not %s", what,
			    type_name(n));
		return false;
	}
	if (n->n == 0) {
		err(c, n, "%s is an empty list; remove the key or add items",
		    what);
		return false;
	}
	return true;
}

static const char *
want_str(struct ctx *c, const struct ynode *n, const char *what)
{
	if (n->type != YNODE_SCALAR) {
		err(c, n, "%s must be a string, not %s", what, type_name(n));
		return NULL;
	}
	if (is_null(n)) {
		err(c, n, "%s has no value", what);
		return NULL;
	}
	if (is_implicit_bool(n)) {
		err(c, n,
		    "%s: '%s' is a YAML boolean, not a string; quote it (\"%s\") if you mean the text",
		    what, n->str, n->str);
		return NULL;
	}
	return n->str;
}

static bool
want_bool(struct ctx *c, const struct ynode *n, const char *what, bool *out)
{
	if (n->type == YNODE_SCALAR && n->plain) {
		if (strcmp(n->str, "true") == 0) {
			*out = true;
			return true;
		}
		if (strcmp(n->str, "false") == 0) {
			*out = false;
			return true;
		}
	}
	err(c, n, "%s must be true or false (unquoted)", what);
	return false;
}

/* Strict decimal: digits only, no sign, no leading zero, no overflow. */
static bool
parse_decimal(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 10 || (s[0] == '0' && len > 1))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool
want_uint(struct ctx *c, const struct ynode *n, const char *what,
    unsigned long max, unsigned long *out)
{
	if (n->type != YNODE_SCALAR) {
		err(c, n, "%s must be an integer, not %s", what, type_name(n));
		return false;
	}
	if (!n->plain) {
		err(c, n,
		    "%s must be an unquoted decimal integer, not a quoted string",
		    what);
		return false;
	}
	if (!parse_decimal(n->str, n->len, max, out)) {
		err(c, n,
		    "%s must be a decimal integer from 0 to %lu without sign or leading zeros (got '%s')",
		    what, max, n->str);
		return false;
	}
	return true;
}

/* Returns the index of the value among names, or -1 after an error. */
static int
want_enum(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *names)
{
	const char *s = want_str(c, n, what);
	struct strbuf sb;
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	strbuf_init(&sb, 0);
	for (i = 0; names[i]; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", names[i]);
	err(c, n, "%s: unknown value '%s' (expected one of: %s)", what, s,
	    strbuf_str(&sb));
	strbuf_free(&sb);
	return -1;
}

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0], tmp;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static void
check_keys(struct ctx *c, const struct ynode *map, const char *const *allowed,
    const char *where)
{
	size_t i;

	for (i = 0; i < map->n; i++) {
		const struct ynode *k = map->keys[i];
		const char *best = NULL;
		size_t bestd = 3, j;
		struct strbuf sb;

		for (j = 0; allowed[j]; j++) {
			size_t dist;

			if (strcmp(k->str, allowed[j]) == 0)
				break;
			dist = edit_distance(k->str, allowed[j]);
			if (dist < bestd) {
				bestd = dist;
				best = allowed[j];
			}
		}
		if (allowed[j])
			continue;
		strbuf_init(&sb, 0);
		for (j = 0; allowed[j]; j++)
			strbuf_printf(&sb, "%s%s", j ? ", " : "", allowed[j]);
		if (best)
			err(c, k,
			    "unknown key '%s' in %s (did you mean '%s'?); allowed keys: %s",
			    k->str, where, best, strbuf_str(&sb));
		else
			err(c, k, "unknown key '%s' in %s; allowed keys: %s",
			    k->str, where, strbuf_str(&sb));
		strbuf_free(&sb);
	}
}

/* ---- endpoints ----------------------------------------------------------- */

static const char *const protocol_names[] = {"rest", "tcp", NULL};
static const char *const enforcement_names[] = {"enforce", "audit", NULL};
static const char *const access_names[] = {
    "read-only", "read-write", "full", NULL};

/* A port item: an unquoted integer, or a range "A-B" (quoted or not). */
static bool
compile_port(struct ctx *c, const struct ynode *n, struct port_range *r)
{
	const char *dash;
	unsigned long lo, hi;

	if (n->type != YNODE_SCALAR) {
		err(c, n,
		    "a port must be an integer or a range \"LOW-HIGH\", not %s",
		    type_name(n));
		return false;
	}
	dash = n->len > 1 ? memchr(n->str + 1, '-', n->len - 1) : NULL;
	if (dash == NULL) {
		if (!n->plain) {
			err(c, n,
			    "port must be an unquoted decimal integer, not a quoted string");
			return false;
		}
		if (!parse_decimal(n->str, n->len, 65535, &lo)) {
			err(c, n,
			    "port must be a decimal integer from 1 to 65535 without sign or leading zeros (got '%s')",
			    n->str);
			return false;
		}
		hi = lo;
	} else if (!parse_decimal(
	               n->str, (size_t)(dash - n->str), 65535, &lo) ||
	    !parse_decimal(
	        dash + 1, n->len - (size_t)(dash - n->str) - 1, 65535, &hi)) {
		err(c, n,
		    "port range '%s' must be two decimal ports from 1 to 65535 joined by '-' (e.g. 8000-8100)",
		    n->str);
		return false;
	}
	if (lo == 0 || hi == 0) {
		err(c, n,
		    "port 0 is not a valid destination port (use 1-65535)");
		return false;
	}
	if (lo > hi) {
		err(c, n, "port range '%s' is reversed; write %lu-%lu", n->str,
		    hi, lo);
		return false;
	}
	r->lo = (uint16_t)lo;
	r->hi = (uint16_t)hi;
	return true;
}

static void
compile_ports(struct ctx *c, const struct ynode *ep, struct policy_endpoint *e)
{
	const struct ynode *port = ytree_get(ep, "port");
	const struct ynode *ports = ytree_get(ep, "ports");
	size_t i;

	if (port && ports) {
		err(c, ports, "use either 'port' or 'ports', not both");
		return;
	}
	if (port == NULL && ports == NULL) {
		err(c, ep,
		    "endpoint has no 'port' (or 'ports'): which port may it reach?");
		return;
	}
	if (port) {
		e->ports = xcalloc(1, sizeof(*e->ports));
		if (compile_port(c, port, &e->ports[0]))
			e->nports = 1;
		return;
	}
	if (!want_seq(c, ports, "'ports'"))
		return;
	e->ports = xcalloc(ports->n, sizeof(*e->ports));
	for (i = 0; i < ports->n; i++)
		if (compile_port(c, ports->vals[i], &e->ports[e->nports]))
			e->nports++;
}

static bool
compile_cidr(
    struct ctx *c, const struct ynode *n, const char *what, struct cidr *out)
{
	const char *s = want_str(c, n, what);

	if (s == NULL)
		return false;
	if (!addr_parse_cidr(s, n->len, out)) {
		err(c, n,
		    "%s: '%s' is not an IP address or CIDR (ADDRESS/PREFIX, host bits zero, dotted decimal without leading zeros)",
		    what, s);
		return false;
	}
	return true;
}

static void
compile_allowed_ips(
    struct ctx *c, const struct ynode *n, struct policy_endpoint *e)
{
	static const char *const never4[] = {
	    "127.0.0.1", "169.254.169.254", "0.0.0.0", NULL};
	static const char *const never6[] = {"::1", "fe80::1", "::", NULL};
	size_t i;

	if (!want_seq(c, n, "'allowed_ips'"))
		return;
	e->allowed_ips = xcalloc(n->n, sizeof(*e->allowed_ips));
	for (i = 0; i < n->n; i++) {
		struct cidr *r = &e->allowed_ips[e->nallowed_ips];
		enum addr_class cls;
		const char *const *probe;

		if (!compile_cidr(c, n->vals[i], "allowed_ips entry", r))
			continue;
		cls = addr_classify(&r->base);
		if (addr_class_never(cls)) {
			err(c, n->vals[i],
			    "allowed_ips cannot open %s addresses (%s): egressd never connects to loopback, unspecified, link-local, metadata or multicast addresses",
			    addr_class_name(cls), n->vals[i]->str);
			continue;
		}
		probe = r->base.family == AF_INET ? never4 : never6;
		for (; *probe; probe++) {
			struct addr a;

			if (addr_parse(*probe, strlen(*probe), &a) &&
			    cidr_contains(r, &a)) {
				warn(c, n->vals[i],
				    "allowed_ips '%s' includes %s addresses such as %s; those stay blocked whatever the policy says",
				    n->vals[i]->str,
				    addr_class_name(addr_classify(&a)), *probe);
				break;
			}
		}
		e->nallowed_ips++;
	}
}

static bool
valid_method(const char *s)
{
	size_t i;

	if (strcmp(s, "*") == 0)
		return true;
	if (*s == '\0' || strlen(s) > 20)
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || s[i] == '-' ||
		        s[i] == '_'))
			return false;
	return true;
}

static void
compile_query(struct ctx *c, const struct ynode *n, struct l7_rule *r)
{
	size_t i, j;

	if (!want_map(c, n, "'query'"))
		return;
	r->query = xcalloc(n->n, sizeof(*r->query));
	for (i = 0; i < n->n; i++) {
		const struct ynode *v = n->vals[i];
		struct l7_query *q = &r->query[r->nquery];
		const struct ynode *any;

		if (v->type == YNODE_MAP) {
			static const char *const keys[] = {"any", NULL};

			check_keys(c, v, keys, "a query matcher");
			if ((any = ytree_get(v, "any")) == NULL) {
				err(c, v, "query matcher needs 'any: [globs]'");
				continue;
			}
			if (!want_seq(c, any, "'any'"))
				continue;
			q->globs = xcalloc(any->n, sizeof(*q->globs));
			for (j = 0; j < any->n; j++) {
				const char *g =
				    want_str(c, any->vals[j], "query glob");
				if (g)
					q->globs[q->nglobs++] = xstrdup(g);
			}
		} else {
			const char *g = want_str(c, v, "query glob");

			if (g == NULL)
				continue;
			q->globs = xcalloc(1, sizeof(*q->globs));
			q->globs[q->nglobs++] = xstrdup(g);
		}
		q->key = xstrdup(n->keys[i]->str);
		r->nquery++;
	}
}

static void
compile_rule(
    struct ctx *c, const struct ynode *n, struct l7_rule *r, const char *what)
{
	static const char *const keys[] = {"method", "path", "query", NULL};
	const struct ynode *v;
	const char *s;

	r->line = n->line;
	r->col = n->col;
	if (!want_map(c, n, what))
		return;
	check_keys(c, n, keys, what);
	if ((v = ytree_get(n, "method")) && (s = want_str(c, v, "'method'"))) {
		if (valid_method(s))
			r->method = xstrdup(s);
		else
			err(c, v,
			    "method '%s' must be an uppercase HTTP method (GET, POST, ...) or '*'",
			    s);
	}
	if ((v = ytree_get(n, "path")) && (s = want_str(c, v, "'path'"))) {
		size_t off = 0;
		enum l7_path_result pr = l7_pattern_check(s, &off);

		if (pr == L7_PATH_OK)
			r->path = xstrdup(s);
		else
			err(c, v,
			    "path '%s': %s (at character %zu); a rule path is written like a request path, '/x/*/y' or '/x/**'",
			    s, l7_path_strerror(pr), off + 1);
	}
	if ((v = ytree_get(n, "query")))
		compile_query(c, v, r);
	if (ytree_get(n, "method") == NULL && ytree_get(n, "path") == NULL)
		err(c, n, "%s needs a 'method' or a 'path'", what);
	if (r->method == NULL)
		r->method = xstrdup("*");
}

static void
compile_rules(struct ctx *c, const struct ynode *n, struct policy_endpoint *e)
{
	static const char *const keys[] = {"allow", NULL};
	size_t i;

	if (!want_seq(c, n, "'rules'"))
		return;
	e->rules = xcalloc(n->n, sizeof(*e->rules));
	for (i = 0; i < n->n; i++) {
		const struct ynode *item = n->vals[i], *allow;

		if (!want_map(c, item, "a rule"))
			continue;
		check_keys(c, item, keys, "a rule");
		if ((allow = ytree_get(item, "allow")) == NULL) {
			err(c, item,
			    "a rule is written '- allow: { method: GET, path: /x/** }'");
			continue;
		}
		compile_rule(c, allow, &e->rules[e->nrules++], "an allow rule");
	}
}

static void
compile_deny_rules(
    struct ctx *c, const struct ynode *n, struct policy_endpoint *e)
{
	size_t i;

	if (!want_seq(c, n, "'deny_rules'"))
		return;
	e->deny_rules = xcalloc(n->n, sizeof(*e->deny_rules));
	for (i = 0; i < n->n; i++)
		compile_rule(c, n->vals[i], &e->deny_rules[e->ndeny_rules++],
		    "a deny rule");
}

static void
compile_host(struct ctx *c, const struct ynode *n, struct policy_endpoint *e)
{
	const char *s = want_str(c, n, "'host'");
	enum hostname_err herr;
	enum match_err merr;
	char buf[HOSTNAME_MAX + 8];

	if (s == NULL)
		return;
	merr = host_pattern_compile(s, n->len, &e->host, &herr);
	if (merr == MATCH_ERR_HOST) {
		err(c, n, "host '%s': %s", s, hostname_strerror(herr));
		return;
	}
	if (merr != MATCH_OK) {
		err(c, n, "host '%s': %s", s, match_strerror(merr));
		return;
	}
	host_pattern_format(&e->host, buf, sizeof(buf));
	e->host_text = xstrdup(buf);
}

static void
compile_endpoint(
    struct ctx *c, const struct ynode *n, struct policy_endpoint *e)
{
	static const char *const keys[] = {"host", "port", "ports", "protocol",
	    "enforcement", "access", "rules", "deny_rules", "allowed_ips",
	    "allow_encoded_slash", NULL};
	const struct ynode *v;
	int i;

	e->line = n->line;
	e->col = n->col;
	if (!want_map(c, n, "an endpoint"))
		return;
	check_keys(c, n, keys, "an endpoint");
	if ((v = ytree_get(n, "host")) == NULL)
		err(c, n, "endpoint has no 'host'");
	else
		compile_host(c, v, e);
	compile_ports(c, n, e);
	if ((v = ytree_get(n, "protocol")) &&
	    (i = want_enum(c, v, "'protocol'", protocol_names)) >= 0)
		e->protocol = i == 0 ? PROTO_REST : PROTO_TCP;
	if ((v = ytree_get(n, "enforcement")) &&
	    (i = want_enum(c, v, "'enforcement'", enforcement_names)) >= 0)
		e->enforcement = (enum policy_enforcement)i;
	if ((v = ytree_get(n, "access")) &&
	    (i = want_enum(c, v, "'access'", access_names)) >= 0)
		e->access = (enum policy_access)(i + 1);
	if ((v = ytree_get(n, "rules")))
		compile_rules(c, v, e);
	if ((v = ytree_get(n, "deny_rules")))
		compile_deny_rules(c, v, e);
	if ((v = ytree_get(n, "allowed_ips")))
		compile_allowed_ips(c, v, e);
	if ((v = ytree_get(n, "allow_encoded_slash")))
		want_bool(
		    c, v, "'allow_encoded_slash'", &e->allow_encoded_slash);

	/* What can actually be enforced depends on the protocol. */
	if (e->protocol != PROTO_REST) {
		const char *what = e->protocol == PROTO_TCP ?
		    "protocol: tcp" :
		    "an endpoint without 'protocol'";
		static const char *const l7keys[] = {
		    "rules", "deny_rules", "allow_encoded_slash", NULL};
		const char *const *k;

		for (k = l7keys; *k; k++)
			if ((v = ytree_get(n, *k)))
				err(c, v,
				    "'%s' needs 'protocol: rest': egressd only sees requests on endpoints it inspects",
				    *k);
		if ((v = ytree_get(n, "access")))
			warn(c, v,
			    "'access: %s' has no effect on %s: egressd sees only host and port here, so any request on an allowed connection passes; add 'protocol: rest' to enforce it",
			    v->str, what);
	} else if (e->access == ACCESS_UNSET && e->nrules == 0 &&
	    ytree_get(n, "rules") == NULL) {
		err(c, n,
		    "'protocol: rest' needs 'access' (read-only, read-write or full) or 'rules' to say which requests are allowed");
	}
	if (e->nallowed_ips &&
	    (e->host.kind == HOSTPAT_IP || e->host.kind == HOSTPAT_CIDR))
		warn(c, ytree_get(n, "allowed_ips"),
		    "'allowed_ips' applies to names; on an IP host the host itself is the range");
}

/* ---- binaries and blocks ------------------------------------------------ */

static int
hex_nibble(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void
compile_binary(struct ctx *c, const struct ynode *n, struct policy_binary *b)
{
	static const char *const keys[] = {"path", "sha256", "ancestors", NULL};
	const struct ynode *v;
	const char *s;
	enum glob_err gerr;
	int i;

	b->line = n->line;
	b->col = n->col;
	if (n->type == YNODE_SCALAR) {
		err(c, n, "a binary is written '- path: %s'", n->str);
		return;
	}
	if (!want_map(c, n, "a binary"))
		return;
	check_keys(c, n, keys, "a binary");
	if ((v = ytree_get(n, "path")) == NULL) {
		err(c, n, "binary has no 'path'");
	} else if ((s = want_str(c, v, "'path'"))) {
		if ((gerr = path_glob_check(s, &b->glob)) != GLOB_OK)
			err(c, v, "binary path '%s': %s", s,
			    glob_strerror(gerr));
		else
			b->path = xstrdup(s);
	}
	if ((v = ytree_get(n, "sha256")) && (s = want_str(c, v, "'sha256'"))) {
		bool okhex = v->len == 64;

		for (i = 0; okhex && i < 32; i++) {
			int hi = hex_nibble(s[2 * i]),
			    lo = hex_nibble(s[2 * i + 1]);

			if (hi < 0 || lo < 0)
				okhex = false;
			else
				b->sha256[i] = (uint8_t)(hi << 4 | lo);
		}
		if (okhex)
			b->has_sha256 = true;
		else
			err(c, v,
			    "sha256 must be 64 hexadecimal digits (sha256sum output)");
	}
	if ((v = ytree_get(n, "ancestors")))
		want_bool(c, v, "'ancestors'", &b->ancestors);
}

static bool
valid_block_key(const char *s)
{
	size_t i;

	if (*s == '\0' || strlen(s) > 64)
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		        (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		        s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

static void
compile_block(struct ctx *c, const struct ynode *key, const struct ynode *n,
    struct policy_block *b)
{
	static const char *const keys[] = {
	    "name", "endpoints", "binaries", "clients", "action", NULL};
	static const char *const actions[] = {"allow", "deny", NULL};
	const struct ynode *v;
	const char *s;
	size_t i;
	int a;

	b->key = xstrdup(key->str);
	b->line = key->line;
	b->col = key->col;
	if (!valid_block_key(key->str))
		err(c, key,
		    "policy name '%s' may only contain letters, digits, '_', '-' and '.' (at most 64)",
		    key->str);
	if (!want_map(c, n, "a policy block"))
		return;
	check_keys(c, n, keys, "a policy block");
	if ((v = ytree_get(n, "name")) && (s = want_str(c, v, "'name'")))
		b->name = xstrdup(s);
	if ((v = ytree_get(n, "action")) &&
	    (a = want_enum(c, v, "'action'", actions)) >= 0)
		b->deny = a == 1;
	if ((v = ytree_get(n, "endpoints")) == NULL) {
		err(c, key, "policy '%s' has no 'endpoints'", key->str);
	} else if (want_seq(c, v, "'endpoints'")) {
		b->endpoints = xcalloc(v->n, sizeof(*b->endpoints));
		for (i = 0; i < v->n; i++)
			compile_endpoint(
			    c, v->vals[i], &b->endpoints[b->nendpoints++]);
	}
	if ((v = ytree_get(n, "binaries")) && want_seq(c, v, "'binaries'")) {
		b->binaries = xcalloc(v->n, sizeof(*b->binaries));
		for (i = 0; i < v->n; i++)
			compile_binary(
			    c, v->vals[i], &b->binaries[b->nbinaries++]);
	}
	if ((v = ytree_get(n, "clients")) && want_seq(c, v, "'clients'")) {
		b->clients = xcalloc(v->n, sizeof(*b->clients));
		for (i = 0; i < v->n; i++)
			if (compile_cidr(c, v->vals[i], "clients entry",
			        &b->clients[b->nclients]))
				b->nclients++;
	}
	if (ytree_get(n, "binaries") == NULL && ytree_get(n, "clients") == NULL)
		err(c, key,
		    "policy '%s' names no callers: add 'binaries' (programs in the sandbox) or 'clients' (source addresses); use '- path: /**' to mean any program",
		    key->str);
}

static void
compile_root(struct ctx *c, const struct ynode *root, struct policy *p)
{
	static const char *const keys[] = {"version", "network_policies",
	    "filesystem_policy", "landlock", "process", NULL};
	static const char *const ignored[] = {
	    "filesystem_policy", "landlock", "process", NULL};
	const struct ynode *v;
	const char *const *k;
	unsigned long version;
	size_t i;

	if (root == NULL) {
		err(c, NULL, "the policy file is empty");
		return;
	}
	if (!want_map(c, root, "the policy"))
		return;
	check_keys(c, root, keys, "the policy");
	if ((v = ytree_get(root, "version")) &&
	    want_uint(c, v, "'version'", 1000, &version) && version != 1)
		err(c, v,
		    "unsupported policy version %lu (this egressd reads version 1)",
		    version);
	for (k = ignored; *k; k++)
		if ((v = ytree_get(root, *k)))
			diag_add(c->d, DIAG_NOTICE, v->line, v->col,
			    "'%s' is accepted and ignored: egressd enforces network policy only",
			    *k);
	v = ytree_get(root, "network_policies");
	if (v == NULL || (v->type == YNODE_MAP && v->n == 0)) {
		warn(c, v ? v : root,
		    "no network_policies: every connection will be denied");
		return;
	}
	if (!want_map(c, v, "'network_policies'"))
		return;
	p->blocks = xcalloc(v->n, sizeof(*p->blocks));
	for (i = 0; i < v->n; i++)
		compile_block(
		    c, v->keys[i], v->vals[i], &p->blocks[p->nblocks++]);
}

/* ---- lifecycle ----------------------------------------------------------- */

static void
rule_free(struct l7_rule *r)
{
	size_t i, j;

	free(r->method);
	free(r->path);
	for (i = 0; i < r->nquery; i++) {
		free(r->query[i].key);
		for (j = 0; j < r->query[i].nglobs; j++)
			free(r->query[i].globs[j]);
		free(r->query[i].globs);
	}
	free(r->query);
}

static void
policy_free(struct policy *p)
{
	size_t i, j, k;

	for (i = 0; i < p->nblocks; i++) {
		struct policy_block *b = &p->blocks[i];

		for (j = 0; j < b->nendpoints; j++) {
			struct policy_endpoint *e = &b->endpoints[j];

			free(e->host_text);
			free(e->ports);
			for (k = 0; k < e->nrules; k++)
				rule_free(&e->rules[k]);
			free(e->rules);
			for (k = 0; k < e->ndeny_rules; k++)
				rule_free(&e->deny_rules[k]);
			free(e->deny_rules);
			free(e->allowed_ips);
		}
		for (j = 0; j < b->nbinaries; j++) {
			free(b->binaries[j].path);
			free(b->binaries[j].real);
			free(b->binaries[j].interpreter);
		}
		free(b->key);
		free(b->name);
		free(b->endpoints);
		free(b->binaries);
		free(b->clients);
	}
	free(p->blocks);
	free(p->file);
	free(p->root);
	free(p);
}

struct policy *
policy_ref(struct policy *p)
{
	if (p)
		atomic_fetch_add(&p->refs, 1);
	return p;
}

void
policy_unref(struct policy *p)
{
	if (p && atomic_fetch_sub(&p->refs, 1) == 1)
		policy_free(p);
}

struct policy *
policy_load_buffer(const char *text, size_t len, const char *name,
    const struct policy_load_opts *opts, struct diags *d)
{
	static const struct policy_load_opts dflt = {NULL, false};
	struct ctx c = {d, true};
	struct ytree t;
	struct policy *p;

	if (opts == NULL)
		opts = &dflt;
	if (!ytree_parse(&t, text, len, d)) {
		diags_sort(d);
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	atomic_init(&p->refs, 1);
	p->file = xstrdup(name);
	p->root = xstrdup(opts->root ? opts->root : "/");
	compile_root(&c, t.root, p);
	ytree_free(&t);
	if (c.ok)
		policy_lint(p, opts, d);
	diags_sort(d);
	if (!c.ok || d->nerrors) {
		policy_free(p);
		return NULL;
	}
	return p;
}

struct policy *
policy_load_file(
    const char *path, const struct policy_load_opts *opts, struct diags *d)
{
	FILE *f;
	char *buf;
	size_t n;
	struct policy *p;

	if ((f = fopen(path, "r")) == NULL) {
		diag_add(
		    d, DIAG_ERROR, 0, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	buf = xcalloc(1, YTREE_MAX_FILE + 2);
	n = fread(buf, 1, YTREE_MAX_FILE + 1, f);
	if (ferror(f)) {
		diag_add(
		    d, DIAG_ERROR, 0, 0, "cannot read: %s", strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	p = policy_load_buffer(buf, n, path, opts, d);
	free(buf);
	return p;
}

/* ---- names and dumps ----------------------------------------------------- */

const char *
policy_protocol_name(enum policy_protocol p)
{
	switch (p) {
	case PROTO_REST:
		return "rest";
	case PROTO_TCP:
		return "tcp";
	case PROTO_L4:
		break;
	}
	return "l4";
}

const char *
policy_enforcement_name(enum policy_enforcement e)
{
	return e == ENFORCE_AUDIT ? "audit" : "enforce";
}

const char *
policy_access_name(enum policy_access a)
{
	switch (a) {
	case ACCESS_READ_ONLY:
		return "read-only";
	case ACCESS_READ_WRITE:
		return "read-write";
	case ACCESS_FULL:
		return "full";
	case ACCESS_UNSET:
		break;
	}
	return "unset";
}

const char *
policy_block_label(const struct policy_block *b)
{
	return b->key;
}

static void
yaml_str(struct strbuf *out, const char *s)
{
	/* JSON string syntax is valid YAML double-quoted syntax. */
	strbuf_json_str(out, s);
}

static void
dump_rule_yaml(struct strbuf *out, const struct l7_rule *r, const char *ind)
{
	size_t i, j;

	strbuf_printf(out, "%smethod: ", ind);
	yaml_str(out, r->method);
	strbuf_putc(out, '\n');
	if (r->path) {
		strbuf_printf(out, "%spath: ", ind);
		yaml_str(out, r->path);
		strbuf_putc(out, '\n');
	}
	if (r->nquery) {
		strbuf_printf(out, "%squery:\n", ind);
		for (i = 0; i < r->nquery; i++) {
			strbuf_printf(out, "%s  ", ind);
			yaml_str(out, r->query[i].key);
			strbuf_puts(out, ": { any: [");
			for (j = 0; j < r->query[i].nglobs; j++) {
				if (j)
					strbuf_puts(out, ", ");
				yaml_str(out, r->query[i].globs[j]);
			}
			strbuf_puts(out, "] }\n");
		}
	}
}

static void
dump_ports(struct strbuf *out, const struct policy_endpoint *e)
{
	size_t i;

	if (e->nports == 1 && e->ports[0].lo == e->ports[0].hi) {
		strbuf_printf(out, "port: %u", e->ports[0].lo);
		return;
	}
	strbuf_puts(out, "ports: [");
	for (i = 0; i < e->nports; i++) {
		if (i)
			strbuf_puts(out, ", ");
		if (e->ports[i].lo == e->ports[i].hi)
			strbuf_printf(out, "%u", e->ports[i].lo);
		else
			strbuf_printf(
			    out, "\"%u-%u\"", e->ports[i].lo, e->ports[i].hi);
	}
	strbuf_putc(out, ']');
}

static void
dump_endpoint_yaml(struct strbuf *out, const struct policy_endpoint *e)
{
	char buf[64];
	size_t i;

	strbuf_puts(out, "      - host: ");
	yaml_str(out, e->host_text);
	strbuf_puts(out, "\n        ");
	dump_ports(out, e);
	strbuf_putc(out, '\n');
	if (e->protocol != PROTO_L4)
		strbuf_printf(out, "        protocol: %s\n",
		    policy_protocol_name(e->protocol));
	strbuf_printf(out, "        enforcement: %s\n",
	    policy_enforcement_name(e->enforcement));
	if (e->access != ACCESS_UNSET)
		strbuf_printf(
		    out, "        access: %s\n", policy_access_name(e->access));
	if (e->nrules) {
		strbuf_puts(out, "        rules:\n");
		for (i = 0; i < e->nrules; i++) {
			strbuf_puts(out, "          - allow:\n");
			dump_rule_yaml(out, &e->rules[i], "              ");
		}
	}
	if (e->ndeny_rules) {
		strbuf_puts(out, "        deny_rules:\n");
		for (i = 0; i < e->ndeny_rules; i++) {
			strbuf_puts(out, "          -\n");
			dump_rule_yaml(out, &e->deny_rules[i], "            ");
		}
	}
	if (e->nallowed_ips) {
		strbuf_puts(out, "        allowed_ips: [");
		for (i = 0; i < e->nallowed_ips; i++) {
			if (i)
				strbuf_puts(out, ", ");
			yaml_str(out,
			    cidr_format(&e->allowed_ips[i], buf, sizeof(buf)));
		}
		strbuf_puts(out, "]\n");
	}
	if (e->allow_encoded_slash)
		strbuf_puts(out, "        allow_encoded_slash: true\n");
}

void
policy_dump_yaml(const struct policy *p, struct strbuf *out)
{
	char buf[64];
	size_t i, j, k;

	strbuf_puts(out, "version: 1\n");
	if (p->nblocks == 0) {
		strbuf_puts(out, "network_policies: {}\n");
		return;
	}
	strbuf_puts(out, "network_policies:\n");
	for (i = 0; i < p->nblocks; i++) {
		const struct policy_block *b = &p->blocks[i];

		strbuf_printf(out, "  %s:\n", b->key);
		if (b->name) {
			strbuf_puts(out, "    name: ");
			yaml_str(out, b->name);
			strbuf_putc(out, '\n');
		}
		if (b->deny)
			strbuf_puts(out, "    action: deny\n");
		strbuf_puts(out, "    endpoints:\n");
		for (j = 0; j < b->nendpoints; j++)
			dump_endpoint_yaml(out, &b->endpoints[j]);
		if (b->nbinaries)
			strbuf_puts(out, "    binaries:\n");
		for (j = 0; j < b->nbinaries; j++) {
			const struct policy_binary *bin = &b->binaries[j];

			strbuf_puts(out, "      - path: ");
			yaml_str(out, bin->path);
			strbuf_putc(out, '\n');
			if (bin->has_sha256) {
				strbuf_puts(out, "        sha256: \"");
				for (k = 0; k < 32; k++)
					strbuf_printf(
					    out, "%02x", bin->sha256[k]);
				strbuf_puts(out, "\"\n");
			}
			if (bin->ancestors)
				strbuf_puts(out, "        ancestors: true\n");
		}
		if (b->nclients) {
			strbuf_puts(out, "    clients: [");
			for (j = 0; j < b->nclients; j++) {
				if (j)
					strbuf_puts(out, ", ");
				yaml_str(out,
				    cidr_format(
				        &b->clients[j], buf, sizeof(buf)));
			}
			strbuf_puts(out, "]\n");
		}
	}
}

static void
dump_rule_json(struct strbuf *out, const struct l7_rule *r)
{
	size_t i, j;

	strbuf_puts(out, "{\"method\":");
	strbuf_json_str(out, r->method);
	strbuf_puts(out, ",\"path\":");
	strbuf_json_str(out, r->path);
	strbuf_puts(out, ",\"query\":{");
	for (i = 0; i < r->nquery; i++) {
		if (i)
			strbuf_putc(out, ',');
		strbuf_json_str(out, r->query[i].key);
		strbuf_puts(out, ":[");
		for (j = 0; j < r->query[i].nglobs; j++) {
			if (j)
				strbuf_putc(out, ',');
			strbuf_json_str(out, r->query[i].globs[j]);
		}
		strbuf_putc(out, ']');
	}
	strbuf_puts(out, "}}");
}

static void
dump_endpoint_json(struct strbuf *out, const struct policy_endpoint *e)
{
	char buf[64];
	size_t i;

	strbuf_puts(out, "{\"host\":");
	strbuf_json_str(out, e->host_text);
	strbuf_puts(out, ",\"ports\":[");
	for (i = 0; i < e->nports; i++)
		strbuf_printf(out, "%s[%u,%u]", i ? "," : "", e->ports[i].lo,
		    e->ports[i].hi);
	strbuf_printf(out,
	    "],\"protocol\":\"%s\",\"enforcement\":\"%s\",\"access\":\"%s\"",
	    policy_protocol_name(e->protocol),
	    policy_enforcement_name(e->enforcement),
	    policy_access_name(e->access));
	strbuf_puts(out, ",\"rules\":[");
	for (i = 0; i < e->nrules; i++) {
		if (i)
			strbuf_putc(out, ',');
		dump_rule_json(out, &e->rules[i]);
	}
	strbuf_puts(out, "],\"deny_rules\":[");
	for (i = 0; i < e->ndeny_rules; i++) {
		if (i)
			strbuf_putc(out, ',');
		dump_rule_json(out, &e->deny_rules[i]);
	}
	strbuf_puts(out, "],\"allowed_ips\":[");
	for (i = 0; i < e->nallowed_ips; i++) {
		if (i)
			strbuf_putc(out, ',');
		strbuf_json_str(
		    out, cidr_format(&e->allowed_ips[i], buf, sizeof(buf)));
	}
	strbuf_printf(out, "],\"allow_encoded_slash\":%s,\"line\":%d}",
	    e->allow_encoded_slash ? "true" : "false", e->line);
}

static const char *
binary_state_name(enum binary_state s)
{
	switch (s) {
	case BINARY_OK:
		return "ok";
	case BINARY_MISSING:
		return "missing";
	case BINARY_SYMLINK:
		return "symlink";
	case BINARY_NOT_FILE:
		return "not_a_file";
	case BINARY_UNCHECKED:
		break;
	}
	return "unchecked";
}

void
policy_dump_json(const struct policy *p, struct strbuf *out)
{
	char buf[64];
	size_t i, j, k;

	strbuf_puts(out, "{\"version\":1,\"file\":");
	strbuf_json_str(out, p->file);
	strbuf_puts(out, ",\"root\":");
	strbuf_json_str(out, p->root);
	strbuf_puts(out, ",\"network_policies\":[");
	for (i = 0; i < p->nblocks; i++) {
		const struct policy_block *b = &p->blocks[i];

		if (i)
			strbuf_putc(out, ',');
		strbuf_puts(out, "{\"key\":");
		strbuf_json_str(out, b->key);
		strbuf_puts(out, ",\"name\":");
		strbuf_json_str(out, b->name);
		strbuf_printf(out, ",\"action\":\"%s\",\"endpoints\":[",
		    b->deny ? "deny" : "allow");
		for (j = 0; j < b->nendpoints; j++) {
			if (j)
				strbuf_putc(out, ',');
			dump_endpoint_json(out, &b->endpoints[j]);
		}
		strbuf_puts(out, "],\"binaries\":[");
		for (j = 0; j < b->nbinaries; j++) {
			const struct policy_binary *bin = &b->binaries[j];

			if (j)
				strbuf_putc(out, ',');
			strbuf_puts(out, "{\"path\":");
			strbuf_json_str(out, bin->path);
			strbuf_printf(out,
			    ",\"glob\":%s,\"ancestors\":%s,\"state\":\"%s\",\"real_path\":",
			    bin->glob ? "true" : "false",
			    bin->ancestors ? "true" : "false",
			    binary_state_name(bin->state));
			strbuf_json_str(out, bin->real);
			strbuf_puts(out, ",\"interpreter\":");
			strbuf_json_str(out, bin->interpreter);
			strbuf_puts(out, ",\"sha256\":");
			if (bin->has_sha256) {
				strbuf_putc(out, '"');
				for (k = 0; k < 32; k++)
					strbuf_printf(
					    out, "%02x", bin->sha256[k]);
				strbuf_putc(out, '"');
			} else {
				strbuf_puts(out, "null");
			}
			strbuf_putc(out, '}');
		}
		strbuf_puts(out, "],\"clients\":[");
		for (j = 0; j < b->nclients; j++) {
			if (j)
				strbuf_putc(out, ',');
			strbuf_json_str(
			    out, cidr_format(&b->clients[j], buf, sizeof(buf)));
		}
		strbuf_puts(out, "]}");
	}
	strbuf_puts(out, "]}");
}
