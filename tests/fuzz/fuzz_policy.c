/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the policy loader (YAML tree, schema, compile, lint without
 * file-system checks) and its normalized dump, which must load again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_load_opts opts = {"/nonexistent-root", true};
	struct diags d, d2;
	struct policy *p, *p2;
	struct strbuf sb;

	diags_init(&d, "fuzz");
	p = policy_load_buffer((const char *)data, size, "fuzz", &opts, &d);
	if ((p == NULL) != (d.nerrors > 0))
		abort(); /* a failed load always says why */
	if (p) {
		strbuf_init(&sb, 0);
		policy_dump_yaml(p, &sb);
		diags_init(&d2, "fuzz-normalized");
		p2 = policy_load_buffer(
		    strbuf_str(&sb), sb.len, "n", &opts, &d2);
		if (p2 == NULL)
			abort(); /* the normalized form must load */
		policy_unref(p2);
		diags_free(&d2);
		strbuf_reset(&sb);
		policy_dump_json(p, &sb);
		strbuf_free(&sb);
		policy_unref(p);
	}
	diags_free(&d);
	return 0;
}
