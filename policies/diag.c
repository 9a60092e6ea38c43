/* SPDX-License-Identifier: ISC */
/*
 * Policy diagnostics list. Owns the messages; leaves deciding what is an
 * error to the loader and the linter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "log.h"
#include "strbuf.h"

void
diags_init(struct diags *d, const char *file)
{
	memset(d, 0, sizeof(*d));
	if ((d->file = strdup(file ? file : "-")) == NULL)
		fatal("out of memory");
}

void
diags_free(struct diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].msg);
	free(d->v);
	free(d->file);
	memset(d, 0, sizeof(*d));
}

void
diag_vadd(struct diags *d, enum diag_sev sev, int line, int col,
    const char *fmt, va_list ap)
{
	struct diag *g;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		if ((d->v = realloc(d->v, d->cap * sizeof(*d->v))) == NULL)
			fatal("out of memory");
	}
	g = &d->v[d->n];
	g->sev = sev;
	g->line = line;
	g->col = col;
	g->seq = (unsigned)d->n;
	if (vasprintf(&g->msg, fmt, ap) == -1)
		fatal("out of memory");
	d->n++;
	if (sev == DIAG_ERROR)
		d->nerrors++;
	else if (sev == DIAG_WARNING)
		d->nwarnings++;
}

void
diag_add(
    struct diags *d, enum diag_sev sev, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, sev, line, col, fmt, ap);
	va_end(ap);
}

static int
diag_cmp(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
diags_sort(struct diags *d)
{
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), diag_cmp);
}

const char *
diag_sev_name(enum diag_sev s)
{
	switch (s) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	case DIAG_NOTICE:
		return "notice";
	}
	return "error";
}

void
diags_format(const struct diags *d, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct diag *g = &d->v[i];

		if (g->line > 0)
			strbuf_printf(out, "%s:%d:%d: %s: %s\n", d->file,
			    g->line, g->col, diag_sev_name(g->sev), g->msg);
		else
			strbuf_printf(out, "%s: %s: %s\n", d->file,
			    diag_sev_name(g->sev), g->msg);
	}
}

void
diags_format_json(const struct diags *d, struct strbuf *out)
{
	size_t i;

	strbuf_putc(out, '[');
	for (i = 0; i < d->n; i++) {
		const struct diag *g = &d->v[i];

		if (i)
			strbuf_putc(out, ',');
		strbuf_puts(out, "{\"severity\":");
		strbuf_json_str(out, diag_sev_name(g->sev));
		strbuf_puts(out, ",\"file\":");
		strbuf_json_str(out, d->file);
		strbuf_printf(out,
		    ",\"line\":%d,\"column\":%d,\"message\":", g->line, g->col);
		strbuf_json_str(out, g->msg);
		strbuf_putc(out, '}');
	}
	strbuf_putc(out, ']');
}
