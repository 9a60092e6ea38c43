/* SPDX-License-Identifier: ISC */
/*
 * The decision function. Owns the semantics of a policy at connection time:
 * default deny, blocks OR-ed, explicit deny first, audit versus enforce, and
 * the wording of every reason and hint. Leaves identity, parsing and I/O to
 * the proxy.
 */
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "lint.h"

enum caller_match {
	CM_NO = 0,
	CM_CLIENT_NO,
	CM_SCRIPT,
	CM_SYMLINK,
	CM_HASH_UNAVAILABLE,
	CM_HASH_MISMATCH,
	CM_MATCH,
};

struct caller_result {
	enum caller_match m;
	const struct policy_binary *bin; /* the entry the result is about */
};

/* What one scan over the policy found. */
struct scan {
	/* allow */
	const struct policy_block *ab;
	const struct policy_endpoint *ae;
	bool allowed, raw, l7_enforce;
	enum policy_access access;
	/* explicit deny */
	const struct policy_block *db;
	const struct policy_endpoint *de;
	/* endpoints that matched host and port, whoever the caller */
	size_t nhostport;
	bool hostport_enforce;
	const struct policy_block *hb;
	const struct policy_endpoint *he;
	/* the most telling caller mismatch on such an endpoint */
	struct caller_result miss;
	const struct policy_block *mb;
	const struct policy_endpoint *me;
	/* host matched, port did not */
	const struct policy_block *pb;
	const struct policy_endpoint *pe;
	/* matched, but raw TCP needs protocol: tcp */
	const struct policy_block *rb;
	const struct policy_endpoint *re;
};

static bool
binary_path_matches(const struct policy_binary *b, const char *path)
{
	if (path == NULL)
		return false;
	return b->glob ? path_glob_match(b->path, path) :
	                 strcmp(b->path, path) == 0;
}

static struct caller_result
caller_match(const struct policy_block *b, const struct decide_caller *c)
{
	struct caller_result best = {CM_NO, NULL};
	size_t i, k;

	if (b->nclients) {
		bool in = false;

		for (i = 0; c->src && i < b->nclients && !in; i++)
			in = cidr_contains(&b->clients[i], c->src);
		if (!in) {
			best.m = CM_CLIENT_NO;
			return best;
		}
		if (b->nbinaries == 0) {
			best.m = CM_MATCH;
			return best;
		}
	}
	for (i = 0; i < b->nbinaries; i++) {
		const struct policy_binary *e = &b->binaries[i];
		struct caller_result r = {CM_NO, e};
		bool cand = binary_path_matches(e, c->exe);

		for (k = 0; !cand && e->ancestors && k < c->nancestors; k++)
			cand = binary_path_matches(e, c->ancestors[k]);
		if (cand) {
			if (!e->has_sha256)
				r.m = CM_MATCH;
			else if (c->sha256 == NULL)
				r.m = CM_HASH_UNAVAILABLE;
			else if (memcmp(c->sha256, e->sha256, 32) != 0)
				r.m = CM_HASH_MISMATCH;
			else
				r.m = CM_MATCH;
		} else if (c->exe &&
		    ((e->real && strcmp(e->real, c->exe) == 0) ||
		        (c->invoked_as && !e->glob &&
		            strcmp(e->path, c->invoked_as) == 0))) {
			r.m = CM_SYMLINK;
		} else if (c->exe && e->interpreter &&
		    strcmp(e->interpreter, c->exe) == 0) {
			r.m = CM_SCRIPT;
		}
		if (r.m == CM_MATCH)
			return r;
		if (r.m > best.m)
			best = r;
	}
	return best;
}

static bool
raw_source(enum decide_source s)
{
	return s == DECIDE_SRC_DNS || s == DECIDE_SRC_ADDR;
}

static const char *const caller_names[] = {
    [CM_NO] = "no",
    [CM_CLIENT_NO] = "client",
    [CM_SCRIPT] = "script",
    [CM_SYMLINK] = "symlink",
    [CM_HASH_UNAVAILABLE] = "hash_unavailable",
    [CM_HASH_MISMATCH] = "hash_mismatch",
    [CM_MATCH] = "match",
};

/* Evaluates one endpoint, folds it into s and describes it in st. */
static void
scan_endpoint(struct scan *s, const struct policy_block *b,
    const struct policy_endpoint *e, const struct decide_caller *c,
    const struct decide_dest *d, struct caller_result *cr, bool *cr_done,
    struct decide_step *st)
{
	memset(st, 0, sizeof(*st));
	st->block = b;
	st->endpoint = e;
	st->caller = "skipped";
	if (!(st->host_match = host_pattern_match(&e->host, d->host))) {
		st->result = "host does not match";
		return;
	}
	if (!(st->port_match =
	            port_ranges_match(e->ports, e->nports, d->port))) {
		if (s->pe == NULL) {
			s->pb = b;
			s->pe = e;
		}
		st->result = "port does not match";
		return;
	}
	if (!b->deny) {
		s->nhostport++;
		if (e->enforcement == ENFORCE_ENFORCE)
			s->hostport_enforce = true;
		if (s->he == NULL) {
			s->hb = b;
			s->he = e;
		}
	}
	if (c->identity_err != REASON_ALLOWED) {
		st->result = "caller unknown";
		return;
	}
	if (!*cr_done) {
		*cr = caller_match(b, c);
		*cr_done = true;
	}
	st->caller = caller_names[cr->m];
	if (b->deny) {
		if (cr->m == CM_MATCH && s->de == NULL) {
			s->db = b;
			s->de = e;
		}
		st->result = cr->m == CM_MATCH ?
		    "denies (deny block)" :
		    "deny block, caller not listed";
		return;
	}
	if (cr->m != CM_MATCH) {
		if (s->me == NULL || cr->m > s->miss.m) {
			s->miss = *cr;
			s->mb = b;
			s->me = e;
		}
		st->result = cr->m == CM_CLIENT_NO ?
		    "source address not listed" :
		    cr->m == CM_SYMLINK ? "policy names a symlink" :
		    cr->m == CM_SCRIPT  ? "policy names a script" :
		    cr->m == CM_NO      ? "binary not listed" :
		                          "binary hash not verified";
		return;
	}
	if (raw_source(d->source) && e->protocol != PROTO_TCP) {
		if (s->re == NULL) {
			s->rb = b;
			s->re = e;
		}
		st->result = "raw TCP needs protocol: tcp";
		return;
	}
	/* Allowed by this endpoint: fold into the effective result, keeping
	 * the broadest endpoint to report. */
	if (e->protocol != PROTO_REST)
		s->raw = true;
	else if (e->enforcement == ENFORCE_ENFORCE)
		s->l7_enforce = true;
	if (!s->allowed ||
	    (s->ae->protocol == PROTO_REST &&
	        (e->protocol != PROTO_REST || e->access > s->access))) {
		s->ab = b;
		s->ae = e;
	}
	if (e->protocol == PROTO_REST && e->access > s->access)
		s->access = e->access;
	s->allowed = true;
	st->result = "allows";
	st->allows = true;
}

static void
scan_policy(const struct policy *p, const struct decide_caller *c,
    const struct decide_dest *d, struct scan *s,
    void (*trace)(const struct decide_step *st, void *arg), void *arg)
{
	size_t i, j;

	memset(s, 0, sizeof(*s));
	for (i = 0; p && i < p->nblocks; i++) {
		const struct policy_block *b = &p->blocks[i];
		struct caller_result cr;
		bool cr_done = false;

		for (j = 0; j < b->nendpoints; j++) {
			struct decide_step st;

			scan_endpoint(
			    s, b, &b->endpoints[j], c, d, &cr, &cr_done, &st);
			if (trace)
				trace(&st, arg);
		}
	}
}

static void
dest_text(const struct decide_dest *d, char *buf, size_t len)
{
	if (d->host->kind == HOSTNAME_IPV6)
		snprintf(buf, len, "[%s]:%u", d->host->name, d->port);
	else
		snprintf(buf, len, "%s:%u", d->host->name, d->port);
}

static void
ports_text(const struct policy_endpoint *e, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < e->nports && off < len; i++) {
		int n;

		if (e->ports[i].lo == e->ports[i].hi)
			n = snprintf(buf + off, len - off, "%s%u",
			    i ? ", " : "", e->ports[i].lo);
		else
			n = snprintf(buf + off, len - off, "%s%u-%u",
			    i ? ", " : "", e->ports[i].lo, e->ports[i].hi);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static const char *
exe_text(const struct decide_caller *c)
{
	return c->exe ? c->exe : "(unknown binary)";
}

static void
explain_deny(const struct policy *p, const struct decide_caller *c,
    const struct decide_dest *d, const struct scan *s, struct decision *out)
{
	char dst[HOSTNAME_MAX + 16], ports[128];
	const char *file = p ? p->file : "-";
	const char *exe = exe_text(c);
	const char *interp_note = c->exe && lint_is_interpreter(c->exe) ?
	    " (an interpreter: every script it runs gets this access)" :
	    "";
	char *r = out->reason_text, *h = out->hint;
	size_t rl = sizeof(out->reason_text), hl = sizeof(out->hint);

	dest_text(d, dst, sizeof(dst));
	switch (out->reason) {
	case REASON_EXPLICIT_DENY:
		snprintf(r, rl, "policy '%s' denies %s for %s", s->db->key, dst,
		    exe);
		snprintf(h, hl,
		    "a deny block wins over every allow: remove or narrow policy '%s' (%s:%d) if this should pass",
		    s->db->key, file, s->de->line);
		break;
	case REASON_BINARY_SYMLINK: {
		const struct policy_binary *b = s->miss.bin;

		if (b->real && c->exe && strcmp(b->real, c->exe) == 0)
			snprintf(r, rl,
			    "policy '%s' lists %s, which is a symlink to %s (the executable that runs); the policy does not list %s",
			    s->mb->key, b->path, c->exe, c->exe);
		else
			snprintf(r, rl,
			    "%s was invoked as %s, which is a symlink to %s; policy '%s' lists %s",
			    exe, c->invoked_as, exe, s->mb->key, b->path);
		snprintf(h, hl,
		    "put the real path in the policy: write '- path: %s' instead of '%s' in policy '%s' (%s:%d)",
		    exe, b->path, s->mb->key, file, b->line);
		break;
	}
	case REASON_BINARY_IS_SCRIPT:
		snprintf(r, rl,
		    "policy '%s' lists %s, a script run by %s; the interpreter makes the connection",
		    s->mb->key, s->miss.bin->path, exe);
		snprintf(h, hl,
		    "list the interpreter: add '- path: %s' to policy '%s' (%s:%d); note that this allows every script it runs",
		    exe, s->mb->key, file, s->miss.bin->line);
		break;
	case REASON_BINARY_HASH_MISMATCH:
		snprintf(r, rl,
		    "the SHA-256 of %s differs from the one pinned in policy '%s'",
		    exe, s->mb->key);
		snprintf(h, hl,
		    "the executable changed on disk; if that is expected, update sha256 at %s:%d (sha256sum %s)",
		    file, s->miss.bin->line, exe);
		break;
	case REASON_BINARY_HASH_UNAVAILABLE:
		snprintf(r, rl,
		    "policy '%s' pins the SHA-256 of %s but it could not be computed",
		    s->mb->key, exe);
		snprintf(h, hl,
		    "check that egressd can read %s (it hashes the file the process runs)",
		    exe);
		break;
	case REASON_CLIENT_NOT_ALLOWED:
		snprintf(r, rl,
		    "policy '%s' allows %s, but not from this source address",
		    s->mb->key, dst);
		snprintf(h, hl,
		    "add the source address to 'clients' of policy '%s' (%s:%d)",
		    s->mb->key, file, s->mb->line);
		break;
	case REASON_BINARY_NOT_ALLOWED:
		snprintf(r, rl, "policy '%s' allows %s, but not for %s",
		    s->mb->key, dst, exe);
		if (c->invoked_as)
			snprintf(h, hl,
			    "add '- path: %s' to the binaries of policy '%s' (%s:%d)%s; it was invoked as %s, a symlink: the policy must name the real path",
			    exe, s->mb->key, file, s->mb->line, interp_note,
			    c->invoked_as);
		else
			snprintf(h, hl,
			    "add '- path: %s' to the binaries of policy '%s' (%s:%d)%s",
			    exe, s->mb->key, file, s->mb->line, interp_note);
		break;
	case REASON_RAW_TCP_NOT_ALLOWED:
		snprintf(r, rl,
		    "the connection to %s carried neither TLS nor HTTP (named by %s only), and policy '%s' allows it only for TLS or HTTP",
		    dst,
		    d->source == DECIDE_SRC_DNS ? "the sandbox's DNS lookup" :
		                                  "its address",
		    s->rb->key);
		snprintf(h, hl,
		    "to allow raw TCP (e.g. ssh), add 'protocol: tcp' to the endpoint at %s:%d",
		    file, s->re->line);
		break;
	case REASON_PORT_NOT_ALLOWED:
		ports_text(s->pe, ports, sizeof(ports));
		snprintf(r, rl, "policy '%s' allows %s only on port %s, not %u",
		    s->pb->key, d->host->name, ports, d->port);
		snprintf(h, hl,
		    "add port %u to the endpoint at %s:%d (e.g. 'ports: [%s, %u]')",
		    d->port, file, s->pe->line, ports, d->port);
		break;
	case REASON_IP_NOT_ALLOWED:
		snprintf(r, rl,
		    "%s is an IP address; host name rules never match IP literals and no IP rule covers it",
		    dst);
		snprintf(h, hl,
		    "connect by host name, or add '- { host: %s, port: %u }' to a policy listing %s",
		    d->host->name, d->port, exe);
		break;
	case REASON_NO_MATCHING_POLICY:
		snprintf(r, rl, "no policy allows %s", dst);
		if (c->exe)
			snprintf(h, hl,
			    "to allow it, add '- { host: %s, port: %u }' to the endpoints of a policy whose binaries include %s%s",
			    d->host->name, d->port, exe, interp_note);
		else
			snprintf(h, hl,
			    "to allow it, add '- { host: %s, port: %u }' to the endpoints of a policy for the calling binary",
			    d->host->name, d->port);
		break;
	case REASON_IDENTITY_NO_OWNER:
		snprintf(r, rl, "%s", reason_text(out->reason));
		snprintf(h, hl,
		    "the caller exited (or handed the socket on and closed it) before it could be identified; if a live program keeps getting this, see docs/debugging.md");
		break;
	case REASON_IDENTITY_AMBIGUOUS:
		snprintf(r, rl, "%s", reason_text(out->reason));
		snprintf(h, hl,
		    "processes running different executables hold this socket (it was passed between them), and egressd does not guess which one is calling: make the connection from the program that uses it");
		break;
	case REASON_IDENTITY_PID_REUSED:
		snprintf(r, rl, "%s", reason_text(out->reason));
		snprintf(h, hl,
		    "the caller exited and its pid was reused while egressd looked it up; retrying the connection is safe");
		break;
	default:
		/* identity and other daemon-side reasons */
		snprintf(r, rl, "%s", reason_text(out->reason));
		snprintf(h, hl,
		    "egressd must run as root with access to /proc and to sock_diag in the sandbox namespace; see docs/debugging.md for '%s'",
		    reason_code(out->reason));
		break;
	}
}

void
decide(const struct policy *p, const struct decide_caller *c,
    const struct decide_dest *d, enum decide_override override,
    struct decision *out)
{
	decide_traced(p, c, d, override, out, NULL, NULL);
}

void
decide_traced(const struct policy *p, const struct decide_caller *c,
    const struct decide_dest *d, enum decide_override override,
    struct decision *out,
    void (*trace)(const struct decide_step *st, void *arg), void *arg)
{
	struct scan s;
	char dst[HOSTNAME_MAX + 16];

	memset(out, 0, sizeof(*out));
	scan_policy(p, c, d, &s, trace, arg);
	out->overridden = override != DECIDE_MODE_POLICY;
	if (c->identity_err == REASON_ALLOWED && s.de == NULL && s.allowed) {
		out->verdict = VERDICT_ALLOW;
		out->reason = REASON_ALLOWED;
		out->block = s.ab;
		out->endpoint = s.ae;
		out->protocol = s.raw ? s.ae->protocol : PROTO_REST;
		out->access = s.raw ? ACCESS_FULL : s.access;
		out->l7_mode = s.l7_enforce ? ENFORCE_ENFORCE : ENFORCE_AUDIT;
		if (override == DECIDE_MODE_ENFORCE)
			out->l7_mode = ENFORCE_ENFORCE;
		else if (override == DECIDE_MODE_AUDIT)
			out->l7_mode = ENFORCE_AUDIT;
		out->mode = out->overridden ? out->l7_mode : s.ae->enforcement;
		dest_text(d, dst, sizeof(dst));
		snprintf(out->reason_text, sizeof(out->reason_text),
		    "policy '%s' allows %s for %s", s.ab->key, dst,
		    exe_text(c));
		return;
	}

	/* Denied: find the most specific reason. */
	if (c->identity_err != REASON_ALLOWED) {
		out->reason = c->identity_err;
		out->block = s.hb;
		out->endpoint = s.he;
	} else if (s.de) {
		out->reason = REASON_EXPLICIT_DENY;
		out->block = s.db;
		out->endpoint = s.de;
	} else if (s.me) {
		static const enum reason by_match[] = {
		    [CM_NO] = REASON_BINARY_NOT_ALLOWED,
		    [CM_CLIENT_NO] = REASON_CLIENT_NOT_ALLOWED,
		    [CM_SCRIPT] = REASON_BINARY_IS_SCRIPT,
		    [CM_SYMLINK] = REASON_BINARY_SYMLINK,
		    [CM_HASH_UNAVAILABLE] = REASON_BINARY_HASH_UNAVAILABLE,
		    [CM_HASH_MISMATCH] = REASON_BINARY_HASH_MISMATCH,
		    [CM_MATCH] = REASON_ALLOWED,
		};
		out->reason = by_match[s.miss.m];
		out->block = s.mb;
		out->endpoint = s.me;
	} else if (s.re) {
		out->reason = REASON_RAW_TCP_NOT_ALLOWED;
		out->block = s.rb;
		out->endpoint = s.re;
	} else if (s.pe) {
		out->reason = REASON_PORT_NOT_ALLOWED;
		out->block = s.pb;
		out->endpoint = s.pe;
	} else if (d->host->kind != HOSTNAME_NAME) {
		out->reason = REASON_IP_NOT_ALLOWED;
	} else {
		out->reason = REASON_NO_MATCHING_POLICY;
	}

	/* Which mode applies to the denial: the daemon override; else the
	 * deny block's endpoint; else audit only when every endpoint for this
	 * host and port says audit; else the default, enforce. */
	if (override == DECIDE_MODE_ENFORCE)
		out->mode = ENFORCE_ENFORCE;
	else if (override == DECIDE_MODE_AUDIT)
		out->mode = ENFORCE_AUDIT;
	else if (out->reason == REASON_EXPLICIT_DENY)
		out->mode = s.de->enforcement;
	else if (s.nhostport > 0 && !s.hostport_enforce)
		out->mode = ENFORCE_AUDIT;
	else
		out->mode = ENFORCE_ENFORCE;
	out->verdict =
	    out->mode == ENFORCE_AUDIT ? VERDICT_AUDIT : VERDICT_DENY;
	explain_deny(p, c, d, &s, out);
}

const char *
verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return "allowed";
	case VERDICT_DENY:
		return "denied";
	case VERDICT_AUDIT:
		return "would_deny";
	}
	return "denied";
}

const char *
verdict_action(enum verdict v)
{
	return v == VERDICT_DENY ? "Denied" : "Allowed";
}

bool
decide_name_known(const struct policy *p, const struct hostname *h,
    struct cidr *allowed, size_t max, size_t *nallowed)
{
	bool known = false;
	size_t i, j, k;

	*nallowed = 0;
	if (p == NULL || h->kind != HOSTNAME_NAME)
		return false;
	for (i = 0; i < p->nblocks; i++) {
		const struct policy_block *b = &p->blocks[i];

		if (b->deny)
			continue;
		for (j = 0; j < b->nendpoints; j++) {
			const struct policy_endpoint *e = &b->endpoints[j];

			if (!host_pattern_match(&e->host, h))
				continue;
			known = true;
			for (k = 0; k < e->nallowed_ips && *nallowed < max; k++)
				allowed[(*nallowed)++] = e->allowed_ips[k];
		}
	}
	return known;
}

struct allowing {
	const struct policy_endpoint **out;
	size_t n, max;
};

static void
collect_allowing(const struct decide_step *st, void *arg)
{
	struct allowing *a = arg;

	if (st->allows) {
		if (a->n < a->max)
			a->out[a->n] = st->endpoint;
		a->n++;
	}
}

size_t
decide_allowing(const struct policy *p, const struct decide_caller *caller,
    const struct decide_dest *dest, const struct policy_endpoint **out,
    size_t max)
{
	struct allowing a = {out, 0, max};
	struct decision d;

	decide_traced(
	    p, caller, dest, DECIDE_MODE_POLICY, &d, collect_allowing, &a);
	return a.n < max ? a.n : max;
}
