/* SPDX-License-Identifier: ISC */
/*
 * egressd entry point: command line, then either the policy checker (-t) or
 * the daemon. Owns option parsing and exit codes; everything else lives in
 * its module.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"
#include "reason.h"

extern const unsigned char default_policy_yaml[];
extern const size_t default_policy_yaml_len;

#define EGRESSD_VERSION "0.1.0"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: egressd [options]\n"
	    "       egressd -t [-p FILE] [--root DIR] [--json]\n"
	    "\n"
	    "Policy:\n"
	    "  -p, --policy FILE     policy file (default: the built-in default policy)\n"
	    "  -t, --test            check the policy, print diagnostics and the normalized\n"
	    "                        effective policy, exit 0 when valid and 1 when not\n"
	    "      --root DIR        resolve policy binary paths under DIR (the sandbox's\n"
	    "                        root file system)\n"
	    "      --json            with -t: print one JSON object\n"
	    "      --dump-default    print the built-in default policy and exit\n"
	    "      --list-reasons    print every decision reason code and exit\n"
	    "  -h, --help            this text\n"
	    "  -V, --version         print the version\n");
}

int
main(int argc, char **argv)
{
	enum { OPT_ROOT = 256, OPT_JSON, OPT_DUMP_DEFAULT, OPT_LIST_REASONS };
	static const struct option longopts[] = {
	    {"policy", required_argument, NULL, 'p'},
	    {"test", no_argument, NULL, 't'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"dump-default", no_argument, NULL, OPT_DUMP_DEFAULT},
	    {"list-reasons", no_argument, NULL, OPT_LIST_REASONS},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *policy = NULL, *root = NULL;
	bool test = false, json = false;
	int ch;

	log_init("egressd", LOG_LVL_INFO);
	while ((ch = getopt_long(argc, argv, "p:thV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			policy = optarg;
			break;
		case 't':
			test = true;
			break;
		case OPT_ROOT:
			root = optarg;
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
	if (test) {
		if (policy)
			return check_policy(policy, root, json, stdout);
		return check_policy_buffer((const char *)default_policy_yaml,
		    default_policy_yaml_len, "(built-in default)", root, json,
		    stdout);
	}
	fprintf(stderr,
	    "egressd: the proxy daemon is not part of this build yet; use -t to check a policy\n");
	return 2;
}
