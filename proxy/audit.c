/* SPDX-License-Identifier: ISC */
/*
 * Audit records. Owns the record formats (OCSF-shaped JSON and the human
 * line) and the log file; leaves what to record to the sessions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "audit.h"
#include "log.h"
#include "strbuf.h"

#define AUDIT_LINE_MAX (16u << 10)

struct audit {
	char *path;
	int fd;
	bool human;
	struct strbuf line;
	void (*tap)(const struct audit_record *, const char *, void *);
	void *tap_arg;
};

static int
open_log(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
}

struct audit *
audit_new(const char *json_path, bool human, char *err, size_t errlen)
{
	struct audit *a = calloc(1, sizeof(*a));

	if (a == NULL)
		fatal("out of memory");
	a->fd = -1;
	a->human = human;
	strbuf_init(&a->line, AUDIT_LINE_MAX);
	if (json_path) {
		if ((a->path = strdup(json_path)) == NULL)
			fatal("out of memory");
		if ((a->fd = open_log(json_path)) == -1) {
			snprintf(err, errlen, "cannot open decision log %s: %s",
			    json_path, strerror(errno));
			audit_free(a);
			return NULL;
		}
	}
	return a;
}

void
audit_free(struct audit *a)
{
	if (a == NULL)
		return;
	if (a->fd != -1)
		close(a->fd);
	free(a->path);
	strbuf_free(&a->line);
	free(a);
}

bool
audit_reopen(struct audit *a, char *err, size_t errlen)
{
	int fd;

	if (a->path == NULL)
		return true;
	if ((fd = open_log(a->path)) == -1) {
		snprintf(err, errlen,
		    "cannot reopen %s: %s (still writing to the old file)",
		    a->path, strerror(errno));
		return false;
	}
	close(a->fd);
	a->fd = fd;
	return true;
}

void
audit_set_tap(struct audit *a,
    void (*tap)(const struct audit_record *r, const char *json, void *arg),
    void *arg)
{
	a->tap = tap;
	a->tap_arg = arg;
}

static const char *
activity_name(enum audit_activity a)
{
	switch (a) {
	case AUDIT_OPEN:
		return "Open";
	case AUDIT_CLOSE:
		return "Close";
	case AUDIT_HTTP:
		return "Request";
	case AUDIT_DNS:
		return "Query";
	}
	return "Other";
}

/* OCSF severity_id: 1 informational, 2 low, 3 medium, 4 high. */
static int
severity_id(const struct audit_record *r)
{
	if (r->activity == AUDIT_CLOSE || r->verdict == VERDICT_ALLOW)
		return 1;
	return (int)reason_severity(r->reason) + 1;
}

static const char *const severity_names[] = {
    "Unknown", "Informational", "Low", "Medium", "High"};

static void
json_addr(struct strbuf *sb, bool *first, const char *key, const struct addr *a)
{
	char buf[ADDR_STRLEN];

	if (a == NULL)
		return;
	strbuf_json_key(sb, first, key);
	strbuf_json_str(sb, addr_format(a, buf));
}

static void
json_opt_str(struct strbuf *sb, bool *first, const char *key, const char *v)
{
	if (v == NULL || *v == '\0')
		return;
	strbuf_json_key(sb, first, key);
	strbuf_json_str(sb, v);
}

void
audit_format_json(const struct audit_record *r, struct strbuf *sb)
{
	struct timeval tv;
	bool first = true, f2;
	int class_uid = r->activity == AUDIT_HTTP ? 4002 :
	    r->activity == AUDIT_DNS              ? 4003 :
	                                            4001;
	int activity_id = r->activity == AUDIT_CLOSE                ? 2 :
	    r->activity == AUDIT_OPEN && r->verdict == VERDICT_DENY ? 5 :
	                                                              1;
	int sev = severity_id(r);
	bool denied = r->verdict == VERDICT_DENY && r->activity != AUDIT_CLOSE;

	gettimeofday(&tv, NULL);
	strbuf_putc(sb, '{');
	strbuf_json_key(sb, &first, "time");
	strbuf_printf(sb, "%llu",
	    (unsigned long long)tv.tv_sec * 1000u +
	        (unsigned long long)tv.tv_usec / 1000u);
	strbuf_printf(sb, ",\"class_uid\":%d,\"category_uid\":4", class_uid);
	strbuf_printf(sb, ",\"activity_id\":%d,\"activity_name\":\"%s\"",
	    activity_id,
	    activity_id == 5 ? "Refuse" : activity_name(r->activity));
	strbuf_printf(sb, ",\"type_uid\":%d", class_uid * 100 + activity_id);
	if (r->activity != AUDIT_CLOSE) {
		/* OCSF: action 1 Allowed / 2 Denied; disposition 1 Allowed,
		 * 2 Blocked, 15 Detected (audit mode: allowed, would deny) */
		strbuf_printf(sb, ",\"action_id\":%d,\"action\":\"%s\"",
		    denied ? 2 : 1, denied ? "Denied" : "Allowed");
		strbuf_printf(sb,
		    ",\"disposition_id\":%d,\"disposition\":\"%s\"",
		    denied                          ? 2 :
		        r->verdict == VERDICT_AUDIT ? 15 :
		                                      1,
		    denied                          ? "Blocked" :
		        r->verdict == VERDICT_AUDIT ? "Detected" :
		                                      "Allowed");
	}
	strbuf_printf(sb, ",\"severity_id\":%d,\"severity\":\"%s\"", sev,
	    severity_names[sev]);
	strbuf_puts(sb, ",\"src_endpoint\":{");
	f2 = true;
	json_addr(sb, &f2, "ip", r->src);
	if (r->src_port) {
		strbuf_json_key(sb, &f2, "port");
		strbuf_printf(sb, "%u", r->src_port);
	}
	strbuf_puts(sb, "},\"dst_endpoint\":{");
	f2 = true;
	json_opt_str(sb, &f2, "hostname", r->host);
	json_addr(sb, &f2, "ip", r->dst);
	if (r->port) {
		strbuf_json_key(sb, &f2, "port");
		strbuf_printf(sb, "%u", r->port);
	}
	strbuf_puts(sb, "},\"actor\":{\"process\":{");
	f2 = true;
	if (r->pid) {
		strbuf_json_key(sb, &f2, "pid");
		strbuf_printf(sb, "%d", (int)r->pid);
	}
	if (r->exe) {
		strbuf_json_key(sb, &f2, "file");
		strbuf_puts(sb, "{\"path\":");
		strbuf_json_str(sb, r->exe);
		strbuf_putc(sb, '}');
	}
	json_opt_str(sb, &f2, "cmd_line", r->cmdline);
	if (r->pid) {
		strbuf_json_key(sb, &f2, "user");
		strbuf_printf(sb, "{\"uid\":\"%u\"}", (unsigned)r->uid);
	}
	strbuf_puts(sb,
	    "}},\"connection_info\":{\"protocol_name\":\"tcp\",\"direction\":\"Outbound\",\"direction_id\":2}");
	if (r->policy) {
		strbuf_puts(sb, ",\"policy\":{\"name\":");
		strbuf_json_str(sb, r->policy);
		strbuf_printf(sb, ",\"version\":\"%llu\"}",
		    (unsigned long long)r->generation);
	}
	if (r->activity == AUDIT_HTTP) {
		strbuf_puts(sb, ",\"http_request\":{");
		f2 = true;
		json_opt_str(sb, &f2, "http_method", r->method);
		if (r->path) {
			strbuf_json_key(sb, &f2, "url");
			strbuf_puts(sb, "{\"path\":");
			strbuf_json_str(sb, r->path);
			strbuf_puts(sb, ",\"hostname\":");
			strbuf_json_str(sb, r->host);
			strbuf_putc(sb, '}');
		}
		strbuf_putc(sb, '}');
	}
	if (r->activity == AUDIT_CLOSE) {
		strbuf_printf(sb,
		    ",\"traffic\":{\"bytes_out\":%llu,\"bytes_in\":%llu},\"duration\":%llu",
		    (unsigned long long)r->bytes_up,
		    (unsigned long long)r->bytes_down,
		    (unsigned long long)r->duration_ms);
	}
	strbuf_puts(sb,
	    ",\"metadata\":{\"version\":\"1.1.0\",\"product\":{\"name\":\"egressd\",\"vendor_name\":\"egressd\"}}");
	/* egressd's own fields: stable names for egressctl and scripts */
	strbuf_puts(sb, ",\"egressd\":{");
	f2 = true;
	strbuf_json_key(sb, &f2, "conn");
	strbuf_printf(sb, "%llu", (unsigned long long)r->conn_id);
	strbuf_json_key(sb, &f2, "decision");
	strbuf_json_str(sb,
	    r->activity == AUDIT_CLOSE ? "closed" : verdict_name(r->verdict));
	strbuf_json_key(sb, &f2, "reason");
	strbuf_json_str(sb, reason_code(r->reason));
	strbuf_json_key(sb, &f2, "mode");
	strbuf_json_str(sb, policy_enforcement_name(r->mode));
	if (r->overridden) {
		strbuf_json_key(sb, &f2, "mode_override");
		strbuf_puts(sb, "true");
	}
	json_opt_str(sb, &f2, "ingress", r->ingress);
	json_opt_str(sb, &f2, "policy", r->policy);
	json_opt_str(sb, &f2, "endpoint", r->endpoint);
	json_opt_str(sb, &f2, "reason_text", r->reason_text);
	json_opt_str(sb, &f2, "hint", r->hint);
	json_opt_str(sb, &f2, "detail", r->detail);
	json_opt_str(sb, &f2, "invoked_as", r->invoked_as);
	strbuf_puts(sb, "}}");
}

static void
human_size(struct strbuf *sb, uint64_t n)
{
	if (n < 1024)
		strbuf_printf(sb, "%lluB", (unsigned long long)n);
	else if (n < 1024 * 1024)
		strbuf_printf(sb, "%.1fKiB", (double)n / 1024);
	else if (n < 1024ull * 1024 * 1024)
		strbuf_printf(sb, "%.1fMiB", (double)n / (1024 * 1024));
	else
		strbuf_printf(
		    sb, "%.2fGiB", (double)n / (1024.0 * 1024 * 1024));
}

void
audit_format_human(const struct audit_record *r, struct strbuf *sb)
{
	static const char *const sev[] = {"INFO", "LOW", "MED", "HIGH"};
	int s = severity_id(r) - 1;
	const char *what = r->verdict == VERDICT_ALLOW ? "ALLOWED" :
	    r->verdict == VERDICT_AUDIT                ? "WOULD_DENY" :
	                                                 "DENIED";
	const char *prefix = r->activity == AUDIT_HTTP ? "HTTP:REQ" :
	    r->activity == AUDIT_DNS                   ? "DNS:QUERY" :
	    r->activity == AUDIT_CLOSE                 ? "NET:CLOSE" :
	                                                 "NET:OPEN";

	strbuf_printf(sb, "%s [%s] ", prefix, sev[s < 0 ? 0 : s]);
	if (r->activity != AUDIT_CLOSE)
		strbuf_printf(sb, "%s ", what);
	strbuf_put_safe(sb, r->exe ? r->exe : "(unknown)");
	if (r->pid)
		strbuf_printf(sb, "(%d)", (int)r->pid);
	if (r->host && strchr(r->host, ':'))
		strbuf_printf(sb, " -> [%s]:%u", r->host, r->port);
	else
		strbuf_printf(
		    sb, " -> %s:%u", r->host ? r->host : "?", r->port);
	if (r->activity == AUDIT_HTTP)
		strbuf_printf(sb, " %s %s", r->method ? r->method : "?",
		    r->path ? r->path : "?");
	strbuf_printf(sb, " [policy:%s mode:%s%s]", r->policy ? r->policy : "-",
	    policy_enforcement_name(r->mode), r->overridden ? "(forced)" : "");
	if (r->activity == AUDIT_CLOSE) {
		strbuf_puts(sb, " up=");
		human_size(sb, r->bytes_up);
		strbuf_puts(sb, " down=");
		human_size(sb, r->bytes_down);
		strbuf_printf(sb, " %llu.%03llus",
		    (unsigned long long)r->duration_ms / 1000,
		    (unsigned long long)r->duration_ms % 1000);
		if (r->reason != REASON_ALLOWED)
			strbuf_printf(
			    sb, " [reason:%s]", reason_code(r->reason));
		return;
	}
	strbuf_printf(sb, " [reason:%s]", reason_code(r->reason));
	if (r->verdict != VERDICT_ALLOW && r->hint && *r->hint) {
		strbuf_puts(sb, " hint: ");
		strbuf_put_safe(sb, r->hint);
	}
}

void
audit_log(struct audit *a, const struct audit_record *r)
{
	strbuf_reset(&a->line);
	audit_format_json(r, &a->line);
	if (a->tap)
		a->tap(r, strbuf_str(&a->line), a->tap_arg);
	if (a->fd != -1) {
		strbuf_putc(&a->line, '\n');
		/* one write per record: lines never interleave */
		if (write(a->fd, a->line.s, a->line.len) < 0)
			log_warn(
			    "decision log write failed: %s", strerror(errno));
	}
	if (a->human) {
		strbuf_reset(&a->line);
		audit_format_human(r, &a->line);
		strbuf_putc(&a->line, '\n');
		if (write(STDERR_FILENO, a->line.s, a->line.len) < 0) {
			/* stderr is gone; nothing better to do */
		}
	}
}
