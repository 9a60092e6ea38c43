/* SPDX-License-Identifier: ISC */
/*
 * egressd entry point: the command line, then either the policy checker
 * (-t) or the daemon. Owns option parsing and exit codes; everything else
 * lives in its module.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "control.h"
#include "daemon.h"
#include "log.h"
#include "reason.h"

extern const unsigned char default_policy_yaml[];
extern const size_t default_policy_yaml_len;

#define EGRESSD_VERSION "0.1.0"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: egressd [-p POLICY] [--listen ADDR:PORT]... [--listen-unix PATH]...\n"
	    "               [--netns NAME] [--log-json FILE] [--enforce-all | --audit-all]\n"
	    "               [options]\n"
	    "       egressd -t [-p POLICY] [--root DIR] [--json]\n"
	    "\n"
	    "Policy:\n"
	    "  -p, --policy FILE         policy file (default: the built-in default policy)\n"
	    "  -t, --test                check the policy, print diagnostics and the normalized\n"
	    "                            effective policy; exit 0 when valid, 1 when not\n"
	    "      --root DIR            resolve policy binary paths under DIR (the sandbox's\n"
	    "                            root file system)\n"
	    "      --json                with -t: print one JSON object\n"
	    "      --enforce-all         enforce every denial, even on 'enforcement: audit'\n"
	    "                            endpoints (also: EGRESSD_ENFORCE_ALL=1)\n"
	    "      --audit-all           let every denial pass and log it as would_deny\n"
	    "                            (also: EGRESSD_AUDIT_ALL=1)\n"
	    "      --tofu                pin each executable's SHA-256 on first use\n"
	    "\n"
	    "Listeners (default: --listen 127.0.0.1:3128):\n"
	    "      --listen ADDR:PORT    explicit HTTP proxy (CONNECT, http:// requests)\n"
	    "      --listen-unix PATH    the same on a Unix socket (caller from SO_PEERCRED)\n"
	    "      --transparent ADDR:PORT  transparent listener (redirected TCP)\n"
	    "      --dns-listen ADDR:PORT   policy DNS server (UDP and TCP)\n"
	    "      --netns NAME|PATH     serve a sandbox network namespace: listeners and\n"
	    "                            caller lookup inside it, upstream from here;\n"
	    "                            default listeners there: 127.0.0.1:3128 (proxy),\n"
	    "                            127.0.0.1:15001 and [::1]:15001 (transparent),\n"
	    "                            127.0.0.1:53 and [::1]:53 (DNS)\n"
	    "\n"
	    "Upstream:\n"
	    "      --dns ADDR[:PORT]     DNS server (repeatable; default: /etc/resolv.conf)\n"
	    "      --dns-timeout-ms N    per attempt (default 2000)\n"
	    "      --trust-range CIDR    treat these non-public addresses as public\n"
	    "                            (never loopback, link-local or metadata)\n"
	    "\n"
	    "TLS interception (endpoints with protocol: rest):\n"
	    "      --ca-cert FILE --ca-key FILE  use this CA (default: a new ECDSA\n"
	    "                            P-256 CA per run)\n"
	    "      --ca-dir DIR          write ca.pem and bundle.pem (roots + CA) here for\n"
	    "                            the sandbox (default /run/egressd-ca/NETNS)\n"
	    "      --upstream-ca FILE    roots to verify upstream servers with (default:\n"
	    "                            the system store)\n"
	    "\n"
	    "Limits and timeouts (milliseconds):\n"
	    "      --head-timeout-ms N   request head (default 10000)\n"
	    "      --hello-timeout-ms N  TLS ClientHello inside a tunnel (default 10000)\n"
	    "      --sniff-timeout-ms N  transparent: wait for client bytes before treating\n"
	    "                            the connection as server-speaks-first (250)\n"
	    "      --connect-timeout-ms N  upstream connect (default 10000)\n"
	    "      --idle-timeout-ms N   tunnel without traffic (default 600000)\n"
	    "      --drain-timeout-ms N  SIGTERM: wait this long for connections (10000)\n"
	    "      --max-conns N         all connections (default 20000)\n"
	    "      --max-conns-per-caller N  per executable (default 2000)\n"
	    "      --pipe-size BYTES     a tunnel direction that carries bulk splices\n"
	    "                            through a pipe grown to this (default 1048576;\n"
	    "                            0: the system's 65536)\n"
	    "\n"
	    "Operation:\n"
	    "      --control PATH|none   egressctl's socket (default\n"
	    "                            /run/egressd/control.sock, root only)\n"
	    "      --metrics ADDR:PORT   Prometheus text at GET /metrics (off by default;\n"
	    "                            in egressd's own namespace, never the sandbox's)\n"
	    "      --watch               reload when the policy file changes\n"
	    "\n"
	    "Logging:\n"
	    "      --log-json FILE       one JSON line per decision and per closed\n"
	    "                            connection (reopened on SIGUSR1)\n"
	    "  -q, --quiet               no decision lines on stderr\n"
	    "  -v, --verbose             debug messages\n"
	    "\n"
	    "Other:\n"
	    "      --dump-default        print the built-in default policy and exit\n"
	    "      --list-reasons        print every decision reason code and exit\n"
	    "  -h, --help                this text\n"
	    "  -V, --version             print the version\n"
	    "\n"
	    "Signals: SIGTERM/SIGINT drain and exit, SIGHUP reloads the policy,\n"
	    "SIGUSR1 reopens log files.\n");
}

static unsigned
parse_uint(const char *opt, const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s == '\0' || *end || errno || v > max || s[0] == '-') {
		fprintf(stderr,
		    "egressd: %s: '%s' is not a number from 0 to %lu\n", opt, s,
		    max);
		exit(2);
	}
	return (unsigned)v;
}

static bool
env_true(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0 &&
	    strcmp(v, "no") != 0;
}

static void
add_listen(struct daemon_config *cfg, enum listener_kind kind, const char *text,
    bool in_sandbox)
{
	if (cfg->nlistens == DAEMON_MAX_LISTEN) {
		fprintf(stderr, "egressd: at most %d listeners\n",
		    DAEMON_MAX_LISTEN);
		exit(2);
	}
	cfg->listens[cfg->nlistens].kind = kind;
	cfg->listens[cfg->nlistens].text = text;
	cfg->listens[cfg->nlistens].in_sandbox = in_sandbox;
	cfg->nlistens++;
}

int
main(int argc, char **argv)
{
	enum {
		OPT_ROOT = 256,
		OPT_JSON,
		OPT_DUMP_DEFAULT,
		OPT_LIST_REASONS,
		OPT_LISTEN,
		OPT_LISTEN_UNIX,
		OPT_NETNS,
		OPT_LOG_JSON,
		OPT_ENFORCE_ALL,
		OPT_AUDIT_ALL,
		OPT_DNS,
		OPT_DNS_TIMEOUT,
		OPT_TRUST,
		OPT_HEAD_TO,
		OPT_HELLO_TO,
		OPT_CONNECT_TO,
		OPT_IDLE_TO,
		OPT_DRAIN_TO,
		OPT_MAX_CONNS,
		OPT_MAX_PER_CALLER,
		OPT_TOFU,
		OPT_PIPE_SIZE,
		OPT_TRANSPARENT,
		OPT_DNS_LISTEN,
		OPT_SNIFF_TO,
		OPT_CONTROL,
		OPT_METRICS,
		OPT_WATCH,
		OPT_CA_CERT,
		OPT_CA_KEY,
		OPT_CA_DIR,
		OPT_UPSTREAM_CA,
	};
	static const struct option longopts[] = {
	    {"policy", required_argument, NULL, 'p'},
	    {"test", no_argument, NULL, 't'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"dump-default", no_argument, NULL, OPT_DUMP_DEFAULT},
	    {"list-reasons", no_argument, NULL, OPT_LIST_REASONS},
	    {"listen", required_argument, NULL, OPT_LISTEN},
	    {"listen-unix", required_argument, NULL, OPT_LISTEN_UNIX},
	    {"netns", required_argument, NULL, OPT_NETNS},
	    {"log-json", required_argument, NULL, OPT_LOG_JSON},
	    {"enforce-all", no_argument, NULL, OPT_ENFORCE_ALL},
	    {"audit-all", no_argument, NULL, OPT_AUDIT_ALL},
	    {"dns", required_argument, NULL, OPT_DNS},
	    {"dns-timeout-ms", required_argument, NULL, OPT_DNS_TIMEOUT},
	    {"trust-range", required_argument, NULL, OPT_TRUST},
	    {"head-timeout-ms", required_argument, NULL, OPT_HEAD_TO},
	    {"hello-timeout-ms", required_argument, NULL, OPT_HELLO_TO},
	    {"connect-timeout-ms", required_argument, NULL, OPT_CONNECT_TO},
	    {"idle-timeout-ms", required_argument, NULL, OPT_IDLE_TO},
	    {"drain-timeout-ms", required_argument, NULL, OPT_DRAIN_TO},
	    {"max-conns", required_argument, NULL, OPT_MAX_CONNS},
	    {"max-conns-per-caller", required_argument, NULL,
	        OPT_MAX_PER_CALLER},
	    {"tofu", no_argument, NULL, OPT_TOFU},
	    {"pipe-size", required_argument, NULL, OPT_PIPE_SIZE},
	    {"transparent", required_argument, NULL, OPT_TRANSPARENT},
	    {"dns-listen", required_argument, NULL, OPT_DNS_LISTEN},
	    {"sniff-timeout-ms", required_argument, NULL, OPT_SNIFF_TO},
	    {"control", required_argument, NULL, OPT_CONTROL},
	    {"metrics", required_argument, NULL, OPT_METRICS},
	    {"watch", no_argument, NULL, OPT_WATCH},
	    {"ca-cert", required_argument, NULL, OPT_CA_CERT},
	    {"ca-key", required_argument, NULL, OPT_CA_KEY},
	    {"ca-dir", required_argument, NULL, OPT_CA_DIR},
	    {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	struct daemon_config cfg;
	bool test = false, json = false, enforce_all, audit_all;
	int ch, verbose = 0;
	size_t i, ntcp;

	daemon_config_default(&cfg);
	cfg.control_path = CONTROL_DEFAULT_PATH;
	enforce_all = env_true("EGRESSD_ENFORCE_ALL");
	audit_all = env_true("EGRESSD_AUDIT_ALL");
	while (
	    (ch = getopt_long(argc, argv, "p:tqvhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			cfg.policy_file = optarg;
			break;
		case 't':
			test = true;
			break;
		case OPT_ROOT:
			cfg.root = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_DUMP_DEFAULT:
			fwrite(default_policy_yaml, 1, default_policy_yaml_len,
			    stdout);
			return 0;
		case OPT_LIST_REASONS:
			for (ch = 0; ch < REASON__COUNT; ch++)
				printf("%-24s %-4s %s\n",
				    reason_code((enum reason)ch),
				    reason_severity_name(
				        reason_severity((enum reason)ch)),
				    reason_text((enum reason)ch));
			return 0;
		case OPT_LISTEN:
			add_listen(&cfg, LISTEN_EXPLICIT, optarg, false);
			break;
		case OPT_LISTEN_UNIX:
			add_listen(&cfg, LISTEN_UNIX, optarg, false);
			break;
		case OPT_NETNS:
			cfg.netns = optarg;
			break;
		case OPT_LOG_JSON:
			cfg.log_json = optarg;
			break;
		case OPT_ENFORCE_ALL:
			enforce_all = true;
			break;
		case OPT_AUDIT_ALL:
			audit_all = true;
			break;
		case OPT_DNS:
			if (cfg.dns.nservers == RESOLVE_MAX_SERVERS) {
				fprintf(stderr,
				    "egressd: at most %d --dns servers\n",
				    RESOLVE_MAX_SERVERS);
				return 2;
			}
			cfg.dns.servers[cfg.dns.nservers++] = optarg;
			break;
		case OPT_DNS_TIMEOUT:
			cfg.dns.timeout_ms =
			    parse_uint("--dns-timeout-ms", optarg, 600000);
			break;
		case OPT_TRUST:
			if (cfg.ntrust == DAEMON_MAX_TRUST ||
			    !addr_parse_cidr(optarg, strlen(optarg),
			        &cfg.trust[cfg.ntrust])) {
				fprintf(stderr,
				    "egressd: --trust-range: '%s' is not a CIDR (or too many)\n",
				    optarg);
				return 2;
			}
			if (addr_class_never(
			        addr_classify(&cfg.trust[cfg.ntrust].base))) {
				fprintf(stderr,
				    "egressd: --trust-range %s: loopback, link-local and metadata addresses can never be opened\n",
				    optarg);
				return 2;
			}
			cfg.ntrust++;
			break;
		case OPT_HEAD_TO:
			cfg.head_timeout_ms =
			    parse_uint("--head-timeout-ms", optarg, 3600000);
			break;
		case OPT_HELLO_TO:
			cfg.hello_timeout_ms =
			    parse_uint("--hello-timeout-ms", optarg, 3600000);
			break;
		case OPT_CONNECT_TO:
			cfg.connect_timeout_ms =
			    parse_uint("--connect-timeout-ms", optarg, 3600000);
			break;
		case OPT_IDLE_TO:
			cfg.idle_timeout_ms =
			    parse_uint("--idle-timeout-ms", optarg, 86400000);
			break;
		case OPT_DRAIN_TO:
			cfg.drain_timeout_ms =
			    parse_uint("--drain-timeout-ms", optarg, 3600000);
			break;
		case OPT_MAX_CONNS:
			cfg.max_conns =
			    parse_uint("--max-conns", optarg, 10000000);
			break;
		case OPT_MAX_PER_CALLER:
			cfg.max_conns_per_caller = parse_uint(
			    "--max-conns-per-caller", optarg, 10000000);
			break;
		case OPT_TOFU:
			cfg.tofu = true;
			break;
		case OPT_PIPE_SIZE:
			cfg.pipe_size =
			    parse_uint("--pipe-size", optarg, 64u << 20);
			break;
		case OPT_TRANSPARENT:
			add_listen(&cfg, LISTEN_TRANSPARENT, optarg, false);
			break;
		case OPT_DNS_LISTEN:
			add_listen(&cfg, LISTEN_DNS_UDP, optarg, false);
			add_listen(&cfg, LISTEN_DNS_TCP, optarg, false);
			break;
		case OPT_SNIFF_TO:
			cfg.sniff_timeout_ms =
			    parse_uint("--sniff-timeout-ms", optarg, 60000);
			break;
		case OPT_CONTROL:
			cfg.control_path =
			    strcmp(optarg, "none") == 0 ? NULL : optarg;
			break;
		case OPT_METRICS:
			cfg.metrics_addr = optarg;
			break;
		case OPT_WATCH:
			cfg.watch = true;
			break;
		case OPT_CA_CERT:
			cfg.ca_cert = optarg;
			break;
		case OPT_CA_KEY:
			cfg.ca_key = optarg;
			break;
		case OPT_CA_DIR:
			cfg.ca_dir = optarg;
			break;
		case OPT_UPSTREAM_CA:
			cfg.upstream_ca = optarg;
			break;
		case 'q':
			cfg.human_log = false;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("egressd %s\n", EGRESSD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "egressd: unexpected argument '%s'\n",
		    argv[optind]);
		usage(stderr);
		return 2;
	}
	log_init("egressd", verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO);
	if (test) {
		if (cfg.policy_file)
			return check_policy(
			    cfg.policy_file, cfg.root, json, stdout);
		return check_policy_buffer((const char *)default_policy_yaml,
		    default_policy_yaml_len, "(built-in default)", cfg.root,
		    json, stdout);
	}
	if ((cfg.ca_cert == NULL) != (cfg.ca_key == NULL)) {
		fprintf(
		    stderr, "egressd: --ca-cert and --ca-key go together\n");
		return 2;
	}
	if (enforce_all && audit_all) {
		fprintf(stderr,
		    "egressd: --enforce-all and --audit-all (or EGRESSD_ENFORCE_ALL and EGRESSD_AUDIT_ALL) contradict each other\n");
		return 2;
	}
	cfg.override = enforce_all ? DECIDE_MODE_ENFORCE :
	    audit_all              ? DECIDE_MODE_AUDIT :
	                             DECIDE_MODE_POLICY;
	cfg.verbose = verbose;
	/* Without TCP listeners on the command line, the defaults: the whole
	 * set inside a served sandbox, else the explicit proxy on loopback. */
	for (i = 0, ntcp = 0; i < cfg.nlistens; i++)
		ntcp += cfg.listens[i].kind != LISTEN_UNIX;
	if (ntcp == 0 && cfg.netns) {
		/* the sandbox's whole way out, as netns-scripts/egressd-netns
		 * redirects to it by default */
		add_listen(&cfg, LISTEN_EXPLICIT, "127.0.0.1:3128", true);
		add_listen(&cfg, LISTEN_TRANSPARENT, "127.0.0.1:15001", true);
		add_listen(&cfg, LISTEN_TRANSPARENT, "[::1]:15001", true);
		add_listen(&cfg, LISTEN_DNS_UDP, "127.0.0.1:53", true);
		add_listen(&cfg, LISTEN_DNS_TCP, "127.0.0.1:53", true);
		add_listen(&cfg, LISTEN_DNS_UDP, "[::1]:53", true);
		add_listen(&cfg, LISTEN_DNS_TCP, "[::1]:53", true);
	} else if (ntcp == 0) {
		add_listen(&cfg, LISTEN_EXPLICIT, "127.0.0.1:3128", false);
	} else if (cfg.netns) {
		for (i = 0; i < cfg.nlistens; i++)
			cfg.listens[i].in_sandbox =
			    cfg.listens[i].kind != LISTEN_UNIX;
	}
	return daemon_run(&cfg);
}
