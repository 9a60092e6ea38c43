/* SPDX-License-Identifier: ISC */
/*
 * `egressctl explain`. Owns the question's options, the trace table and the
 * JSON answer format of docs/control.md; leaves the decision to
 * policies/decide.c (offline) or to the daemon, which runs the same code.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "ctl_client.h"
#include "ctl_explain.h"
#include "ctl_text.h"
#include "json.h"
#include "log.h"
#include "policy.h"
#include "strbuf.h"
#include "xalloc.h"

#define CTL_EXPLAIN_NODES 65536

void
ctl_explain_free(struct ctl_explain *x)
{
	size_t i;

	free(x->decision);
	free(x->reason);
	free(x->mode);
	free(x->policy);
	free(x->endpoint);
	free(x->reason_text);
	free(x->hint);
	free(x->protocol);
	free(x->access);
	free(x->file);
	free(x->root);
	free(x->daemon);
	for (i = 0; i < x->nsteps; i++) {
		free(x->steps[i].block);
		free(x->steps[i].endpoint);
		free(x->steps[i].caller);
		free(x->steps[i].result);
	}
	free(x->steps);
	memset(x, 0, sizeof(*x));
}

static struct ctl_explain_step *
step_new(struct ctl_explain *x)
{
	if (x->nsteps == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		struct ctl_explain_step *v =
		    realloc(x->steps, cap * sizeof(*v));

		if (v == NULL)
			fatal("out of memory");
		x->steps = v;
		x->cap = cap;
	}
	memset(&x->steps[x->nsteps], 0, sizeof(x->steps[0]));
	return &x->steps[x->nsteps++];
}

static void
trace_cb(const struct decide_step *st, void *arg)
{
	struct ctl_explain_step *s = step_new(arg);

	s->block = xstrdup(st->block->key);
	s->deny = st->block->deny;
	s->endpoint = xstrdup(st->endpoint->host_text);
	s->line = st->endpoint->line;
	s->host = st->host_match;
	s->port = st->port_match;
	s->caller = xstrdup(st->caller);
	s->result = xstrdup(st->result);
}

static enum decide_source
via_source(const char *via)
{
	if (via == NULL || strcmp(via, "connect") == 0)
		return DECIDE_SRC_CONNECT;
	if (strcmp(via, "http") == 0)
		return DECIDE_SRC_HTTP;
	if (strcmp(via, "sni") == 0)
		return DECIDE_SRC_SNI;
	if (strcmp(via, "dns") == 0)
		return DECIDE_SRC_DNS;
	return DECIDE_SRC_ADDR;
}

/*
 * SHA-256 of root/path, as egressd hashes the executable a process runs;
 * false when it cannot be read. A symlink is not followed: the kernel
 * reports real paths.
 */
static bool
hash_file(const char *root, const char *path, uint8_t out[32])
{
	char full[8192], buf[65536];
	EVP_MD_CTX *ctx;
	unsigned len = 0;
	ssize_t n = 0;
	bool ok;
	int fd;

	if (snprintf(full, sizeof(full), "%s%s",
	        root && strcmp(root, "/") != 0 ? root : "",
	        path) >= (int)sizeof(full))
		return false;
	if ((fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return false;
	if ((ctx = EVP_MD_CTX_new()) == NULL) {
		close(fd);
		return false;
	}
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
	while (ok && (n = read(fd, buf, sizeof(buf))) > 0)
		ok = EVP_DigestUpdate(ctx, buf, (size_t)n) == 1;
	ok = ok && n == 0 && EVP_DigestFinal_ex(ctx, out, &len) == 1 &&
	    len == 32;
	EVP_MD_CTX_free(ctx);
	close(fd);
	return ok;
}

static void
steps_clear(struct ctl_explain *x)
{
	size_t i;

	for (i = 0; i < x->nsteps; i++) {
		free(x->steps[i].block);
		free(x->steps[i].endpoint);
		free(x->steps[i].caller);
		free(x->steps[i].result);
	}
	x->nsteps = 0;
}

void
ctl_explain_offline(const struct policy *p, const struct ctl_explain_query *q,
    struct ctl_explain *x)
{
	struct decide_caller caller;
	struct decide_dest dest;
	struct decision d;
	struct hostname h;
	struct addr src;
	uint8_t digest[32];

	memset(x, 0, sizeof(*x));
	memset(&caller, 0, sizeof(caller));
	caller.exe = q->binary;
	caller.invoked_as = q->invoked_as;
	caller.identity_err = REASON_ALLOWED;
	if (q->source && addr_parse(q->source, strlen(q->source), &src))
		caller.src = &src;
	/* the caller validated the host */
	if (hostname_normalize(q->host, strlen(q->host), &h) != HOSTNAME_OK)
		memset(&h, 0, sizeof(h));
	dest.host = &h;
	dest.port = (uint16_t)q->port;
	dest.source = via_source(q->via);
	decide_traced(p, &caller, &dest, q->override, &d, trace_cb, x);
	if (d.reason == REASON_BINARY_HASH_UNAVAILABLE && q->binary &&
	    hash_file(p->root, q->binary, digest)) {
		/* as the daemon does once the digest is known: decide again */
		static const char hex[] = "0123456789abcdef";
		size_t i;

		for (i = 0; i < 32; i++) {
			x->sha256[2 * i] = hex[digest[i] >> 4];
			x->sha256[2 * i + 1] = hex[digest[i] & 15];
		}
		x->sha256[64] = '\0';
		caller.sha256 = digest;
		steps_clear(x);
		decide_traced(p, &caller, &dest, q->override, &d, trace_cb, x);
	}
	x->decision = xstrdup(verdict_name(d.verdict));
	x->reason = xstrdup(reason_code(d.reason));
	x->mode = xstrdup(policy_enforcement_name(d.mode));
	x->overridden = d.overridden;
	x->policy = xstrdup(d.block ? d.block->key : NULL);
	x->endpoint = xstrdup(d.endpoint ? d.endpoint->host_text : NULL);
	x->line = d.endpoint ? d.endpoint->line : 0;
	x->reason_text = xstrdup(d.reason_text);
	x->hint = xstrdup(d.hint[0] ? d.hint : NULL);
	if (d.verdict == VERDICT_ALLOW) {
		x->protocol = xstrdup(policy_protocol_name(d.protocol));
		x->access = xstrdup(policy_access_name(d.access));
	}
	x->file = xstrdup(p->file);
	x->root = xstrdup(p->root);
}

/* ------------------------------------------------------------------ */
/* The daemon's answer */

static char *
jstr(const struct json_doc *d, const struct json_node *o, const char *key)
{
	const struct json_node *n = json_get(d, o, key);
	size_t len;
	char *s;

	if (n == NULL || n->type != JSON_STRING)
		return NULL;
	len = json_string_len(d, n);
	if ((s = malloc(len + 1)) == NULL)
		fatal("out of memory");
	if (!json_cstr(d, n, s, len + 1)) {
		free(s);
		return NULL;
	}
	return s;
}

static int64_t
jint(const struct json_doc *d, const struct json_node *o, const char *key)
{
	int64_t v;

	return json_int(json_get(d, o, key), &v) ? v : 0;
}

static bool
jbool(const struct json_doc *d, const struct json_node *o, const char *key)
{
	bool v = false;

	json_bool(json_get(d, o, key), &v);
	return v;
}

bool
ctl_explain_from_json(const char *text, size_t len, struct ctl_explain *x,
    char *err, size_t errlen)
{
	struct json_node *nodes = malloc(CTL_EXPLAIN_NODES * sizeof(*nodes));
	const struct json_node *root, *t, *s;
	struct json_doc d;
	enum json_err r;
	char *msg;
	bool ok = false;

	memset(x, 0, sizeof(*x));
	if (nodes == NULL)
		fatal("out of memory");
	json_doc_init(&d, nodes, CTL_EXPLAIN_NODES);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	if ((r = json_parse(&d, text, len)) != JSON_OK ||
	    json_root(&d)->type != JSON_OBJECT) {
		snprintf(err, errlen,
		    "egressd's answer to 'explain' is not a JSON object (%s at byte %zu)",
		    r == JSON_OK ? "not an object" : json_strerror(r),
		    d.err_off);
		goto out;
	}
	root = json_root(&d);
	if ((msg = jstr(&d, root, "error")) != NULL) {
		struct strbuf sb;

		strbuf_init(&sb, 0);
		ctl_text_safe(&sb, msg);
		snprintf(err, errlen, "egressd refused 'explain': %s",
		    strbuf_str(&sb));
		strbuf_free(&sb);
		free(msg);
		goto out;
	}
	x->decision = jstr(&d, root, "decision");
	x->reason = jstr(&d, root, "reason");
	if (x->decision == NULL || x->reason == NULL) {
		snprintf(err, errlen,
		    "egressd's answer to 'explain' has no decision or reason");
		goto out;
	}
	x->mode = jstr(&d, root, "mode");
	x->overridden = jbool(&d, root, "overridden");
	x->policy = jstr(&d, root, "policy");
	x->endpoint = jstr(&d, root, "endpoint");
	x->line = jint(&d, root, "line");
	x->reason_text = jstr(&d, root, "reason_text");
	x->hint = jstr(&d, root, "hint");
	if (strcmp(x->decision, "allowed") == 0) {
		x->protocol = jstr(&d, root, "protocol");
		x->access = jstr(&d, root, "access");
	}
	x->generation = jint(&d, root, "generation");
	x->file = jstr(&d, root, "file");
	t = json_get(&d, root, "trace");
	for (s = t && t->type == JSON_ARRAY ? json_child(&d, t) : NULL; s;
	     s = json_next(&d, s)) {
		struct ctl_explain_step *st;
		char *action;

		if (s->type != JSON_OBJECT)
			continue;
		st = step_new(x);
		st->block = jstr(&d, s, "block");
		action = jstr(&d, s, "action");
		st->deny = action && strcmp(action, "deny") == 0;
		free(action);
		st->endpoint = jstr(&d, s, "endpoint");
		st->line = jint(&d, s, "line");
		st->host = jbool(&d, s, "host");
		st->port = jbool(&d, s, "port");
		st->caller = jstr(&d, s, "caller");
		st->result = jstr(&d, s, "result");
	}
	ok = true;
out:
	free(nodes);
	return ok;
}

void
ctl_explain_request(const struct ctl_explain_query *q, struct strbuf *out)
{
	strbuf_puts(out, "explain");
	if (q->binary) {
		strbuf_puts(out, " binary=");
		ctl_client_pct_encode(out, q->binary);
	}
	strbuf_puts(out, " host=");
	ctl_client_pct_encode(out, q->host);
	strbuf_printf(out, " port=%ld", q->port);
	if (q->via) {
		strbuf_puts(out, " via=");
		ctl_client_pct_encode(out, q->via);
	}
	if (q->invoked_as) {
		strbuf_puts(out, " invoked_as=");
		ctl_client_pct_encode(out, q->invoked_as);
	}
	if (q->source) {
		strbuf_puts(out, " source=");
		ctl_client_pct_encode(out, q->source);
	}
}

/* ------------------------------------------------------------------ */
/* Output */

static void
safe(struct strbuf *out, const char *s)
{
	ctl_text_safe(out, s);
}

static void
question(struct strbuf *out, const struct ctl_explain_query *q)
{
	safe(out, q->binary ? q->binary : "(any binary)");
	if (q->invoked_as) {
		strbuf_puts(out, " (invoked as ");
		safe(out, q->invoked_as);
		strbuf_putc(out, ')');
	}
	if (q->source) {
		strbuf_puts(out, " from ");
		safe(out, q->source);
	}
	strbuf_puts(out, strchr(q->host, ':') ? " -> [" : " -> ");
	safe(out, q->host);
	strbuf_printf(out, "%s:%ld (via %s)", strchr(q->host, ':') ? "]" : "",
	    q->port, q->via ? q->via : "connect");
}

static const char *
mode_why(const struct ctl_explain *x)
{
	bool audit = x->mode && strcmp(x->mode, "audit") == 0;
	size_t i;

	if (x->overridden)
		return audit ? "daemon override: --audit-all" :
		               "daemon override: --enforce-all";
	if (strcmp(x->decision, "allowed") == 0)
		return "the allowing endpoint's enforcement";
	if (strcmp(x->reason, "explicit_deny") == 0)
		return "the deny block's endpoint";
	if (audit)
		return "every endpoint for this host and port says enforcement: audit";
	for (i = 0; i < x->nsteps; i++)
		if (!x->steps[i].deny && x->steps[i].host && x->steps[i].port)
			return "an endpoint for this host and port enforces";
	return "default deny: no endpoint for this host and port";
}

enum {
	TC_BLOCK,
	TC_ACTION,
	TC_ENDPOINT,
	TC_LINE,
	TC_HOST,
	TC_PORT,
	TC_CALLER,
	TC_RESULT,
	TC_N
};

static void
trace_cell(struct strbuf *sb, const struct ctl_explain_step *s, int col)
{
	switch (col) {
	case TC_BLOCK:
		safe(sb, s->block);
		break;
	case TC_ACTION:
		strbuf_puts(sb, s->deny ? "deny" : "allow");
		break;
	case TC_ENDPOINT:
		safe(sb, s->endpoint);
		break;
	case TC_LINE:
		strbuf_printf(sb, "%lld", (long long)s->line);
		break;
	case TC_HOST:
		strbuf_puts(sb, s->host ? "yes" : "no");
		break;
	case TC_PORT:
		strbuf_puts(sb, !s->host ? "-" : s->port ? "yes" : "no");
		break;
	case TC_CALLER:
		safe(sb, s->caller);
		break;
	case TC_RESULT:
		safe(sb, s->result);
		break;
	}
}

static void
trace_table(struct strbuf *out, const struct ctl_explain *x)
{
	static const char *const heads[TC_N] = {"BLOCK", "ACTION", "ENDPOINT",
	    "LINE", "HOST", "PORT", "CALLER", "RESULT"};
	size_t w[TC_N], i;
	struct strbuf c;
	int col;

	if (x->nsteps == 0) {
		strbuf_puts(out, "trace: the policy has no blocks\n");
		return;
	}
	strbuf_init(&c, 0);
	for (col = 0; col < TC_N; col++)
		w[col] = strlen(heads[col]);
	for (i = 0; i < x->nsteps; i++)
		for (col = 0; col < TC_N; col++) {
			strbuf_reset(&c);
			trace_cell(&c, &x->steps[i], col);
			if (c.len > w[col])
				w[col] = c.len;
		}
	strbuf_puts(
	    out, "trace (every endpoint of every block, in policy order):\n");
	strbuf_puts(out, " ");
	for (col = 0; col < TC_N; col++)
		if (col == TC_RESULT)
			strbuf_printf(out, " %s\n", heads[col]);
		else
			strbuf_printf(out, " %-*s", (int)w[col], heads[col]);
	for (i = 0; i < x->nsteps; i++) {
		bool hit = x->steps[i].host && x->steps[i].port;

		/* '>' marks the endpoints that matched host and port */
		strbuf_puts(out, hit ? ">" : " ");
		for (col = 0; col < TC_N; col++) {
			strbuf_reset(&c);
			trace_cell(&c, &x->steps[i], col);
			if (col == TC_RESULT)
				strbuf_printf(out, " %s\n", strbuf_str(&c));
			else if (col == TC_LINE)
				strbuf_printf(
				    out, " %*s", (int)w[col], strbuf_str(&c));
			else
				strbuf_printf(
				    out, " %-*s", (int)w[col], strbuf_str(&c));
		}
	}
	strbuf_free(&c);
}

void
ctl_explain_format_text(const struct ctl_explain_query *q,
    const struct ctl_explain *x, struct strbuf *out)
{
	strbuf_puts(out, "question: ");
	question(out, q);
	strbuf_puts(out, "\npolicy:   ");
	safe(out, x->file ? x->file : "(unknown)");
	if (x->daemon) {
		strbuf_printf(out, ", generation %lld, as egressd at ",
		    (long long)x->generation);
		safe(out, x->daemon);
		strbuf_puts(out, " decides it\n");
	} else {
		strbuf_puts(out, ", offline");
		if (x->root && strcmp(x->root, "/") != 0) {
			strbuf_puts(out, ", binaries under ");
			safe(out, x->root);
		}
		if (x->load_warnings)
			strbuf_printf(out,
			    " (%zu load warning%s: egressd -t -p FILE shows them)",
			    x->load_warnings, x->load_warnings == 1 ? "" : "s");
		strbuf_putc(out, '\n');
	}
	if (x->sha256[0])
		strbuf_printf(out,
		    "sha256:   %s (of the binary, as egressd "
		    "computes it)\n",
		    x->sha256);
	strbuf_putc(out, '\n');
	trace_table(out, x);
	strbuf_puts(out, "\ndecision: ");
	safe(out, x->decision);
	strbuf_puts(out, "\nreason:   ");
	safe(out, x->reason);
	if (x->reason_text) {
		strbuf_puts(out, ": ");
		safe(out, x->reason_text);
	}
	strbuf_puts(out, "\nmode:     ");
	safe(out, x->mode);
	strbuf_printf(out, " (%s)\n", mode_why(x));
	strbuf_puts(out, "policy:   ");
	safe(out, x->policy);
	strbuf_putc(out, '\n');
	if (x->endpoint) {
		strbuf_puts(out, "endpoint: ");
		safe(out, x->endpoint);
		strbuf_puts(out, " (");
		safe(out, x->file ? x->file : "-");
		strbuf_printf(out, ":%lld)\n", (long long)x->line);
	}
	if (x->protocol && strcmp(x->protocol, "rest") == 0) {
		strbuf_puts(out, "access:   ");
		safe(out, x->access);
		strbuf_puts(out, " (HTTP requests inspected inside TLS)\n");
	} else if (x->protocol && strcmp(x->protocol, "tcp") == 0) {
		strbuf_puts(out, "access:   raw TCP, not inspected\n");
	} else if (x->protocol) {
		strbuf_puts(out, "access:   not inspected\n");
	}
	if (x->hint) {
		strbuf_puts(out, "hint:     ");
		safe(out, x->hint);
		strbuf_putc(out, '\n');
	}
}

static void
key_str(struct strbuf *out, bool *first, const char *k, const char *v)
{
	strbuf_json_key(out, first, k);
	strbuf_json_str(out, v);
}

void
ctl_explain_format_json(const struct ctl_explain_query *q,
    const struct ctl_explain *x, struct strbuf *out)
{
	bool f = true, g;
	size_t i;

	strbuf_puts(out, "{\"query\":{");
	g = true;
	key_str(out, &g, "binary", q->binary);
	key_str(out, &g, "host", q->host);
	strbuf_printf(out, ",\"port\":%ld", q->port);
	key_str(out, &g, "via", q->via ? q->via : "connect");
	key_str(out, &g, "invoked_as", q->invoked_as);
	key_str(out, &g, "source", q->source);
	strbuf_puts(out, "},\n");
	f = true;
	strbuf_putc(out, ' ');
	key_str(out, &f, "decision", x->decision);
	key_str(out, &f, "reason", x->reason);
	key_str(out, &f, "mode", x->mode);
	strbuf_printf(
	    out, ",\"overridden\":%s", x->overridden ? "true" : "false");
	key_str(out, &f, "policy", x->policy);
	key_str(out, &f, "endpoint", x->endpoint);
	strbuf_json_key(out, &f, "line");
	if (x->endpoint)
		strbuf_printf(out, "%lld", (long long)x->line);
	else
		strbuf_puts(out, "null");
	strbuf_puts(out, ",\n ");
	f = true;
	key_str(out, &f, "reason_text", x->reason_text);
	strbuf_puts(out, ",\n ");
	f = true;
	key_str(out, &f, "hint", x->hint);
	strbuf_puts(out, ",\n ");
	f = true;
	key_str(out, &f, "protocol", x->protocol);
	key_str(out, &f, "access", x->access);
	strbuf_json_key(out, &f, "generation");
	if (x->daemon)
		strbuf_printf(out, "%lld", (long long)x->generation);
	else
		strbuf_puts(out, "null");
	key_str(out, &f, "file", x->file);
	key_str(out, &f, "daemon", x->daemon);
	key_str(out, &f, "sha256", x->sha256[0] ? x->sha256 : NULL);
	strbuf_puts(out, ",\n \"trace\":[");
	for (i = 0; i < x->nsteps; i++) {
		const struct ctl_explain_step *s = &x->steps[i];

		strbuf_puts(out, i ? ",\n  {" : "\n  {");
		g = true;
		key_str(out, &g, "block", s->block);
		key_str(out, &g, "action", s->deny ? "deny" : "allow");
		key_str(out, &g, "endpoint", s->endpoint);
		strbuf_printf(out, ",\"line\":%lld,\"host\":%s,\"port\":%s",
		    (long long)s->line, s->host ? "true" : "false",
		    s->port ? "true" : "false");
		key_str(out, &g, "caller", s->caller);
		key_str(out, &g, "result", s->result);
		strbuf_putc(out, '}');
	}
	strbuf_puts(out, "]}\n");
}

/* ------------------------------------------------------------------ */
/* The command */

static void
explain_usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl explain --binary PATH --host HOST --port N\n"
	    "           [--policy FILE] [--root DIR] [--invoked-as PATH]\n"
	    "           [--source ADDR] [--via connect|sni|http|dns|addr]\n"
	    "           [--enforce-all | --audit-all] [--json] [--control PATH]\n"
	    "\n"
	    "What egressd would decide for this binary, host and port, and why:\n"
	    "every endpoint of every block with what matched, the mode and whether\n"
	    "the daemon override decided it, the reason code and the hint.\n"
	    "\n"
	    "  --binary PATH      the kernel-resolved executable (/proc/PID/exe)\n"
	    "  --host HOST        destination name or IP address\n"
	    "  --port N           destination port\n"
	    "  --policy FILE      decide offline from FILE (the daemon's loader and\n"
	    "                     decision code); without it, ask the running egressd\n"
	    "  --root DIR         resolve the policy's binaries under DIR (offline)\n"
	    "  --invoked-as PATH  argv[0] when it is a symlink to the binary\n"
	    "  --source ADDR      the client's address (gateway policies)\n"
	    "  --via KIND         how egressd learned the name: connect (default),\n"
	    "                     sni, http, dns or addr (dns and addr: raw TCP)\n"
	    "  --enforce-all      as egressd --enforce-all (offline)\n"
	    "  --audit-all        as egressd --audit-all (offline)\n"
	    "  --json             one JSON object (docs/control.md) instead of text\n"
	    "  --control PATH     egressd's control socket\n"
	    "\n"
	    "Exit status: 0 allowed, 1 denied or would deny, 2 usage or errors.\n");
}

int
ctl_explain_main(int argc, char **argv)
{
	enum {
		O_BIN = 256,
		O_HOST,
		O_PORT,
		O_POLICY,
		O_ROOT,
		O_INVOKED,
		O_SOURCE,
		O_VIA,
		O_ENFORCE,
		O_AUDIT,
		O_JSON,
		O_CONTROL,
		O_HELP
	};
	static const struct option longopts[] = {
	    {"binary", required_argument, NULL, O_BIN},
	    {"host", required_argument, NULL, O_HOST},
	    {"port", required_argument, NULL, O_PORT},
	    {"policy", required_argument, NULL, O_POLICY},
	    {"root", required_argument, NULL, O_ROOT},
	    {"invoked-as", required_argument, NULL, O_INVOKED},
	    {"source", required_argument, NULL, O_SOURCE},
	    {"via", required_argument, NULL, O_VIA},
	    {"enforce-all", no_argument, NULL, O_ENFORCE},
	    {"audit-all", no_argument, NULL, O_AUDIT},
	    {"json", no_argument, NULL, O_JSON},
	    {"control", required_argument, NULL, O_CONTROL},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	static const char *const vias[] = {
	    "connect", "sni", "http", "dns", "addr", NULL};
	struct ctl_explain_query q;
	struct ctl_explain x;
	const char *file = NULL, *root = NULL, *control = NULL;
	struct policy_load_opts opts;
	struct diags diags;
	struct policy *p;
	struct strbuf sb;
	struct hostname h;
	enum hostname_err herr;
	struct addr a;
	bool json = false, ov_enf = false, ov_aud = false;
	char err[1024], *end;
	const char *const *v;
	int ch, rc;

	memset(&q, 0, sizeof(q));
	memset(&x, 0, sizeof(x));
	q.port = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_BIN:
			q.binary = optarg;
			break;
		case O_HOST:
			q.host = optarg;
			break;
		case O_PORT:
			q.port = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end ||
			    q.port < 1 || q.port > 65535) {
				fprintf(stderr,
				    "egressctl explain: --port must be 1-65535, not '%s'\n",
				    optarg);
				return 2;
			}
			break;
		case O_POLICY:
			file = optarg;
			break;
		case O_ROOT:
			root = optarg;
			break;
		case O_INVOKED:
			q.invoked_as = optarg;
			break;
		case O_SOURCE:
			q.source = optarg;
			break;
		case O_VIA:
			for (v = vias; *v && strcmp(*v, optarg) != 0; v++)
				;
			if (*v == NULL) {
				fprintf(stderr,
				    "egressctl explain: --via must be connect, sni, http, dns or addr\n");
				return 2;
			}
			q.via = *v;
			break;
		case O_ENFORCE:
			ov_enf = true;
			q.override = DECIDE_MODE_ENFORCE;
			break;
		case O_AUDIT:
			ov_aud = true;
			q.override = DECIDE_MODE_AUDIT;
			break;
		case O_JSON:
			json = true;
			break;
		case O_CONTROL:
			control = optarg;
			break;
		case 'h':
		case O_HELP:
			explain_usage(stdout);
			return 0;
		default:
			explain_usage(stderr);
			return 2;
		}
	}
	if (ctl_text_extra_args("explain", argc, argv, explain_usage))
		return 2;
	if ((q.binary == NULL && q.source == NULL) || q.host == NULL ||
	    q.port < 0) {
		fprintf(stderr,
		    "egressctl explain: --binary (or --source), --host and --port are required\n");
		explain_usage(stderr);
		return 2;
	}
	if (q.binary && q.binary[0] != '/') {
		fprintf(stderr,
		    "egressctl explain: --binary must be an absolute path (the executable the kernel reports)\n");
		return 2;
	}
	if ((herr = hostname_normalize(q.host, strlen(q.host), &h)) !=
	    HOSTNAME_OK) {
		fprintf(stderr, "egressctl explain: invalid host '%s': %s\n",
		    q.host, hostname_strerror(herr));
		return 2;
	}
	q.host = h.name; /* as egressd sees it: lowercase, no brackets */
	if (q.source && !addr_parse(q.source, strlen(q.source), &a)) {
		fprintf(stderr,
		    "egressctl explain: --source must be an IP address, not '%s'\n",
		    q.source);
		return 2;
	}
	if (ov_enf && ov_aud) {
		fprintf(stderr,
		    "egressctl explain: --enforce-all and --audit-all contradict each other\n");
		return 2;
	}
	if (file == NULL && (ov_enf || ov_aud || root)) {
		fprintf(stderr,
		    "egressctl explain: --%s needs --policy FILE (the running egressd uses its own %s)\n",
		    root       ? "root" :
		        ov_enf ? "enforce-all" :
		                 "audit-all",
		    root ? "root" : "mode");
		return 2;
	}
	if (file) {
		memset(&opts, 0, sizeof(opts));
		opts.root = root;
		diags_init(&diags, file);
		if ((p = policy_load_file(file, &opts, &diags)) == NULL) {
			strbuf_init(&sb, 0);
			diags_sort(&diags);
			diags_format(&diags, &sb);
			fprintf(stderr,
			    "%segressctl explain: cannot load the policy %s (egressd -t -p %s shows why)\n",
			    strbuf_str(&sb), file, file);
			strbuf_free(&sb);
			diags_free(&diags);
			return 2;
		}
		ctl_explain_offline(p, &q, &x);
		x.load_warnings = diags.nwarnings;
		diags_free(&diags);
		policy_unref(p);
	} else {
		const char *path = ctl_client_path(control);
		struct strbuf req, reply;
		bool ok;

		strbuf_init(&req, CTL_CLIENT_REQUEST_MAX);
		strbuf_init(&reply, 0);
		ctl_explain_request(&q, &req);
		ok = !req.truncated &&
		    ctl_client_call(path,
		        ", or decide offline with --policy FILE",
		        strbuf_str(&req), &reply, err, sizeof(err)) &&
		    ctl_explain_from_json(
		        reply.s, reply.len, &x, err, sizeof(err));
		if (req.truncated)
			snprintf(err, sizeof(err),
			    "the question is too long for the control socket");
		strbuf_free(&req);
		strbuf_free(&reply);
		if (!ok) {
			fprintf(stderr, "egressctl: %s\n", err);
			ctl_explain_free(&x);
			return 2;
		}
		x.daemon = xstrdup(path);
	}
	strbuf_init(&sb, 0);
	if (json)
		ctl_explain_format_json(&q, &x, &sb);
	else
		ctl_explain_format_text(&q, &x, &sb);
	fputs(strbuf_str(&sb), stdout);
	strbuf_free(&sb);
	rc = strcmp(x.decision, "allowed") == 0 ? 0 : 1;
	ctl_explain_free(&x);
	return rc;
}
