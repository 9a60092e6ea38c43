/* SPDX-License-Identifier: ISC */
/*
 * Canonical hostnames. Owns the LDH rules and the IP-literal detection for
 * names; leaves wildcard patterns to policies/match.c.
 */
#include <string.h>

#include "hostname.h"

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int
is_ldh(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

static enum hostname_err
check_label(const char *l, size_t n, int *numeric)
{
	size_t i;
	int digits = 1;

	if (n == 0)
		return HOSTNAME_ERR_EMPTY_LABEL;
	if (n > 63)
		return HOSTNAME_ERR_LABEL_TOO_LONG;
	for (i = 0; i < n; i++) {
		if ((unsigned char)l[i] >= 0x80)
			return HOSTNAME_ERR_NON_ASCII;
		if (!is_ldh(l[i]))
			return HOSTNAME_ERR_CHAR;
		if (l[i] < '0' || l[i] > '9')
			digits = 0;
	}
	if (l[0] == '-' || l[n - 1] == '-')
		return HOSTNAME_ERR_HYPHEN;
	/* RFC 5891 §4.2.3.1: "??--" is reserved for A-labels (xn--). */
	if (n >= 4 && l[2] == '-' && l[3] == '-' &&
	    !(l[0] == 'x' && l[1] == 'n' && n > 4))
		return HOSTNAME_ERR_RESERVED_LABEL;
	*numeric = digits || (n > 1 && l[0] == '0' && l[1] == 'x');
	return HOSTNAME_OK;
}

enum hostname_err
hostname_normalize(const char *s, size_t len, struct hostname *out)
{
	size_t i, start;
	int numeric = 0;
	enum hostname_err e;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return HOSTNAME_ERR_EMPTY;
	if (memchr(s, '\0', len))
		return HOSTNAME_ERR_CHAR;
	if (s[0] == '[' || memchr(s, ':', len)) {
		const char *p = s;
		size_t n = len;

		if (s[0] == '[') {
			if (len < 3 || s[len - 1] != ']')
				return HOSTNAME_ERR_BAD_IPV6;
			p++;
			n -= 2;
		}
		if (!addr_parse_ipv6(p, n, &out->addr))
			return HOSTNAME_ERR_BAD_IPV6;
		out->kind = HOSTNAME_IPV6;
		addr_format(&out->addr, out->name);
		out->len = strlen(out->name);
		return HOSTNAME_OK;
	}
	if (len > 1 && s[len - 1] == '.')
		len--;
	if (len > HOSTNAME_MAX)
		return HOSTNAME_ERR_TOO_LONG;
	for (i = 0; i < len; i++)
		out->name[i] = lower(s[i]);
	out->name[len] = '\0';
	out->len = len;
	for (start = 0, i = 0; i <= len; i++) {
		if (i < len && out->name[i] != '.')
			continue;
		if ((e = check_label(out->name + start, i - start, &numeric)) !=
		    HOSTNAME_OK)
			return e;
		start = i + 1;
	}
	/* No top-level domain is numeric: a numeric last label means the
	 * client wrote an address, and only the strict form is accepted. */
	if (numeric) {
		if (!addr_parse_ipv4(out->name, len, &out->addr))
			return HOSTNAME_ERR_NUMERIC;
		out->kind = HOSTNAME_IPV4;
	}
	return HOSTNAME_OK;
}

const char *
hostname_strerror(enum hostname_err e)
{
	switch (e) {
	case HOSTNAME_OK:
		return "ok";
	case HOSTNAME_ERR_EMPTY:
		return "empty host name";
	case HOSTNAME_ERR_TOO_LONG:
		return "host name longer than 253 characters";
	case HOSTNAME_ERR_EMPTY_LABEL:
		return "empty label in host name";
	case HOSTNAME_ERR_LABEL_TOO_LONG:
		return "host name label longer than 63 characters";
	case HOSTNAME_ERR_CHAR:
		return "character not allowed in a host name (letters, digits, '-' and '.' only)";
	case HOSTNAME_ERR_NON_ASCII:
		return "non-ASCII host name: write internationalized names in punycode (xn--...)";
	case HOSTNAME_ERR_HYPHEN:
		return "host name label starts or ends with '-'";
	case HOSTNAME_ERR_RESERVED_LABEL:
		return "host name label has '--' in positions 3-4 but is not punycode (xn--)";
	case HOSTNAME_ERR_NUMERIC:
		return "numeric host that is not a dotted-decimal IPv4 address (forms like 127.1, 0x7f.0.0.1 or 2130706433 are refused)";
	case HOSTNAME_ERR_BAD_IPV6:
		return "malformed IPv6 address";
	}
	return "invalid host name";
}
