/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for policies/match.c: host pattern compilation and matching
 * (dot boundaries, apex, case, trailing dot, IP versus name), port ranges,
 * binary path globs and pattern overlap. Table-driven.
 */
#include "match.h"
#include "tap.h"

struct compile_case {
	const char *in;
	enum match_err err;
	const char *canon;
};

static const struct compile_case compiles[] = {
    {"github.com", MATCH_OK, "github.com"},
    {"GitHub.COM", MATCH_OK, "github.com"},
    {"github.com.", MATCH_OK, "github.com"},
    {"*.github.com", MATCH_OK, "*.github.com"},
    {"*.GITHUB.com.", MATCH_OK, "*.github.com"},
    {"**.github.com", MATCH_OK, "**.github.com"},
    {"*.co.uk", MATCH_OK, "*.co.uk"},
    {"localhost", MATCH_OK, "localhost"},
    {"198.51.100.7", MATCH_OK, "198.51.100.7"},
    {"2001:db8::7", MATCH_OK, "2001:db8::7"},
    {"[2001:db8::7]", MATCH_OK, "2001:db8::7"},
    {"198.51.100.0/24", MATCH_OK, "198.51.100.0/24"},
    {"2001:db8::/32", MATCH_OK, "2001:db8::/32"},
    {"", MATCH_ERR_EMPTY, NULL},
    {"*", MATCH_ERR_BARE_WILDCARD, NULL},
    {"**", MATCH_ERR_BARE_WILDCARD, NULL},
    {"*.", MATCH_ERR_BARE_WILDCARD, NULL},
    {"**.", MATCH_ERR_BARE_WILDCARD, NULL},
    {"*.com", MATCH_ERR_TLD_WILDCARD, NULL},
    {"**.io", MATCH_ERR_TLD_WILDCARD, NULL},
    {"*.com.", MATCH_ERR_TLD_WILDCARD, NULL},
    {"gith*.com", MATCH_ERR_PARTIAL_LABEL, NULL},
    {"*github.com", MATCH_ERR_PARTIAL_LABEL, NULL},
    {"**github.com", MATCH_ERR_PARTIAL_LABEL, NULL},
    {"git*hub.com", MATCH_ERR_PARTIAL_LABEL, NULL},
    {"***.github.com", MATCH_ERR_PARTIAL_LABEL, NULL},
    {"*.git*.com", MATCH_ERR_PARTIAL_LABEL, NULL},
    {"api.*.com", MATCH_ERR_INNER_WILDCARD, NULL},
    {"api.**.com", MATCH_ERR_INNER_WILDCARD, NULL},
    {"*.*.github.com", MATCH_ERR_INNER_WILDCARD, NULL},
    {"github.*", MATCH_ERR_INNER_WILDCARD, NULL},
    {"*.github.*", MATCH_ERR_INNER_WILDCARD, NULL},
    {"b\xc3\xbc"
     "cher.example",
        MATCH_ERR_HOST, NULL},
    {"a..b.com", MATCH_ERR_HOST, NULL},
    {"under_score.com", MATCH_ERR_HOST, NULL},
    {"127.1", MATCH_ERR_HOST, NULL},
    {"0x7f.0.0.1", MATCH_ERR_HOST, NULL},
    {"*.1.2.3.4", MATCH_ERR_HOST, NULL},
    {"*.[::1]", MATCH_ERR_HOST, NULL},
    {"10.0.0.1/8", MATCH_ERR_CIDR, NULL},
    {"10.0.0.0/33", MATCH_ERR_CIDR, NULL},
    {"example.com/8", MATCH_ERR_CIDR, NULL},
};

static void
test_compile(void)
{
	size_t i;

	for (i = 0; i < sizeof(compiles) / sizeof(compiles[0]); i++) {
		struct host_pattern p;
		enum hostname_err herr;
		char buf[300];
		enum match_err e = host_pattern_compile(
		    compiles[i].in, strlen(compiles[i].in), &p, &herr);

		tap_is_int(e, compiles[i].err, "compile '%s': %s",
		    compiles[i].in, match_strerror(compiles[i].err));
		if (e == MATCH_OK && compiles[i].canon) {
			host_pattern_format(&p, buf, sizeof(buf));
			tap_is_str(buf, compiles[i].canon, "'%s' canonical",
			    compiles[i].in);
		}
	}
}

struct host_match_case {
	const char *pattern, *host;
	bool match;
};

static const struct host_match_case matches[] = {
    /* exact */
    {"github.com", "github.com", true},
    {"github.com", "GITHUB.COM", true},
    {"github.com", "github.com.", true},
    {"github.com", "api.github.com", false},
    {"github.com", "evilgithub.com", false},
    {"github.com", "github.com.evil.com", false},
    {"github.com", "github.co", false},
    {"github.com", "ithub.com", false},
    {"github.com", "xgithub.com", false},
    {"api.github.com", "github.com", false},
    /* one label */
    {"*.github.com", "api.github.com", true},
    {"*.github.com", "API.GitHub.com.", true},
    {"*.github.com", "x.github.com", true},
    {"*.github.com", "github.com", false}, /* apex excluded */
    {"*.github.com", "a.b.github.com", false},
    {"*.github.com", "evilgithub.com", false},
    {"*.github.com", "api.evilgithub.com", false},
    {"*.github.com", "apigithub.com", false},
    {"*.github.com", "github.com.evil.com", false},
    {"*.github.com", "api.github.com.evil.com", false},
    {"*.github.com", "xgithub.com", false},
    /* one or more labels */
    {"**.github.com", "api.github.com", true},
    {"**.github.com", "a.b.github.com", true},
    {"**.github.com", "a.b.c.d.github.com", true},
    {"**.github.com", "github.com", false}, /* apex excluded */
    {"**.github.com", "evilgithub.com", false},
    {"**.github.com", "a.evilgithub.com", false},
    {"**.github.com", "github.com.evil.com", false},
    {"**.github.com", "agithub.com", false},
    {"**.co.uk", "example.co.uk", true},
    {"**.co.uk", "co.uk", false},
    /* names never match IP patterns and IPs never match names */
    {"198.51.100.7", "198.51.100.7", true},
    {"198.51.100.7", "198.51.100.8", false},
    {"198.51.100.0/24", "198.51.100.255", true},
    {"198.51.100.0/24", "198.51.101.0", false},
    {"2001:db8::7", "[2001:db8::7]", true},
    {"2001:db8::7", "[2001:db8::8]", false},
    {"2001:db8::/32", "[2001:db8:1::1]", true},
    {"198.51.100.7", "::ffff:198.51.100.7", false},
    {"example.com", "1.2.3.4", false},
    {"*.example.com", "1.2.3.4", false},
    {"**.example.com", "[::1]", false},
    {"1.2.3.4", "example.com", false},
    {"0.0.0.0/0", "example.com", false},
    /* a name that looks like an IP suffix stays a name */
    {"*.example.com", "1.example.com", true},
};

static void
test_match_hosts(void)
{
	size_t i;

	for (i = 0; i < sizeof(matches) / sizeof(matches[0]); i++) {
		struct host_pattern p;
		struct hostname h;
		enum hostname_err herr;

		if (host_pattern_compile(matches[i].pattern,
		        strlen(matches[i].pattern), &p, &herr) != MATCH_OK ||
		    hostname_normalize(matches[i].host, strlen(matches[i].host),
		        &h) != HOSTNAME_OK) {
			tap_ok(false, "setup %s / %s", matches[i].pattern,
			    matches[i].host);
			continue;
		}
		tap_ok(host_pattern_match(&p, &h) == matches[i].match,
		    "'%s' %s '%s'", matches[i].pattern,
		    matches[i].match ? "matches" : "does not match",
		    matches[i].host);
	}
}

/*
 * Systematic dot-boundary sweep: for a family of suffixes, every pattern
 * kind against names built by adding and removing labels and characters.
 */
static void
test_match_sweep(void)
{
	static const char *const suffixes[] = {
	    "example.com", "a.b.example.org", "x.co"};
	static const char *const prefixes[] = {
	    "", "a.", "b.a.", "c.b.a.", "xa.", "evil"};
	size_t s, q;
	int count = 0, bad = 0;

	for (s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]); s++)
		for (q = 0; q < sizeof(prefixes) / sizeof(prefixes[0]); q++) {
			static const char *const kinds[] = {"", "*.", "**."};
			char name[128];
			size_t k;
			struct hostname h;
			int labels = 0;
			const char *c;

			snprintf(name, sizeof(name), "%s%s", prefixes[q],
			    suffixes[s]);
			hostname_normalize(name, strlen(name), &h);
			for (c = prefixes[q]; *c; c++)
				labels += *c == '.';
			/* "evil" glues onto the first label: not under it */
			if (prefixes[q][0] &&
			    prefixes[q][strlen(prefixes[q]) - 1] != '.')
				labels = -1;
			for (k = 0; k < 3; k++) {
				char pat[128];
				struct host_pattern p;
				enum hostname_err herr;
				bool want, got;

				snprintf(pat, sizeof(pat), "%s%s", kinds[k],
				    suffixes[s]);
				host_pattern_compile(
				    pat, strlen(pat), &p, &herr);
				want = k == 0 ? labels == 0 :
				    k == 1    ? labels == 1 :
				                labels >= 1;
				got = host_pattern_match(&p, &h);
				count++;
				if (got != want) {
					bad++;
					tap_diag("sweep: %s vs %s: got %d", pat,
					    name, got);
				}
			}
		}
	tap_ok(bad == 0, "dot-boundary sweep: %d combinations", count);
}

struct port_case {
	const char *desc;
	struct port_range r[3];
	size_t n;
	uint16_t port;
	bool match;
};

static const struct port_case ports[] = {
    {"single equal", {{443, 443}}, 1, 443, true},
    {"single below", {{443, 443}}, 1, 442, false},
    {"single above", {{443, 443}}, 1, 444, false},
    {"range low edge", {{8000, 8100}}, 1, 8000, true},
    {"range high edge", {{8000, 8100}}, 1, 8100, true},
    {"range below", {{8000, 8100}}, 1, 7999, false},
    {"range above", {{8000, 8100}}, 1, 8101, false},
    {"list second", {{80, 80}, {443, 443}}, 2, 443, true},
    {"list none", {{80, 80}, {443, 443}}, 2, 8080, false},
    {"full range 1", {{1, 65535}}, 1, 1, true},
    {"full range 65535", {{1, 65535}}, 1, 65535, true},
    {"mixed list", {{22, 22}, {8000, 8100}, {9000, 9001}}, 3, 9001, true},
    {"mixed list gap", {{22, 22}, {8000, 8100}, {9000, 9001}}, 3, 8999, false},
    {"empty list", {{0, 0}}, 0, 443, false},
};

static void
test_ports(void)
{
	size_t i;
	struct port_range a[] = {{80, 90}}, b[] = {{90, 100}},
	                  c[] = {{91, 100}};

	for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		tap_ok(port_ranges_match(ports[i].r, ports[i].n,
		           ports[i].port) == ports[i].match,
		    "ports: %s (%u)", ports[i].desc, ports[i].port);
	tap_ok(port_ranges_overlap(a, 1, b, 1), "80-90 overlaps 90-100");
	tap_ok(!port_ranges_overlap(a, 1, c, 1), "80-90 misses 91-100");
}

struct glob_check_case {
	const char *in;
	enum glob_err err;
	bool glob;
};

static const struct glob_check_case glob_checks[] = {
    {"/usr/bin/curl", GLOB_OK, false},
    {"/usr/bin/python3.*", GLOB_OK, true},
    {"/opt/**/bin/tool", GLOB_OK, true},
    {"/home/**", GLOB_OK, true},
    {"/**", GLOB_OK, true},
    {"/usr/*/curl", GLOB_OK, true},
    {"usr/bin/curl", GLOB_ERR_NOT_ABSOLUTE, false},
    {"", GLOB_ERR_NOT_ABSOLUTE, false},
    {"/", GLOB_ERR_EMPTY_SEGMENT, false},
    {"/usr//bin", GLOB_ERR_EMPTY_SEGMENT, false},
    {"/usr/bin/", GLOB_ERR_EMPTY_SEGMENT, false},
    {"/usr/./bin", GLOB_ERR_DOT_SEGMENT, false},
    {"/usr/../bin", GLOB_ERR_DOT_SEGMENT, false},
    {"/usr/bin/cur?", GLOB_ERR_CHAR, false},
    {"/usr/bin/[ab]", GLOB_ERR_CHAR, false},
    {"/usr/bin/a\\b", GLOB_ERR_CHAR, false},
    {"/usr/bin/a\tb", GLOB_ERR_CHAR, false},
    {"/opt/**x/bin", GLOB_ERR_STARSTAR, true},
    {"/opt/x**/bin", GLOB_ERR_STARSTAR, true},
    {"/opt/***/bin", GLOB_ERR_STARSTAR, true},
    {"/a/**/b/**/c/**/d/**", GLOB_OK, true},
    {"/a/**/b/**/c/**/d/**/e/**", GLOB_ERR_TOO_COMPLEX, true},
    {"/.hidden/tool", GLOB_OK, false},
    {"/usr/bin/..x", GLOB_OK, false},
};

struct glob_match_case {
	const char *pattern, *path;
	bool match;
};

static const struct glob_match_case glob_matches[] = {
    {"/usr/bin/curl", "/usr/bin/curl", true},
    {"/usr/bin/curl", "/usr/bin/curl2", false},
    {"/usr/bin/curl", "/usr/bin/cur", false},
    {"/usr/bin/curl", "/usr/local/bin/curl", false},
    {"/usr/bin/python3.*", "/usr/bin/python3.11", true},
    {"/usr/bin/python3.*", "/usr/bin/python3.", true},
    {"/usr/bin/python3.*", "/usr/bin/python3", false},
    {"/usr/bin/python3.*", "/usr/bin/python3.11/x", false},
    {"/usr/*/curl", "/usr/bin/curl", true},
    {"/usr/*/curl", "/usr/local/bin/curl",
        false}, /* * stays in one component */
    {"/usr/*/curl", "/usr//curl", false},
    {"/opt/**/tool", "/opt/tool", true}, /* ** can be zero components */
    {"/opt/**/tool", "/opt/a/tool", true},
    {"/opt/**/tool", "/opt/a/b/c/tool", true},
    {"/opt/**/tool", "/opt/a/b/c/tool2", false},
    {"/opt/**/tool", "/optx/tool", false},
    {"/home/**", "/home/a", true},
    {"/home/**", "/home/a/b/c", true},
    {"/home/**", "/home", false},
    {"/home/**", "/homes/a", false},
    {"/**", "/usr/bin/curl", true},
    {"/**", "/x", true},
    {"/sandbox/**/bin/*", "/sandbox/.local/bin/uv", true},
    {"/sandbox/**/bin/*", "/sandbox/bin/uv", true},
    {"/sandbox/**/bin/*", "/sandbox/.local/lib/uv", false},
    {"/a/*b*c/d", "/a/xbyc/d", true},
    {"/a/*b*c/d", "/a/bc/d", true},
    {"/a/*b*c/d", "/a/cb/d", false},
    {"/a/**/b/**/c", "/a/x/b/y/z/c", true},
    {"/a/**/b/**/c", "/a/b/c", true},
    {"/a/**/b/**/c", "/a/c/b", false},
    {"/usr/bin/curl", "usr/bin/curl", false},
};

static void
test_globs(void)
{
	size_t i;

	for (i = 0; i < sizeof(glob_checks) / sizeof(glob_checks[0]); i++) {
		bool g;

		tap_is_int(path_glob_check(glob_checks[i].in, &g),
		    glob_checks[i].err, "glob check '%s'", glob_checks[i].in);
		if (glob_checks[i].err == GLOB_OK)
			tap_ok(g == glob_checks[i].glob, "'%s' %s a glob",
			    glob_checks[i].in, g ? "is" : "is not");
	}
	for (i = 0; i < sizeof(glob_matches) / sizeof(glob_matches[0]); i++)
		tap_ok(path_glob_match(glob_matches[i].pattern,
		           glob_matches[i].path) == glob_matches[i].match,
		    "glob '%s' %s '%s'", glob_matches[i].pattern,
		    glob_matches[i].match ? "matches" : "does not match",
		    glob_matches[i].path);
}

struct overlap_case {
	const char *a, *b;
	bool overlap;
};

static const struct overlap_case overlaps[] = {
    {"github.com", "github.com", true},
    {"github.com", "api.github.com", false},
    {"*.github.com", "api.github.com", true},
    {"*.github.com", "github.com", false},
    {"**.github.com", "a.b.github.com", true},
    {"*.github.com", "**.github.com", true},
    {"*.a.github.com", "**.github.com", true},
    {"*.a.github.com", "*.github.com", false},
    {"*.github.com", "*.gitlab.com", false},
    {"10.0.0.0/8", "10.1.2.3", true},
    {"10.0.0.0/8", "11.0.0.0/8", false},
    {"10.0.0.0/8", "example.com", false},
};

static void
test_overlap(void)
{
	size_t i;

	for (i = 0; i < sizeof(overlaps) / sizeof(overlaps[0]); i++) {
		struct host_pattern a, b;
		enum hostname_err herr;

		host_pattern_compile(
		    overlaps[i].a, strlen(overlaps[i].a), &a, &herr);
		host_pattern_compile(
		    overlaps[i].b, strlen(overlaps[i].b), &b, &herr);
		tap_ok(host_pattern_overlap(&a, &b) == overlaps[i].overlap &&
		        host_pattern_overlap(&b, &a) == overlaps[i].overlap,
		    "'%s' and '%s' %s", overlaps[i].a, overlaps[i].b,
		    overlaps[i].overlap ? "overlap" : "are disjoint");
	}
}

int
main(void)
{
	test_compile();
	test_match_hosts();
	test_match_sweep();
	test_ports();
	test_globs();
	test_overlap();
	return tap_done();
}
