/* SPDX-License-Identifier: ISC */
/*
 * Benchmark of policies/decide: decisions per second against generated
 * policies of growing size (endpoints spread over blocks of ten, a tenth of
 * them wildcards), for allowed destinations drawn across the whole policy and
 * for denied ones (which also word a reason and a hint). Owns nothing but its
 * policies; leaves the interpretation to tests/bench/run.sh.
 *
 * Usage: decide_bench [-r ROUNDS] [-t MIN_MS] [N ...]   (default N: 10 100
 *        1000 10000). Prints "decisions_per_sec_N VALUE /s" and
 *        "decisions_per_sec_denied_N VALUE /s" lines (median of ROUNDS).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decide.h"
#include "diag.h"
#include "hostname.h"
#include "policy.h"
#include "strbuf.h"

#define PER_BLOCK  10
#define NQUERIES   4096 /* destinations cycled through by one timed loop */
#define MAX_ROUNDS 99

static const char *const exe = "/usr/bin/curl";

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Endpoint i: every tenth is "*.wI.bench.example", the others exact. */
static void
endpoint_host(size_t i, char *buf, size_t len, int for_query)
{
	if (i % 10 == 9)
		snprintf(buf, len, "%sw%zu.bench.example",
		    for_query ? "api." : "\"*.", i);
	else
		snprintf(buf, len, "h%zu.bench.example", i);
	if (!for_query && i % 10 == 9)
		strncat(buf, "\"", len - strlen(buf) - 1);
}

static struct policy *
make_policy(size_t n)
{
	struct policy_load_opts opts = {NULL, true};
	struct strbuf sb;
	struct diags d;
	struct policy *p;
	char host[128];
	size_t i;

	strbuf_init(&sb, 4u << 20);
	strbuf_puts(&sb, "version: 1\nnetwork_policies:\n");
	for (i = 0; i < n; i++) {
		if (i % PER_BLOCK == 0)
			strbuf_printf(&sb,
			    "  b%zu:\n"
			    "    binaries:\n"
			    "      - path: /usr/bin/tool%zu\n"
			    "      - path: %s\n"
			    "    endpoints:\n",
			    i / PER_BLOCK, i / PER_BLOCK, exe);
		endpoint_host(i, host, sizeof(host), 0);
		strbuf_printf(
		    &sb, "      - { host: %s, ports: [443, 8443] }\n", host);
	}
	if (sb.truncated) {
		fprintf(stderr, "decide_bench: policy text too long\n");
		exit(1);
	}
	diags_init(&d, "decide_bench");
	p = policy_load_buffer(
	    strbuf_str(&sb), strlen(strbuf_str(&sb)), "bench.yaml", &opts, &d);
	if (p == NULL) {
		struct strbuf e;

		strbuf_init(&e, 0);
		diags_format(&d, &e);
		fprintf(stderr, "decide_bench: policy of %zu endpoints: %s", n,
		    strbuf_str(&e));
		strbuf_free(&e);
	}
	diags_free(&d);
	strbuf_free(&sb);
	return p;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Decisions per second over queries[0..NQUERIES), median of rounds. */
static double
measure(const struct policy *p, const struct hostname *queries,
    enum verdict want, int rounds, unsigned min_ms)
{
	struct decide_caller c;
	struct decide_dest dd;
	struct decision out;
	double rate[MAX_ROUNDS];
	int r;

	memset(&c, 0, sizeof(c));
	c.exe = exe;
	c.identity_err = REASON_ALLOWED;
	dd.port = 443;
	dd.source = DECIDE_SRC_CONNECT;
	/* one check of the answer before timing it */
	dd.host = &queries[0];
	decide(p, &c, &dd, DECIDE_MODE_POLICY, &out);
	if (out.verdict != want) {
		fprintf(stderr, "decide_bench: %s: %s, expected %s\n",
		    queries[0].name, verdict_name(out.verdict),
		    verdict_name(want));
		exit(1);
	}
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = now_ns(), t1, count = 0;

		do {
			size_t i;

			for (i = 0; i < NQUERIES; i++) {
				dd.host = &queries[i];
				decide(p, &c, &dd, DECIDE_MODE_POLICY, &out);
			}
			count += NQUERIES;
			t1 = now_ns();
		} while (t1 - t0 < (uint64_t)min_ms * 1000000u);
		rate[r] = (double)count * 1e9 / (double)(t1 - t0);
	}
	qsort(rate, (size_t)rounds, sizeof(rate[0]), cmp_double);
	return rate[rounds / 2];
}

static void
run(size_t n, int rounds, unsigned min_ms)
{
	struct hostname *allowed, *denied;
	struct policy *p;
	uint64_t seed = 0x9e3779b97f4a7c15u ^ n;
	char host[128];
	size_t i;

	if ((p = make_policy(n)) == NULL)
		exit(1);
	allowed = calloc(NQUERIES, sizeof(*allowed));
	denied = calloc(NQUERIES, sizeof(*denied));
	if (allowed == NULL || denied == NULL) {
		perror("calloc");
		exit(1);
	}
	for (i = 0; i < NQUERIES; i++) {
		size_t e;

		/* xorshift: a fixed spread of endpoints, first to last */
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		e = (size_t)(seed % n);
		endpoint_host(e, host, sizeof(host), 1);
		if (hostname_normalize(host, strlen(host), &allowed[i]) !=
		    HOSTNAME_OK)
			exit(1);
		snprintf(host, sizeof(host), "x%zu.other.example", e);
		if (hostname_normalize(host, strlen(host), &denied[i]) !=
		    HOSTNAME_OK)
			exit(1);
	}
	printf("decisions_per_sec_%zu %.0f /s\n", n,
	    measure(p, allowed, VERDICT_ALLOW, rounds, min_ms));
	printf("decisions_per_sec_denied_%zu %.0f /s\n", n,
	    measure(p, denied, VERDICT_DENY, rounds, min_ms));
	fflush(stdout);
	free(allowed);
	free(denied);
	policy_unref(p);
}

int
main(int argc, char **argv)
{
	static const size_t def[] = {10, 100, 1000, 10000};
	int rounds = 5, ch, i;
	unsigned min_ms = 200;

	while ((ch = getopt(argc, argv, "r:t:")) != -1) {
		switch (ch) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 't':
			min_ms = (unsigned)atoi(optarg);
			break;
		default:
			fprintf(stderr,
			    "usage: decide_bench [-r ROUNDS] [-t MIN_MS] [N ...]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(
		    stderr, "decide_bench: 1 <= ROUNDS <= %d\n", MAX_ROUNDS);
		return 2;
	}
	if (optind == argc)
		for (i = 0; i < 4; i++)
			run(def[i], rounds, min_ms);
	for (i = optind; i < argc; i++) {
		long n = atol(argv[i]);

		if (n < 1) {
			fprintf(stderr, "decide_bench: bad N '%s'\n", argv[i]);
			return 2;
		}
		run((size_t)n, rounds, min_ms);
	}
	return 0;
}
