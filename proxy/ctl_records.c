/* SPDX-License-Identifier: ISC */
/*
 * Reading decision records back and aggregating denials. Owns the mapping
 * from the JSON lines of docs/logging.md to struct ctl_record, the grouping
 * by binary, host, port and reason, and `egressctl denials`; leaves the JSON
 * grammar to lib/json.c and the socket to ctl_client.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "ctl_client.h"
#include "ctl_records.h"
#include "ctl_text.h"
#include "json.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

#define CTL_RECORD_NODES 1024

const char *
ctl_decision_name(enum ctl_decision d)
{
	switch (d) {
	case CTL_DEC_ALLOWED:
		return "allowed";
	case CTL_DEC_DENIED:
		return "denied";
	case CTL_DEC_WOULD_DENY:
		return "would_deny";
	case CTL_DEC_CLOSED:
		return "closed";
	}
	return "denied";
}

/* A decoded copy of string member path, or NULL (absent, not a string,
 * holding a NUL, or longer than CTL_RECORDS_STR_MAX). */
static char *
get_str(
    const struct json_doc *d, const struct json_node *root, const char *path)
{
	const struct json_node *n = json_getp(d, root, path);
	size_t len;
	char *s;

	if (n == NULL || n->type != JSON_STRING)
		return NULL;
	len = json_string_len(d, n);
	if (len > CTL_RECORDS_STR_MAX)
		return NULL;
	s = xcalloc(1, len + 1);
	if (!json_cstr(d, n, s, len + 1)) {
		free(s);
		return NULL;
	}
	return s;
}

static int64_t
get_int(
    const struct json_doc *d, const struct json_node *root, const char *path)
{
	int64_t v;

	return json_int(json_getp(d, root, path), &v) ? v : 0;
}

void
ctl_record_free(struct ctl_record *r)
{
	free(r->reason);
	free(r->mode);
	free(r->exe);
	free(r->cmdline);
	free(r->invoked_as);
	free(r->host);
	free(r->dst_ip);
	free(r->src_ip);
	free(r->ingress);
	free(r->policy);
	free(r->endpoint);
	free(r->reason_text);
	free(r->hint);
	free(r->detail);
	free(r->method);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

enum ctl_record_err
ctl_record_parse(const char *line, size_t len, struct ctl_record *r)
{
	static const struct {
		const char *name;
		enum ctl_decision d;
	} decisions[] = {{"allowed", CTL_DEC_ALLOWED},
	    {"denied", CTL_DEC_DENIED}, {"would_deny", CTL_DEC_WOULD_DENY},
	    {"closed", CTL_DEC_CLOSED}};
	struct json_node *nodes = malloc(CTL_RECORD_NODES * sizeof(*nodes));
	const struct json_node *root;
	struct json_doc d;
	enum ctl_record_err ret = CTL_RECORD_NOT_RECORD;
	char *decision;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (nodes == NULL)
		fatal("out of memory");
	json_doc_init(&d, nodes, CTL_RECORD_NODES);
	if (json_parse(&d, line, len) != JSON_OK ||
	    json_root(&d)->type != JSON_OBJECT) {
		free(nodes);
		return CTL_RECORD_NOT_JSON;
	}
	root = json_root(&d);
	if ((decision = get_str(&d, root, "egressd.decision")) == NULL ||
	    (r->reason = get_str(&d, root, "egressd.reason")) == NULL)
		goto out;
	for (i = 0; i < sizeof(decisions) / sizeof(decisions[0]); i++)
		if (strcmp(decision, decisions[i].name) == 0)
			break;
	if (i == sizeof(decisions) / sizeof(decisions[0]))
		goto out;
	r->decision = decisions[i].d;
	r->why = reason_from_code(r->reason);
	r->time_ms = get_int(&d, root, "time");
	r->class_uid = get_int(&d, root, "class_uid");
	r->activity_id = get_int(&d, root, "activity_id");
	r->mode = get_str(&d, root, "egressd.mode");
	json_bool(json_getp(&d, root, "egressd.mode_override"), &r->overridden);
	r->exe = get_str(&d, root, "actor.process.file.path");
	r->cmdline = get_str(&d, root, "actor.process.cmd_line");
	r->pid = get_int(&d, root, "actor.process.pid");
	r->invoked_as = get_str(&d, root, "egressd.invoked_as");
	r->host = get_str(&d, root, "dst_endpoint.hostname");
	r->dst_ip = get_str(&d, root, "dst_endpoint.ip");
	r->port = get_int(&d, root, "dst_endpoint.port");
	r->src_ip = get_str(&d, root, "src_endpoint.ip");
	r->ingress = get_str(&d, root, "egressd.ingress");
	r->policy = get_str(&d, root, "egressd.policy");
	r->endpoint = get_str(&d, root, "egressd.endpoint");
	r->reason_text = get_str(&d, root, "egressd.reason_text");
	r->hint = get_str(&d, root, "egressd.hint");
	r->detail = get_str(&d, root, "egressd.detail");
	r->method = get_str(&d, root, "http_request.http_method");
	r->path = get_str(&d, root, "http_request.url.path");
	r->bytes_out = get_int(&d, root, "traffic.bytes_out");
	r->bytes_in = get_int(&d, root, "traffic.bytes_in");
	r->duration_ms = get_int(&d, root, "duration");
	ret = CTL_RECORD_OK;
out:
	free(decision);
	free(nodes);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Aggregation */

#define NONE ((size_t)-1)

void
ctl_denials_init(struct ctl_denials *dn)
{
	memset(dn, 0, sizeof(*dn));
}

void
ctl_denials_free(struct ctl_denials *dn)
{
	size_t i, k;

	for (i = 0; i < dn->n; i++) {
		struct ctl_denial *g = &dn->v[i];

		free(g->binary);
		free(g->host);
		free(g->reason);
		free(g->hint);
		for (k = 0; k < g->nsamples; k++)
			free(g->samples[k]);
		for (k = 0; k < g->nips; k++)
			free(g->ips[k]);
	}
	free(dn->v);
	free(dn->buckets);
	memset(dn, 0, sizeof(*dn));
}

static uint64_t
hash_str(uint64_t h, const char *s)
{
	/* FNV-1a; NULL and "" differ by the marker byte */
	h ^= s ? 1 : 2;
	h *= 1099511628211ull;
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t
group_hash(const char *bin, const char *host, int64_t port, const char *why)
{
	uint64_t h = 14695981039346656037ull;

	h = hash_str(h, bin);
	h = hash_str(h, host);
	h ^= (uint64_t)port;
	h *= 1099511628211ull;
	return hash_str(h, why);
}

static bool
str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static void
rehash(struct ctl_denials *dn)
{
	size_t i, nb = dn->nbuckets ? dn->nbuckets * 2 : 64;

	free(dn->buckets);
	dn->buckets = xcalloc(nb, sizeof(*dn->buckets));
	dn->nbuckets = nb;
	for (i = 0; i < nb; i++)
		dn->buckets[i] = NONE;
	for (i = 0; i < dn->n; i++) {
		struct ctl_denial *g = &dn->v[i];
		size_t b =
		    group_hash(g->binary, g->host, g->port, g->reason) % nb;

		g->hash_next = dn->buckets[b];
		dn->buckets[b] = i;
	}
}

static struct ctl_denial *
group_get(struct ctl_denials *dn, const struct ctl_record *r)
{
	struct ctl_denial *g;
	size_t b, i;

	if (dn->n + 1 > dn->nbuckets / 2)
		rehash(dn);
	b = group_hash(r->exe, r->host, r->port, r->reason) % dn->nbuckets;
	for (i = dn->buckets[b]; i != NONE; i = dn->v[i].hash_next) {
		g = &dn->v[i];
		if (str_eq(g->binary, r->exe) && str_eq(g->host, r->host) &&
		    g->port == r->port && str_eq(g->reason, r->reason))
			return g;
	}
	if (dn->n == dn->cap) {
		size_t cap = dn->cap ? dn->cap * 2 : 32;
		struct ctl_denial *v = realloc(dn->v, cap * sizeof(*v));

		if (v == NULL)
			fatal("out of memory");
		dn->v = v;
		dn->cap = cap;
	}
	g = &dn->v[dn->n];
	memset(g, 0, sizeof(*g));
	g->binary = xstrdup(r->exe);
	g->host = xstrdup(r->host);
	g->port = r->port;
	g->reason = xstrdup(r->reason);
	g->why = r->why;
	g->first_ms = r->time_ms;
	g->last_ms = r->time_ms;
	g->hash_next = dn->buckets[b];
	dn->buckets[b] = dn->n++;
	return g;
}

static void
add_sample(struct ctl_denial *g, const char *cmd)
{
	size_t k;

	if (cmd == NULL || *cmd == '\0')
		return;
	for (k = 0; k < g->nsamples; k++) {
		if (strcmp(g->samples[k], cmd) == 0) {
			/* seen again: it becomes the most recent */
			char *s = g->samples[k];

			memmove(&g->samples[1], &g->samples[0],
			    k * sizeof(g->samples[0]));
			g->samples[0] = s;
			return;
		}
	}
	if (g->nsamples == CTL_RECORDS_SAMPLES)
		free(g->samples[--g->nsamples]);
	memmove(&g->samples[1], &g->samples[0],
	    g->nsamples * sizeof(g->samples[0]));
	g->samples[0] = xstrdup(cmd);
	g->nsamples++;
}

void
ctl_denials_add(
    struct ctl_denials *dn, const struct ctl_record *r, int64_t since_ms)
{
	struct ctl_denial *g;
	size_t k;

	if (r->decision != CTL_DEC_DENIED &&
	    r->decision != CTL_DEC_WOULD_DENY) {
		dn->other++;
		return;
	}
	if (since_ms > 0 && r->time_ms < since_ms) {
		dn->too_old++;
		return;
	}
	g = group_get(dn, r);
	g->count++;
	if (r->decision == CTL_DEC_DENIED)
		g->denied++;
	else
		g->would_deny++;
	if (r->time_ms < g->first_ms)
		g->first_ms = r->time_ms;
	if (r->time_ms >= g->last_ms) {
		g->last_ms = r->time_ms;
		if (r->hint && *r->hint) {
			free(g->hint);
			g->hint = xstrdup(r->hint);
		}
	} else if (g->hint == NULL && r->hint && *r->hint) {
		g->hint = xstrdup(r->hint);
	}
	add_sample(g, r->cmdline);
	if (r->ingress && strcmp(r->ingress, "tcp") == 0)
		g->raw = true;
	if (r->dst_ip && *r->dst_ip && g->nips < CTL_RECORDS_IPS) {
		for (k = 0; k < g->nips; k++)
			if (strcmp(g->ips[k], r->dst_ip) == 0)
				break;
		if (k == g->nips)
			g->ips[g->nips++] = xstrdup(r->dst_ip);
	}
}

void
ctl_denials_add_line(
    struct ctl_denials *dn, const char *line, size_t len, int64_t since_ms)
{
	struct ctl_record r;
	size_t i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < len; i++)
		if (!(line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			break;
	if (i == len)
		return; /* blank lines are not records, nor errors */
	dn->lines++;
	if (ctl_record_parse(line, len, &r) == CTL_RECORD_OK)
		ctl_denials_add(dn, &r, since_ms);
	else
		dn->bad++;
	ctl_record_free(&r);
}

struct file_read {
	struct ctl_denials *dn;
	int64_t since_ms;
};

static bool
file_line(const char *s, size_t len, bool too_long, void *arg)
{
	struct file_read *fr = arg;

	if (too_long) {
		/* egressd writes at most 16 KiB per record */
		fr->dn->lines++;
		fr->dn->bad++;
	} else {
		ctl_denials_add_line(fr->dn, s, len, fr->since_ms);
	}
	return true;
}

bool
ctl_denials_read_file(struct ctl_denials *dn, const char *path,
    int64_t since_ms, char *err, size_t errlen)
{
	struct file_read fr = {dn, since_ms};
	bool std = strcmp(path, "-") == 0;
	char e[256];
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd == -1) {
		snprintf(
		    err, errlen, "cannot read %s: %s", path, strerror(errno));
		return false;
	}
	/* lines are read with the socket's bounded reader: a line longer
	 * than CTL_CLIENT_LINE_MAX is counted as bad, never held whole */
	ok = ctl_client_read_lines(fd, -1, file_line, &fr, e, sizeof(e));
	if (!ok)
		snprintf(err, errlen, "cannot read %s: %s", path,
		    strncmp(e, "reading from egressd: ", 22) == 0 ? e + 22 : e);
	if (!std)
		close(fd);
	return ok;
}

struct control_read {
	struct ctl_denials *dn;
	int64_t since_ms;
	char *err;
	size_t errlen;
	bool failed;
};

static bool
control_line(const char *s, size_t len, bool too_long, void *arg)
{
	struct control_read *cr = arg;
	struct json_node nodes[16];
	struct json_doc d;
	char msg[512];

	if (too_long) {
		cr->dn->lines++;
		cr->dn->bad++;
		return true;
	}
	/* {"error":"..."} instead of records: egressd refused the request */
	json_doc_init(&d, nodes, 16);
	if (cr->dn->lines == 0 && json_parse(&d, s, len) == JSON_OK &&
	    json_cstr(
	        &d, json_get(&d, json_root(&d), "error"), msg, sizeof(msg))) {
		struct strbuf sb;

		strbuf_init(&sb, 0);
		ctl_text_safe(&sb, msg);
		snprintf(cr->err, cr->errlen, "egressd refused 'records': %s",
		    strbuf_str(&sb));
		strbuf_free(&sb);
		cr->failed = true;
		return false;
	}
	ctl_denials_add_line(cr->dn, s, len, cr->since_ms);
	return true;
}

bool
ctl_denials_read_control(struct ctl_denials *dn, const char *path,
    uint64_t since_s, int64_t since_ms, char *err, size_t errlen)
{
	struct control_read cr = {dn, since_ms, err, errlen, false};
	char req[64];
	int fd;
	bool ok;

	fd = ctl_client_connect(
	    path, ", or read a decision log with --log FILE", err, errlen);
	if (fd == -1)
		return false;
	snprintf(req, sizeof(req), "records %llu", (unsigned long long)since_s);
	ok = ctl_client_send(fd, req, err, errlen) &&
	    ctl_client_read_lines(
	        fd, CTL_CLIENT_TIMEOUT_MS, control_line, &cr, err, errlen) &&
	    !cr.failed;
	close(fd);
	return ok;
}

static int
cmp_opt(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b ? 0 : a == NULL ? 1 : -1;
	return strcmp(a, b);
}

static int
cmp_denial(const void *pa, const void *pb)
{
	const struct ctl_denial *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if ((c = cmp_opt(a->binary, b->binary)) != 0 ||
	    (c = cmp_opt(a->host, b->host)) != 0)
		return c;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return cmp_opt(a->reason, b->reason);
}

void
ctl_denials_sort(struct ctl_denials *dn)
{
	if (dn->n > 1)
		qsort(dn->v, dn->n, sizeof(dn->v[0]), cmp_denial);
	/* the hash index no longer matches the order */
	free(dn->buckets);
	dn->buckets = NULL;
	dn->nbuckets = 0;
}

/* ------------------------------------------------------------------ */
/* Output */

static void
dest_text(struct strbuf *out, const struct ctl_denial *g)
{
	if (g->host && strchr(g->host, ':')) {
		strbuf_putc(out, '[');
		ctl_text_safe(out, g->host);
		strbuf_printf(out, "]:%lld", (long long)g->port);
	} else {
		ctl_text_safe(out, g->host ? g->host : "?");
		strbuf_printf(out, ":%lld", (long long)g->port);
	}
}

static void
verdict_text(struct strbuf *out, const struct ctl_denial *g)
{
	if (g->denied && g->would_deny)
		strbuf_printf(out, "denied %zu, would_deny %zu", g->denied,
		    g->would_deny);
	else
		strbuf_puts(out, g->denied ? "denied" : "would_deny");
}

enum { COL_COUNT, COL_VERDICT, COL_BINARY, COL_DEST, COL_REASON, COL_N };

static void
cell(struct strbuf *sb, const struct ctl_denial *g, int col)
{
	switch (col) {
	case COL_COUNT:
		strbuf_printf(sb, "%zu", g->count);
		break;
	case COL_VERDICT:
		verdict_text(sb, g);
		break;
	case COL_BINARY:
		ctl_text_safe(sb, g->binary ? g->binary : "(unknown)");
		break;
	case COL_DEST:
		dest_text(sb, g);
		break;
	case COL_REASON:
		ctl_text_safe(sb, g->reason);
		break;
	}
}

void
ctl_denials_format_text(const struct ctl_denials *dn, struct strbuf *out)
{
	static const char *const heads[COL_N] = {
	    "COUNT", "VERDICT", "BINARY", "DESTINATION", "REASON"};
	size_t w[COL_N], i, k;
	struct strbuf c;
	int col;

	strbuf_init(&c, 0);
	for (col = 0; col < COL_N; col++)
		w[col] = strlen(heads[col]);
	for (i = 0; i < dn->n; i++) {
		for (col = 0; col < COL_N; col++) {
			strbuf_reset(&c);
			cell(&c, &dn->v[i], col);
			if (c.len > w[col])
				w[col] = c.len;
		}
	}
	strbuf_printf(out, "%*s  %-*s  %-*s  %-*s  %-*s  %-20s  %s\n",
	    (int)w[COL_COUNT], heads[COL_COUNT], (int)w[COL_VERDICT],
	    heads[COL_VERDICT], (int)w[COL_BINARY], heads[COL_BINARY],
	    (int)w[COL_DEST], heads[COL_DEST], (int)w[COL_REASON],
	    heads[COL_REASON], "FIRST SEEN", "LAST SEEN");
	for (i = 0; i < dn->n; i++) {
		const struct ctl_denial *g = &dn->v[i];
		size_t pad = w[COL_COUNT] + 2;

		for (col = 0; col < COL_N; col++) {
			strbuf_reset(&c);
			cell(&c, g, col);
			if (col == COL_COUNT)
				strbuf_printf(
				    out, "%*s  ", (int)w[col], strbuf_str(&c));
			else
				strbuf_printf(
				    out, "%-*s  ", (int)w[col], strbuf_str(&c));
		}
		ctl_text_time(out, g->first_ms);
		strbuf_puts(out, "  ");
		ctl_text_time(out, g->last_ms);
		strbuf_putc(out, '\n');
		for (k = 0; k < g->nsamples; k++) {
			strbuf_printf(
			    out, "%*s%s ", (int)pad, "", k ? "     " : "e.g.:");
			ctl_text_escaped(out, g->samples[k]);
			strbuf_putc(out, '\n');
		}
		if (g->hint) {
			strbuf_printf(out, "%*shint: ", (int)pad, "");
			ctl_text_safe(out, g->hint);
			strbuf_putc(out, '\n');
		}
	}
	strbuf_free(&c);
}

void
ctl_denials_format_json(const struct ctl_denials *dn, struct strbuf *out)
{
	size_t i, k;

	strbuf_putc(out, '[');
	for (i = 0; i < dn->n; i++) {
		const struct ctl_denial *g = &dn->v[i];

		strbuf_puts(out, i ? ",\n " : "\n ");
		strbuf_puts(out, "{\"binary\":");
		strbuf_json_str(out, g->binary);
		strbuf_puts(out, ",\"host\":");
		strbuf_json_str(out, g->host);
		strbuf_printf(
		    out, ",\"port\":%lld,\"reason\":", (long long)g->port);
		strbuf_json_str(out, g->reason);
		strbuf_printf(out,
		    ",\"count\":%zu,\"denied\":%zu,\"would_deny\":%zu,\"first_seen\":%lld,\"last_seen\":%lld,\"samples\":[",
		    g->count, g->denied, g->would_deny, (long long)g->first_ms,
		    (long long)g->last_ms);
		for (k = 0; k < g->nsamples; k++) {
			if (k)
				strbuf_putc(out, ',');
			strbuf_json_str(out, g->samples[k]);
		}
		strbuf_puts(out, "],\"addresses\":[");
		for (k = 0; k < g->nips; k++) {
			if (k)
				strbuf_putc(out, ',');
			strbuf_json_str(out, g->ips[k]);
		}
		strbuf_puts(out, "],\"hint\":");
		strbuf_json_str(out, g->hint);
		strbuf_putc(out, '}');
	}
	strbuf_puts(out, dn->n ? "\n]\n" : "]\n");
}

/* ------------------------------------------------------------------ */
/* Sources and `egressctl denials` */

static int64_t
now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int
ctl_denials_load(struct ctl_denials *dn, const struct ctl_records_source *src,
    const char *cmd)
{
	uint64_t since_s = 0;
	int64_t since_ms = 0;
	char err[1024];
	bool ok;

	if (src->since) {
		if (!ctl_text_duration(src->since, &since_s)) {
			fprintf(stderr,
			    "egressctl %s: --since wants a duration like 30s, 15m, 2h or 7d, not '%s'\n",
			    cmd, src->since);
			return 2;
		}
		since_ms = now_ms() - (int64_t)since_s * 1000;
	}
	if (src->log)
		ok = ctl_denials_read_file(
		    dn, src->log, since_ms, err, sizeof(err));
	else
		ok = ctl_denials_read_control(dn, ctl_client_path(src->control),
		    since_s, since_ms, err, sizeof(err));
	if (!ok) {
		fprintf(stderr, "egressctl: %s\n", err);
		return 2;
	}
	if (dn->bad)
		fprintf(stderr,
		    "egressctl: warning: skipped %zu of %zu lines from %s that are not decision records\n",
		    dn->bad, dn->lines,
		    src->log ? src->log : ctl_client_path(src->control));
	return 0;
}

bool
ctl_records_source_conflict(
    const struct ctl_records_source *src, const char *cmd)
{
	if (src->log == NULL || src->control == NULL)
		return false;
	fprintf(stderr,
	    "egressctl %s: --log and --control exclude each other\n", cmd);
	return true;
}

void
ctl_records_source_text(
    const struct ctl_records_source *src, struct strbuf *out)
{
	if (src->log)
		strbuf_puts(out,
		    strcmp(src->log, "-") == 0 ? "standard input" : src->log);
	else
		strbuf_printf(
		    out, "egressd at %s", ctl_client_path(src->control));
	if (src->since)
		strbuf_printf(out, ", last %s", src->since);
}

static void
denials_usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl denials [--since DUR] [--json] [--log FILE] [--control PATH]\n"
	    "\n"
	    "Denials and would-be denials grouped by binary, destination and reason,\n"
	    "most frequent first, with first and last time seen, up to %d sample\n"
	    "command lines and the hint egressd gave.\n"
	    "\n"
	    "  --since DUR     only the last DUR (30s, 15m, 2h, 7d); default: all kept\n"
	    "  --log FILE      read a decision log (egressd --log-json FILE; - for stdin)\n"
	    "                  instead of asking the running egressd\n"
	    "  --control PATH  egressd's control socket (default $EGRESSD_CONTROL or\n"
	    "                  " CTL_CLIENT_DEFAULT_PATH ")\n"
	    "  --json          a JSON array instead of the table\n"
	    "\n"
	    "Exit status: 0, or 2 when the source cannot be read.\n",
	    CTL_RECORDS_SAMPLES);
}

int
ctl_records_denials_main(int argc, char **argv)
{
	enum { O_SINCE = 256, O_JSON, O_LOG, O_CONTROL, O_HELP };
	static const struct option longopts[] = {
	    {"since", required_argument, NULL, O_SINCE},
	    {"json", no_argument, NULL, O_JSON},
	    {"log", required_argument, NULL, O_LOG},
	    {"control", required_argument, NULL, O_CONTROL},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct ctl_records_source src = {NULL, NULL, NULL};
	struct ctl_denials dn;
	struct strbuf sb;
	bool json = false;
	size_t total = 0, i;
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_SINCE:
			src.since = optarg;
			break;
		case O_JSON:
			json = true;
			break;
		case O_LOG:
			src.log = optarg;
			break;
		case O_CONTROL:
			src.control = optarg;
			break;
		case 'h':
		case O_HELP:
			denials_usage(stdout);
			return 0;
		default:
			denials_usage(stderr);
			return 2;
		}
	}
	if (ctl_text_extra_args("denials", argc, argv, denials_usage))
		return 2;
	if (ctl_records_source_conflict(&src, "denials"))
		return 2;
	ctl_denials_init(&dn);
	if ((rc = ctl_denials_load(&dn, &src, "denials")) != 0) {
		ctl_denials_free(&dn);
		return rc;
	}
	ctl_denials_sort(&dn);
	strbuf_init(&sb, 0);
	if (json) {
		ctl_denials_format_json(&dn, &sb);
	} else {
		for (i = 0; i < dn.n; i++)
			total += dn.v[i].count;
		if (dn.n == 0) {
			strbuf_puts(&sb, "no denials or would-be denials (");
			ctl_records_source_text(&src, &sb);
			strbuf_puts(&sb, ")\n");
		} else {
			strbuf_printf(&sb, "%zu %s in %zu group%s (", total,
			    total == 1 ? "denial or would-be denial" :
			                 "denials and would-be denials",
			    dn.n, dn.n == 1 ? "" : "s");
			ctl_records_source_text(&src, &sb);
			strbuf_puts(&sb, ")\n\n");
			ctl_denials_format_text(&dn, &sb);
		}
	}
	fputs(strbuf_str(&sb), stdout);
	strbuf_free(&sb);
	ctl_denials_free(&dn);
	return 0;
}
