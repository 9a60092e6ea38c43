/* SPDX-License-Identifier: ISC */
/*
 * The egressctl commands that only the running daemon can answer: `tail`
 * (live decisions as egressd's human lines), `status` and `reload`. The
 * control protocol is docs/control.md; the socket is ctl_client.c's.
 */
#ifndef EGRESSD_CTL_LIVE_H
#define EGRESSD_CTL_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "ctl_records.h"

struct strbuf;

enum ctl_live_color { CTL_LIVE_PLAIN, CTL_LIVE_COLOR };

/* Whether to color: stdout is a terminal, NO_COLOR is unset or empty, and
 * TERM is not "dumb". */
enum ctl_live_color ctl_live_color_auto(void);

/* One record as egressd's human line (docs/logging.md), every string made
 * terminal-safe; colored red (denied), yellow (would_deny) or green
 * (allowed) with CTL_LIVE_COLOR. No newline. */
void ctl_live_format_record(
    const struct ctl_record *r, enum ctl_live_color color, struct strbuf *out);

/* The status object in readable form; false when text is not one. */
bool ctl_live_format_status(const char *text, size_t len, struct strbuf *out);

/* A reload answer: the result on out, diagnostics as file:line:col on
 * diag; returns the exit status (0 reloaded, 1 refused, 2 not an answer). */
int ctl_live_format_reload(
    const char *text, size_t len, struct strbuf *out, struct strbuf *diag);

int ctl_live_tail_main(int argc, char **argv);
int ctl_live_status_main(int argc, char **argv);
int ctl_live_reload_main(int argc, char **argv);

#endif
