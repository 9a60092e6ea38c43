/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target for the /proc parsers of proxy/identity: /proc/PID/stat (whose
 * comm field the caller chooses), /proc/PID/status and the cmdline escaper
 * (argv is the caller's). The first byte picks the parser; the rest is the
 * input, copied to an exact-size buffer so that an over-read trips ASan.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Undoes identity_format_cmdline(): false if out is not its encoding. */
static bool
cmdline_roundtrip(const char *raw, size_t len, const char *out)
{
	size_t i = 0, o = 0;

	if (len > 0 && raw[len - 1] == '\0')
		len--;
	while (out[o] != '\0') {
		unsigned char want, got;

		if (i >= len)
			return false;
		want = raw[i] == '\0' ? ' ' : (unsigned char)raw[i];
		if (out[o] == '\\') {
			if (out[o + 1] == '\\') {
				got = '\\';
				o += 2;
			} else if (out[o + 1] == 'x' && out[o + 2] &&
			    out[o + 3]) {
				char hex[3] = {out[o + 2], out[o + 3], 0};

				got = (unsigned char)strtoul(hex, NULL, 16);
				o += 4;
			} else {
				return false;
			}
		} else {
			if ((unsigned char)out[o] < 0x20 ||
			    (unsigned char)out[o] > 0x7e)
				return false;
			got = (unsigned char)out[o++];
		}
		if (got != want)
			return false;
		i++;
	}
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, out[IDENTITY_CMDLINE_MAX];
	size_t len;

	if (size < 2)
		return 0;
	len = size - 2;
	buf = malloc(len ? len : 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data + 2, len);
	switch (data[0] % 3) {
	case 0: {
		pid_t ppid = -7;
		uint64_t start = 0;

		if (identity_parse_stat(buf, len, &ppid, &start) && ppid < 0)
			abort();
		break;
	}
	case 1: {
		uid_t u, eu;
		gid_t g, eg;

		(void)identity_parse_status(buf, len, &u, &eu, &g, &eg);
		break;
	}
	default: {
		/* outlen from 1 to the real size, to hit every cut. */
		size_t outlen = 1 + data[1] % sizeof(out);
		bool complete;

		memset(out, 'Z', sizeof(out));
		complete = identity_format_cmdline(buf, len, out, outlen);
		if (memchr(out, '\0', outlen) == NULL)
			abort();
		if (!cmdline_roundtrip(buf, len, out))
			abort();
		/* Complete means everything was encoded. */
		if (complete && outlen == sizeof(out)) {
			char again[IDENTITY_CMDLINE_MAX];

			if (!identity_format_cmdline(
			        buf, len, again, sizeof(again)) ||
			    strcmp(again, out) != 0)
				abort();
		}
		break;
	}
	}
	free(buf);
	return 0;
}
