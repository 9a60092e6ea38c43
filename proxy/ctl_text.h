/* SPDX-License-Identifier: ISC */
/*
 * egressctl's text helpers: durations on the command line, times and sizes
 * in output, and terminal-safe rendering of strings that come from records
 * (paths and command lines a sandboxed process chose). The subcommands own
 * what they print.
 */
#ifndef EGRESSD_CTL_TEXT_H
#define EGRESSD_CTL_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct strbuf;

/*
 * Parses a duration: a positive decimal count with a unit s, m, h or d
 * ("30s", "15m", "2h", "7d"); a bare count means seconds. False for anything
 * else (empty, zero, signs, spaces, other units, above ten years).
 */
bool ctl_text_duration(const char *s, uint64_t *seconds);

/* Appends s with every byte outside printable ASCII written as \xNN, and
 * backslashes doubled, so a record cannot drive the terminal. NULL appends
 * "-". */
void ctl_text_safe(struct strbuf *out, const char *s);
/* For text egressd already escaped (command lines: "\\" and "\\xNN"):
 * like ctl_text_safe() but a backslash passes as it is. */
void ctl_text_escaped(struct strbuf *out, const char *s);

/* After getopt: true (and a message and usage(stderr) printed) when
 * arguments are left over for "egressctl cmd". */
bool ctl_text_extra_args(
    const char *cmd, int argc, char *const *argv, void (*usage)(FILE *));

/* Appends a time in milliseconds since the epoch as UTC ISO 8601
 * ("2026-11-30T01:35:12Z"); "-" for 0 or less. */
void ctl_text_time(struct strbuf *out, int64_t ms);

/* Appends a byte count as "980B", "12.1KiB", "3.4MiB", "1.20GiB". */
void ctl_text_size(struct strbuf *out, uint64_t n);

/* Appends a number of seconds as "45s", "12m03s", "3h02m", "5d04h". */
void ctl_text_age(struct strbuf *out, uint64_t seconds);

#endif
