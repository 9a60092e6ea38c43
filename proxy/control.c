/* SPDX-License-Identifier: ISC */
/*
 * Control socket server. Owns the socket, its clients, the ring of recent
 * denial records and the answers' formats; leaves reloading to daemon.c and
 * deciding to policies/decide.c.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "caller.h"
#include "clock.h"
#include "control.h"
#include "daemon.h"
#include "dns_server.h"
#include "identity.h"
#include "log.h"
#include "policy.h"
#include "session.h"
#include "strbuf.h"
#include "tls_ca.h"

#define CTL_LINE_MAX     4096
#define CTL_REQUEST_MS   5000
#define CTL_TAIL_BACKLOG (4u << 20)

struct ctl_client {
	struct control *c;
	struct ctl_client *prev, *next;
	int fd;
	struct event *rd, *wr, *timer;
	char line[CTL_LINE_MAX + 1];
	size_t len;
	struct strbuf out;
	size_t out_off;
	bool tail, tail_denied;
	bool done; /* close once out is flushed */
};

struct ctl_record {
	uint64_t wall_ms;
	char *json;
};

struct control {
	struct daemon *d;
	char *path;
	int fd;
	struct event *ev;
	struct ctl_client *clients;
	struct ctl_record ring[CONTROL_RECORDS_MAX];
	size_t next, count;
};

static uint64_t
wall_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

static void
client_free(struct ctl_client *cl)
{
	struct control *c = cl->c;

	if (cl->prev)
		cl->prev->next = cl->next;
	else
		c->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	event_free(cl->rd);
	event_free(cl->wr);
	event_free(cl->timer);
	close(cl->fd);
	strbuf_free(&cl->out);
	free(cl);
}

static void
client_flush(struct ctl_client *cl)
{
	while (cl->out_off < cl->out.len) {
		ssize_t n = write(
		    cl->fd, cl->out.s + cl->out_off, cl->out.len - cl->out_off);

		if (n > 0) {
			cl->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			event_add(cl->wr, NULL);
			return;
		}
		client_free(cl);
		return;
	}
	strbuf_reset(&cl->out);
	cl->out_off = 0;
	event_del(cl->wr);
	if (cl->done)
		client_free(cl);
}

static void
wr_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	client_flush(arg);
}

/* ---- answers -------------------------------------------------------------- */

static const char *
kind_name(enum listener_kind k)
{
	switch (k) {
	case LISTEN_EXPLICIT:
		return "explicit";
	case LISTEN_UNIX:
		return "unix";
	case LISTEN_TRANSPARENT:
		return "transparent";
	case LISTEN_DNS_UDP:
		return "dns/udp";
	case LISTEN_DNS_TCP:
		return "dns/tcp";
	}
	return "?";
}

static void
answer_status(struct control *c, struct strbuf *o)
{
	struct daemon *d = c->d;
	struct identity_stats is;
	struct resolver_stats rs;
	struct dns_server_stats ds;
	struct session *s;
	const char *names[64];
	unsigned counts[64];
	size_t nnames = 0, i, errors = 0;
	unsigned active = 0;
	bool first = true;

	strbuf_puts(o, "{\"version\":\"0.1.0\"");
	strbuf_printf(o, ",\"pid\":%d,\"uptime_s\":%llu", (int)getpid(),
	    (unsigned long long)((clock_ms() - d->started_ms) / 1000));
	strbuf_puts(o, ",\"policy\":{\"file\":");
	strbuf_json_str(
	    o, d->cfg.policy_file ? d->cfg.policy_file : "(built-in default)");
	strbuf_printf(o,
	    ",\"generation\":%llu,\"loaded_at\":%llu,\"reloads\":%llu,\"reload_failures\":%llu}",
	    (unsigned long long)d->generation,
	    (unsigned long long)d->stats.loaded_at_s,
	    (unsigned long long)d->stats.reloads,
	    (unsigned long long)d->stats.reload_failures);
	strbuf_printf(o, ",\"mode_override\":\"%s\"",
	    d->cfg.override == DECIDE_MODE_ENFORCE   ? "enforce" :
	        d->cfg.override == DECIDE_MODE_AUDIT ? "audit" :
	                                               "none");
	strbuf_puts(o, ",\"listeners\":[");
	for (i = 0; i < d->nlisteners; i++) {
		const struct listener *l = &d->listeners[i];

		strbuf_printf(o,
		    "%s{\"kind\":\"%s\",\"address\":", i ? "," : "",
		    kind_name(l->kind));
		strbuf_json_str(o, d->cfg.listens[i].text);
		strbuf_printf(
		    o, ",\"in_sandbox\":%s}", l->in_sandbox ? "true" : "false");
	}
	strbuf_puts(o, "],\"netns\":");
	strbuf_json_str(o, d->cfg.netns);
	for (s = d->sessions; s; s = s->next) {
		const char *exe =
		    s->caller.exe ? s->caller.exe->path : "(unknown)";

		active++;
		for (i = 0; i < nnames && strcmp(names[i], exe) != 0; i++)
			;
		if (i == nnames && nnames < 64) {
			names[nnames] = exe;
			counts[nnames++] = 0;
		}
		if (i < nnames)
			counts[i]++;
	}
	strbuf_printf(
	    o, ",\"connections\":{\"active\":%u,\"by_binary\":[", active);
	for (i = 0; i < nnames; i++) {
		strbuf_puts(o, i ? ",{\"binary\":" : "{\"binary\":");
		strbuf_json_str(o, names[i]);
		strbuf_printf(o, ",\"active\":%u}", counts[i]);
	}
	strbuf_printf(o,
	    "]},\"decisions\":{\"accepted\":%llu,\"allowed\":%llu,\"denied\":%llu,\"would_deny\":%llu,\"closed\":%llu,\"conn_limit\":%llu}",
	    (unsigned long long)d->stats.accepted,
	    (unsigned long long)d->stats.allowed,
	    (unsigned long long)d->stats.denied,
	    (unsigned long long)d->stats.would_deny,
	    (unsigned long long)d->stats.closed,
	    (unsigned long long)d->stats.conn_limit);
	strbuf_printf(o, ",\"bytes\":{\"up\":%llu,\"down\":%llu}",
	    (unsigned long long)d->stats.bytes_up,
	    (unsigned long long)d->stats.bytes_down);
	identity_stats_get(d->identity, &is);
	for (i = 1; i < IDENTITY_ERR__COUNT; i++)
		errors += is.errors[i];
	strbuf_printf(o,
	    ",\"identity\":{\"lookups\":%llu,\"p50_us\":%llu,\"p90_us\":%llu,\"p99_us\":%llu,\"errors\":%zu,\"candidates\":%llu,\"full_scans\":%llu}",
	    (unsigned long long)d->stats.identity_us.count,
	    (unsigned long long)histogram_quantile_us(
	        &d->stats.identity_us, 0.5),
	    (unsigned long long)histogram_quantile_us(
	        &d->stats.identity_us, 0.9),
	    (unsigned long long)histogram_quantile_us(
	        &d->stats.identity_us, 0.99),
	    errors, (unsigned long long)is.candidates,
	    (unsigned long long)is.full_scans);
	resolver_get_stats(d->resolver, &rs);
	memset(&ds, 0, sizeof(ds));
	if (d->dns)
		dns_server_get_stats(d->dns, &ds);
	strbuf_printf(o,
	    ",\"dns\":{\"queries\":%llu,\"answered\":%llu,\"refused\":%llu,\"failed\":%llu,\"resolver\":{\"queries\":%llu,\"cache_hits\":%llu,\"upstream\":%llu,\"timeouts\":%llu,\"failures\":%llu,\"p50_us\":%llu,\"p99_us\":%llu}}",
	    (unsigned long long)ds.queries, (unsigned long long)ds.answered,
	    (unsigned long long)ds.refused, (unsigned long long)ds.failed,
	    (unsigned long long)rs.queries, (unsigned long long)rs.cache_hits,
	    (unsigned long long)rs.upstream, (unsigned long long)rs.timeouts,
	    (unsigned long long)rs.failures,
	    (unsigned long long)histogram_quantile_us(&d->stats.dns_us, 0.5),
	    (unsigned long long)histogram_quantile_us(&d->stats.dns_us, 0.99));
	if (d->ca) {
		struct tls_ca_stats ts;

		tls_ca_get_stats(d->ca, &ts);
		strbuf_printf(o,
		    ",\"tls\":{\"leaves_minted\":%llu,\"leaf_cache_hits\":%llu,\"mint_us_avg\":%llu,\"mint_us_max\":%llu,\"upstream_offered\":%llu,\"upstream_resumptions\":%llu}",
		    (unsigned long long)ts.minted,
		    (unsigned long long)ts.cache_hits,
		    (unsigned long long)(ts.minted ?
		            ts.mint_us_total / ts.minted :
		            0),
		    (unsigned long long)ts.mint_us_max,
		    (unsigned long long)ts.upstream_offered,
		    (unsigned long long)ts.upstream_resumptions);
	}
	(void)first;
	strbuf_puts(o, "}\n");
}

static void
answer_reload(struct control *c, struct strbuf *o)
{
	struct daemon *d = c->d;
	struct diags dg;
	struct strbuf errs, warns;
	unsigned revoked = 0, flagged = 0;
	bool ok;
	size_t i;

	diags_init(&dg,
	    d->cfg.policy_file ? d->cfg.policy_file : "(built-in default)");
	ok = daemon_reload(d, &dg, &revoked, &flagged);
	strbuf_init(&errs, 0);
	strbuf_init(&warns, 0);
	strbuf_putc(&errs, '[');
	strbuf_putc(&warns, '[');
	for (i = 0; i < dg.n; i++) {
		struct strbuf *sb = dg.v[i].sev == DIAG_ERROR ? &errs : &warns;

		if (sb->len > 1)
			strbuf_putc(sb, ',');
		strbuf_puts(sb, "{\"severity\":");
		strbuf_json_str(sb, diag_sev_name(dg.v[i].sev));
		strbuf_puts(sb, ",\"file\":");
		strbuf_json_str(sb, dg.file);
		strbuf_printf(sb,
		    ",\"line\":%d,\"column\":%d,\"message\":", dg.v[i].line,
		    dg.v[i].col);
		strbuf_json_str(sb, dg.v[i].msg);
		strbuf_putc(sb, '}');
	}
	strbuf_putc(&errs, ']');
	strbuf_putc(&warns, ']');
	if (ok)
		strbuf_printf(o,
		    "{\"ok\":true,\"generation\":%llu,\"warnings\":%s,\"revoked\":%u,\"flagged\":%u}\n",
		    (unsigned long long)d->generation, strbuf_str(&warns),
		    revoked, flagged);
	else
		strbuf_printf(o,
		    "{\"ok\":false,\"generation\":%llu,\"errors\":%s,\"warnings\":%s}\n",
		    (unsigned long long)d->generation, strbuf_str(&errs),
		    strbuf_str(&warns));
	strbuf_free(&errs);
	strbuf_free(&warns);
	diags_free(&dg);
}

static void
answer_records(struct control *c, const char *arg, struct strbuf *o)
{
	char *end;
	unsigned long secs = strtoul(arg ? arg : "0", &end, 10);
	uint64_t since = secs ? wall_ms() - (uint64_t)secs * 1000u : 0;
	size_t i, start;

	if (arg && *end) {
		strbuf_puts(
		    o, "{\"error\":\"records takes a number of seconds\"}\n");
		return;
	}
	start =
	    (c->next + CONTROL_RECORDS_MAX - c->count) % CONTROL_RECORDS_MAX;
	for (i = 0; i < c->count; i++) {
		const struct ctl_record *r =
		    &c->ring[(start + i) % CONTROL_RECORDS_MAX];

		if (r->wall_ms >= since) {
			strbuf_puts(o, r->json);
			strbuf_putc(o, '\n');
		}
	}
}

/* Decodes %XX in place; false on a malformed escape. */
static bool
pct_decode(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s == '%') {
			unsigned v;

			if (sscanf(s + 1, "%2x", &v) != 1 || s[1] == '\0' ||
			    s[2] == '\0')
				return false;
			*w++ = (char)v;
			s += 2;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	return true;
}

struct explain_ctx {
	struct strbuf *o;
	bool first;
};

static void
explain_step(const struct decide_step *st, void *arg)
{
	struct explain_ctx *x = arg;
	struct strbuf *o = x->o;

	strbuf_puts(o, x->first ? "{\"block\":" : ",{\"block\":");
	x->first = false;
	strbuf_json_str(o, st->block->key);
	strbuf_printf(o, ",\"action\":\"%s\",\"endpoint\":",
	    st->block->deny ? "deny" : "allow");
	strbuf_json_str(o, st->endpoint->host_text);
	strbuf_printf(o, ",\"line\":%d,\"host\":%s,\"port\":%s,\"caller\":",
	    st->endpoint->line, st->host_match ? "true" : "false",
	    st->port_match ? "true" : "false");
	strbuf_json_str(o, st->caller);
	strbuf_puts(o, ",\"result\":");
	strbuf_json_str(o, st->result);
	strbuf_putc(o, '}');
}

static void
answer_explain(struct control *c, char *args, struct strbuf *o)
{
	struct daemon *d = c->d;
	const char *bin = NULL, *host = NULL, *invoked = NULL, *src = NULL;
	const char *via = "connect";
	struct decide_caller caller;
	struct decide_dest dest;
	struct decision dec;
	struct hostname h;
	struct addr sa;
	struct explain_ctx x = {o, true};
	long port = -1;
	char *tok, *save = NULL;

	for (tok = strtok_r(args, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL || !pct_decode(eq + 1)) {
			strbuf_puts(o,
			    "{\"error\":\"explain arguments are key=value with percent-encoded values\"}\n");
			return;
		}
		*eq = '\0';
		if (strcmp(tok, "binary") == 0)
			bin = eq + 1;
		else if (strcmp(tok, "host") == 0)
			host = eq + 1;
		else if (strcmp(tok, "port") == 0)
			port = strtol(eq + 1, NULL, 10);
		else if (strcmp(tok, "via") == 0)
			via = eq + 1;
		else if (strcmp(tok, "invoked_as") == 0)
			invoked = eq + 1;
		else if (strcmp(tok, "source") == 0)
			src = eq + 1;
	}
	if (host == NULL || port < 1 || port > 65535 ||
	    hostname_normalize(host, strlen(host), &h) != HOSTNAME_OK) {
		strbuf_puts(o,
		    "{\"error\":\"explain needs a valid host=... and port=1-65535\"}\n");
		return;
	}
	memset(&caller, 0, sizeof(caller));
	caller.exe = bin;
	caller.invoked_as = invoked;
	caller.identity_err = REASON_ALLOWED;
	if (src && addr_parse(src, strlen(src), &sa))
		caller.src = &sa;
	dest.host = &h;
	dest.port = (uint16_t)port;
	dest.source = strcmp(via, "sni") == 0 ? DECIDE_SRC_SNI :
	    strcmp(via, "http") == 0          ? DECIDE_SRC_HTTP :
	    strcmp(via, "dns") == 0           ? DECIDE_SRC_DNS :
	    strcmp(via, "addr") == 0          ? DECIDE_SRC_ADDR :
	                                        DECIDE_SRC_CONNECT;
	strbuf_puts(o, "{\"trace\":[");
	decide_traced(
	    d->policy, &caller, &dest, d->cfg.override, &dec, explain_step, &x);
	strbuf_printf(o,
	    "],\"decision\":\"%s\",\"reason\":\"%s\",\"mode\":\"%s\",\"overridden\":%s,\"policy\":",
	    verdict_name(dec.verdict), reason_code(dec.reason),
	    policy_enforcement_name(dec.mode),
	    dec.overridden ? "true" : "false");
	strbuf_json_str(o, dec.block ? dec.block->key : NULL);
	strbuf_puts(o, ",\"endpoint\":");
	strbuf_json_str(o, dec.endpoint ? dec.endpoint->host_text : NULL);
	strbuf_printf(o, ",\"line\":%d,\"reason_text\":",
	    dec.endpoint ? dec.endpoint->line : 0);
	strbuf_json_str(o, dec.reason_text);
	strbuf_puts(o, ",\"hint\":");
	strbuf_json_str(o, dec.hint[0] ? dec.hint : NULL);
	strbuf_printf(o,
	    ",\"protocol\":\"%s\",\"access\":\"%s\",\"generation\":%llu,\"file\":",
	    policy_protocol_name(dec.protocol), policy_access_name(dec.access),
	    (unsigned long long)d->generation);
	strbuf_json_str(o, d->policy->file);
	strbuf_puts(o, "}\n");
}

static void
handle_request(struct ctl_client *cl)
{
	struct control *c = cl->c;
	char *cmd = cl->line, *arg = strchr(cl->line, ' ');

	if (arg)
		*arg++ = '\0';
	event_del(cl->timer);
	event_del(cl->rd);
	if (strcmp(cmd, "status") == 0)
		answer_status(c, &cl->out);
	else if (strcmp(cmd, "reload") == 0)
		answer_reload(c, &cl->out);
	else if (strcmp(cmd, "records") == 0)
		answer_records(c, arg, &cl->out);
	else if (strcmp(cmd, "explain") == 0)
		answer_explain(c, arg ? arg : cmd + strlen(cmd), &cl->out);
	else if (strcmp(cmd, "tail") == 0) {
		cl->tail = true;
		cl->tail_denied = arg && strcmp(arg, "denied") == 0;
		event_add(cl->rd, NULL); /* to notice the client leaving */
		return;
	} else {
		strbuf_puts(&cl->out,
		    "{\"error\":\"unknown command (status, reload, records, tail, explain)\"}\n");
	}
	cl->done = true;
	client_flush(cl);
}

static void
rd_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_client *cl = arg;
	ssize_t n;
	char *nl;

	if (what & EV_TIMEOUT) {
		client_free(cl);
		return;
	}
	if (cl->tail) {
		char sink[256];

		/* a tail client only ever closes */
		n = read(fd, sink, sizeof(sink));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			client_free(cl);
		return;
	}
	n = read(fd, cl->line + cl->len, CTL_LINE_MAX - cl->len);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			client_free(cl);
		return;
	}
	cl->len += (size_t)n;
	cl->line[cl->len] = '\0';
	if ((nl = memchr(cl->line, '\n', cl->len)) == NULL) {
		if (cl->len == CTL_LINE_MAX)
			client_free(cl);
		return;
	}
	*nl = '\0';
	if (nl > cl->line && nl[-1] == '\r')
		nl[-1] = '\0';
	handle_request(cl);
}

static void
accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct control *c = arg;
	struct ctl_client *cl;
	struct timeval tv = {CTL_REQUEST_MS / 1000, 0};
	int fd;

	(void)what;
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if ((cl = calloc(1, sizeof(*cl))) == NULL)
		fatal("out of memory");
	cl->c = c;
	cl->fd = fd;
	strbuf_init(&cl->out, 64u << 20);
	cl->rd = event_new(c->d->base, fd, EV_READ | EV_PERSIST, rd_cb, cl);
	cl->wr = event_new(c->d->base, fd, EV_WRITE | EV_PERSIST, wr_cb, cl);
	cl->timer = evtimer_new(c->d->base, rd_cb, cl);
	if (cl->rd == NULL || cl->wr == NULL || cl->timer == NULL)
		fatal("out of memory");
	cl->next = c->clients;
	if (c->clients)
		c->clients->prev = cl;
	c->clients = cl;
	event_add(cl->rd, NULL);
	event_add(cl->timer, &tv);
}

void
control_record(
    struct control *c, const struct audit_record *r, const char *json)
{
	struct ctl_client *cl, *n;
	bool denial = r->activity != AUDIT_CLOSE && r->verdict != VERDICT_ALLOW;

	if (c == NULL)
		return;
	if (denial) {
		struct ctl_record *slot = &c->ring[c->next];

		free(slot->json);
		if ((slot->json = strdup(json)) == NULL)
			fatal("out of memory");
		slot->wall_ms = wall_ms();
		c->next = (c->next + 1) % CONTROL_RECORDS_MAX;
		if (c->count < CONTROL_RECORDS_MAX)
			c->count++;
	}
	for (cl = c->clients; cl; cl = n) {
		n = cl->next;
		if (!cl->tail || (cl->tail_denied && !denial))
			continue;
		if (cl->out.len - cl->out_off > CTL_TAIL_BACKLOG) {
			/* a client that does not read loses its tail */
			client_free(cl);
			continue;
		}
		strbuf_puts(&cl->out, json);
		strbuf_putc(&cl->out, '\n');
		client_flush(cl);
	}
}

struct control *
control_new(struct daemon *d, const char *path, char *err, size_t errlen)
{
	struct control *c = calloc(1, sizeof(*c));
	struct sockaddr_un un;
	char dir[sizeof(un.sun_path)];
	char *slash;
	struct stat st;

	if (c == NULL)
		fatal("out of memory");
	c->d = d;
	c->fd = -1;
	if (strlen(path) >= sizeof(un.sun_path)) {
		snprintf(err, errlen, "control socket path too long: %s", path);
		goto fail;
	}
	if ((c->path = strdup(path)) == NULL)
		fatal("out of memory");
	/* the directory is private to root: the sandbox never reaches it */
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", dir,
			    strerror(errno));
			goto fail;
		}
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(
			    err, errlen, "%s exists and is not a socket", path);
			goto fail;
		}
		unlink(path); /* stale, from an earlier run */
	}
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	memcpy(un.sun_path, path, strlen(path));
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd == -1 ||
	    bind(c->fd, (struct sockaddr *)&un, sizeof(un)) == -1 ||
	    chmod(path, 0600) == -1 || listen(c->fd, 16) == -1) {
		snprintf(err, errlen, "control socket %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	c->ev = event_new(d->base, c->fd, EV_READ | EV_PERSIST, accept_cb, c);
	if (c->ev == NULL)
		fatal("out of memory");
	event_add(c->ev, NULL);
	return c;
fail:
	control_free(c);
	return NULL;
}

void
control_free(struct control *c)
{
	size_t i;

	if (c == NULL)
		return;
	while (c->clients)
		client_free(c->clients);
	if (c->ev)
		event_free(c->ev);
	if (c->fd != -1) {
		close(c->fd);
		unlink(c->path);
	}
	for (i = 0; i < CONTROL_RECORDS_MAX; i++)
		free(c->ring[i].json);
	free(c->path);
	free(c);
}
