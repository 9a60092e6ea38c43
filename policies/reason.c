/* SPDX-License-Identifier: ISC */
/*
 * Reason code table lookups. Owns nothing but the table; callers build their
 * own messages around it.
 */
#include <string.h>

#include "reason.h"

struct reason_row {
	const char *code;
	enum reason_severity sev;
	const char *text;
};

static const struct reason_row reason_rows[REASON__COUNT] = {
#define REASON_ROW(e, code, sev, text) [REASON_##e] = {code, sev, text},
    REASON_TABLE(REASON_ROW)
#undef REASON_ROW
};

const char *
reason_code(enum reason r)
{
	return (unsigned)r < REASON__COUNT ? reason_rows[r].code : "unknown";
}

const char *
reason_text(enum reason r)
{
	return (unsigned)r < REASON__COUNT ? reason_rows[r].text : "unknown";
}

enum reason_severity
reason_severity(enum reason r)
{
	return (unsigned)r < REASON__COUNT ? reason_rows[r].sev : SEV_HIGH;
}

const char *
reason_severity_name(enum reason_severity s)
{
	switch (s) {
	case SEV_INFO:
		return "INFO";
	case SEV_LOW:
		return "LOW";
	case SEV_MED:
		return "MED";
	case SEV_HIGH:
		return "HIGH";
	}
	return "HIGH";
}

enum reason
reason_from_code(const char *code)
{
	unsigned i;

	for (i = 0; i < REASON__COUNT; i++)
		if (strcmp(reason_rows[i].code, code) == 0)
			return (enum reason)i;
	return REASON__COUNT;
}
