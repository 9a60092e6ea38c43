/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for egressctl's logic: durations, record parsing, the
 * aggregation of denials (groups, counts, times, samples, order, --since),
 * the host families and block keys of `propose`, and its grouping into
 * blocks with the never-proposed destinations, flags and --merge. Each table
 * case states its input and a one-line summary of the expected result.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_client.h"
#include "ctl_propose.h"
#include "ctl_records.h"
#include "ctl_text.h"
#include "policy.h"
#include "strbuf.h"
#include "tap.h"

/* ------------------------------------------------------------------ */
/* Durations */

static void
test_durations(void)
{
	static const struct {
		const char *in;
		bool ok;
		uint64_t s;
	} cases[] = {
	    {"30s", true, 30},
	    {"15m", true, 900},
	    {"2h", true, 7200},
	    {"7d", true, 604800},
	    {"45", true, 45},
	    {"1s", true, 1},
	    {"3660d", true, 3660ull * 86400},
	    {"3661d", false, 0},
	    {"99999999999999999999s", false, 0},
	    {"0s", false, 0},
	    {"0", false, 0},
	    {"01m", false, 0},
	    {"", false, 0},
	    {"-5m", false, 0},
	    {"+5m", false, 0},
	    {"5 m", false, 0},
	    {" 5m", false, 0},
	    {"5mm", false, 0},
	    {"5ms", false, 0},
	    {"5x", false, 0},
	    {"1y", false, 0},
	    {"1w", false, 0},
	    {"m", false, 0},
	    {"1.5h", false, 0},
	    {"1H", false, 0},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t s = 0;
		bool ok = ctl_text_duration(cases[i].in, &s);

		tap_ok(ok == cases[i].ok && (!ok || s == cases[i].s),
		    "duration '%s': %s %llu", cases[i].in,
		    cases[i].ok ? "ok" : "refused",
		    (unsigned long long)cases[i].s);
	}
	tap_ok(!ctl_text_duration(NULL, NULL), "duration NULL");
}

static void
test_text(void)
{
	static const struct {
		const char *in, *want, *want_escaped;
	} cases[] = {
	    {"plain /usr/bin/curl", "plain /usr/bin/curl", NULL},
	    {"esc \033[31mred", "esc \\x1b[31mred", NULL},
	    {"nl\nx", "nl\\x0ax", NULL},
	    {"back\\slash", "back\\\\slash", "back\\slash"},
	    /* a command line as egressd escaped it stays as it is */
	    {"curl -w %{http_code}\\n", "curl -w %{http_code}\\\\n",
	        "curl -w %{http_code}\\n"},
	    {"caf\xc3\xa9", "caf\\xc3\\xa9", NULL},
	    {"del\x7f", "del\\x7f", NULL},
	    {NULL, "-", NULL},
	};
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		ctl_text_safe(&sb, cases[i].in);
		tap_is_str(strbuf_str(&sb), cases[i].want, "safe text %zu", i);
		strbuf_reset(&sb);
		ctl_text_escaped(&sb, cases[i].in);
		tap_is_str(strbuf_str(&sb),
		    cases[i].want_escaped ? cases[i].want_escaped :
		                            cases[i].want,
		    "escaped text %zu", i);
	}
	strbuf_reset(&sb);
	ctl_text_time(&sb, 1796050800000);
	tap_is_str(strbuf_str(&sb), "2026-11-30T15:00:00Z", "UTC time");
	strbuf_reset(&sb);
	ctl_text_time(&sb, 0);
	tap_is_str(strbuf_str(&sb), "-", "no time");
	strbuf_reset(&sb);
	ctl_client_pct_encode(&sb, "/usr/bin/my tool%=x\xff:[::1]");
	tap_is_str(strbuf_str(&sb), "/usr/bin/my%20tool%25%3Dx%FF:%5B::1%5D",
	    "percent-encoding");
	strbuf_free(&sb);
}

/* ------------------------------------------------------------------ */
/* Records */

/* A decision record in egressd's field order (docs/logging.md). */
struct mini {
	const char *decision, *reason, *exe, *host;
	int port;
	const char *cmd;
	long long time_ms;
	const char *ip, *hint;
};

static void
mini_json(const struct mini *m, struct strbuf *sb)
{
	strbuf_printf(sb,
	    "{\"time\":%lld,\"class_uid\":4001,\"category_uid\":4,\"activity_id\":%d,"
	    "\"src_endpoint\":{\"ip\":\"127.0.0.1\",\"port\":40000},\"dst_endpoint\":{",
	    m->time_ms, strcmp(m->decision, "denied") == 0 ? 5 : 1);
	if (m->host) {
		strbuf_puts(sb, "\"hostname\":");
		strbuf_json_str(sb, m->host);
		strbuf_putc(sb, ',');
	}
	if (m->ip) {
		strbuf_puts(sb, "\"ip\":");
		strbuf_json_str(sb, m->ip);
		strbuf_putc(sb, ',');
	}
	strbuf_printf(
	    sb, "\"port\":%d},\"actor\":{\"process\":{\"pid\":42", m->port);
	if (m->exe) {
		strbuf_puts(sb, ",\"file\":{\"path\":");
		strbuf_json_str(sb, m->exe);
		strbuf_putc(sb, '}');
	}
	if (m->cmd) {
		strbuf_puts(sb, ",\"cmd_line\":");
		strbuf_json_str(sb, m->cmd);
	}
	strbuf_printf(sb,
	    "}},\"egressd\":{\"conn\":1,\"decision\":\"%s\",\"reason\":\"%s\",\"mode\":\"%s\"",
	    m->decision, m->reason,
	    strcmp(m->decision, "would_deny") == 0 ? "audit" : "enforce");
	if (m->hint) {
		strbuf_puts(sb, ",\"hint\":");
		strbuf_json_str(sb, m->hint);
	}
	strbuf_puts(sb, "}}");
}

static void
test_record_parse(void)
{
	static const char full[] =
	    "{\"time\":1796000000123,\"class_uid\":4001,\"category_uid\":4,"
	    "\"activity_id\":5,\"src_endpoint\":{\"ip\":\"127.0.0.1\",\"port\":51234},"
	    "\"dst_endpoint\":{\"hostname\":\"evil.example\",\"ip\":\"198.18.0.9\",\"port\":443},"
	    "\"actor\":{\"process\":{\"pid\":4242,\"file\":{\"path\":\"/usr/bin/curl\"},"
	    "\"cmd_line\":\"curl \\u003chttps://evil.example/\\u003e\",\"user\":{\"uid\":\"65534\"}}},"
	    "\"http_request\":{\"http_method\":\"GET\",\"url\":{\"path\":\"/x\",\"hostname\":\"evil.example\"}},"
	    "\"egressd\":{\"conn\":17,\"decision\":\"would_deny\",\"reason\":\"no_matching_policy\","
	    "\"mode\":\"audit\",\"mode_override\":true,\"ingress\":\"connect\",\"policy\":\"p\","
	    "\"endpoint\":\"*.example\",\"reason_text\":\"r\",\"hint\":\"h\",\"detail\":\"d\","
	    "\"invoked_as\":\"/bin/curl\"}}";
	static const struct {
		const char *name, *line;
		enum ctl_record_err want;
	} bad[] = {
	    {"not JSON", "garbage", CTL_RECORD_NOT_JSON},
	    {"truncated", "{\"time\":1,\"egressd\":{\"decision\"",
	        CTL_RECORD_NOT_JSON},
	    {"an array", "[1,2]", CTL_RECORD_NOT_JSON},
	    {"no egressd object", "{\"time\":1}", CTL_RECORD_NOT_RECORD},
	    {"unknown decision",
	        "{\"egressd\":{\"decision\":\"maybe\",\"reason\":\"allowed\"}}",
	        CTL_RECORD_NOT_RECORD},
	    {"no reason", "{\"egressd\":{\"decision\":\"denied\"}}",
	        CTL_RECORD_NOT_RECORD},
	    {"reason not a string",
	        "{\"egressd\":{\"decision\":\"denied\",\"reason\":5}}",
	        CTL_RECORD_NOT_RECORD},
	    {"minimal record",
	        "{\"egressd\":{\"decision\":\"denied\",\"reason\":\"timeout\"}}",
	        CTL_RECORD_OK},
	};
	struct ctl_record r;
	size_t i;

	tap_is_int(ctl_record_parse(full, sizeof(full) - 1, &r), CTL_RECORD_OK,
	    "full record parses");
	tap_ok(r.time_ms == 1796000000123 && r.class_uid == 4001 &&
	        r.activity_id == 5 && r.decision == CTL_DEC_WOULD_DENY &&
	        r.why == REASON_NO_MATCHING_POLICY && r.overridden &&
	        r.pid == 4242 && r.port == 443,
	    "full record: numbers and enums");
	tap_is_str(r.exe, "/usr/bin/curl", "exe");
	tap_is_str(r.cmdline, "curl <https://evil.example/>",
	    "cmd_line with escapes decoded");
	tap_is_str(r.host, "evil.example", "hostname");
	tap_is_str(r.dst_ip, "198.18.0.9", "dst ip");
	tap_is_str(r.src_ip, "127.0.0.1", "src ip");
	tap_is_str(r.mode, "audit", "mode");
	tap_is_str(r.invoked_as, "/bin/curl", "invoked_as");
	tap_is_str(r.method, "GET", "http method");
	tap_is_str(r.path, "/x", "url path");
	tap_is_str(r.endpoint, "*.example", "endpoint");
	ctl_record_free(&r);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tap_is_int(
		    ctl_record_parse(bad[i].line, strlen(bad[i].line), &r),
		    bad[i].want, "record: %s", bad[i].name);
		ctl_record_free(&r);
	}
	{
		static const char nul[] =
		    "{\"actor\":{\"process\":{\"file\":{\"path\":\"/usr/bin/a\\u0000b\"}}},"
		    "\"egressd\":{\"decision\":\"denied\",\"reason\":\"timeout\",\"reason\":\"allowed\"}}";

		tap_is_int(ctl_record_parse(nul, sizeof(nul) - 1, &r),
		    CTL_RECORD_OK, "record with NUL in the path parses");
		tap_ok(r.exe == NULL, "a path holding NUL is dropped");
		tap_is_str(r.reason, "allowed", "duplicate key: the last wins");
		ctl_record_free(&r);
	}
}

/* ------------------------------------------------------------------ */
/* Aggregation */

#define MAXM 8

struct acase {
	const char *name;
	struct mini in[MAXM];
	long long since_ms;
	const char *want; /* groups after sorting, ';'-separated */
};

#define D(exe, host, port, reason, cmd, t) \
	{ \
		"denied", reason, exe, host, port, cmd, t, NULL, NULL \
	}
#define W(exe, host, port, reason, cmd, t) \
	{ \
		"would_deny", reason, exe, host, port, cmd, t, NULL, NULL \
	}
#define A(exe, host, port, t) \
	{ \
		"allowed", "allowed", exe, host, port, NULL, t, NULL, NULL \
	}
#define NM   "no_matching_policy"
#define CURL "/usr/bin/curl"
#define WGET "/usr/bin/wget"

static const struct acase acases[] = {
    {"nothing", {{0}}, 0, ""},
    {"one denial", {D(CURL, "a.example", 443, NM, "curl a", 1000)}, 0,
        "1 d1 w0 /usr/bin/curl a.example:443 no_matching_policy 1000-1000 "
        "[curl a]"},
    {"allowed and closed records are not denials",
        {A(CURL, "a.example", 443, 1000),
            {"closed", "allowed", CURL, "a.example", 443, NULL, 1500, NULL,
                NULL}},
        0, ""},
    {"same key counts; times are min and max",
        {D(CURL, "a.example", 443, NM, "c1", 3000),
            W(CURL, "a.example", 443, NM, "c2", 1000),
            D(CURL, "a.example", 443, NM, "c1", 2000)},
        0,
        "3 d2 w1 /usr/bin/curl a.example:443 no_matching_policy 1000-3000 "
        "[c1,c2]"},
    {"samples: the three most recent distinct",
        {D(CURL, "a.example", 443, NM, "c1", 1),
            D(CURL, "a.example", 443, NM, "c2", 2),
            D(CURL, "a.example", 443, NM, "c3", 3),
            D(CURL, "a.example", 443, NM, "c4", 4),
            D(CURL, "a.example", 443, NM, "c2", 5),
            D(CURL, "a.example", 443, NM, NULL, 6)},
        0,
        "6 d6 w0 /usr/bin/curl a.example:443 no_matching_policy 1-6 "
        "[c2,c4,c3]"},
    {"reason, port, host and binary each split groups",
        {D(CURL, "a.example", 443, NM, NULL, 1),
            D(CURL, "a.example", 443, "port_not_allowed", NULL, 2),
            D(CURL, "a.example", 80, NM, NULL, 3),
            D(CURL, "b.example", 443, NM, NULL, 4),
            D(WGET, "a.example", 443, NM, NULL, 5)},
        0,
        "1 d1 w0 /usr/bin/curl a.example:80 no_matching_policy 3-3 [];"
        "1 d1 w0 /usr/bin/curl a.example:443 no_matching_policy 1-1 [];"
        "1 d1 w0 /usr/bin/curl a.example:443 port_not_allowed 2-2 [];"
        "1 d1 w0 /usr/bin/curl b.example:443 no_matching_policy 4-4 [];"
        "1 d1 w0 /usr/bin/wget a.example:443 no_matching_policy 5-5 []"},
    {"sorted by count, descending",
        {D(WGET, "z.example", 1, NM, NULL, 1),
            D(CURL, "a.example", 2, NM, NULL, 2),
            D(WGET, "z.example", 1, NM, NULL, 3)},
        0,
        "2 d2 w0 /usr/bin/wget z.example:1 no_matching_policy 1-3 [];"
        "1 d1 w0 /usr/bin/curl a.example:2 no_matching_policy 2-2 []"},
    {"unknown binary is its own group, sorted last",
        {D(NULL, "a.example", 443, "identity_no_owner", NULL, 1),
            D(CURL, "a.example", 443, "identity_no_owner", NULL, 2)},
        0,
        "1 d1 w0 /usr/bin/curl a.example:443 identity_no_owner 2-2 [];"
        "1 d1 w0 (null) a.example:443 identity_no_owner 1-1 []"},
    {"--since drops older records",
        {D(CURL, "a.example", 443, NM, "old", 1000),
            D(CURL, "a.example", 443, NM, "new", 5000),
            D(CURL, "b.example", 443, NM, "old", 999)},
        5000,
        "1 d1 w0 /usr/bin/curl a.example:443 no_matching_policy 5000-5000 "
        "[new]"},
    {"DNS refusals without a binary",
        {D(NULL, "exfil.example", 53, "dns_name_not_allowed", NULL, 7)}, 0,
        "1 d1 w0 (null) exfil.example:53 dns_name_not_allowed 7-7 []"},
};

static void
denials_summary(const struct ctl_denials *dn, struct strbuf *sb)
{
	size_t i, k;

	for (i = 0; i < dn->n; i++) {
		const struct ctl_denial *g = &dn->v[i];

		strbuf_printf(sb, "%s%zu d%zu w%zu %s %s:%lld %s %lld-%lld [",
		    i ? ";" : "", g->count, g->denied, g->would_deny,
		    g->binary ? g->binary : "(null)", g->host ? g->host : "?",
		    (long long)g->port, g->reason, (long long)g->first_ms,
		    (long long)g->last_ms);
		for (k = 0; k < g->nsamples; k++)
			strbuf_printf(sb, "%s%s", k ? "," : "", g->samples[k]);
		strbuf_putc(sb, ']');
	}
}

static void
test_aggregation(void)
{
	struct strbuf sb, line;
	struct ctl_denials dn;
	size_t i, j;

	strbuf_init(&sb, 0);
	strbuf_init(&line, 0);
	for (i = 0; i < sizeof(acases) / sizeof(acases[0]); i++) {
		const struct acase *c = &acases[i];

		ctl_denials_init(&dn);
		for (j = 0; j < MAXM && c->in[j].decision; j++) {
			strbuf_reset(&line);
			mini_json(&c->in[j], &line);
			ctl_denials_add_line(
			    &dn, line.s, line.len, c->since_ms);
		}
		ctl_denials_sort(&dn);
		strbuf_reset(&sb);
		denials_summary(&dn, &sb);
		tap_is_str(strbuf_str(&sb), c->want, "aggregate: %s", c->name);
		ctl_denials_free(&dn);
	}
	/* statistics, hints, addresses */
	ctl_denials_init(&dn);
	ctl_denials_add_line(&dn, "", 0, 0);
	ctl_denials_add_line(&dn, "  \r", 3, 0);
	ctl_denials_add_line(&dn, "{oops", 5, 0);
	ctl_denials_add_line(&dn, "{}", 2, 0);
	{
		static const struct mini m[] = {
		    {"denied", NM, CURL, "a.example", 443, NULL, 2000,
		        "198.18.0.1", "newer hint"},
		    {"denied", NM, CURL, "a.example", 443, NULL, 1000,
		        "198.18.0.2", "older hint"},
		    {"denied", NM, CURL, "a.example", 443, NULL, 3000,
		        "198.18.0.1", NULL},
		    {"allowed", "allowed", CURL, "a.example", 443, NULL, 4000,
		        NULL, NULL},
		};

		for (j = 0; j < 4; j++) {
			strbuf_reset(&line);
			mini_json(&m[j], &line);
			ctl_denials_add_line(&dn, line.s, line.len, 0);
		}
	}
	tap_is_int(dn.lines, 6, "blank lines are not counted");
	tap_is_int(dn.bad, 2, "bad lines counted");
	tap_is_int(dn.other, 1, "allowed records counted apart");
	tap_ok(dn.n == 1 && dn.v[0].hint &&
	        strcmp(dn.v[0].hint, "newer hint") == 0,
	    "the most recent record's hint");
	tap_ok(dn.n == 1 && dn.v[0].nips == 2, "distinct addresses kept");
	ctl_denials_free(&dn);
	/* many groups: the hash index grows and keeps every count */
	ctl_denials_init(&dn);
	for (i = 0; i < 3000; i++) {
		struct ctl_record r;
		char host[64];

		memset(&r, 0, sizeof(r));
		snprintf(host, sizeof(host), "h%zu.example", i % 1000);
		r.decision = CTL_DEC_DENIED;
		r.reason = (char *)NM;
		r.exe = (char *)CURL;
		r.host = host;
		r.port = 443;
		r.time_ms = (int64_t)i;
		ctl_denials_add(&dn, &r, 0);
	}
	for (i = 0, j = 0; i < dn.n; i++)
		j += dn.v[i].count == 3;
	tap_ok(dn.n == 1000 && j == 1000, "1000 groups of 3 (got %zu, %zu)",
	    dn.n, j);
	ctl_denials_free(&dn);
	strbuf_free(&sb);
	strbuf_free(&line);
}

/* ------------------------------------------------------------------ */
/* Families and keys */

static void
test_families(void)
{
	static const struct {
		const char *host, *family, *key;
	} cases[] = {
	    {"github.com", "github.com", "github_com"},
	    {"api.github.com", "github.com", "github_com"},
	    {"a.b.c.github.com", "github.com", "github_com"},
	    {"files.pythonhosted.org", "pythonhosted.org", "pythonhosted_org"},
	    {"www.bbc.co.uk", "bbc.co.uk", "bbc_co_uk"},
	    {"bbc.co.uk", "bbc.co.uk", "bbc_co_uk"},
	    {"co.uk", "co.uk", "co_uk"},
	    {"a.b.example.com.au", "example.com.au", "example_com_au"},
	    {"x.gov.uk", "x.gov.uk", "x_gov_uk"},
	    {"a.x.gov.uk", "x.gov.uk", "x_gov_uk"},
	    {"www.u-tokyo.ac.jp", "u-tokyo.ac.jp", "u-tokyo_ac_jp"},
	    {"shop.example.net.br", "example.net.br", "example_net_br"},
	    {"a.example.edu.au", "example.edu.au", "example_edu_au"},
	    {"a.example.org.nz", "example.org.nz", "example_org_nz"},
	    {"a.co.com", "co.com", "co_com"},
	    {"a.example.co", "example.co", "example_co"},
	    {"api.example.io", "example.io", "example_io"},
	    {"a.uk.com", "uk.com", "uk_com"},
	    {"a.ltd.uk", "ltd.uk", "ltd_uk"},
	    {"localhost", "localhost", "localhost"},
	    {"intranet.corp", "intranet.corp", "intranet_corp"},
	    {"xn--bcher-kva.example", "xn--bcher-kva.example",
	        "xn--bcher-kva_example"},
	    {"a.b.c.d.e.net", "e.net", "e_net"},
	};
	char fam[HOSTNAME_MAX + 1], key[CTL_PROPOSE_KEY_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ctl_propose_family(cases[i].host, fam, sizeof(fam));
		tap_is_str(fam, cases[i].family, "family of %s", cases[i].host);
		ctl_propose_key(fam, key, sizeof(key));
		tap_is_str(key, cases[i].key, "key of %s", cases[i].host);
	}
	ctl_propose_key(
	    "a-very-long-label-that-goes-on-and-on-and-on-and-on-and-on.example",
	    key, sizeof(key));
	tap_is_int(strlen(key), CTL_PROPOSE_KEY_MAX - 8,
	    "long keys are cut, leaving room for a suffix");
}

/* ------------------------------------------------------------------ */
/* Grouping into blocks */

struct grp {
	const char *exe, *host;
	int port;
	const char *reason;
	int denied, would_deny;
	const char *ip;
};

#define MAXG 8

struct pcase {
	const char *name;
	struct grp in[MAXG];
	const char *want;
};

#define G(exe, host, port, reason) \
	{ \
		exe, host, port, reason, 1, 0, NULL \
	}
#define PY   "/usr/bin/python3.11"
#define SSH  "/usr/bin/ssh"
#define RAW  "raw_tcp_not_allowed"
#define IPNA "ip_not_allowed"

static const struct pcase pcases[] = {
    {"nothing", {{0}}, ""},
    {"one host", {G(CURL, "example.org", 443, NM)},
        "example_org[/usr/bin/curl] example.org:443"},
    {"ports of a host merge, sorted",
        {G(CURL, "example.org", 443, NM), G(CURL, "example.org", 80, NM),
            G(CURL, "example.org", 8080, "port_not_allowed")},
        "example_org[/usr/bin/curl] example.org:80,443,8080"},
    {"one family, one block, endpoints sorted",
        {G(CURL, "github.com", 443, NM), G(CURL, "api.github.com", 443, NM),
            G(CURL, "codeload.github.com", 443, NM)},
        "github_com[/usr/bin/curl] api.github.com:443 codeload.github.com:443 "
        "github.com:443"},
    {"binary sets split a family, keys made unique",
        {G(CURL, "example.org", 443, NM), G(WGET, "example.org", 443, NM),
            G(CURL, "example.org", 80, NM)},
        "example_org[/usr/bin/curl] example.org:80 | "
        "example_org_2[/usr/bin/curl,/usr/bin/wget] example.org:443"},
    {"families sorted, IP blocks last",
        {G(CURL, "8.8.8.8", 443, IPNA), G(CURL, "zeta.example", 443, NM),
            G(CURL, "alpha.example", 443, NM)},
        "alpha_example[/usr/bin/curl] alpha.example:443 | "
        "zeta_example[/usr/bin/curl] zeta.example:443 | "
        "ip_addresses[/usr/bin/curl] 8.8.8.8:443"},
    {"IP blocks per binary set",
        {G(CURL, "8.8.8.8", 443, IPNA), G(WGET, "8.8.4.4", 443, IPNA)},
        "ip_addresses[/usr/bin/curl] 8.8.8.8:443 | "
        "ip_addresses_2[/usr/bin/wget] 8.8.4.4:443"},
    {"never: loopback, metadata, link-local, unspecified",
        {G(CURL, "127.0.0.1", 8080, IPNA), G(CURL, "::1", 8080, IPNA),
            G(CURL, "169.254.169.254", 80, IPNA),
            G(CURL, "169.254.1.1", 80, IPNA), G(CURL, "0.0.0.0", 80, IPNA),
            G(CURL, "::ffff:127.0.0.1", 80, IPNA)},
        "skip ip_not_allowed 1 | skip ip_not_allowed 1 | "
        "skip ip_not_allowed 1 | skip ip_not_allowed 1 | "
        "skip ip_not_allowed 1 | skip ip_not_allowed 1"},
    {"private and ULA literals get allowed_ips",
        {G(CURL, "10.1.2.3", 5432, IPNA), G(CURL, "fd00::1", 443, IPNA)},
        "ip_addresses[/usr/bin/curl] 10.1.2.3:5432{ips=10.1.2.3/32}{risky} "
        "fd00::1:443{ips=fd00::1/128}{risky}"},
    {"recorded addresses: never skips, private opens, public nothing",
        {{CURL, "db.example", 5432, NM, 1, 0, "10.0.0.7"},
            {CURL, "local.example", 80, NM, 1, 0, "127.0.0.1"},
            {CURL, "meta.example", 80, NM, 1, 0, "169.254.169.254"},
            {CURL, "www.example", 443, NM, 1, 0, "8.8.8.8"}},
        "db_example[/usr/bin/curl] db.example:5432{ips=10.0.0.7/32}{risky} | "
        "www_example[/usr/bin/curl] www.example:443 | "
        "skip no_matching_policy 1 | skip no_matching_policy 1"},
    {"reasons no policy fixes",
        {G(NULL, "exfil.example", 53, "dns_name_not_allowed"),
            G(CURL, "a.example", 443, "identity_no_socket"),
            G(CURL, "a.example", 443, "timeout"),
            G(CURL, "a.example", 443, "tls_hello_invalid"),
            G(CURL, "a.example", 443, "explicit_deny"),
            G(CURL, "a.example", 443, "binary_hash_mismatch"),
            G(CURL, "a.example", 443, "some_future_reason")},
        "skip binary_hash_mismatch 1 | skip dns_name_not_allowed 1 | "
        "skip explicit_deny 1 | skip identity_no_socket 1 | "
        "skip some_future_reason 1 | skip timeout 1 | "
        "skip tls_hello_invalid 1"},
    {"binaries a policy cannot name literally",
        {G(NULL, "a.example", 443, NM), G("/usr/bin/*", "a.example", 443, NM),
            G("usr/bin/curl", "a.example", 443, NM),
            G("/opt/my tool", "a.example", 443, NM),
            G("/opt/caf\xc3\xa9", "a.example", 443, NM),
            G("/opt/q\"uote", "a.example", 443, NM),
            G("/opt/../bin/x", "a.example", 443, NM)},
        "skip no_matching_policy 6 | skip no_matching_policy 1"},
    {"fixable reasons are all proposed",
        {G(CURL, "a.example", 1, NM),
            G(CURL, "a.example", 2, "port_not_allowed"),
            G(CURL, "a.example", 3, "binary_not_allowed"),
            G(CURL, "a.example", 4, "binary_symlink"),
            G(CURL, "a.example", 5, "binary_is_script"),
            G(CURL, "a.example", 6, RAW), G(CURL, "8.8.8.8", 7, IPNA)},
        "a_example[/usr/bin/curl] a.example:1,2,3,4,5 a.example:6{tcp} | "
        "ip_addresses[/usr/bin/curl] 8.8.8.8:7"},
    {"raw TCP stays apart from TLS on the same host",
        {G(SSH, "github.com", 22, RAW), G(SSH, "github.com", 443, NM)},
        "github_com[/usr/bin/ssh] github.com:443 github.com:22{tcp}"},
    {"the set of binaries for a host and port is every binary seen",
        {G(CURL, "pypi.org", 443, NM),
            G(PY, "pypi.org", 443, "binary_is_script"),
            G(PY, "pypi.org", 443, "binary_not_allowed")},
        "pypi_org[/usr/bin/curl,/usr/bin/python3.11] pypi.org:443"},
    {"audit only when only would_deny was seen",
        {{CURL, "a.example", 443, NM, 0, 2, NULL},
            {CURL, "a.example", 80, NM, 1, 1, NULL}},
        "a_example[/usr/bin/curl] a.example:80,443{audit=443}"},
    {"shared-content hosts flagged",
        {G(CURL, "objects.githubusercontent.com", 443, NM),
            G(CURL, "bucket.s3.amazonaws.com", 443, NM)},
        "amazonaws_com[/usr/bin/curl] "
        "bucket.s3.amazonaws.com:443{shared=amazonaws.com} | "
        "githubusercontent_com[/usr/bin/curl] "
        "objects.githubusercontent.com:443{shared=githubusercontent.com}"},
    {"no host or port recorded",
        {G(CURL, NULL, 443, NM), G(CURL, "a.example", 0, NM),
            G(CURL, "bad_host!", 443, NM)},
        "skip no_matching_policy 2 | skip no_matching_policy 1"},
};

static void
fill(struct ctl_denials *dn, const struct grp *in, size_t max)
{
	size_t j;
	int k;

	ctl_denials_init(dn);
	for (j = 0; j < max && (in[j].exe || in[j].host); j++) {
		struct ctl_record r;

		memset(&r, 0, sizeof(r));
		r.reason = in[j].reason ? strdup(in[j].reason) : NULL;
		r.why = reason_from_code(in[j].reason);
		r.exe = in[j].exe ? strdup(in[j].exe) : NULL;
		r.host = in[j].host ? strdup(in[j].host) : NULL;
		r.port = in[j].port;
		r.dst_ip = in[j].ip ? strdup(in[j].ip) : NULL;
		r.time_ms = (int64_t)j + 1;
		r.decision = CTL_DEC_DENIED;
		for (k = 0; k < in[j].denied; k++)
			ctl_denials_add(dn, &r, 0);
		r.decision = CTL_DEC_WOULD_DENY;
		for (k = 0; k < in[j].would_deny; k++)
			ctl_denials_add(dn, &r, 0);
		ctl_record_free(&r);
	}
	ctl_denials_sort(dn);
}

static void
proposal_summary(const struct ctl_proposal *pr, struct strbuf *sb)
{
	size_t i, j, k;
	const char *sep = "";

	for (i = 0; i < pr->nblocks; i++, sep = " | ") {
		const struct ctl_prop_block *b = &pr->blocks[i];

		strbuf_printf(sb, "%s%s[", sep, b->key);
		for (j = 0; j < b->nbinaries; j++)
			strbuf_printf(sb, "%s%s", j ? "," : "", b->binaries[j]);
		strbuf_putc(sb, ']');
		for (j = 0; j < b->nendpoints; j++) {
			const struct ctl_prop_endpoint *e = &b->endpoints[j];
			bool audit = false;

			strbuf_printf(sb, " %s:", e->host);
			for (k = 0; k < e->nports; k++)
				strbuf_printf(
				    sb, "%s%u", k ? "," : "", e->ports[k].port);
			if (e->tcp)
				strbuf_puts(sb, "{tcp}");
			for (k = 0; k < e->nallowed_ips; k++)
				strbuf_printf(
				    sb, "{ips=%s}", e->allowed_ips[k]);
			if (e->risky)
				strbuf_puts(sb, "{risky}");
			for (k = 0; k < e->nports; k++)
				if (e->ports[k].audit_only) {
					strbuf_printf(sb, "%s%u",
					    audit ? "," : "{audit=",
					    e->ports[k].port);
					audit = true;
				}
			if (audit)
				strbuf_putc(sb, '}');
			if (e->shared)
				strbuf_printf(sb, "{shared=%s}", e->shared);
			if (e->rest)
				strbuf_printf(sb, "{rest=%s}",
				    policy_access_name(e->access));
			if (e->enforcement == ENFORCE_AUDIT)
				strbuf_puts(sb, "{enf=audit}");
			if (e->rules_elsewhere)
				strbuf_puts(sb, "{rules}");
		}
	}
	for (i = 0; i < pr->nskips; i++, sep = " | ")
		strbuf_printf(sb, "%sskip %s %zu", sep, pr->skips[i].reason,
		    pr->skips[i].count);
}

static void
test_grouping(void)
{
	struct ctl_denials dn;
	struct ctl_proposal pr;
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	for (i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		fill(&dn, pcases[i].in, MAXG);
		ctl_propose_build(&dn, NULL, &pr);
		strbuf_reset(&sb);
		proposal_summary(&pr, &sb);
		tap_is_str(strbuf_str(&sb), pcases[i].want, "propose: %s",
		    pcases[i].name);
		ctl_proposal_free(&pr);
		ctl_denials_free(&dn);
	}
	strbuf_free(&sb);
}

/* --merge: keys avoid the policy's, allowed endpoints drop out, settings
 * of the endpoint already naming the host are copied. */
static void
test_merge(void)
{
	static const char text[] =
	    "network_policies:\n"
	    "  example_org:\n"
	    "    endpoints: [{ host: example.org, port: 443 }]\n"
	    "    binaries: [{ path: /usr/bin/curl }]\n"
	    "  example_org_2:\n"
	    "    endpoints: [{ host: other.example, port: 443 }]\n"
	    "    binaries: [{ path: /usr/bin/curl }]\n"
	    "  pypi:\n"
	    "    endpoints:\n"
	    "      - { host: pypi.org, port: 443, protocol: rest, access: read-only, enforcement: audit }\n"
	    "      - host: api.example.net\n"
	    "        port: 443\n"
	    "        protocol: rest\n"
	    "        rules: [{ allow: { method: GET, path: /v1/** } }]\n"
	    "    binaries: [{ path: /usr/bin/python3.12 }]\n"
	    "  ssh:\n"
	    "    endpoints: [{ host: github.com, port: 22, protocol: tcp }]\n"
	    "    binaries: [{ path: /usr/bin/ssh }]\n";
	static const struct grp in[] = {
	    G(CURL, "example.org", 443, NM), /* already allowed */
	    G(CURL, "example.org", 80, NM),
	    G(PY, "pypi.org", 443, "binary_not_allowed"),
	    G(PY, "pypi.org", 8443, "port_not_allowed"),
	    G(PY, "api.example.net", 443, "binary_not_allowed"),
	    G(SSH, "github.com", 22, RAW), /* already allowed */
	    G(CURL, "github.com", 22, RAW),
	    {0},
	};
	struct policy_load_opts opts = {NULL, true};
	struct ctl_denials dn;
	struct ctl_proposal pr;
	struct diags d;
	struct policy *p;
	struct strbuf sb;

	diags_init(&d, "merge.yaml");
	p = policy_load_buffer(text, sizeof(text) - 1, "merge.yaml", &opts, &d);
	tap_ok(p != NULL, "merge policy loads");
	diags_free(&d);
	if (p == NULL)
		return;
	fill(&dn, in, sizeof(in) / sizeof(in[0]));
	ctl_propose_build(&dn, p, &pr);
	strbuf_init(&sb, 0);
	proposal_summary(&pr, &sb);
	tap_is_str(strbuf_str(&sb),
	    "example_net[/usr/bin/python3.11] api.example.net:443{rules} | "
	    "example_org_3[/usr/bin/curl] example.org:80 | "
	    "github_com[/usr/bin/curl] github.com:22{tcp} | "
	    "pypi_org[/usr/bin/python3.11] "
	    "pypi.org:443,8443{rest=read-only}{enf=audit}",
	    "merge: keys, already allowed, copied settings");
	tap_is_int(pr.already, 2, "merge: two already allowed");
	strbuf_reset(&sb);
	ctl_propose_format(&pr, p, "test", &sb);
	tap_ok(strstr(sb.s, "  # proposed by egressctl:\n  example_net:\n") !=
	        NULL,
	    "merge output: new blocks after the policy");
	tap_ok(strstr(sb.s,
	           "inspects requests to api.example.net with rules") != NULL,
	    "merge output: rules pointed at, not copied");
	{
		/* the merged output loads */
		struct policy *m;

		diags_init(&d, "merged");
		m = policy_load_buffer(sb.s, sb.len, "merged", &opts, &d);
		tap_ok(m != NULL && m->nblocks == 8,
		    "merged output loads with 4 + 4 blocks");
		policy_unref(m);
		diags_free(&d);
	}
	strbuf_free(&sb);
	ctl_proposal_free(&pr);
	ctl_denials_free(&dn);
	policy_unref(p);
}

/* Every proposal of the table loads with the policy loader. */
static void
test_loadable(void)
{
	struct policy_load_opts opts = {NULL, true};
	struct ctl_denials dn;
	struct ctl_proposal pr;
	struct strbuf sb;
	struct diags d;
	size_t i, bad = 0;

	strbuf_init(&sb, 0);
	for (i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		struct policy *p;

		fill(&dn, pcases[i].in, MAXG);
		ctl_propose_build(&dn, NULL, &pr);
		strbuf_reset(&sb);
		ctl_propose_format(&pr, NULL, "test", &sb);
		diags_init(&d, "proposal");
		p = policy_load_buffer(sb.s, sb.len, "proposal", &opts, &d);
		if (p == NULL || p->nblocks != pr.nblocks) {
			struct strbuf e;

			strbuf_init(&e, 0);
			diags_format(&d, &e);
			tap_diag(
			    "%s:\n%s%s", pcases[i].name, sb.s, strbuf_str(&e));
			strbuf_free(&e);
			bad++;
		}
		policy_unref(p);
		diags_free(&d);
		ctl_proposal_free(&pr);
		ctl_denials_free(&dn);
	}
	tap_is_int(bad, 0, "every proposal in the table loads");
	strbuf_free(&sb);
}

/* ------------------------------------------------------------------ */
/* The control socket, with nothing behind it */

static void
test_unreachable(void)
{
	char dir[] = "/tmp/test_ctl.XXXXXX", path[80], err[1024];
	struct sockaddr_un sun;
	int fd;

	if (mkdtemp(dir) == NULL) {
		tap_ok(false, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/missing.sock", dir);
	tap_is_int(
	    ctl_client_connect(path, ", or use --log FILE", err, sizeof(err)),
	    -1, "no socket file: -1");
	tap_ok(strstr(err, "cannot reach egressd at ") == err &&
	        strstr(err,
	            "No such file or directory (is egressd running? start it") &&
	        strstr(err, ", or use --log FILE)"),
	    "no socket file: the message says what to do (%s)", err);
	/* a socket file whose listener is gone: ECONNREFUSED */
	snprintf(path, sizeof(path), "%s/stale.sock", dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	tap_ok(fd != -1 && bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0,
	    "stale socket file made");
	close(fd);
	tap_is_int(ctl_client_connect(path, NULL, err, sizeof(err)), -1,
	    "stale socket: -1");
	tap_ok(strstr(err, "Connection refused (is egressd running?") != NULL,
	    "stale socket: connection refused, and advice (%s)", err);
	unlink(path);
	rmdir(dir);
	tap_ok(
	    ctl_client_connect("/tmp/" /* too long for sun_path */
	                       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	                       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	                       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	        NULL, err, sizeof(err)) == -1 &&
	        strstr(err, "longer than a Unix socket address allows"),
	    "over-long path");
	setenv("EGRESSD_CONTROL", "/run/x.sock", 1);
	tap_is_str(ctl_client_path(NULL), "/run/x.sock", "EGRESSD_CONTROL");
	tap_is_str(ctl_client_path("/y"), "/y", "--control wins");
	setenv("EGRESSD_CONTROL", "", 1);
	tap_is_str(ctl_client_path(NULL), CTL_CLIENT_DEFAULT_PATH,
	    "empty EGRESSD_CONTROL: the default");
}

int
main(void)
{
	test_durations();
	test_text();
	test_record_parse();
	test_aggregation();
	test_families();
	test_grouping();
	test_merge();
	test_loadable();
	test_unreachable();
	return tap_done();
}
