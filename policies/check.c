/* SPDX-License-Identifier: ISC */
/*
 * The policy checker behind `egressd -t`. Owns its output formats; leaves
 * loading to policy.c and the warnings to lint.c.
 */
#include <string.h>

#include "check.h"
#include "policy.h"
#include "strbuf.h"

static bool
listed_before(const struct policy *p, size_t bi, size_t ki)
{
	const char *path = p->blocks[bi].binaries[ki].path;
	size_t i, k;

	for (i = 0; i <= bi; i++)
		for (k = 0; k < p->blocks[i].nbinaries; k++) {
			if (i == bi && k == ki)
				return false;
			if (strcmp(p->blocks[i].binaries[k].path, path) == 0)
				return true;
		}
	return false;
}

void
check_effective(const struct policy *p, struct strbuf *out)
{
	size_t i, k, j, l, m;
	char ports[32];

	strbuf_puts(out,
	    "# effective per binary (blocks are OR-ed; a deny block wins):\n");
	for (i = 0; i < p->nblocks; i++)
		for (k = 0; k < p->blocks[i].nbinaries; k++) {
			const char *path = p->blocks[i].binaries[k].path;

			const struct policy_binary *bin =
			    &p->blocks[i].binaries[k];

			if (listed_before(p, i, k))
				continue;
			if (bin->state == BINARY_SYMLINK) {
				strbuf_printf(out,
				    "#   %s: never matches (a symlink to %s)\n",
				    path, bin->real);
				continue;
			}
			if (bin->interpreter) {
				strbuf_printf(out,
				    "#   %s: never matches (a script run by %s)\n",
				    path, bin->interpreter);
				continue;
			}
			if (bin->state == BINARY_MISSING ||
			    bin->state == BINARY_NOT_FILE) {
				strbuf_printf(out,
				    "#   %s: matches nothing (%s)\n", path,
				    bin->state == BINARY_MISSING ?
				        "not found" :
				        "not a regular file");
				continue;
			}
			strbuf_printf(out, "#   %s\n", path);
			for (j = 0; j < p->nblocks; j++) {
				const struct policy_block *b = &p->blocks[j];
				bool lists = false;

				for (l = 0; l < b->nbinaries && !lists; l++)
					lists = strcmp(b->binaries[l].path,
					            path) == 0;
				if (!lists)
					continue;
				for (l = 0; l < b->nendpoints; l++) {
					const struct policy_endpoint *e =
					    &b->endpoints[l];

					strbuf_printf(out,
					    strchr(e->host_text, ':') ?
					        "#     %s [%s]:" :
					        "#     %s %s:",
					    b->deny ? "DENY " : "allow",
					    e->host_text);
					for (m = 0; m < e->nports; m++) {
						if (e->ports[m].lo ==
						    e->ports[m].hi)
							snprintf(ports,
							    sizeof(ports), "%u",
							    e->ports[m].lo);
						else
							snprintf(ports,
							    sizeof(ports),
							    "%u-%u",
							    e->ports[m].lo,
							    e->ports[m].hi);
						strbuf_printf(out, "%s%s",
						    m ? "," : "", ports);
					}
					strbuf_printf(out, " %s",
					    policy_protocol_name(e->protocol));
					if (e->protocol == PROTO_REST)
						strbuf_printf(out, " %s",
						    e->access != ACCESS_UNSET ?
						        policy_access_name(
						            e->access) :
						        "rules");
					strbuf_printf(out, " %s [%s]\n",
					    policy_enforcement_name(
					        e->enforcement),
					    b->key);
				}
			}
		}
}

static int
report(struct policy *p, struct diags *d, bool json, FILE *out)
{
	struct strbuf sb;
	size_t nep = 0, nbin = 0, i;
	int status = p ? 0 : 1;

	strbuf_init(&sb, 16u << 20);
	if (p)
		for (i = 0; i < p->nblocks; i++) {
			nep += p->blocks[i].nendpoints;
			nbin += p->blocks[i].nbinaries;
		}
	if (json) {
		strbuf_puts(&sb, "{\"file\":");
		strbuf_json_str(&sb, d->file);
		strbuf_printf(&sb,
		    ",\"valid\":%s,\"errors\":%zu,\"warnings\":%zu,\"diagnostics\":",
		    p ? "true" : "false", d->nerrors, d->nwarnings);
		diags_format_json(d, &sb);
		strbuf_puts(&sb, ",\"policy\":");
		if (p)
			policy_dump_json(p, &sb);
		else
			strbuf_puts(&sb, "null");
		strbuf_puts(&sb, "}\n");
	} else {
		diags_format(d, &sb);
		if (p) {
			strbuf_printf(&sb,
			    "%s: valid: %zu %s, %zu %s, %zu %s; %zu %s\n",
			    d->file, p->nblocks,
			    p->nblocks == 1 ? "policy" : "policies", nep,
			    nep == 1 ? "endpoint" : "endpoints", nbin,
			    nbin == 1 ? "binary" : "binaries", d->nwarnings,
			    d->nwarnings == 1 ? "warning" : "warnings");
			strbuf_puts(&sb, "# normalized policy\n");
			policy_dump_yaml(p, &sb);
			check_effective(p, &sb);
		} else {
			strbuf_printf(&sb, "%s: invalid: %zu %s, %zu %s\n",
			    d->file, d->nerrors,
			    d->nerrors == 1 ? "error" : "errors", d->nwarnings,
			    d->nwarnings == 1 ? "warning" : "warnings");
		}
	}
	fputs(strbuf_str(&sb), out);
	strbuf_free(&sb);
	policy_unref(p);
	diags_free(d);
	return status;
}

int
check_policy(const char *file, const char *root, bool json, FILE *out)
{
	struct policy_load_opts opts = {root, false};
	struct diags d;
	struct policy *p;

	diags_init(&d, file);
	p = policy_load_file(file, &opts, &d);
	return report(p, &d, json, out);
}

int
check_policy_buffer(const char *text, size_t len, const char *name,
    const char *root, bool json, FILE *out)
{
	struct policy_load_opts opts = {root, false};
	struct diags d;
	struct policy *p;

	diags_init(&d, name);
	p = policy_load_buffer(text, len, name, &opts, &d);
	return report(p, &d, json, out);
}
