/* SPDX-License-Identifier: ISC */
/*
 * egressctl: the operator's tool for egressd. Owns the command table and the
 * overall help; each subcommand lives in its own ctl_*.c module, and the
 * decisions themselves come from policies/decide.c, the daemon's own code.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ctl_explain.h"
#include "ctl_live.h"
#include "ctl_propose.h"
#include "ctl_records.h"
#include "log.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
} commands[] = {
    {"explain", ctl_explain_main,
        "what egressd would decide for a binary, host and port, and why"},
    {"denials", ctl_records_denials_main,
        "denials and would-be denials grouped by binary, host, port, reason"},
    {"propose", ctl_propose_main,
        "a policy that would allow the observed denials, for review"},
    {"tail", ctl_live_tail_main, "live decisions of the running egressd"},
    {"status", ctl_live_status_main, "the running egressd's state"},
    {"reload", ctl_live_reload_main,
        "make the running egressd load its policy again"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f,
	    "usage: egressctl COMMAND [OPTIONS]   (egressctl COMMAND --help for its options)\n"
	    "\n"
	    "commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(
		    f, "  %-8s  %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
	    "\n"
	    "  egressctl explain --binary PATH --host HOST --port N [--policy FILE]\n"
	    "            [--root DIR] [--invoked-as PATH] [--source ADDR]\n"
	    "            [--via connect|sni|http|dns|addr] [--enforce-all|--audit-all]\n"
	    "            [--json]\n"
	    "  egressctl denials [--since DUR] [--json] [--log FILE]\n"
	    "  egressctl propose [--since DUR] [--merge POLICY] [--root DIR] [--log FILE]\n"
	    "  egressctl tail [--denied] [--json]\n"
	    "  egressctl status [--json]\n"
	    "  egressctl reload [--json]\n"
	    "\n"
	    "Commands that ask the running egressd use its control socket:\n"
	    "--control PATH, else $EGRESSD_CONTROL, else /run/egressd/control.sock\n"
	    "(root only). explain --policy, denials --log and propose --log work\n"
	    "without a daemon.\n"
	    "\n"
	    "Exit status: 0 success (explain: allowed), 1 explain: denied or would\n"
	    "deny, reload: refused; 2 usage errors or egressd unreachable.\n"
	    "See egressctl(8), docs/control.md, docs/logging.md.\n");
}

int
main(int argc, char **argv)
{
	size_t i;

	log_init("egressctl", LOG_LVL_INFO);
	/* a closed control socket must not kill us mid-write */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			for (i = 0; i < NCOMMANDS; i++)
				if (strcmp(argv[2], commands[i].name) == 0) {
					char *hargv[] = {
					    argv[2], "--help", NULL};

					return commands[i].main(2, hargv);
				}
		}
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "egressctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
