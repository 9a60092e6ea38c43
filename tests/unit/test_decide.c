/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for policies/decide.c: a table of callers and destinations
 * against one policy (binary paths resolved under tests/golden/root, so the
 * symlink and script facts are real), hint wording, and mode invariants over
 * every combination of hosts, ports, binaries and overrides.
 */
#include <sys/socket.h>

#include "decide.h"
#include "policy.h"
#include "strbuf.h"
#include "tap.h"

#define PIN "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

static const char policy_text[] =
    "version: 1\n"
    "network_policies:\n"
    "  github:\n"
    "    endpoints:\n"
    "      - { host: github.com, port: 443, protocol: rest, access: full, enforcement: audit }\n"
    "      - { host: api.github.com, port: 443, protocol: rest, access: full, enforcement: audit }\n"
    "      - { host: objects.githubusercontent.com, port: 443, protocol: rest, access: read-only, enforcement: audit }\n"
    "    binaries:\n"
    "      - path: /usr/lib/git-core/git-remote-http\n"
    "      - path: /usr/bin/curl\n"
    "  git_symlink:\n"
    "    endpoints:\n"
    "      - { host: gitlab.com, port: 443 }\n"
    "    binaries:\n"
    "      - path: /usr/lib/git-core/git-remote-https\n"
    "  pypi:\n"
    "    endpoints:\n"
    "      - { host: pypi.org, port: 443, protocol: rest, access: read-only }\n"
    "    binaries:\n"
    "      - path: /usr/bin/pip3\n"
    "  python:\n"
    "    endpoints:\n"
    "      - { host: \"*.python.org\", ports: [80, 443] }\n"
    "    binaries:\n"
    "      - path: /usr/bin/python3.11\n"
    "  wild:\n"
    "    endpoints:\n"
    "      - { host: \"**.example.com\", ports: [\"8000-8100\"] }\n"
    "      - { host: 198.51.100.0/24, port: 443 }\n"
    "      - { host: \"2001:db8::7\", port: 443 }\n"
    "      - { host: ssh.example.org, port: 22, protocol: tcp }\n"
    "      - { host: web.example.org, port: 443 }\n"
    "    binaries:\n"
    "      - path: /usr/bin/*\n"
    "  pinned:\n"
    "    endpoints:\n"
    "      - { host: pinned.example.net, port: 443 }\n"
    "    binaries:\n"
    "      - { path: /usr/bin/gh, sha256: \"" PIN "\" }\n"
    "  anc:\n"
    "    endpoints:\n"
    "      - { host: build.example.net, port: 443 }\n"
    "    binaries:\n"
    "      - { path: /usr/bin/node, ancestors: true }\n"
    "  blocked:\n"
    "    action: deny\n"
    "    endpoints:\n"
    "      - { host: evil.example.com, ports: [\"1-65535\"] }\n"
    "      - { host: objects.githubusercontent.com, port: 443, enforcement: audit }\n"
    "    binaries:\n"
    "      - path: /usr/bin/gh\n"
    "      - path: /usr/bin/curl\n"
    "  gateway:\n"
    "    endpoints:\n"
    "      - { host: gw.example.net, port: 443 }\n"
    "    clients: [192.0.2.0/24]\n"
    "  both:\n"
    "    endpoints: [{ host: both.example.net, port: 443 }]\n"
    "    clients: [192.0.2.0/24]\n"
    "    binaries: [{ path: /usr/bin/curl }]\n"
    "  mixed_audit:\n"
    "    endpoints: [{ host: mixed.example.net, port: 443, enforcement: audit }]\n"
    "    binaries: [{ path: /usr/bin/curl }]\n"
    "  mixed_enforce:\n"
    "    endpoints: [{ host: mixed.example.net, port: 443 }]\n"
    "    binaries: [{ path: /usr/bin/gh }]\n";

#define CURL "/usr/bin/curl"
#define GH   "/usr/bin/gh"
#define PY   "/usr/bin/python3.11"
#define GIT  "/usr/lib/git-core/git-remote-http"
#define GITS "/usr/lib/git-core/git-remote-https"

enum sha_kind { SHA_NONE, SHA_GOOD, SHA_BAD };

struct dcase {
	const char *name;
	const char *exe, *invoked_as, *ancestor, *src;
	enum sha_kind sha;
	enum reason identity_err;
	const char *host;
	uint16_t port;
	enum decide_source source;
	enum decide_override override;
	enum verdict verdict;
	enum reason reason;
	const char *block; /* expected block key, or NULL for none */
};

#define C   DECIDE_SRC_CONNECT
#define POL DECIDE_MODE_POLICY
#define ENF DECIDE_MODE_ENFORCE
#define AUD DECIDE_MODE_AUDIT
#define OK  REASON_ALLOWED

static const struct dcase cases[] = {
    {"git clones from github", GIT, 0, 0, 0, 0, OK, "github.com", 443, C, POL,
        VERDICT_ALLOW, OK, "github"},
    {"audit deny block: curl reads objects", CURL, 0, 0, 0, 0, OK,
        "objects.githubusercontent.com", 443, C, POL, VERDICT_AUDIT,
        REASON_EXPLICIT_DENY, "blocked"},
    {"host case and trailing dot", GIT, 0, 0, 0, 0, OK, "GitHub.COM.", 443, C,
        POL, VERDICT_ALLOW, OK, "github"},
    {"python not listed, audit endpoint", PY, 0, 0, 0, 0, OK, "github.com", 443,
        C, POL, VERDICT_AUDIT, REASON_BINARY_NOT_ALLOWED, "github"},
    {"python not listed, enforce-all", PY, 0, 0, 0, 0, OK, "github.com", 443, C,
        ENF, VERDICT_DENY, REASON_BINARY_NOT_ALLOWED, "github"},
    {"no policy for host", CURL, 0, 0, 0, 0, OK, "example.org", 443, C, POL,
        VERDICT_DENY, REASON_NO_MATCHING_POLICY, NULL},
    {"no policy for host, audit-all", CURL, 0, 0, 0, 0, OK, "example.org", 443,
        C, AUD, VERDICT_AUDIT, REASON_NO_MATCHING_POLICY, NULL},
    {"wrong port (audit endpoint, enforce default)", CURL, 0, 0, 0, 0, OK,
        "github.com", 8443, C, POL, VERDICT_DENY, REASON_PORT_NOT_ALLOWED,
        "github"},
    {"policy names a symlink", GIT, 0, 0, 0, 0, OK, "gitlab.com", 443, C, POL,
        VERDICT_DENY, REASON_BINARY_SYMLINK, "git_symlink"},
    {"invoked through a symlink the policy names", PY, GITS, 0, 0, 0, OK,
        "gitlab.com", 443, C, POL, VERDICT_DENY, REASON_BINARY_SYMLINK,
        "git_symlink"},
    {"policy names a script", PY, 0, 0, 0, 0, OK, "pypi.org", 443, C, POL,
        VERDICT_DENY, REASON_BINARY_IS_SCRIPT, "pypi"},
    {"one-label wildcard", PY, 0, 0, 0, 0, OK, "www.python.org", 443, C, POL,
        VERDICT_ALLOW, OK, "python"},
    {"one-label wildcard, port 80", PY, 0, 0, 0, 0, OK, "docs.python.org", 80,
        C, POL, VERDICT_ALLOW, OK, "python"},
    {"one-label wildcard excludes apex", PY, 0, 0, 0, 0, OK, "python.org", 443,
        C, POL, VERDICT_DENY, REASON_NO_MATCHING_POLICY, NULL},
    {"one-label wildcard excludes two labels", PY, 0, 0, 0, 0, OK,
        "a.b.python.org", 443, C, POL, VERDICT_DENY, REASON_NO_MATCHING_POLICY,
        NULL},
    {"one-label wildcard dot boundary", PY, 0, 0, 0, 0, OK, "evilpython.org",
        443, C, POL, VERDICT_DENY, REASON_NO_MATCHING_POLICY, NULL},
    {"any-label wildcard, range low", CURL, 0, 0, 0, 0, OK, "a.b.example.com",
        8000, C, POL, VERDICT_ALLOW, OK, "wild"},
    {"any-label wildcard, range high", CURL, 0, 0, 0, 0, OK, "a.example.com",
        8100, C, POL, VERDICT_ALLOW, OK, "wild"},
    {"any-label wildcard, above range", CURL, 0, 0, 0, 0, OK, "a.example.com",
        8101, C, POL, VERDICT_DENY, REASON_PORT_NOT_ALLOWED, "wild"},
    {"any-label wildcard excludes apex", CURL, 0, 0, 0, 0, OK, "example.com",
        8050, C, POL, VERDICT_DENY, REASON_NO_MATCHING_POLICY, NULL},
    {"IP rule", CURL, 0, 0, 0, 0, OK, "198.51.100.9", 443, C, POL,
        VERDICT_ALLOW, OK, "wild"},
    {"IP outside rule", CURL, 0, 0, 0, 0, OK, "198.51.101.9", 443, C, POL,
        VERDICT_DENY, REASON_IP_NOT_ALLOWED, NULL},
    {"IPv6 rule", CURL, 0, 0, 0, 0, OK, "[2001:db8::7]", 443, C, POL,
        VERDICT_ALLOW, OK, "wild"},
    {"IPv4-mapped is not the IPv4 rule", CURL, 0, 0, 0, 0, OK,
        "[::ffff:198.51.100.9]", 443, C, POL, VERDICT_DENY,
        REASON_IP_NOT_ALLOWED, NULL},
    {"name rule never matches IP", GIT, 0, 0, 0, 0, OK, "140.82.112.3", 443, C,
        POL, VERDICT_DENY, REASON_IP_NOT_ALLOWED, NULL},
    {"raw TCP allowed by protocol tcp", CURL, 0, 0, 0, 0, OK, "ssh.example.org",
        22, DECIDE_SRC_DNS, POL, VERDICT_ALLOW, OK, "wild"},
    {"raw TCP refused on L4 endpoint", CURL, 0, 0, 0, 0, OK, "web.example.org",
        443, DECIDE_SRC_DNS, POL, VERDICT_DENY, REASON_RAW_TCP_NOT_ALLOWED,
        "wild"},
    {"raw TCP by address refused", CURL, 0, 0, 0, 0, OK, "198.51.100.9", 443,
        DECIDE_SRC_ADDR, POL, VERDICT_DENY, REASON_RAW_TCP_NOT_ALLOWED, "wild"},
    {"same endpoint by SNI allowed", CURL, 0, 0, 0, 0, OK, "web.example.org",
        443, DECIDE_SRC_SNI, POL, VERDICT_ALLOW, OK, "wild"},
    {"raw TCP on rest endpoint, audit", GIT, 0, 0, 0, 0, OK, "github.com", 443,
        DECIDE_SRC_DNS, POL, VERDICT_AUDIT, REASON_RAW_TCP_NOT_ALLOWED,
        "github"},
    {"glob is one component", "/usr/local/bin/curl", 0, 0, 0, 0, OK,
        "a.example.com", 8050, C, POL, VERDICT_DENY, REASON_BINARY_NOT_ALLOWED,
        "wild"},
    {"pinned hash not computed", GH, 0, 0, 0, SHA_NONE, OK,
        "pinned.example.net", 443, C, POL, VERDICT_DENY,
        REASON_BINARY_HASH_UNAVAILABLE, "pinned"},
    {"pinned hash differs", GH, 0, 0, 0, SHA_BAD, OK, "pinned.example.net", 443,
        C, POL, VERDICT_DENY, REASON_BINARY_HASH_MISMATCH, "pinned"},
    {"pinned hash matches", GH, 0, 0, 0, SHA_GOOD, OK, "pinned.example.net",
        443, C, POL, VERDICT_ALLOW, OK, "pinned"},
    {"ancestor opt-in", "/usr/bin/cc", 0, "/usr/bin/node", 0, 0, OK,
        "build.example.net", 443, C, POL, VERDICT_ALLOW, OK, "anc"},
    {"without the ancestor", "/usr/bin/cc", 0, 0, 0, 0, OK, "build.example.net",
        443, C, POL, VERDICT_DENY, REASON_BINARY_NOT_ALLOWED, "anc"},
    {"ancestor of another block does not count", "/usr/bin/cc", 0, GIT, 0, 0,
        OK, "github.com", 443, C, POL, VERDICT_AUDIT, REASON_BINARY_NOT_ALLOWED,
        "github"},
    {"explicit deny beats allow", CURL, 0, 0, 0, 0, OK, "evil.example.com",
        8050, C, POL, VERDICT_DENY, REASON_EXPLICIT_DENY, "blocked"},
    {"explicit deny in audit mode", CURL, 0, 0, 0, 0, OK,
        "objects.githubusercontent.com", 443, C, ENF, VERDICT_DENY,
        REASON_EXPLICIT_DENY, "blocked"},
    {"explicit deny, audit-all", CURL, 0, 0, 0, 0, OK, "evil.example.com", 8050,
        C, AUD, VERDICT_AUDIT, REASON_EXPLICIT_DENY, "blocked"},
    {"deny block for other binaries only", GIT, 0, 0, 0, 0, OK,
        "objects.githubusercontent.com", 443, C, POL, VERDICT_ALLOW, OK,
        "github"},
    {"identity failure on audit endpoint", 0, 0, 0, 0, 0,
        REASON_IDENTITY_NO_OWNER, "github.com", 443, C, POL, VERDICT_AUDIT,
        REASON_IDENTITY_NO_OWNER, "github"},
    {"identity failure elsewhere", 0, 0, 0, 0, 0, REASON_IDENTITY_AMBIGUOUS,
        "example.org", 443, C, POL, VERDICT_DENY, REASON_IDENTITY_AMBIGUOUS,
        NULL},
    {"identity failure, enforce-all", 0, 0, 0, 0, 0, REASON_IDENTITY_NO_OWNER,
        "github.com", 443, C, ENF, VERDICT_DENY, REASON_IDENTITY_NO_OWNER,
        "github"},
    {"gateway client in range", 0, 0, 0, "192.0.2.5", 0, OK, "gw.example.net",
        443, C, POL, VERDICT_ALLOW, OK, "gateway"},
    {"gateway client out of range", 0, 0, 0, "203.0.113.5", 0, OK,
        "gw.example.net", 443, C, POL, VERDICT_DENY, REASON_CLIENT_NOT_ALLOWED,
        "gateway"},
    {"gateway client unknown source", 0, 0, 0, 0, 0, OK, "gw.example.net", 443,
        C, POL, VERDICT_DENY, REASON_CLIENT_NOT_ALLOWED, "gateway"},
    {"client and binary both match", CURL, 0, 0, "192.0.2.9", 0, OK,
        "both.example.net", 443, C, POL, VERDICT_ALLOW, OK, "both"},
    {"client matches, binary does not", GH, 0, 0, "192.0.2.9", 0, OK,
        "both.example.net", 443, C, POL, VERDICT_DENY,
        REASON_BINARY_NOT_ALLOWED, "both"},
    {"binary matches, client does not", CURL, 0, 0, "198.51.100.1", 0, OK,
        "both.example.net", 443, C, POL, VERDICT_DENY,
        REASON_CLIENT_NOT_ALLOWED, "both"},
    {"mixed modes: enforce wins", PY, 0, 0, 0, 0, OK, "mixed.example.net", 443,
        C, POL, VERDICT_DENY, REASON_BINARY_NOT_ALLOWED, "mixed_audit"},
    {"mixed modes: allowed by audit block", CURL, 0, 0, 0, 0, OK,
        "mixed.example.net", 443, C, POL, VERDICT_ALLOW, OK, "mixed_audit"},
    {"mixed modes: allowed by enforce block", GH, 0, 0, 0, 0, OK,
        "mixed.example.net", 443, C, POL, VERDICT_ALLOW, OK, "mixed_enforce"},
    {"allowed stays allowed under enforce-all", GIT, 0, 0, 0, 0, OK,
        "github.com", 443, C, ENF, VERDICT_ALLOW, OK, "github"},
    {"allowed stays allowed under audit-all", GIT, 0, 0, 0, 0, OK, "github.com",
        443, C, AUD, VERDICT_ALLOW, OK, "github"},
};

static struct policy *
load(void)
{
	struct policy_load_opts opts = {"tests/golden/root", false};
	struct diags d;
	struct policy *p;
	struct strbuf sb;

	diags_init(&d, "test_decide");
	p = policy_load_buffer(policy_text, sizeof(policy_text) - 1,
	    "test_decide.yaml", &opts, &d);
	if (p == NULL) {
		strbuf_init(&sb, 0);
		diags_format(&d, &sb);
		printf("%s", strbuf_str(&sb));
		strbuf_free(&sb);
	}
	diags_free(&d);
	return p;
}

static void
set_caller(const struct dcase *c, struct decide_caller *dc, struct addr *src,
    const char **anc, uint8_t *sha)
{
	size_t i;

	memset(dc, 0, sizeof(*dc));
	dc->exe = c->exe;
	dc->invoked_as = c->invoked_as;
	dc->identity_err = c->identity_err;
	if (c->ancestor) {
		anc[0] = c->ancestor;
		dc->ancestors = anc;
		dc->nancestors = 1;
	}
	if (c->src && addr_parse(c->src, strlen(c->src), src))
		dc->src = src;
	for (i = 0; i < 32; i++) {
		unsigned v;

		sscanf(PIN + 2 * i, "%2x", &v);
		sha[i] = (uint8_t)v;
	}
	if (c->sha == SHA_BAD)
		sha[0] ^= 1;
	if (c->sha != SHA_NONE)
		dc->sha256 = sha;
}

static void
test_table(const struct policy *p)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct dcase *c = &cases[i];
		struct decide_caller dc;
		struct decide_dest dd;
		struct decision out;
		struct hostname h;
		struct addr src;
		const char *anc[1];
		uint8_t sha[32];

		set_caller(c, &dc, &src, anc, sha);
		if (hostname_normalize(c->host, strlen(c->host), &h) !=
		    HOSTNAME_OK) {
			tap_ok(false, "%s: host parses", c->name);
			continue;
		}
		dd.host = &h;
		dd.port = c->port;
		dd.source = c->source;
		decide(p, &dc, &dd, c->override, &out);
		tap_is_str(verdict_name(out.verdict), verdict_name(c->verdict),
		    "%s: verdict", c->name);
		tap_is_str(reason_code(out.reason), reason_code(c->reason),
		    "%s: reason", c->name);
		tap_is_str(out.block ? out.block->key : NULL, c->block,
		    "%s: block", c->name);
		tap_ok(out.reason_text[0] != '\0', "%s: has a reason text",
		    c->name);
		if (c->verdict != VERDICT_ALLOW)
			tap_ok(out.hint[0] != '\0', "%s: has a hint", c->name);
	}
}

/* Specific wording that operators rely on. */
/* Each identity failure gets advice about its own cause. */
static void
test_identity_hints(const struct policy *p, struct decide_dest *dd)
{
	static const struct {
		enum reason err;
		const char *want;
	} idcases[] = {
	    {REASON_IDENTITY_NO_OWNER, "the caller exited"},
	    {REASON_IDENTITY_AMBIGUOUS, "different executables hold"},
	    {REASON_IDENTITY_PID_REUSED, "pid was reused"},
	    {REASON_IDENTITY_UNREADABLE, "must run as root"},
	    {REASON_IDENTITY_NO_SOCKET, "must run as root"},
	    {REASON_IDENTITY_FAILED, "must run as root"},
	};
	struct decide_caller dc;
	struct decision out;
	size_t i;

	memset(&dc, 0, sizeof(dc));
	for (i = 0; i < sizeof(idcases) / sizeof(idcases[0]); i++) {
		dc.identity_err = idcases[i].err;
		decide(p, &dc, dd, POL, &out);
		tap_ok(out.reason == idcases[i].err &&
		        strstr(out.hint, idcases[i].want) != NULL,
		    "%s: hint says '%s'", reason_code(idcases[i].err),
		    idcases[i].want);
	}
}

static void
test_hints(const struct policy *p)
{
	struct decide_caller dc;
	struct decide_dest dd;
	struct decision out;
	struct hostname h;

	memset(&dc, 0, sizeof(dc));
	dc.exe = GIT;
	hostname_normalize("gitlab.com", 10, &h);
	dd.host = &h;
	dd.port = 443;
	dd.source = C;
	decide(p, &dc, &dd, POL, &out);
	tap_ok(strstr(out.reason_text,
	           "lists " GITS ", which is a symlink to " GIT) != NULL,
	    "symlink reason names the link and its target");
	tap_ok(strstr(out.hint, "'- path: " GIT "'") != NULL &&
	        strstr(out.hint, "test_decide.yaml:15") != NULL,
	    "symlink hint gives the line to write and where");

	dc.exe = PY;
	hostname_normalize("pypi.org", 8, &h);
	decide(p, &dc, &dd, POL, &out);
	tap_ok(strstr(out.reason_text, "/usr/bin/pip3, a script run by " PY) !=
	        NULL,
	    "script reason names the interpreter");
	tap_ok(strstr(out.hint, "'- path: " PY "'") != NULL,
	    "script hint says to list the interpreter");

	dc.exe = CURL;
	hostname_normalize("example.org", 11, &h);
	decide(p, &dc, &dd, POL, &out);
	tap_ok(
	    strstr(out.hint, "'- { host: example.org, port: 443 }'") != NULL &&
	        strstr(out.hint, CURL) != NULL,
	    "no-match hint gives a ready endpoint for the binary");

	hostname_normalize("github.com", 10, &h);
	dd.port = 8443;
	decide(p, &dc, &dd, POL, &out);
	tap_ok(strstr(out.reason_text, "only on port 443, not 8443") != NULL,
	    "port reason lists the allowed ports");

	dc.exe = PY;
	dd.port = 443;
	decide(p, &dc, &dd, POL, &out);
	tap_ok(strstr(out.hint, "an interpreter") != NULL,
	    "binary hint warns when the binary is an interpreter");
	test_identity_hints(p, &dd);
}

/*
 * Invariants over a grid: the override never changes the reason or whether
 * a connection is allowed; audit-all never denies; enforce-all never
 * audit-allows.
 */
static void
test_invariants(const struct policy *p)
{
	static const char *const hosts[] = {"github.com", "api.github.com",
	    "objects.githubusercontent.com", "gitlab.com", "pypi.org",
	    "www.python.org", "python.org", "a.b.example.com", "example.com",
	    "evil.example.com", "198.51.100.1", "[2001:db8::7]",
	    "ssh.example.org", "web.example.org", "pinned.example.net",
	    "mixed.example.net", "gw.example.net", "unknown.invalid"};
	static const uint16_t ports[] = {22, 80, 443, 8000, 8050, 8443};
	static const char *const exes[] = {
	    GIT, GITS, CURL, GH, PY, "/usr/local/bin/x", NULL};
	static const enum decide_source srcs[] = {
	    DECIDE_SRC_CONNECT, DECIDE_SRC_SNI, DECIDE_SRC_DNS};
	size_t a, b, c, s;
	int combos = 0, bad = 0;

	for (a = 0; a < sizeof(hosts) / sizeof(hosts[0]); a++)
		for (b = 0; b < sizeof(ports) / sizeof(ports[0]); b++)
			for (c = 0; c < sizeof(exes) / sizeof(exes[0]); c++)
				for (s = 0; s < 3; s++) {
					struct decide_caller dc;
					struct decide_dest dd;
					struct decision o[3];
					struct hostname h;
					int m;

					memset(&dc, 0, sizeof(dc));
					dc.exe = exes[c];
					dc.identity_err = exes[c] ?
					    REASON_ALLOWED :
					    REASON_IDENTITY_NO_OWNER;
					hostname_normalize(
					    hosts[a], strlen(hosts[a]), &h);
					dd.host = &h;
					dd.port = ports[b];
					dd.source = srcs[s];
					for (m = 0; m < 3; m++)
						decide(p, &dc, &dd,
						    (enum decide_override)m,
						    &o[m]);
					combos++;
					if (o[1].reason != o[0].reason ||
					    o[2].reason != o[0].reason ||
					    (o[0].verdict == VERDICT_ALLOW) !=
					        (o[1].verdict ==
					            VERDICT_ALLOW) ||
					    (o[0].verdict == VERDICT_ALLOW) !=
					        (o[2].verdict ==
					            VERDICT_ALLOW) ||
					    o[1].verdict == VERDICT_AUDIT ||
					    o[2].verdict == VERDICT_DENY ||
					    (o[0].verdict != VERDICT_ALLOW) !=
					        (o[0].reason !=
					            REASON_ALLOWED)) {
						bad++;
						tap_diag(
						    "invariant broken: %s %s:%u",
						    exes[c] ? exes[c] : "-",
						    hosts[a], ports[b]);
					}
				}
	tap_ok(bad == 0, "mode invariants hold over %d combinations", combos);
}

int
main(void)
{
	struct policy *p = load();

	if (!tap_ok(p != NULL, "test policy loads"))
		return tap_done();
	test_table(p);
	test_hints(p);
	test_invariants(p);
	policy_unref(p);
	return tap_done();
}
