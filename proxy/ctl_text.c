/* SPDX-License-Identifier: ISC */
/*
 * Text helpers for egressctl. Owns the duration syntax of --since and the
 * rendering of untrusted strings for a terminal; leaves layout to the
 * subcommands.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_text.h"
#include "strbuf.h"

#define CTL_TEXT_MAX_SECONDS (10ull * 366 * 86400)

bool
ctl_text_duration(const char *s, uint64_t *seconds)
{
	uint64_t n = 0, mul = 1;
	size_t i = 0;

	if (s == NULL || !(s[0] >= '1' && s[0] <= '9'))
		return false;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		n = n * 10 + (uint64_t)(s[i] - '0');
		if (n > CTL_TEXT_MAX_SECONDS)
			return false;
	}
	switch (s[i]) {
	case '\0':
		break;
	case 's':
		break;
	case 'm':
		mul = 60;
		break;
	case 'h':
		mul = 3600;
		break;
	case 'd':
		mul = 86400;
		break;
	default:
		return false;
	}
	if (s[i] != '\0' && s[i + 1] != '\0')
		return false;
	if (n * mul > CTL_TEXT_MAX_SECONDS)
		return false;
	*seconds = n * mul;
	return true;
}

static void
text_escaped(struct strbuf *out, const char *s, bool backslash)
{
	if (s == NULL) {
		strbuf_putc(out, '-');
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' && backslash)
			strbuf_puts(out, "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			strbuf_putc(out, (char)c);
		else
			strbuf_printf(out, "\\x%02x", c);
	}
}

void
ctl_text_safe(struct strbuf *out, const char *s)
{
	text_escaped(out, s, true);
}

void
ctl_text_escaped(struct strbuf *out, const char *s)
{
	text_escaped(out, s, false);
}

void
ctl_text_time(struct strbuf *out, int64_t ms)
{
	time_t t;
	struct tm tm;
	char buf[32];

	if (ms <= 0) {
		strbuf_putc(out, '-');
		return;
	}
	t = (time_t)(ms / 1000);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		strbuf_putc(out, '-');
		return;
	}
	strbuf_puts(out, buf);
}

void
ctl_text_size(struct strbuf *out, uint64_t n)
{
	if (n < 1024)
		strbuf_printf(out, "%lluB", (unsigned long long)n);
	else if (n < 1024 * 1024)
		strbuf_printf(out, "%.1fKiB", (double)n / 1024);
	else if (n < 1024ull * 1024 * 1024)
		strbuf_printf(out, "%.1fMiB", (double)n / (1024 * 1024));
	else
		strbuf_printf(
		    out, "%.2fGiB", (double)n / (1024.0 * 1024 * 1024));
}

void
ctl_text_age(struct strbuf *out, uint64_t s)
{
	unsigned long long v = (unsigned long long)s;

	if (v < 60)
		strbuf_printf(out, "%llus", v);
	else if (v < 3600)
		strbuf_printf(out, "%llum%02llus", v / 60, v % 60);
	else if (v < 86400)
		strbuf_printf(out, "%lluh%02llum", v / 3600, v % 3600 / 60);
	else
		strbuf_printf(out, "%llud%02lluh", v / 86400, v % 86400 / 3600);
}

bool
ctl_text_extra_args(
    const char *cmd, int argc, char *const *argv, void (*usage)(FILE *))
{
	if (optind >= argc)
		return false;
	fprintf(stderr, "egressctl %s: unexpected argument '%s'\n", cmd,
	    argv[optind]);
	usage(stderr);
	return true;
}
