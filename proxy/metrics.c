/* SPDX-License-Identifier: ISC */
/*
 * Prometheus metrics over libevent's evhttp. Owns the exposition format;
 * the numbers are the daemon's.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "dns_server.h"
#include "log.h"
#include "metrics.h"
#include "session.h"
#include "strbuf.h"
#include "tls_ca.h"

struct metrics {
	struct daemon *d;
	struct evhttp *http;
};

static void
histogram_text(struct strbuf *o, const char *name, const char *help,
    const struct histogram *h)
{
	uint64_t cum = 0;
	unsigned i;

	strbuf_printf(
	    o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (i = 0; i < HISTOGRAM_BUCKETS; i++) {
		cum += h->bucket[i];
		/* bucket i holds values below 2^i us */
		strbuf_printf(o, "%s_bucket{le=\"%.6f\"} %llu\n", name,
		    (double)histogram_bound_us(i) / 1e6,
		    (unsigned long long)cum);
	}
	strbuf_printf(o, "%s_bucket{le=\"+Inf\"} %llu\n", name,
	    (unsigned long long)h->count);
	strbuf_printf(o, "%s_sum %.6f\n%s_count %llu\n", name,
	    (double)h->sum_us / 1e6, name, (unsigned long long)h->count);
}

void
metrics_format(struct daemon *d, struct strbuf *o)
{
	static const char *const verdicts[] = {
	    "allowed", "denied", "would_deny"};
	struct dns_server_stats ds;
	struct session *s;
	unsigned v, r, m, active = 0;

	strbuf_puts(o,
	    "# HELP egressd_decisions_total Decisions by result, reason code and mode.\n# TYPE egressd_decisions_total counter\n");
	for (v = 0; v < 3; v++)
		for (r = 0; r < REASON__COUNT; r++)
			for (m = 0; m < 2; m++)
				if (d->stats.decisions[v][r][m])
					strbuf_printf(o,
					    "egressd_decisions_total{result=\"%s\",reason=\"%s\",mode=\"%s\"} %llu\n",
					    verdicts[v],
					    reason_code((enum reason)r),
					    m ? "audit" : "enforce",
					    (unsigned long long)
					        d->stats.decisions[v][r][m]);
	for (s = d->sessions; s; s = s->next)
		active += s->state == SESSION_RELAY ||
		    s->state == SESSION_PEEK || s->state == SESSION_FORWARD ||
		    s->state == SESSION_INTERCEPT;
	strbuf_printf(o,
	    "# HELP egressd_active_tunnels Established connections.\n# TYPE egressd_active_tunnels gauge\negressd_active_tunnels %u\n",
	    active);
	strbuf_printf(o,
	    "# HELP egressd_connections Connections in any phase.\n# TYPE egressd_connections gauge\negressd_connections %u\n",
	    d->nsessions);
	strbuf_printf(o,
	    "# HELP egressd_connections_accepted_total Accepted client connections.\n# TYPE egressd_connections_accepted_total counter\negressd_connections_accepted_total %llu\n",
	    (unsigned long long)d->stats.accepted);
	strbuf_printf(o,
	    "# HELP egressd_bytes_total Bytes relayed, by direction (up: client to upstream).\n# TYPE egressd_bytes_total counter\negressd_bytes_total{direction=\"up\"} %llu\negressd_bytes_total{direction=\"down\"} %llu\n",
	    (unsigned long long)d->stats.bytes_up,
	    (unsigned long long)d->stats.bytes_down);
	histogram_text(o, "egressd_identity_lookup_seconds",
	    "Caller identity lookups (sock_diag and /proc).",
	    &d->stats.identity_us);
	histogram_text(o, "egressd_dns_resolve_seconds",
	    "Upstream name resolutions (cache misses).", &d->stats.dns_us);
	memset(&ds, 0, sizeof(ds));
	if (d->dns)
		dns_server_get_stats(d->dns, &ds);
	strbuf_printf(o,
	    "# HELP egressd_dns_queries_total Queries to the policy DNS server, by outcome.\n# TYPE egressd_dns_queries_total counter\n"
	    "egressd_dns_queries_total{outcome=\"answered\"} %llu\n"
	    "egressd_dns_queries_total{outcome=\"refused\"} %llu\n"
	    "egressd_dns_queries_total{outcome=\"failed\"} %llu\n"
	    "egressd_dns_queries_total{outcome=\"malformed\"} %llu\n",
	    (unsigned long long)ds.answered, (unsigned long long)ds.refused,
	    (unsigned long long)ds.failed, (unsigned long long)ds.malformed);
	if (d->ca) {
		struct tls_ca_stats ts;

		tls_ca_get_stats(d->ca, &ts);
		strbuf_printf(o,
		    "# HELP egressd_tls_leaves_minted_total Interception leaf certificates minted.\n# TYPE egressd_tls_leaves_minted_total counter\negressd_tls_leaves_minted_total %llu\n"
		    "# HELP egressd_tls_leaf_cache_hits_total Intercepted connections served by a cached leaf.\n# TYPE egressd_tls_leaf_cache_hits_total counter\negressd_tls_leaf_cache_hits_total %llu\n"
		    "# HELP egressd_tls_leaf_mint_seconds_total Time spent minting leaves.\n# TYPE egressd_tls_leaf_mint_seconds_total counter\negressd_tls_leaf_mint_seconds_total %.6f\n"
		    "# HELP egressd_tls_upstream_offered_total Upstream TLS sessions offered for resumption.\n# TYPE egressd_tls_upstream_offered_total counter\negressd_tls_upstream_offered_total %llu\n"
		    "# HELP egressd_tls_upstream_resumptions_total Upstream TLS handshakes that resumed a session.\n# TYPE egressd_tls_upstream_resumptions_total counter\negressd_tls_upstream_resumptions_total %llu\n",
		    (unsigned long long)ts.minted,
		    (unsigned long long)ts.cache_hits,
		    (double)ts.mint_us_total / 1e6,
		    (unsigned long long)ts.upstream_offered,
		    (unsigned long long)ts.upstream_resumptions);
	}
	strbuf_printf(o,
	    "# HELP egressd_policy_generation Generation of the policy in force.\n# TYPE egressd_policy_generation gauge\negressd_policy_generation %llu\n",
	    (unsigned long long)d->generation);
	strbuf_printf(o,
	    "# HELP egressd_policy_reloads_total Successful reloads.\n# TYPE egressd_policy_reloads_total counter\negressd_policy_reloads_total %llu\n",
	    (unsigned long long)d->stats.reloads);
	strbuf_printf(o,
	    "# HELP egressd_policy_reload_failures_total Reloads refused (invalid policy).\n# TYPE egressd_policy_reload_failures_total counter\negressd_policy_reload_failures_total %llu\n",
	    (unsigned long long)d->stats.reload_failures);
}

static void
serve_cb(struct evhttp_request *req, void *arg)
{
	struct metrics *m = arg;
	struct evbuffer *buf;
	struct strbuf sb;

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET ||
	    strcmp(evhttp_request_get_uri(req), "/metrics") != 0) {
		evhttp_send_error(req, 404, "only GET /metrics");
		return;
	}
	if ((buf = evbuffer_new()) == NULL) {
		evhttp_send_error(req, 500, "out of memory");
		return;
	}
	strbuf_init(&sb, 16u << 20);
	metrics_format(m->d, &sb);
	evbuffer_add(buf, sb.s, sb.len);
	strbuf_free(&sb);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "text/plain; version=0.0.4");
	evhttp_send_reply(req, 200, "OK", buf);
	evbuffer_free(buf);
}

struct metrics *
metrics_new(struct daemon *d, const char *addr, char *err, size_t errlen)
{
	struct metrics *m = calloc(1, sizeof(*m));
	char host[64];
	const char *colon = strrchr(addr, ':');
	long port;

	if (m == NULL)
		fatal("out of memory");
	m->d = d;
	if (colon == NULL || (size_t)(colon - addr) >= sizeof(host) ||
	    (port = strtol(colon + 1, NULL, 10)) < 1 || port > 65535) {
		snprintf(
		    err, errlen, "--metrics: want ADDR:PORT, got '%s'", addr);
		free(m);
		return NULL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	if (host[0] == '[') { /* [::1]:9090 */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if ((m->http = evhttp_new(d->base)) == NULL ||
	    evhttp_bind_socket(m->http, host, (uint16_t)port) != 0) {
		snprintf(
		    err, errlen, "--metrics %s: cannot listen there", addr);
		metrics_free(m);
		return NULL;
	}
	evhttp_set_allowed_methods(m->http, EVHTTP_REQ_GET);
	evhttp_set_gencb(m->http, serve_cb, m);
	return m;
}

void
metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	if (m->http)
		evhttp_free(m->http);
	free(m);
}
