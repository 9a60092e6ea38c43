/* SPDX-License-Identifier: ISC */
/*
 * Load-time policy diagnostics. Owns the file-system facts about binary
 * entries and the advice printed about them; leaves the schema to policy.c
 * and the per-connection use of those facts to decide.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lint.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

#define LINT_MAX_SYMLINKS 40

/* Joins root and an absolute path ("/" root adds nothing). */
static bool
join_root(const char *root, const char *path, char *out, size_t outlen)
{
	int n;

	if (strcmp(root, "/") == 0)
		root = "";
	n = snprintf(out, outlen, "%s%s", root, path);
	return n >= 0 && (size_t)n < outlen;
}

enum lint_resolve
lint_resolve_under(const char *root, const char *path, char *out, size_t outlen)
{
	char cur[PATH_MAX] = ""; /* resolved so far, relative to root */
	char rest[2 * PATH_MAX]; /* components still to walk */
	char full[2 * PATH_MAX], target[PATH_MAX], tmp[2 * PATH_MAX];
	int hops = 0;
	size_t curlen = 0;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest))
		return LINT_RESOLVE_ERROR;
	for (;;) {
		char *p = rest, *comp;
		size_t clen;
		struct stat st;
		ssize_t tl;

		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		comp = p;
		while (*p && *p != '/')
			p++;
		clen = (size_t)(p - comp);
		if (clen == 1 && comp[0] == '.') {
			memmove(rest, p, strlen(p) + 1);
			continue;
		}
		if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash = strrchr(cur, '/');

			if (slash) {
				*slash = '\0';
				curlen = (size_t)(slash - cur);
			}
			memmove(rest, p, strlen(p) + 1);
			continue;
		}
		if (curlen + 1 + clen >= sizeof(cur))
			return LINT_RESOLVE_ERROR;
		cur[curlen] = '/';
		memcpy(cur + curlen + 1, comp, clen);
		cur[curlen + 1 + clen] = '\0';
		memmove(rest, p, strlen(p) + 1);
		if (!join_root(root, cur, full, sizeof(full)))
			return LINT_RESOLVE_ERROR;
		if (lstat(full, &st) == -1) {
			int e = errno;

			if (snprintf(out, outlen, "%s%s", cur, rest) >=
			    (int)outlen)
				return LINT_RESOLVE_ERROR;
			return e == ENOENT || e == ENOTDIR ?
			    LINT_RESOLVE_MISSING :
			    LINT_RESOLVE_ERROR;
		}
		if (!S_ISLNK(st.st_mode)) {
			curlen += 1 + clen;
			continue;
		}
		if (++hops > LINT_MAX_SYMLINKS)
			return LINT_RESOLVE_LOOP;
		tl = readlink(full, target, sizeof(target) - 1);
		if (tl <= 0)
			return LINT_RESOLVE_ERROR;
		target[tl] = '\0';
		/* The link is replaced by its target: an absolute target
		 * restarts at the root, a relative one continues from the
		 * link's directory. */
		cur[curlen] = '\0';
		if (target[0] == '/') {
			cur[0] = '\0';
			curlen = 0;
		}
		if (snprintf(tmp, sizeof(tmp), "%s%s", target, rest) >=
		    (int)sizeof(tmp))
			return LINT_RESOLVE_ERROR;
		memcpy(rest, tmp, strlen(tmp) + 1);
	}
	if (snprintf(out, outlen, "%s", curlen ? cur : "/") >= (int)outlen)
		return LINT_RESOLVE_ERROR;
	return LINT_RESOLVE_OK;
}

bool
lint_is_interpreter(const char *path)
{
	static const char *const prefixes[] = {"python", "pypy", "node",
	    "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit",
	    "java", "tclsh", "wish", "Rscript", "pwsh", "osascript", "busybox",
	    "ld-linux", "ld-musl", "ld.so", "bash", "dash", "zsh", "ksh",
	    "mksh", "fish", "csh", "tcsh", "gawk", "mawk", "awk", "guile",
	    "racket", "sbcl", "julia", "erl", "escript", "dotnet", NULL};
	const char *base = strrchr(path, '/');
	const char *const *p;

	base = base ? base + 1 : path;
	if (strcmp(base, "sh") == 0)
		return true;
	for (p = prefixes; *p; p++) {
		size_t n = strlen(*p);

		/* "python3", "python3.11", "perl5.36.0", "ld-linux-x86-64.so.2"
		 * but not "nodemon" or "javac". */
		if (strncmp(base, *p, n) == 0 &&
		    (base[n] == '\0' || base[n] == '.' || base[n] == '-' ||
		        (base[n] >= '0' && base[n] <= '9')))
			return true;
	}
	return false;
}

/* Reads a script's "#!" line; returns the interpreter's real path under
 * root (following "/usr/bin/env NAME" through the usual PATH). */
static char *
script_interpreter(
    const char *root, const char *real, char *shebang, size_t shebang_len)
{
	static const char *const path_dirs[] = {"/usr/local/sbin",
	    "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", NULL};
	char full[2 * PATH_MAX], interp[PATH_MAX], resolved[PATH_MAX];
	char buf[256];
	char *p, *arg, *end;
	ssize_t n;
	int fd;

	shebang[0] = '\0';
	if (!join_root(root, real, full, sizeof(full)))
		return NULL;
	if ((fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return NULL;
	buf[n] = '\0';
	if ((end = strchr(buf, '\n')) == NULL)
		return NULL;
	*end = '\0';
	snprintf(shebang, shebang_len, "%s", buf);
	p = buf + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	arg = p;
	while (*arg && *arg != ' ' && *arg != '\t')
		arg++;
	if (*arg)
		*arg++ = '\0';
	while (*arg == ' ' || *arg == '\t')
		arg++;
	snprintf(interp, sizeof(interp), "%s", p);
	if (strcmp(interp, "/usr/bin/env") == 0 ||
	    strcmp(interp, "/bin/env") == 0) {
		const char *const *d;
		char *sp = arg;

		if (*arg == '-') /* env -S ...: too clever to follow */
			return NULL;
		while (*sp && *sp != ' ' && *sp != '\t')
			sp++;
		*sp = '\0';
		if (*arg == '\0' || strchr(arg, '/'))
			return NULL;
		for (d = path_dirs; *d; d++) {
			char cand[PATH_MAX];

			snprintf(cand, sizeof(cand), "%s/%s", *d, arg);
			if (lint_resolve_under(root, cand, resolved,
			        sizeof(resolved)) == LINT_RESOLVE_OK)
				return xstrdup(resolved);
		}
		return NULL;
	}
	if (interp[0] != '/')
		return NULL;
	if (lint_resolve_under(root, interp, resolved, sizeof(resolved)) !=
	    LINT_RESOLVE_OK)
		return NULL;
	return xstrdup(resolved);
}

static void
lint_binary(struct policy *p, struct policy_binary *b, struct diags *d)
{
	char real[PATH_MAX], full[2 * PATH_MAX], shebang[256];
	const char *root = p->root;
	const char *under = strcmp(root, "/") == 0 ? "" : " under ";
	const char *rootshow = strcmp(root, "/") == 0 ? "" : root;
	struct stat st;

	switch (lint_resolve_under(root, b->path, real, sizeof(real))) {
	case LINT_RESOLVE_OK:
		break;
	case LINT_RESOLVE_MISSING:
		b->state = BINARY_MISSING;
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s does not exist%s%s: this entry matches nothing until it is installed",
		    b->path, under, rootshow);
		return;
	case LINT_RESOLVE_LOOP:
		b->state = BINARY_MISSING;
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s: too many levels of symbolic links", b->path);
		return;
	case LINT_RESOLVE_ERROR:
		b->state = BINARY_MISSING;
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s cannot be inspected%s%s", b->path, under,
		    rootshow);
		return;
	}
	if (strcmp(real, b->path) != 0) {
		b->state = BINARY_SYMLINK;
		b->real = xstrdup(real);
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s is a symlink to %s; the kernel reports the real executable, so this entry never matches: write '- path: %s' instead",
		    b->path, real, real);
	} else {
		b->state = BINARY_OK;
	}
	if (!join_root(root, real, full, sizeof(full)) ||
	    stat(full, &st) == -1 || !S_ISREG(st.st_mode)) {
		b->state = BINARY_NOT_FILE;
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s is not a regular file: this entry matches nothing",
		    b->path);
		return;
	}
	b->interpreter =
	    script_interpreter(root, real, shebang, sizeof(shebang));
	if (b->interpreter)
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s is a script (%s): its connections are made by the interpreter %s, so this entry never matches; list '- path: %s' instead (which allows every script that interpreter runs)",
		    b->path, shebang, b->interpreter, b->interpreter);
	if (lint_is_interpreter(real))
		diag_add(d, DIAG_WARNING, b->line, b->col,
		    "binary %s is an interpreter or loader: allowing it allows every script or program it runs, including code the sandboxed job writes itself",
		    real);
}

/* Domains where anyone can publish content: a wildcard under them lets the
 * sandbox reach hosts an attacker controls. */
static const char *const shared_content[] = {"githubusercontent.com",
    "github.io", "gitlab.io", "amazonaws.com", "cloudfront.net",
    "googleapis.com", "appspot.com", "googleusercontent.com", "firebaseapp.com",
    "web.app", "blob.core.windows.net", "azurewebsites.net", "azureedge.net",
    "windows.net", "fastly.net", "fastly.com", "akamaihd.net", "akamaized.net",
    "herokuapp.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev",
    "r2.dev", "ngrok.io", "ngrok-free.app", "glitch.me", "repl.co", "fly.dev",
    "onrender.com", "cloudflare-ipfs.com", "ipfs.io", "digitaloceanspaces.com",
    "storage.googleapis.com", "s3.amazonaws.com", "pythonanywhere.com",
    "gitbook.io", "readthedocs.io", "surge.sh", "deno.dev", NULL};

const char *
lint_shared_content_domain(const char *name)
{
	const char *const *s;
	size_t m = strlen(name);

	for (s = shared_content; *s; s++) {
		size_t n = strlen(*s);

		if (m == n ? strcmp(name, *s) == 0 :
		             m > n && name[m - n - 1] == '.' &&
		            strcmp(name + m - n, *s) == 0)
			return *s;
	}
	return NULL;
}

static void
lint_shared_content(const struct policy_endpoint *e, struct diags *d)
{
	const char *dom;

	if (e->host.kind != HOSTPAT_ONE_LABEL &&
	    e->host.kind != HOSTPAT_ANY_LABELS)
		return;
	if ((dom = lint_shared_content_domain(e->host.suffix)) != NULL)
		diag_add(d, DIAG_WARNING, e->line, e->col,
		    "wildcard host %s is on %s, where anyone can publish content: it lets the sandbox reach hosts an attacker controls (and send data to them); list the exact hosts instead",
		    e->host_text, dom);
}

static bool
endpoints_differ(
    const struct policy_endpoint *a, const struct policy_endpoint *b)
{
	return a->access != b->access || a->enforcement != b->enforcement ||
	    a->protocol != b->protocol;
}

static void
endpoint_summary(const struct policy_endpoint *e, char *buf, size_t len)
{
	if (e->protocol == PROTO_REST)
		snprintf(buf, len, "protocol rest, access %s, %s",
		    e->access != ACCESS_UNSET ? policy_access_name(e->access) :
		                                "by rules",
		    policy_enforcement_name(e->enforcement));
	else
		snprintf(buf, len, "%s, %s",
		    e->protocol == PROTO_TCP ? "raw TCP, not inspected" :
		                               "not inspected",
		    policy_enforcement_name(e->enforcement));
}

static bool
block_lists(const struct policy_block *b, const char *path)
{
	size_t i;

	for (i = 0; i < b->nbinaries; i++)
		if (strcmp(b->binaries[i].path, path) == 0)
			return true;
	return false;
}

/*
 * For an endpoint that overlaps endpoints of other allow blocks with other
 * settings, explains the effective result per binary: blocks are OR-ed, so
 * the broadest access wins, raw (non-rest) wins over inspected, and one
 * enforcing endpoint makes denials enforced.
 */
static void
lint_overlap(const struct policy *p, size_t bi, size_t ei, struct diags *d)
{
	const struct policy_block *b = &p->blocks[bi];
	const struct policy_endpoint *e = &b->endpoints[ei];
	const struct policy_block *ob = NULL;
	const struct policy_endpoint *oe = NULL;
	char s1[96], s2[96];
	struct strbuf sb;
	size_t i, j, k, l;

	for (i = 0; i < bi && oe == NULL; i++) {
		if (p->blocks[i].deny)
			continue;
		for (j = 0; j < p->blocks[i].nendpoints; j++) {
			const struct policy_endpoint *x =
			    &p->blocks[i].endpoints[j];

			if (host_pattern_overlap(&x->host, &e->host) &&
			    port_ranges_overlap(
			        x->ports, x->nports, e->ports, e->nports) &&
			    endpoints_differ(x, e)) {
				ob = &p->blocks[i];
				oe = x;
				break;
			}
		}
	}
	if (oe == NULL)
		return;
	strbuf_init(&sb, 0);
	endpoint_summary(oe, s1, sizeof(s1));
	endpoint_summary(e, s2, sizeof(s2));
	strbuf_printf(&sb,
	    "%s is also in policy '%s' (line %d) with %s; here %s. Blocks are OR-ed; effective result per binary:",
	    e->host_text, ob->key, oe->line, s1, s2);
	/* every binary of every allow block with an overlapping endpoint */
	for (i = 0; i < p->nblocks; i++) {
		const struct policy_block *x = &p->blocks[i];

		if (x->deny)
			continue;
		for (k = 0; k < x->nbinaries; k++) {
			const char *path = x->binaries[k].path;
			enum policy_access acc = ACCESS_UNSET;
			bool raw = false, enforce = false, seen = false, dup;
			struct strbuf via;

			/* report each path once, at its first block */
			for (dup = false, l = 0; l < i && !dup; l++)
				dup = !p->blocks[l].deny &&
				    block_lists(&p->blocks[l], path);
			if (dup)
				continue;
			strbuf_init(&via, 0);
			for (l = i; l < p->nblocks; l++) {
				const struct policy_block *y = &p->blocks[l];

				if (y->deny || !block_lists(y, path))
					continue;
				for (j = 0; j < y->nendpoints; j++) {
					const struct policy_endpoint *z =
					    &y->endpoints[j];

					if (!host_pattern_overlap(
					        &z->host, &e->host) ||
					    !port_ranges_overlap(z->ports,
					        z->nports, e->ports, e->nports))
						continue;
					if (!seen)
						strbuf_printf(
						    &via, "%s", y->key);
					else if (strstr(strbuf_str(&via),
					             y->key) == NULL)
						strbuf_printf(
						    &via, "+%s", y->key);
					seen = true;
					if (z->protocol != PROTO_REST)
						raw = true;
					else if (z->access > acc)
						acc = z->access;
					if (z->enforcement == ENFORCE_ENFORCE)
						enforce = true;
				}
			}
			if (seen)
				strbuf_printf(&sb, "%s %s -> %s%s%s (%s)",
				    strbuf_str(&sb)[sb.len - 1] == ':' ? "" :
				                                         ";",
				    path,
				    raw ? "any request (not inspected)" :
				          "access ",
				    raw ? "" : policy_access_name(acc),
				    enforce ? ", enforce" : ", audit",
				    strbuf_str(&via));
			strbuf_free(&via);
		}
	}
	diag_add(d, DIAG_WARNING, e->line, e->col, "%s", strbuf_str(&sb));
	strbuf_free(&sb);
}

/* The first entry with the same path, so each path is inspected and
 * warned about once. */
static const struct policy_binary *
earlier_entry(const struct policy *p, size_t bi, size_t ki)
{
	const char *path = p->blocks[bi].binaries[ki].path;
	size_t i, k;

	for (i = 0; i <= bi; i++)
		for (k = 0; k < p->blocks[i].nbinaries; k++) {
			if (i == bi && k == ki)
				return NULL;
			if (strcmp(p->blocks[i].binaries[k].path, path) == 0)
				return &p->blocks[i].binaries[k];
		}
	return NULL;
}

void
policy_lint(
    struct policy *p, const struct policy_load_opts *opts, struct diags *d)
{
	size_t i, j;

	for (i = 0; i < p->nblocks; i++) {
		struct policy_block *b = &p->blocks[i];

		for (j = 0; j < b->nbinaries; j++) {
			struct policy_binary *bin = &b->binaries[j];
			const struct policy_binary *first =
			    earlier_entry(p, i, j);

			if (first) {
				bin->state = first->state;
				bin->real =
				    first->real ? xstrdup(first->real) : NULL;
				bin->interpreter = first->interpreter ?
				    xstrdup(first->interpreter) :
				    NULL;
				continue;
			}
			if (bin->glob) {
				if (strncmp(bin->path, "/**", 3) == 0)
					diag_add(d, DIAG_WARNING, bin->line,
					    bin->col,
					    "binary %s matches every program in the sandbox",
					    bin->path);
				continue;
			}
			if (!opts->no_fs_checks)
				lint_binary(p, bin, d);
			else if (lint_is_interpreter(bin->path))
				diag_add(d, DIAG_WARNING, bin->line, bin->col,
				    "binary %s is an interpreter or loader: allowing it allows every script or program it runs, including code the sandboxed job writes itself",
				    bin->path);
		}
		for (j = 0; j < b->nendpoints; j++) {
			lint_shared_content(&b->endpoints[j], d);
			if (!b->deny)
				lint_overlap(p, i, j, d);
		}
	}
}
