/* SPDX-License-Identifier: ISC */
/*
 * Policy proposals from denials. Owns which reasons a policy change can fix,
 * which destinations must never be proposed (loopback, link-local, metadata:
 * resolver/addr.h decides), the grouping into blocks and the YAML written;
 * leaves loading and checking policies to policies/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "ctl_propose.h"
#include "ctl_text.h"
#include "decide.h"
#include "hostname.h"
#include "lint.h"
#include "log.h"
#include "match.h"
#include "policy.h"
#include "strbuf.h"
#include "xalloc.h"

/* ------------------------------------------------------------------ */
/* Names */

void
ctl_propose_family(const char *host, char *out, size_t outlen)
{
	static const char *const second[] = {
	    "co", "com", "org", "net", "ac", "gov", "edu", NULL};
	const char *dots[3] = {NULL, NULL, NULL}; /* last, 2nd, 3rd last */
	const char *p, *from = host;
	const char *const *s;

	for (p = host; *p; p++) {
		if (*p != '.')
			continue;
		dots[2] = dots[1];
		dots[1] = dots[0];
		dots[0] = p;
	}
	if (dots[1]) {
		/* at least three labels: "a.b.c" */
		const char *tld = dots[0] + 1, *sld = dots[1] + 1;
		size_t sld_len = (size_t)(dots[0] - sld);
		bool cc = strlen(tld) == 2, common = false;

		for (s = second; *s; s++)
			if (strlen(*s) == sld_len &&
			    strncmp(sld, *s, sld_len) == 0)
				common = true;
		if (cc && common)
			from = dots[2] ? dots[2] + 1 : host;
		else
			from = dots[1] + 1;
	}
	snprintf(out, outlen, "%s", from);
}

void
ctl_propose_key(const char *family, char *out, size_t outlen)
{
	size_t i, max = CTL_PROPOSE_KEY_MAX - 8;

	if (outlen == 0)
		return;
	if (max > outlen - 1)
		max = outlen - 1;
	for (i = 0; family[i] && i < max; i++) {
		char c = family[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		        (c >= '0' && c <= '9') || c == '-' ?
		    c :
		    '_';
	}
	out[i] = '\0';
	if (i == 0)
		snprintf(out, outlen, "proposed");
}

/* ------------------------------------------------------------------ */
/* Which denials a policy can fix */

static bool
fixable(enum reason r)
{
	switch (r) {
	case REASON_NO_MATCHING_POLICY:
	case REASON_PORT_NOT_ALLOWED:
	case REASON_BINARY_NOT_ALLOWED:
	case REASON_BINARY_SYMLINK:
	case REASON_BINARY_IS_SCRIPT:
	case REASON_IP_NOT_ALLOWED:
	case REASON_RAW_TCP_NOT_ALLOWED:
		return true;
	default:
		return false;
	}
}

static const char *
unfixable_why(enum reason r, const char *code)
{
	if (strncmp(code, "identity_", 9) == 0)
		return "the caller was not identified: egressd's access to /proc and sock_diag, not the policy";
	switch (r) {
	case REASON_DNS_NAME_NOT_ALLOWED:
	case REASON_DNS_TYPE_NOT_ALLOWED:
		return "a DNS lookup names no binary: allow the connection the binary makes next instead";
	case REASON_EXPLICIT_DENY:
		return "a deny block refused it: narrow or remove the deny block yourself if it should pass";
	case REASON_BINARY_HASH_MISMATCH:
	case REASON_BINARY_HASH_UNAVAILABLE:
		return "the executable's pinned SHA-256: update the pin yourself if the change is expected";
	case REASON_CLIENT_NOT_ALLOWED:
		return "a gateway client's source address: add it to 'clients' yourself";
	case REASON_METHOD_NOT_ALLOWED:
		return "an HTTP request rule: change the endpoint's access or rules yourself";
	case REASON_NON_PUBLIC_ADDRESS:
		return "the name resolves only to non-public addresses: add allowed_ips yourself if that is intended";
	case REASON_POLICY_REVOKED:
		return "a reload revoked it: the current policy decides again";
	case REASON__COUNT:
		return "a reason code this egressctl does not know";
	default:
		return "not a policy decision (network, protocol, client or resource limits)";
	}
}

/* A denial reduced to what the proposal needs. */
struct item {
	const char *binary; /* borrowed from the denials */
	struct hostname host;
	uint16_t port;
	bool tcp, audit_only;
	char *ips[CTL_RECORDS_IPS]; /* CIDRs of non-public addresses */
	size_t nips;
	char *risky;
	size_t count;
	enum reason why;
	/* with --merge: the endpoint already naming this host and port */
	const struct policy_block *like_b;
	const struct policy_endpoint *like_e;
};

static void
skip_add(struct ctl_proposal *pr, const struct ctl_denial *g, const char *why)
{
	struct strbuf ex;
	size_t i;

	for (i = 0; i < pr->nskips; i++)
		if (strcmp(pr->skips[i].reason, g->reason) == 0 &&
		    strcmp(pr->skips[i].why, why) == 0) {
			pr->skips[i].count += g->count;
			return;
		}
	pr->skips =
	    xreallocarray(pr->skips, pr->nskips + 1, sizeof(*pr->skips));
	strbuf_init(&ex, 1024);
	ctl_text_safe(&ex, g->binary ? g->binary : "(unknown)");
	strbuf_puts(&ex, " -> ");
	ctl_text_safe(&ex, g->host ? g->host : "?");
	strbuf_printf(&ex, ":%lld", (long long)g->port);
	pr->skips[pr->nskips].reason = xstrdup(g->reason);
	pr->skips[pr->nskips].why = xstrdup(why);
	pr->skips[pr->nskips].example = xstrdup(strbuf_str(&ex));
	pr->skips[pr->nskips].count = g->count;
	pr->nskips++;
	strbuf_free(&ex);
}

static bool
printable_path(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e ||
		    *s == '"')
			return false;
	return true;
}

/*
 * Adds a /32 or /128 for a non-public address to it; false (with *why)
 * when the address must never be proposed.
 */
static bool
check_addr(struct item *it, const struct addr *a, const char *what, char *why,
    size_t whylen)
{
	enum addr_class c = addr_classify(a);
	char buf[ADDR_STRLEN], cidr[ADDR_STRLEN + 8];
	size_t k;

	addr_format(a, buf);
	if (addr_class_never(c)) {
		snprintf(why, whylen,
		    "%s %s is a %s address: never allowed by any policy", what,
		    buf, addr_class_name(c));
		return false;
	}
	if (c == ADDR_PUBLIC)
		return true;
	snprintf(
	    cidr, sizeof(cidr), "%s/%d", buf, a->family == AF_INET6 ? 128 : 32);
	for (k = 0; k < it->nips; k++)
		if (strcmp(it->ips[k], cidr) == 0)
			return true;
	if (it->nips < CTL_RECORDS_IPS)
		it->ips[it->nips++] = xstrdup(cidr);
	if (it->risky == NULL) {
		char r[256];

		snprintf(r, sizeof(r), "%s is a %s address", buf,
		    addr_class_name(c));
		it->risky = xstrdup(r);
	}
	return true;
}

static void
item_free(struct item *it)
{
	size_t k;

	for (k = 0; k < it->nips; k++)
		free(it->ips[k]);
	free(it->risky);
	memset(it, 0, sizeof(*it));
}

/*
 * The first allow endpoint of merge naming the item's host and port (or,
 * failing that, its host on another port): a new
 * endpoint for another binary should be no broader than it (same request
 * inspection), so its settings are copied when they can be.
 */
static void
like_endpoint(const struct policy *merge, struct item *it)
{
	size_t i, j;
	int pass;

	/* first the host and port, then (port_not_allowed) the host alone */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < merge->nblocks; i++) {
			const struct policy_block *b = &merge->blocks[i];

			for (j = 0; !b->deny && j < b->nendpoints; j++) {
				const struct policy_endpoint *e =
				    &b->endpoints[j];

				if (!host_pattern_match(&e->host, &it->host) ||
				    (pass == 0 &&
				        !port_ranges_match(
				            e->ports, e->nports, it->port)))
					continue;
				it->like_b = b;
				it->like_e = e;
				return;
			}
		}
	}
}

/* Reduces one denial group to an item; false when it is skipped. */
static bool
make_item(struct ctl_proposal *pr, const struct ctl_denial *g,
    const struct policy *merge, struct item *it)
{
	char why[512];
	bool glob;
	size_t k;

	memset(it, 0, sizeof(*it));
	if (!fixable(g->why)) {
		skip_add(pr, g, unfixable_why(g->why, g->reason));
		return false;
	}
	if (g->binary == NULL) {
		skip_add(
		    pr, g, "no binary recorded: the caller was not identified");
		return false;
	}
	if (!printable_path(g->binary) ||
	    path_glob_check(g->binary, &glob) != GLOB_OK || glob) {
		skip_add(pr, g,
		    "the binary's path cannot be written literally in a policy (glob characters, '\"', spaces or bytes outside ASCII)");
		return false;
	}
	if (g->host == NULL ||
	    hostname_normalize(g->host, strlen(g->host), &it->host) !=
	        HOSTNAME_OK) {
		skip_add(pr, g, "no valid destination host recorded");
		return false;
	}
	if (g->port < 1 || g->port > 65535) {
		skip_add(pr, g, "no destination port recorded");
		return false;
	}
	it->binary = g->binary;
	it->port = (uint16_t)g->port;
	/* raw TCP needs protocol: tcp whatever the reason said (a port not
	 * in the policy is reported before the protocol) */
	it->tcp = g->why == REASON_RAW_TCP_NOT_ALLOWED || g->raw;
	it->audit_only = g->denied == 0;
	it->count = g->count;
	it->why = g->why;
	if (it->host.kind != HOSTNAME_NAME &&
	    !check_addr(
	        it, &it->host.addr, "the destination", why, sizeof(why))) {
		skip_add(pr, g, why);
		item_free(it);
		return false;
	}
	for (k = 0; k < g->nips; k++) {
		struct addr a;

		if (!addr_parse(g->ips[k], strlen(g->ips[k]), &a))
			continue;
		if (!check_addr(
		        it, &a, "the address dialed,", why, sizeof(why))) {
			skip_add(pr, g, why);
			item_free(it);
			return false;
		}
	}
	if (merge) {
		struct decide_caller c;
		struct decide_dest d;
		struct decision dec;

		memset(&c, 0, sizeof(c));
		c.exe = it->binary;
		c.identity_err = REASON_ALLOWED;
		d.host = &it->host;
		d.port = it->port;
		d.source = it->tcp ? DECIDE_SRC_DNS : DECIDE_SRC_CONNECT;
		decide(merge, &c, &d, DECIDE_MODE_POLICY, &dec);
		if (dec.verdict == VERDICT_ALLOW) {
			pr->already += g->count;
			item_free(it);
			return false;
		}
		like_endpoint(merge, it);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Grouping */

/* Every item with the same host, port and raw-TCP need: one unit. */
struct unit {
	const struct hostname *host;
	uint16_t port;
	bool tcp, audit_only;
	const char **binaries;
	size_t nbinaries;
	char *ips[CTL_RECORDS_IPS];
	size_t nips;
	const char *risky;
	size_t count;
	size_t reasons[REASON__COUNT];
	char family[HOSTNAME_MAX + 1];
	const struct policy_block *like_b;
	const struct policy_endpoint *like_e;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool
str_in(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool
same_strs(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/* Most denials first, then by reason and why: a stable listing. */
static int
cmp_skip(const void *a, const void *b)
{
	const struct ctl_prop_skip *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->reason, y->reason)) != 0)
		return c;
	return strcmp(x->why, y->why);
}

static int
cmp_port(const void *a, const void *b)
{
	const struct ctl_prop_port *x = a, *y = b;

	return (int)x->port - (int)y->port;
}

static int
cmp_endpoint(const void *a, const void *b)
{
	const struct ctl_prop_endpoint *x = a, *y = b;
	int c;

	if ((c = strcmp(x->host, y->host)) != 0)
		return c;
	if (x->tcp != y->tcp)
		return x->tcp ? 1 : -1;
	return (int)x->ports[0].port - (int)y->ports[0].port;
}

/* IP blocks after name blocks; then by family, then by binaries. */
static int
cmp_block(const void *a, const void *b)
{
	const struct ctl_prop_block *x = a, *y = b;
	size_t i;
	int c;

	if ((x->family[0] == '\0') != (y->family[0] == '\0'))
		return x->family[0] == '\0' ? 1 : -1;
	if ((c = strcmp(x->family, y->family)) != 0)
		return c;
	for (i = 0; i < x->nbinaries && i < y->nbinaries; i++)
		if ((c = strcmp(x->binaries[i], y->binaries[i])) != 0)
			return c;
	return x->nbinaries < y->nbinaries ? -1 :
	    x->nbinaries > y->nbinaries    ? 1 :
	                                     0;
}

/*
 * Copies the inspection settings of the existing endpoint u is like: request
 * inspection (protocol rest with an access preset) and enforcement. An
 * endpoint with request rules is only pointed at: its rules are not copied.
 */
static void
set_like(struct ctl_prop_endpoint *e, const struct unit *u)
{
	const struct policy_endpoint *l = u->like_e;

	e->enforcement = ENFORCE_ENFORCE;
	if (l == NULL || e->tcp)
		return;
	e->like_block = u->like_b->key;
	e->like_line = l->line;
	e->enforcement = l->enforcement;
	if (l->protocol == PROTO_REST && l->access != ACCESS_UNSET &&
	    l->nrules == 0 && l->ndeny_rules == 0) {
		e->rest = true;
		e->access = l->access;
	} else if (l->protocol == PROTO_REST) {
		e->rules_elsewhere = true;
	}
}

static bool
same_like(const struct ctl_prop_endpoint *e, const struct unit *u)
{
	struct ctl_prop_endpoint tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.tcp = u->tcp;
	set_like(&tmp, u);
	return tmp.rest == e->rest && tmp.access == e->access &&
	    tmp.enforcement == e->enforcement &&
	    tmp.rules_elsewhere == e->rules_elsewhere &&
	    (tmp.like_block == NULL) == (e->like_block == NULL) &&
	    (tmp.like_block == NULL ||
	        (strcmp(tmp.like_block, e->like_block) == 0 &&
	            tmp.like_line == e->like_line));
}

static void
endpoint_add(struct ctl_prop_block *b, const struct unit *u)
{
	struct ctl_prop_endpoint *e = NULL;
	char ips_u[CTL_RECORDS_IPS * 64], ips_e[CTL_RECORDS_IPS * 64];
	size_t i, k;

	/* same host, raw-TCP need and allowed_ips: merge the ports */
	ips_u[0] = '\0';
	for (k = 0; k < u->nips; k++)
		strcat(strcat(ips_u, u->ips[k]), " ");
	for (i = 0; i < b->nendpoints && e == NULL; i++) {
		struct ctl_prop_endpoint *c = &b->endpoints[i];

		ips_e[0] = '\0';
		for (k = 0; k < c->nallowed_ips; k++)
			strcat(strcat(ips_e, c->allowed_ips[k]), " ");
		if (strcmp(c->host, u->host->name) == 0 && c->tcp == u->tcp &&
		    strcmp(ips_e, ips_u) == 0 && same_like(c, u))
			e = c;
	}
	if (e == NULL) {
		b->endpoints = xreallocarray(
		    b->endpoints, b->nendpoints + 1, sizeof(*b->endpoints));
		e = &b->endpoints[b->nendpoints++];
		memset(e, 0, sizeof(*e));
		e->host = xstrdup(u->host->name);
		e->is_ip = u->host->kind != HOSTNAME_NAME;
		e->tcp = u->tcp;
		for (k = 0; k < u->nips; k++)
			e->allowed_ips[e->nallowed_ips++] = xstrdup(u->ips[k]);
		e->risky = xstrdup(u->risky);
		e->shared =
		    e->is_ip ? NULL : lint_shared_content_domain(e->host);
		set_like(e, u);
	}
	e->ports = xreallocarray(e->ports, e->nports + 1, sizeof(*e->ports));
	e->ports[e->nports].port = u->port;
	e->ports[e->nports].audit_only = u->audit_only;
	e->nports++;
}

static void
unit_add(struct unit **units, size_t *nunits, const struct item *it)
{
	struct unit *u = NULL;
	size_t i, k;

	for (i = 0; i < *nunits && u == NULL; i++)
		if (strcmp((*units)[i].host->name, it->host.name) == 0 &&
		    (*units)[i].port == it->port && (*units)[i].tcp == it->tcp)
			u = &(*units)[i];
	if (u == NULL) {
		*units = xreallocarray(*units, *nunits + 1, sizeof(**units));
		u = &(*units)[(*nunits)++];
		memset(u, 0, sizeof(*u));
		u->host = &it->host;
		u->port = it->port;
		u->tcp = it->tcp;
		u->audit_only = true;
		if (it->host.kind == HOSTNAME_NAME)
			ctl_propose_family(
			    it->host.name, u->family, sizeof(u->family));
	}
	if (!str_in(u->binaries, u->nbinaries, it->binary)) {
		u->binaries = xreallocarray(
		    u->binaries, u->nbinaries + 1, sizeof(*u->binaries));
		u->binaries[u->nbinaries++] = it->binary;
	}
	for (k = 0; k < it->nips; k++)
		if (!str_in((const char *const *)u->ips, u->nips, it->ips[k]) &&
		    u->nips < CTL_RECORDS_IPS)
			u->ips[u->nips++] = it->ips[k];
	if (u->risky == NULL)
		u->risky = it->risky;
	if (u->like_e == NULL) {
		u->like_b = it->like_b;
		u->like_e = it->like_e;
	}
	u->audit_only = u->audit_only && it->audit_only;
	u->count += it->count;
	if (it->why < REASON__COUNT)
		u->reasons[it->why] += it->count;
}

static bool
key_taken(const struct ctl_proposal *pr, size_t upto,
    const struct policy *merge, const char *key)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (strcmp(pr->blocks[i].key, key) == 0)
			return true;
	for (i = 0; merge && i < merge->nblocks; i++)
		if (strcmp(merge->blocks[i].key, key) == 0)
			return true;
	return false;
}

void
ctl_propose_build(const struct ctl_denials *dn, const struct policy *merge,
    struct ctl_proposal *pr)
{
	struct item *items = xcalloc(dn->n ? dn->n : 1, sizeof(*items));
	struct unit *units = NULL;
	size_t nitems = 0, nunits = 0, i, j, k;

	memset(pr, 0, sizeof(*pr));
	for (i = 0; i < dn->n; i++) {
		pr->total += dn->v[i].count;
		if (make_item(pr, &dn->v[i], merge, &items[nitems]))
			nitems++;
	}
	for (i = 0; i < nitems; i++)
		unit_add(&units, &nunits, &items[i]);
	for (i = 0; i < nunits; i++) {
		struct unit *u = &units[i];
		struct ctl_prop_block *b = NULL;

		qsort(u->binaries, u->nbinaries, sizeof(*u->binaries), cmp_str);
		qsort(u->ips, u->nips, sizeof(*u->ips), cmp_str);
		for (j = 0; j < pr->nblocks && b == NULL; j++)
			if (strcmp(pr->blocks[j].family, u->family) == 0 &&
			    same_strs(
			        (const char *const *)pr->blocks[j].binaries,
			        pr->blocks[j].nbinaries, u->binaries,
			        u->nbinaries))
				b = &pr->blocks[j];
		if (b == NULL) {
			pr->blocks = xreallocarray(
			    pr->blocks, pr->nblocks + 1, sizeof(*pr->blocks));
			b = &pr->blocks[pr->nblocks++];
			memset(b, 0, sizeof(*b));
			b->family = xstrdup(u->family);
			b->binaries = xcalloc(u->nbinaries, sizeof(char *));
			for (k = 0; k < u->nbinaries; k++)
				b->binaries[k] = xstrdup(u->binaries[k]);
			b->nbinaries = u->nbinaries;
		}
		endpoint_add(b, u);
		b->count += u->count;
		for (k = 0; k < REASON__COUNT; k++)
			b->reasons[k] += u->reasons[k];
	}
	if (pr->nblocks > 1)
		qsort(pr->blocks, pr->nblocks, sizeof(*pr->blocks), cmp_block);
	if (pr->nskips > 1)
		qsort(pr->skips, pr->nskips, sizeof(*pr->skips), cmp_skip);
	for (i = 0; i < pr->nblocks; i++) {
		struct ctl_prop_block *b = &pr->blocks[i];
		char base[CTL_PROPOSE_KEY_MAX], key[CTL_PROPOSE_KEY_MAX + 16];
		unsigned n = 2;

		for (j = 0; j < b->nendpoints; j++)
			qsort(b->endpoints[j].ports, b->endpoints[j].nports,
			    sizeof(b->endpoints[j].ports[0]), cmp_port);
		qsort(b->endpoints, b->nendpoints, sizeof(*b->endpoints),
		    cmp_endpoint);
		if (b->family[0])
			ctl_propose_key(b->family, base, sizeof(base));
		else
			snprintf(base, sizeof(base), "ip_addresses");
		snprintf(key, sizeof(key), "%s", base);
		while (key_taken(pr, i, merge, key))
			snprintf(key, sizeof(key), "%s_%u", base, n++);
		b->key = xstrdup(key);
	}
	for (i = 0; i < nunits; i++)
		free(units[i].binaries);
	free(units);
	for (i = 0; i < nitems; i++)
		item_free(&items[i]);
	free(items);
}

void
ctl_proposal_free(struct ctl_proposal *pr)
{
	size_t i, j, k;

	for (i = 0; i < pr->nblocks; i++) {
		struct ctl_prop_block *b = &pr->blocks[i];

		free(b->key);
		free(b->family);
		for (j = 0; j < b->nbinaries; j++)
			free(b->binaries[j]);
		free(b->binaries);
		for (j = 0; j < b->nendpoints; j++) {
			free(b->endpoints[j].host);
			free(b->endpoints[j].ports);
			free(b->endpoints[j].risky);
			for (k = 0; k < b->endpoints[j].nallowed_ips; k++)
				free(b->endpoints[j].allowed_ips[k]);
		}
		free(b->endpoints);
	}
	free(pr->blocks);
	for (i = 0; i < pr->nskips; i++) {
		free(pr->skips[i].reason);
		free(pr->skips[i].why);
		free(pr->skips[i].example);
	}
	free(pr->skips);
	memset(pr, 0, sizeof(*pr));
}

/* ------------------------------------------------------------------ */
/* YAML */

static void
dest(struct strbuf *out, const struct ctl_prop_endpoint *e, uint16_t port)
{
	if (strchr(e->host, ':'))
		strbuf_printf(out, "[%s]:%u", e->host, port);
	else
		strbuf_printf(out, "%s:%u", e->host, port);
}

static void
format_endpoint(
    struct strbuf *out, const struct ctl_prop_endpoint *e, const char *file)
{
	size_t k, naudit = 0;

	for (k = 0; k < e->nports; k++)
		naudit += e->ports[k].audit_only;
	if (e->shared)
		strbuf_printf(out,
		    "      # shared content: %s is on %s, where anyone can publish; allow exactly this host, never a wildcard\n",
		    e->host, e->shared);
	if (e->risky) {
		strbuf_printf(out,
		    "      # risky: %s; allowed_ips lets egressd dial it for this %s\n",
		    e->risky, e->is_ip ? "address" : "name");
	}
	if (naudit) {
		strbuf_puts(out, "      # audit only: ");
		for (k = 0; k < e->nports; k++) {
			if (!e->ports[k].audit_only)
				continue;
			dest(out, e, e->ports[k].port);
			strbuf_puts(out, --naudit ? ", " : "");
		}
		strbuf_puts(
		    out, " seen only as would_deny (audit mode let it pass)\n");
	}
	if (e->tcp)
		strbuf_puts(out,
		    "      # raw TCP: neither TLS nor HTTP was seen, so egressd cannot check the name on the wire\n");
	if (e->like_block && e->rules_elsewhere) {
		strbuf_printf(out,
		    "      # note: policy '%s' inspects requests to %s with rules (",
		    e->like_block, e->host);
		ctl_text_safe(out, file);
		strbuf_printf(out,
		    ":%d): copy protocol, access and rules from there to keep that\n",
		    e->like_line);
	} else if (e->like_block) {
		strbuf_printf(
		    out, "      # settings as in policy '%s' (", e->like_block);
		ctl_text_safe(out, file);
		strbuf_printf(out, ":%d)\n", e->like_line);
	}
	strbuf_puts(out, "      - { host: ");
	strbuf_json_str(out, e->host);
	if (e->nports == 1) {
		strbuf_printf(out, ", port: %u", e->ports[0].port);
	} else {
		strbuf_puts(out, ", ports: [");
		for (k = 0; k < e->nports; k++)
			strbuf_printf(
			    out, "%s%u", k ? ", " : "", e->ports[k].port);
		strbuf_putc(out, ']');
	}
	if (e->tcp)
		strbuf_puts(out, ", protocol: tcp");
	if (e->rest)
		strbuf_printf(out, ", protocol: rest, access: %s",
		    policy_access_name(e->access));
	if (e->enforcement == ENFORCE_AUDIT)
		strbuf_puts(out, ", enforcement: audit");
	if (e->nallowed_ips) {
		strbuf_puts(out, ", allowed_ips: [");
		for (k = 0; k < e->nallowed_ips; k++) {
			if (k)
				strbuf_puts(out, ", ");
			strbuf_json_str(out, e->allowed_ips[k]);
		}
		strbuf_putc(out, ']');
	}
	strbuf_puts(out, " }\n");
}

static void
format_block(
    struct strbuf *out, const struct ctl_prop_block *b, const char *file)
{
	bool first = true;
	size_t k;

	strbuf_printf(out, "  %s:\n", b->key);
	strbuf_printf(
	    out, "    # %zu denial%s:", b->count, b->count == 1 ? "" : "s");
	for (k = 0; k < REASON__COUNT; k++) {
		if (!b->reasons[k])
			continue;
		strbuf_printf(out, "%s %zu %s", first ? "" : ",", b->reasons[k],
		    reason_code((enum reason)k));
		first = false;
	}
	strbuf_putc(out, '\n');
	strbuf_puts(out, "    endpoints:\n");
	for (k = 0; k < b->nendpoints; k++)
		format_endpoint(out, &b->endpoints[k], file);
	strbuf_puts(out, "    binaries:\n");
	for (k = 0; k < b->nbinaries; k++) {
		if (lint_is_interpreter(b->binaries[k]))
			strbuf_printf(out,
			    "      # interpreter: %s runs whatever script it is given; this allows every script the sandboxed job writes\n",
			    b->binaries[k]);
		strbuf_puts(out, "      - path: ");
		strbuf_json_str(out, b->binaries[k]);
		strbuf_putc(out, '\n');
	}
}

void
ctl_propose_format(const struct ctl_proposal *pr, const struct policy *merge,
    const char *source, struct strbuf *out)
{
	size_t i, proposed = 0, skipped = 0;

	for (i = 0; i < pr->nblocks; i++)
		proposed += pr->blocks[i].count;
	for (i = 0; i < pr->nskips; i++)
		skipped += pr->skips[i].count;
	strbuf_printf(out,
	    "# egressctl propose: %zu block%s allowing %zu of %zu denials and would-be denials\n",
	    pr->nblocks, pr->nblocks == 1 ? "" : "s", proposed, pr->total);
	strbuf_puts(out, "# source: ");
	ctl_text_safe(out, source);
	strbuf_putc(out, '\n');
	if (merge) {
		strbuf_puts(out, "# merged into: ");
		ctl_text_safe(out, merge->file);
		strbuf_printf(out, " (%zu denial%s already allowed there)\n",
		    pr->already, pr->already == 1 ? "" : "s");
	}
	strbuf_puts(out,
	    "# Review every entry before use; check the file with: egressd -t -p FILE\n");
	if (pr->nskips) {
		strbuf_printf(out, "# skipped %zu denial%s:\n", skipped,
		    skipped == 1 ? "" : "s");
		for (i = 0; i < pr->nskips; i++) {
			const struct ctl_prop_skip *s = &pr->skips[i];

			strbuf_printf(out, "#   %zu ", s->count);
			ctl_text_safe(out, s->reason);
			strbuf_puts(out, ": ");
			ctl_text_safe(out, s->why);
			strbuf_puts(out, " (e.g. ");
			strbuf_puts(out, s->example);
			strbuf_puts(out, ")\n");
		}
	}
	if (merge && (merge->nblocks > 0 || pr->nblocks == 0)) {
		policy_dump_yaml(merge, out);
	} else if (pr->nblocks == 0) {
		strbuf_puts(out, "version: 1\nnetwork_policies: {}\n");
		return;
	} else {
		strbuf_puts(out, "version: 1\nnetwork_policies:\n");
	}
	if (pr->nblocks && merge)
		strbuf_puts(out, "  # proposed by egressctl:\n");
	for (i = 0; i < pr->nblocks; i++)
		format_block(out, &pr->blocks[i], merge ? merge->file : "-");
}

/* ------------------------------------------------------------------ */
/* The command */

static void
propose_usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl propose [--since DUR] [--merge POLICY] [--root DIR]\n"
	    "                         [--log FILE] [--control PATH]\n"
	    "\n"
	    "A policy that would allow the observed denials and would-be denials,\n"
	    "as YAML for review: one block per set of binaries and host family,\n"
	    "interpreters, shared-content hosts, non-public addresses and audit-only\n"
	    "observations flagged in comments. Denials no policy change can fix\n"
	    "(DNS names, identity, network errors, deny blocks) are listed at the top.\n"
	    "Loopback, link-local and metadata destinations are never proposed.\n"
	    "\n"
	    "  --since DUR     only the last DUR (30s, 15m, 2h, 7d)\n"
	    "  --merge POLICY  print POLICY (normalized) with the new blocks added,\n"
	    "                  leaving out what POLICY already allows\n"
	    "  --root DIR      resolve POLICY's binaries under DIR\n"
	    "  --log FILE      read a decision log instead of asking egressd\n"
	    "  --control PATH  egressd's control socket\n"
	    "\n"
	    "Exit status: 0, or 2 for usage errors, an invalid POLICY or an\n"
	    "unreadable source.\n");
}

int
ctl_propose_main(int argc, char **argv)
{
	enum { O_SINCE = 256, O_MERGE, O_ROOT, O_LOG, O_CONTROL, O_HELP };
	static const struct option longopts[] = {
	    {"since", required_argument, NULL, O_SINCE},
	    {"merge", required_argument, NULL, O_MERGE},
	    {"root", required_argument, NULL, O_ROOT},
	    {"log", required_argument, NULL, O_LOG},
	    {"control", required_argument, NULL, O_CONTROL},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct ctl_records_source src = {NULL, NULL, NULL};
	const char *merge_file = NULL, *root = NULL;
	struct policy *merge = NULL;
	struct policy_load_opts opts;
	struct ctl_proposal pr;
	struct ctl_denials dn;
	struct diags diags;
	struct strbuf sb, source;
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_SINCE:
			src.since = optarg;
			break;
		case O_MERGE:
			merge_file = optarg;
			break;
		case O_ROOT:
			root = optarg;
			break;
		case O_LOG:
			src.log = optarg;
			break;
		case O_CONTROL:
			src.control = optarg;
			break;
		case 'h':
		case O_HELP:
			propose_usage(stdout);
			return 0;
		default:
			propose_usage(stderr);
			return 2;
		}
	}
	if (ctl_text_extra_args("propose", argc, argv, propose_usage))
		return 2;
	if (ctl_records_source_conflict(&src, "propose"))
		return 2;
	if (root && merge_file == NULL) {
		fprintf(stderr,
		    "egressctl propose: --root applies to --merge POLICY\n");
		return 2;
	}
	if (merge_file) {
		memset(&opts, 0, sizeof(opts));
		opts.root = root;
		diags_init(&diags, merge_file);
		merge = policy_load_file(merge_file, &opts, &diags);
		if (merge == NULL) {
			strbuf_init(&sb, 0);
			diags_sort(&diags);
			diags_format(&diags, &sb);
			fprintf(stderr,
			    "%segressctl propose: cannot load the policy %s (egressd -t -p %s shows why)\n",
			    strbuf_str(&sb), merge_file, merge_file);
			strbuf_free(&sb);
			diags_free(&diags);
			return 2;
		}
		diags_free(&diags);
	}
	ctl_denials_init(&dn);
	if ((rc = ctl_denials_load(&dn, &src, "propose")) != 0) {
		ctl_denials_free(&dn);
		policy_unref(merge);
		return rc;
	}
	ctl_denials_sort(&dn);
	ctl_propose_build(&dn, merge, &pr);
	strbuf_init(&sb, 16u << 20);
	strbuf_init(&source, 0);
	ctl_records_source_text(&src, &source);
	ctl_propose_format(&pr, merge, strbuf_str(&source), &sb);
	fputs(strbuf_str(&sb), stdout);
	rc = sb.truncated ? 2 : 0;
	if (sb.truncated)
		fprintf(stderr, "egressctl propose: output truncated\n");
	strbuf_free(&sb);
	strbuf_free(&source);
	ctl_proposal_free(&pr);
	ctl_denials_free(&dn);
	policy_unref(merge);
	return rc;
}
