/* SPDX-License-Identifier: ISC */
/*
 * egressctl: the operator's tool. Owns command-line handling and output of
 * each subcommand; the decisions themselves come from policies/decide.c, the
 * same code the daemon runs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "log.h"
#include "policy.h"
#include "strbuf.h"

extern const unsigned char default_policy_yaml[];
extern const size_t default_policy_yaml_len;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: egressctl explain --binary PATH --host HOST --port N\n"
	    "                         [--policy FILE] [--root DIR]\n"
	    "                         [--invoked-as PATH] [--source ADDR]\n"
	    "                         [--via connect|sni|http|dns|addr]\n"
	    "                         [--enforce-all | --audit-all] [--json]\n"
	    "\n"
	    "explain   what egressd would decide for this binary, host and port,\n"
	    "          and why (exit 0 allowed, 1 denied or would deny, 2 usage)\n");
}

static enum decide_source
parse_via(const char *s)
{
	static const struct {
		const char *name;
		enum decide_source src;
	} vias[] = {{"connect", DECIDE_SRC_CONNECT}, {"sni", DECIDE_SRC_SNI},
	    {"http", DECIDE_SRC_HTTP}, {"dns", DECIDE_SRC_DNS},
	    {"addr", DECIDE_SRC_ADDR}};
	size_t i;

	for (i = 0; i < sizeof(vias) / sizeof(vias[0]); i++)
		if (strcmp(s, vias[i].name) == 0)
			return vias[i].src;
	fprintf(stderr,
	    "egressctl: --via must be connect, sni, http, dns or addr\n");
	exit(2);
}

static int
cmd_explain(int argc, char **argv)
{
	enum {
		O_BIN = 256,
		O_HOST,
		O_PORT,
		O_POLICY,
		O_ROOT,
		O_INVOKED,
		O_SOURCE,
		O_VIA,
		O_ENFORCE,
		O_AUDIT,
		O_JSON
	};
	static const struct option longopts[] = {
	    {"binary", required_argument, NULL, O_BIN},
	    {"host", required_argument, NULL, O_HOST},
	    {"port", required_argument, NULL, O_PORT},
	    {"policy", required_argument, NULL, O_POLICY},
	    {"root", required_argument, NULL, O_ROOT},
	    {"invoked-as", required_argument, NULL, O_INVOKED},
	    {"source", required_argument, NULL, O_SOURCE},
	    {"via", required_argument, NULL, O_VIA},
	    {"enforce-all", no_argument, NULL, O_ENFORCE},
	    {"audit-all", no_argument, NULL, O_AUDIT},
	    {"json", no_argument, NULL, O_JSON},
	    {NULL, 0, NULL, 0},
	};
	const char *bin = NULL, *host = NULL, *file = NULL, *root = NULL;
	const char *invoked = NULL, *source = NULL;
	enum decide_override ov = DECIDE_MODE_POLICY;
	enum decide_source via = DECIDE_SRC_CONNECT;
	struct policy_load_opts opts;
	struct decide_caller caller;
	struct decide_dest dest;
	struct decision d;
	struct hostname h;
	struct addr src;
	struct diags diags;
	struct policy *p;
	struct strbuf sb;
	long port = -1;
	bool json = false;
	char *end;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case O_BIN:
			bin = optarg;
			break;
		case O_HOST:
			host = optarg;
			break;
		case O_PORT:
			port = strtol(optarg, &end, 10);
			if (*end || port < 1 || port > 65535) {
				fprintf(stderr,
				    "egressctl: --port must be 1-65535\n");
				return 2;
			}
			break;
		case O_POLICY:
			file = optarg;
			break;
		case O_ROOT:
			root = optarg;
			break;
		case O_INVOKED:
			invoked = optarg;
			break;
		case O_SOURCE:
			source = optarg;
			break;
		case O_VIA:
			via = parse_via(optarg);
			break;
		case O_ENFORCE:
			ov = DECIDE_MODE_ENFORCE;
			break;
		case O_AUDIT:
			ov = DECIDE_MODE_AUDIT;
			break;
		case O_JSON:
			json = true;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((bin == NULL && source == NULL) || host == NULL || port < 0) {
		fprintf(stderr,
		    "egressctl explain: --binary (or --source), --host and --port are required\n");
		usage(stderr);
		return 2;
	}
	if (hostname_normalize(host, strlen(host), &h) != HOSTNAME_OK) {
		fprintf(stderr, "egressctl: invalid host '%s': %s\n", host,
		    hostname_strerror(
		        hostname_normalize(host, strlen(host), &h)));
		return 2;
	}
	memset(&opts, 0, sizeof(opts));
	opts.root = root;
	diags_init(&diags, file ? file : "(built-in default)");
	p = file ?
	    policy_load_file(file, &opts, &diags) :
	    policy_load_buffer((const char *)default_policy_yaml,
	        default_policy_yaml_len, "(built-in default)", &opts, &diags);
	if (p == NULL) {
		strbuf_init(&sb, 0);
		diags_format(&diags, &sb);
		fprintf(stderr, "%segressctl: the policy is invalid\n",
		    strbuf_str(&sb));
		strbuf_free(&sb);
		diags_free(&diags);
		return 2;
	}
	diags_free(&diags);
	memset(&caller, 0, sizeof(caller));
	caller.exe = bin;
	caller.invoked_as = invoked;
	caller.identity_err = REASON_ALLOWED;
	if (source) {
		if (!addr_parse(source, strlen(source), &src)) {
			fprintf(
			    stderr, "egressctl: invalid --source address\n");
			policy_unref(p);
			return 2;
		}
		caller.src = &src;
	}
	dest.host = &h;
	dest.port = (uint16_t)port;
	dest.source = via;
	decide(p, &caller, &dest, ov, &d);
	strbuf_init(&sb, 0);
	if (json) {
		strbuf_printf(&sb,
		    "{\"decision\":\"%s\",\"reason\":\"%s\",\"mode\":\"%s\",\"policy\":",
		    verdict_name(d.verdict), reason_code(d.reason),
		    policy_enforcement_name(d.mode));
		strbuf_json_str(&sb, d.block ? d.block->key : NULL);
		strbuf_puts(&sb, ",\"reason_text\":");
		strbuf_json_str(&sb, d.reason_text);
		strbuf_puts(&sb, ",\"hint\":");
		strbuf_json_str(&sb, d.hint[0] ? d.hint : NULL);
		strbuf_puts(&sb, "}\n");
	} else {
		strbuf_printf(&sb,
		    "decision: %s\nreason:   %s (%s)\nmode:     %s%s\npolicy:   %s\n",
		    verdict_name(d.verdict), reason_code(d.reason),
		    d.reason_text, policy_enforcement_name(d.mode),
		    d.overridden ? " (daemon override)" : "",
		    d.block ? d.block->key : "-");
		if (d.endpoint)
			strbuf_printf(&sb, "endpoint: %s (%s:%d)\n",
			    d.endpoint->host_text, p->file, d.endpoint->line);
		if (d.verdict == VERDICT_ALLOW && d.protocol == PROTO_REST)
			strbuf_printf(&sb,
			    "access:   %s (requests inspected)\n",
			    policy_access_name(d.access));
		if (d.hint[0])
			strbuf_printf(&sb, "hint:     %s\n", d.hint);
	}
	fputs(strbuf_str(&sb), stdout);
	strbuf_free(&sb);
	policy_unref(p);
	return d.verdict == VERDICT_ALLOW ? 0 : 1;
}

int
main(int argc, char **argv)
{
	log_init("egressctl", LOG_LVL_INFO);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "explain") == 0)
		return cmd_explain(argc - 1, argv + 1);
	fprintf(stderr, "egressctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
