/* SPDX-License-Identifier: ISC */
/*
 * `egressctl tail`, `status` and `reload`. Owns how their answers are shown
 * (human lines through the audit module's own formatter, a status summary,
 * reload diagnostics as file:line:col); leaves the answers to the daemon.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "ctl_client.h"
#include "ctl_live.h"
#include "ctl_text.h"
#include "json.h"
#include "log.h"
#include "strbuf.h"

#define CTL_LIVE_NODES 65536

#define RED    "\033[31m"
#define YELLOW "\033[33m"
#define GREEN  "\033[32m"
#define RESET  "\033[0m"

enum ctl_live_color
ctl_live_color_auto(void)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (!isatty(STDOUT_FILENO) || (nc && *nc) ||
	    (term && strcmp(term, "dumb") == 0))
		return CTL_LIVE_PLAIN;
	return CTL_LIVE_COLOR;
}

/* A terminal-safe copy of s (NULL stays NULL). */
static char *
safe_dup(const char *s)
{
	struct strbuf sb;
	char *r;

	if (s == NULL)
		return NULL;
	strbuf_init(&sb, 0);
	ctl_text_safe(&sb, s);
	r = strdup(strbuf_str(&sb));
	strbuf_free(&sb);
	if (r == NULL)
		fatal("out of memory");
	return r;
}

void
ctl_live_format_record(
    const struct ctl_record *r, enum ctl_live_color color, struct strbuf *out)
{
	struct audit_record a;
	char *exe, *host, *policy, *hint, *method, *path;
	const char *on = NULL;

	memset(&a, 0, sizeof(a));
	a.activity = r->class_uid == 4003                        ? AUDIT_DNS :
	    r->class_uid == 4002                                 ? AUDIT_HTTP :
	    r->decision == CTL_DEC_CLOSED || r->activity_id == 2 ? AUDIT_CLOSE :
	                                                           AUDIT_OPEN;
	a.verdict = r->decision == CTL_DEC_DENIED ? VERDICT_DENY :
	    r->decision == CTL_DEC_WOULD_DENY     ? VERDICT_AUDIT :
	                                            VERDICT_ALLOW;
	a.reason = r->why;
	a.mode = r->mode && strcmp(r->mode, "audit") == 0 ? ENFORCE_AUDIT :
	                                                    ENFORCE_ENFORCE;
	a.overridden = r->overridden;
	a.pid = (pid_t)r->pid;
	a.exe = exe = safe_dup(r->exe);
	a.host = host = safe_dup(r->host);
	a.port = (uint16_t)(r->port > 0 && r->port <= 65535 ? r->port : 0);
	a.policy = policy = safe_dup(r->policy);
	a.hint = hint = safe_dup(r->hint);
	a.method = method = safe_dup(r->method);
	a.path = path = safe_dup(r->path);
	a.bytes_up = (uint64_t)(r->bytes_out > 0 ? r->bytes_out : 0);
	a.bytes_down = (uint64_t)(r->bytes_in > 0 ? r->bytes_in : 0);
	a.duration_ms = (uint64_t)(r->duration_ms > 0 ? r->duration_ms : 0);
	if (color == CTL_LIVE_COLOR && a.activity != AUDIT_CLOSE)
		on = a.verdict == VERDICT_DENY ? RED :
		    a.verdict == VERDICT_AUDIT ? YELLOW :
		                                 GREEN;
	if (on)
		strbuf_puts(out, on);
	audit_format_human(&a, out);
	if (on)
		strbuf_puts(out, RESET);
	free(exe);
	free(host);
	free(policy);
	free(hint);
	free(method);
	free(path);
}

/* ------------------------------------------------------------------ */
/* tail */

struct tail_ctx {
	bool json, first, failed;
	enum ctl_live_color color;
	size_t bad;
	char *err;
	size_t errlen;
};

static bool
tail_line(const char *s, size_t len, bool too_long, void *arg)
{
	struct tail_ctx *t = arg;
	struct ctl_record r;
	struct strbuf sb;
	enum ctl_record_err e;
	bool first = t->first;

	t->first = false;
	if (too_long || len == 0) {
		t->bad += too_long;
		return true;
	}
	e = ctl_record_parse(s, len, &r);
	if (first && e == CTL_RECORD_NOT_RECORD) {
		struct json_node nodes[16];
		struct json_doc d;
		char msg[512];

		json_doc_init(&d, nodes, 16);
		if (json_parse(&d, s, len) == JSON_OK &&
		    json_cstr(&d, json_get(&d, json_root(&d), "error"), msg,
		        sizeof(msg))) {
			strbuf_init(&sb, 0);
			ctl_text_safe(&sb, msg);
			snprintf(t->err, t->errlen,
			    "egressd refused 'tail': %s", strbuf_str(&sb));
			strbuf_free(&sb);
			t->failed = true;
			ctl_record_free(&r);
			return false;
		}
	}
	if (e != CTL_RECORD_OK) {
		t->bad++;
		ctl_record_free(&r);
		return true;
	}
	strbuf_init(&sb, 0);
	if (t->json)
		strbuf_add(&sb, s, len); /* it parsed: no raw control bytes */
	else
		ctl_live_format_record(&r, t->color, &sb);
	strbuf_putc(&sb, '\n');
	fwrite(sb.s, 1, sb.len, stdout);
	fflush(stdout);
	strbuf_free(&sb);
	ctl_record_free(&r);
	return !ferror(stdout);
}

static void
tail_usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl tail [--denied] [--json] [--control PATH]\n"
	    "\n"
	    "Every decision of the running egressd as it is made, one line each\n"
	    "in egressd's own format (docs/logging.md); red denied, yellow\n"
	    "would_deny, green allowed on a terminal (NO_COLOR turns colors off).\n"
	    "\n"
	    "  --denied        only denials and would-be denials\n"
	    "  --json          the JSON records as egressd writes them\n"
	    "  --control PATH  egressd's control socket\n"
	    "\n"
	    "Runs until interrupted or until egressd closes the connection.\n"
	    "Exit status: 0, or 2 when egressd cannot be reached.\n");
}

int
ctl_live_tail_main(int argc, char **argv)
{
	enum { O_DENIED = 256, O_JSON, O_CONTROL, O_HELP };
	static const struct option longopts[] = {
	    {"denied", no_argument, NULL, O_DENIED},
	    {"json", no_argument, NULL, O_JSON},
	    {"control", required_argument, NULL, O_CONTROL},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct tail_ctx t;
	const char *control = NULL, *path;
	bool denied = false, ok;
	char err[1024];
	int ch, fd;

	memset(&t, 0, sizeof(t));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_DENIED:
			denied = true;
			break;
		case O_JSON:
			t.json = true;
			break;
		case O_CONTROL:
			control = optarg;
			break;
		case 'h':
		case O_HELP:
			tail_usage(stdout);
			return 0;
		default:
			tail_usage(stderr);
			return 2;
		}
	}
	if (ctl_text_extra_args("tail", argc, argv, tail_usage))
		return 2;
	path = ctl_client_path(control);
	if ((fd = ctl_client_connect(path, NULL, err, sizeof(err))) == -1) {
		fprintf(stderr, "egressctl: %s\n", err);
		return 2;
	}
	t.first = true;
	t.color = t.json ? CTL_LIVE_PLAIN : ctl_live_color_auto();
	t.err = err;
	t.errlen = sizeof(err);
	ok = ctl_client_send(
	         fd, denied ? "tail denied" : "tail", err, sizeof(err)) &&
	    ctl_client_read_lines(fd, -1, tail_line, &t, err, sizeof(err)) &&
	    !t.failed;
	close(fd);
	if (!ok) {
		fprintf(stderr, "egressctl: %s\n", err);
		return 2;
	}
	if (t.bad)
		fprintf(stderr,
		    "egressctl: warning: %zu lines from egressd were not decision records\n",
		    t.bad);
	if (!ferror(stdout))
		fprintf(
		    stderr, "egressctl: egressd at %s ended the tail\n", path);
	return 0;
}

/* ------------------------------------------------------------------ */
/* status */

struct jview {
	struct json_doc d;
	struct json_node *nodes;
};

static bool
jview_parse(struct jview *v, const char *text, size_t len)
{
	if ((v->nodes = malloc(CTL_LIVE_NODES * sizeof(*v->nodes))) == NULL)
		fatal("out of memory");
	json_doc_init(&v->d, v->nodes, CTL_LIVE_NODES);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	return json_parse(&v->d, text, len) == JSON_OK &&
	    json_root(&v->d)->type == JSON_OBJECT;
}

static void
jview_free(struct jview *v)
{
	free(v->nodes);
}

/* Appends the terminal-safe string at path, or "-". */
static void
put_str(struct strbuf *out, const struct jview *v, const struct json_node *o,
    const char *path)
{
	char buf[4096];

	if (json_cstr(&v->d, json_getp(&v->d, o, path), buf, sizeof(buf)))
		ctl_text_safe(out, buf);
	else
		strbuf_putc(out, '-');
}

static bool
get_int(const struct jview *v, const struct json_node *o, const char *path,
    long long *n)
{
	int64_t i;

	if (!json_int(json_getp(&v->d, o, path), &i))
		return false;
	*n = (long long)i;
	return true;
}

/* ", N word" for each present counter; the first without the comma. */
static void
counters(struct strbuf *out, const struct jview *v, const struct json_node *o,
    const char *const *keys, const char *const *words)
{
	bool first = true;
	long long n;
	size_t i;

	for (i = 0; keys[i]; i++) {
		if (!get_int(v, o, keys[i], &n))
			continue;
		strbuf_printf(out, "%s%lld %s", first ? "" : ", ", n, words[i]);
		first = false;
	}
	if (first)
		strbuf_putc(out, '-');
}

bool
ctl_live_format_status(const char *text, size_t len, struct strbuf *out)
{
	static const char *const dec_keys[] = {
	    "accepted", "allowed", "denied", "would_deny", "closed", NULL};
	static const char *const dns_keys[] = {
	    "queries", "answered", "refused", "failed", NULL};
	static const char *const res_keys[] = {"resolver.queries",
	    "resolver.cache_hits", "resolver.upstream", "resolver.timeouts",
	    "resolver.failures", NULL};
	static const char *const res_words[] = {
	    "queries", "cache hits", "upstream", "timeouts", "failures", NULL};
	struct jview v;
	const struct json_node *root, *n, *c;
	long long i, j;
	bool first;

	if (!jview_parse(&v, text, len)) {
		jview_free(&v);
		return false;
	}
	root = json_root(&v.d);
	strbuf_puts(out, "egressd     ");
	put_str(out, &v, root, "version");
	if (get_int(&v, root, "pid", &i))
		strbuf_printf(out, ", pid %lld", i);
	if (get_int(&v, root, "uptime_s", &i)) {
		strbuf_puts(out, ", up ");
		ctl_text_age(out, (uint64_t)(i > 0 ? i : 0));
	}
	strbuf_puts(out, "\npolicy      ");
	put_str(out, &v, root, "policy.file");
	if (get_int(&v, root, "policy.generation", &i))
		strbuf_printf(out, ", generation %lld", i);
	if (get_int(&v, root, "policy.loaded_at", &i)) {
		strbuf_puts(out, ", loaded ");
		ctl_text_time(out, i * 1000);
	}
	if (get_int(&v, root, "policy.reloads", &i) &&
	    get_int(&v, root, "policy.reload_failures", &j))
		strbuf_printf(out, " (%lld reload%s, %lld failed)", i,
		    i == 1 ? "" : "s", j);
	strbuf_puts(out, "\nmode        ");
	n = json_get(&v.d, root, "mode_override");
	{
		char m[32] = "";

		json_cstr(&v.d, n, m, sizeof(m));
		if (strcmp(m, "enforce") == 0)
			strbuf_puts(
			    out, "every denial enforced (--enforce-all)");
		else if (strcmp(m, "audit") == 0)
			strbuf_puts(out,
			    "audit: denials pass as would_deny (--audit-all)");
		else
			strbuf_puts(out, "per endpoint (no override)");
	}
	if (json_get(&v.d, root, "netns")) {
		strbuf_puts(out, "\nnetns       ");
		put_str(out, &v, root, "netns");
	}
	strbuf_puts(out, "\nlisteners   ");
	n = json_get(&v.d, root, "listeners");
	first = true;
	for (c = json_child(&v.d, n); c; c = json_next(&v.d, c)) {
		bool in = false;

		if (!first)
			strbuf_puts(out, "\n            ");
		first = false;
		put_str(out, &v, c, "kind");
		strbuf_putc(out, ' ');
		put_str(out, &v, c, "address");
		json_bool(json_get(&v.d, c, "in_sandbox"), &in);
		if (in)
			strbuf_puts(out, " (in the sandbox)");
	}
	if (first)
		strbuf_putc(out, '-');
	strbuf_puts(out, "\nconnections ");
	if (get_int(&v, root, "connections.active", &i))
		strbuf_printf(out, "%lld active", i);
	else
		strbuf_putc(out, '-');
	n = json_getp(&v.d, root, "connections.by_binary");
	for (c = json_child(&v.d, n); c; c = json_next(&v.d, c)) {
		strbuf_puts(out, "\n            ");
		if (get_int(&v, c, "active", &i))
			strbuf_printf(out, "%6lld  ", i);
		put_str(out, &v, c, "binary");
	}
	strbuf_puts(out, "\ndecisions   ");
	counters(
	    out, &v, json_get(&v.d, root, "decisions"), dec_keys, dec_keys);
	strbuf_puts(out, "\nbytes       ");
	if (get_int(&v, root, "bytes.up", &i) &&
	    get_int(&v, root, "bytes.down", &j)) {
		strbuf_puts(out, "up ");
		ctl_text_size(out, (uint64_t)(i > 0 ? i : 0));
		strbuf_puts(out, ", down ");
		ctl_text_size(out, (uint64_t)(j > 0 ? j : 0));
	} else {
		strbuf_putc(out, '-');
	}
	if ((n = json_get(&v.d, root, "identity")) != NULL) {
		strbuf_puts(out, "\nidentity    ");
		if (get_int(&v, n, "lookups", &i))
			strbuf_printf(out, "%lld lookups", i);
		if (get_int(&v, n, "p50_us", &i))
			strbuf_printf(out, ", p50 <=%lldus", i);
		if (get_int(&v, n, "p90_us", &i))
			strbuf_printf(out, ", p90 <=%lldus", i);
		if (get_int(&v, n, "p99_us", &i))
			strbuf_printf(out, ", p99 <=%lldus", i);
		if (get_int(&v, n, "errors", &i))
			strbuf_printf(
			    out, ", %lld error%s", i, i == 1 ? "" : "s");
	}
	if ((n = json_get(&v.d, root, "tls")) != NULL) {
		strbuf_puts(out, "\ntls         ");
		if (get_int(&v, n, "leaves_minted", &i))
			strbuf_printf(out, "%lld leaves minted", i);
		if (get_int(&v, n, "mint_us_avg", &i))
			strbuf_printf(out, " (avg %lldus", i);
		if (get_int(&v, n, "mint_us_max", &i))
			strbuf_printf(out, ", max %lldus)", i);
		if (get_int(&v, n, "leaf_cache_hits", &i))
			strbuf_printf(out, ", %lld cache hits", i);
		if (get_int(&v, n, "upstream_resumptions", &i))
			strbuf_printf(out, ", %lld upstream resumptions", i);
		if (get_int(&v, n, "upstream_offered", &i))
			strbuf_printf(out, " (of %lld offered)", i);
	}
	if ((n = json_get(&v.d, root, "dns")) != NULL) {
		strbuf_puts(out, "\ndns         ");
		counters(out, &v, n, dns_keys, dns_keys);
		if (json_get(&v.d, n, "resolver")) {
			strbuf_puts(out, "\nresolver    ");
			counters(out, &v, n, res_keys, res_words);
		}
	}
	strbuf_putc(out, '\n');
	jview_free(&v);
	return true;
}

/* ------------------------------------------------------------------ */
/* reload */

static void
diag_lines(struct strbuf *out, const struct jview *v, const struct json_node *a,
    const char *fallback)
{
	const struct json_node *c;
	long long line, col;

	for (c = json_child(&v->d, a); c; c = json_next(&v->d, c)) {
		put_str(out, v, c, "file");
		if (get_int(v, c, "line", &line) && line > 0) {
			strbuf_printf(out, ":%lld", line);
			if (get_int(v, c, "column", &col) && col > 0)
				strbuf_printf(out, ":%lld", col);
		}
		strbuf_puts(out, ": ");
		if (json_get(&v->d, c, "severity"))
			put_str(out, v, c, "severity");
		else
			strbuf_puts(out, fallback);
		strbuf_puts(out, ": ");
		put_str(out, v, c, "message");
		strbuf_putc(out, '\n');
	}
}

int
ctl_live_format_reload(
    const char *text, size_t len, struct strbuf *out, struct strbuf *diag)
{
	struct jview v;
	const struct json_node *root;
	long long gen = 0, n;
	bool ok = false;
	int rc;

	if (!jview_parse(&v, text, len) ||
	    !json_bool(json_get(&v.d, json_root(&v.d), "ok"), &ok)) {
		if (json_root(&v.d) &&
		    json_get(&v.d, json_root(&v.d), "error")) {
			strbuf_puts(
			    diag, "egressctl: egressd refused 'reload': ");
			put_str(diag, &v, json_root(&v.d), "error");
			strbuf_putc(diag, '\n');
		}
		jview_free(&v);
		return 2;
	}
	root = json_root(&v.d);
	get_int(&v, root, "generation", &gen);
	diag_lines(diag, &v, json_get(&v.d, root, "errors"), "error");
	diag_lines(diag, &v, json_get(&v.d, root, "warnings"), "warning");
	if (ok) {
		strbuf_printf(out, "reloaded: generation %lld", gen);
		if (get_int(&v, root, "revoked", &n))
			strbuf_printf(out, ", %lld connection%s revoked", n,
			    n == 1 ? "" : "s");
		if (get_int(&v, root, "flagged", &n))
			strbuf_printf(out, ", %lld flagged", n);
		strbuf_putc(out, '\n');
		rc = 0;
	} else {
		strbuf_printf(out,
		    "reload refused: egressd keeps running generation %lld\n",
		    gen);
		rc = 1;
	}
	jview_free(&v);
	return rc;
}

/* ------------------------------------------------------------------ */
/* status and reload commands */

static int
simple_main(int argc, char **argv, const char *cmd, void (*usage)(FILE *f),
    bool *json, const char **control)
{
	enum { O_JSON = 256, O_CONTROL, O_HELP };
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, O_JSON},
	    {"control", required_argument, NULL, O_CONTROL},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_JSON:
			*json = true;
			break;
		case O_CONTROL:
			*control = optarg;
			break;
		case 'h':
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (ctl_text_extra_args(cmd, argc, argv, usage))
		return 2;
	return -1;
}

static void
status_usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl status [--json] [--control PATH]\n"
	    "\n"
	    "The running egressd: version, policy file and generation, mode\n"
	    "override, listeners, connections per binary, decision, byte, identity\n"
	    "and DNS counters.\n"
	    "\n"
	    "  --json          the status object, pretty-printed\n"
	    "  --control PATH  egressd's control socket\n"
	    "\n"
	    "Exit status: 0, or 2 when egressd cannot be reached.\n");
}

/* Pretty-prints a JSON answer; false when it is not JSON. */
static bool
pretty(const char *text, size_t len, struct strbuf *out)
{
	struct jview v;
	bool ok = jview_parse(&v, text, len);

	if (ok) {
		json_write(&v.d, json_root(&v.d), out, 2);
		strbuf_putc(out, '\n');
	}
	jview_free(&v);
	return ok;
}

static int
call(const char *control, const char *request, struct strbuf *reply)
{
	const char *path = ctl_client_path(control);
	char err[1024];

	if (!ctl_client_call(path, NULL, request, reply, err, sizeof(err))) {
		fprintf(stderr, "egressctl: %s\n", err);
		return 2;
	}
	return 0;
}

int
ctl_live_status_main(int argc, char **argv)
{
	const char *control = NULL;
	struct strbuf reply, out;
	bool json = false, ok;
	int rc;

	if ((rc = simple_main(
	         argc, argv, "status", status_usage, &json, &control)) >= 0)
		return rc;
	strbuf_init(&reply, 0);
	if ((rc = call(control, "status", &reply)) != 0) {
		strbuf_free(&reply);
		return rc;
	}
	strbuf_init(&out, 0);
	ok = json ? pretty(reply.s, reply.len, &out) :
	            ctl_live_format_status(reply.s, reply.len, &out);
	if (ok) {
		fputs(strbuf_str(&out), stdout);
	} else {
		fprintf(stderr,
		    "egressctl: egressd's answer to 'status' is not a JSON object\n");
		rc = 2;
	}
	strbuf_free(&out);
	strbuf_free(&reply);
	return rc;
}

static void
reload_usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl reload [--json] [--control PATH]\n"
	    "\n"
	    "Asks the running egressd to load its policy file again. Prints the new\n"
	    "generation, or the errors as file:line:col (the running policy stays).\n"
	    "\n"
	    "  --json          egressd's answer, pretty-printed\n"
	    "  --control PATH  egressd's control socket\n"
	    "\n"
	    "Exit status: 0 reloaded, 1 refused (the policy has errors), 2 when\n"
	    "egressd cannot be reached.\n");
}

int
ctl_live_reload_main(int argc, char **argv)
{
	const char *control = NULL;
	struct strbuf reply, out, diag;
	bool json = false;
	int rc;

	if ((rc = simple_main(
	         argc, argv, "reload", reload_usage, &json, &control)) >= 0)
		return rc;
	strbuf_init(&reply, 0);
	if ((rc = call(control, "reload", &reply)) != 0) {
		strbuf_free(&reply);
		return rc;
	}
	strbuf_init(&out, 0);
	strbuf_init(&diag, 0);
	rc = ctl_live_format_reload(reply.s, reply.len, &out, &diag);
	if (rc == 2 && diag.len == 0)
		strbuf_puts(&diag,
		    "egressctl: egressd's answer to 'reload' is not a reload result\n");
	if (json && rc != 2) {
		strbuf_reset(&out);
		pretty(reply.s, reply.len, &out);
		strbuf_reset(&diag);
	}
	fputs(strbuf_str(&diag), stderr);
	fputs(strbuf_str(&out), stdout);
	strbuf_free(&diag);
	strbuf_free(&out);
	strbuf_free(&reply);
	return rc;
}
