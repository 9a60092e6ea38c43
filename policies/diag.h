/* SPDX-License-Identifier: ISC */
/*
 * Diagnostics collected while loading a policy: every error and warning at
 * once, each with its file:line:column, printed in source order.
 */
#ifndef EGRESSD_DIAG_H
#define EGRESSD_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

enum diag_sev { DIAG_ERROR, DIAG_WARNING, DIAG_NOTICE };

struct diag {
	enum diag_sev sev;
	int line; /* 1-based; 0 when the message concerns the whole file */
	int col;
	unsigned seq; /* insertion order, for a stable sort */
	char *msg;
};

struct diags {
	char *file;
	struct diag *v;
	size_t n, cap;
	size_t nerrors, nwarnings;
};

void diags_init(struct diags *d, const char *file);
void diags_free(struct diags *d);
void diag_add(struct diags *d, enum diag_sev sev, int line, int col,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diag_vadd(struct diags *d, enum diag_sev sev, int line, int col,
    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
/* Sorts by position (whole-file messages first), keeping insertion order
 * among equals. */
void diags_sort(struct diags *d);
/* "file:line:col: error: message\n" lines. */
void diags_format(const struct diags *d, struct strbuf *out);
/* A JSON array of {"severity","file","line","column","message"}. */
void diags_format_json(const struct diags *d, struct strbuf *out);
const char *diag_sev_name(enum diag_sev s);

#endif
