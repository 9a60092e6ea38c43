/* SPDX-License-Identifier: ISC */
/*
 * Process-wide diagnostic logging to stderr (journald friendly: one line per
 * event, no timestamps when stderr is not a terminal). Decision records are
 * the audit module's business, not this one's.
 */
#ifndef EGRESSD_LOG_H
#define EGRESSD_LOG_H

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Sets the most verbose level printed and the program name prefix. */
void log_init(const char *progname, enum log_level level);
enum log_level log_level_get(void);

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Start-up errors and impossible states only: prints and exits(2). */
void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

#endif
