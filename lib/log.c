/* SPDX-License-Identifier: ISC */
/*
 * stderr logging with levels. Owns the program-name prefix and the level;
 * leaves record formats (JSON decisions) to proxy/audit.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static const char *log_prog = "egressd";
static enum log_level log_max = LOG_LVL_INFO;

void
log_init(const char *progname, enum log_level level)
{
	log_prog = progname;
	log_max = level;
}

enum log_level
log_level_get(void)
{
	return log_max;
}

static void log_vprint(enum log_level lvl, const char *tag, const char *fmt,
    va_list ap) __attribute__((format(printf, 3, 0)));

static void
log_vprint(enum log_level lvl, const char *tag, const char *fmt, va_list ap)
{
	char line[2048];

	if (lvl > log_max)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", log_prog, tag, line);
}

#define LOG_FN(name, lvl, tag) \
	void name(const char *fmt, ...) \
	{ \
		va_list ap; \
		va_start(ap, fmt); \
		log_vprint(lvl, tag, fmt, ap); \
		va_end(ap); \
	}

LOG_FN(log_err, LOG_LVL_ERR, "error: ")
LOG_FN(log_warn, LOG_LVL_WARN, "warning: ")
LOG_FN(log_info, LOG_LVL_INFO, "")
LOG_FN(log_debug, LOG_LVL_DEBUG, "debug: ")

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LVL_ERR, "fatal: ", fmt, ap);
	va_end(ap);
	exit(2);
}
