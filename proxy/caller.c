/* SPDX-License-Identifier: ISC */
/*
 * Per-connection callers and the interned executable table. Owns the copy
 * from the lookup's large scratch struct into small, exactly sized
 * allocations; leaves finding the caller to identity.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caller.h"
#include "identity.h"
#include "log.h"
#include "xalloc.h"

#define CALLER_BUCKETS 256

struct caller_table {
	struct caller_exe *buckets[CALLER_BUCKETS];
	size_t count;
};

static unsigned
path_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % CALLER_BUCKETS;
}

struct caller_table *
caller_table_new(void)
{
	struct caller_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		fatal("out of memory");
	return t;
}

void
caller_table_free(struct caller_table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < CALLER_BUCKETS; i++) {
		struct caller_exe *e, *n;

		for (e = t->buckets[i]; e; e = n) {
			n = e->next;
			free(e->path);
			free(e);
		}
	}
	free(t);
}

static struct caller_exe *
exe_intern(struct caller_table *t, const char *path)
{
	unsigned h = path_hash(path);
	struct caller_exe *e;

	for (e = t->buckets[h]; e; e = e->next)
		if (strcmp(e->path, path) == 0) {
			e->refs++;
			return e;
		}
	if ((e = calloc(1, sizeof(*e))) == NULL)
		fatal("out of memory");
	e->path = xstrdup(path);
	e->refs = 1;
	e->next = t->buckets[h];
	t->buckets[h] = e;
	t->count++;
	return e;
}

static void
exe_put(struct caller_table *t, struct caller_exe *x)
{
	struct caller_exe **pp;

	if (x == NULL || --x->refs > 0)
		return;
	for (pp = &t->buckets[path_hash(x->path)]; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	t->count--;
	free(x->path);
	free(x);
}

static enum reason
reason_of(int err)
{
	switch ((enum identity_err)err) {
	case IDENTITY_OK:
		return REASON_ALLOWED;
	case IDENTITY_ERR_NO_SOCKET:
		return REASON_IDENTITY_NO_SOCKET;
	case IDENTITY_ERR_NO_OWNER:
		return REASON_IDENTITY_NO_OWNER;
	case IDENTITY_ERR_UNREADABLE:
		return REASON_IDENTITY_UNREADABLE;
	case IDENTITY_ERR_PID_REUSED:
		return REASON_IDENTITY_PID_REUSED;
	case IDENTITY_ERR_AMBIGUOUS:
		return REASON_IDENTITY_AMBIGUOUS;
	default:
		return REASON_IDENTITY_FAILED;
	}
}

void
caller_from_identity(struct caller_table *t, struct caller *c, int identity_err,
    const struct identity *id)
{
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->identity_err = reason_of(identity_err);
	c->pid = id->pid;
	c->uid = id->uid;
	if (id->cmdline[0])
		c->cmdline = xstrdup(id->cmdline);
	if (c->identity_err != REASON_ALLOWED) {
		char buf[PATH_MAX + 128];

		if (identity_err == IDENTITY_ERR_AMBIGUOUS && id->nlisted > 1)
			snprintf(buf, sizeof(buf), "%s: %s and %s",
			    identity_strerror(identity_err),
			    identity_holder_exe(id, 0),
			    identity_holder_exe(id, 1));
		else if (id->err_pid)
			snprintf(buf, sizeof(buf), "%s (pid %d)",
			    identity_strerror(identity_err), (int)id->err_pid);
		else
			snprintf(buf, sizeof(buf), "%s",
			    identity_strerror(identity_err));
		c->identity_detail = xstrdup(buf);
		if (c->pid == 0)
			c->pid = id->err_pid;
		return;
	}
	c->exe = exe_intern(t, id->exe);
	if (id->invoked_as[0])
		c->invoked_as = xstrdup(id->invoked_as);
	if (id->nancestors) {
		c->ancestors = calloc(id->nancestors, sizeof(*c->ancestors));
		if (c->ancestors == NULL)
			fatal("out of memory");
		for (i = 0; i < id->nancestors; i++) {
			const char *a = identity_ancestor_exe(id, i);

			if (a && *a)
				c->ancestors[c->nancestors++] = xstrdup(a);
		}
	}
	c->has_key = true;
	c->exe_key.dev = id->exe_file.dev;
	c->exe_key.ino = id->exe_file.ino;
	c->exe_key.size = id->exe_file.size;
	c->exe_key.mtime = id->exe_file.mtime;
	c->exe_key.ctime = id->exe_file.ctime;
}

void
caller_release(struct caller_table *t, struct caller *c)
{
	size_t i;

	if (c->counted && c->exe)
		c->exe->active--;
	exe_put(t, c->exe);
	free(c->cmdline);
	free(c->invoked_as);
	free(c->identity_detail);
	for (i = 0; i < c->nancestors; i++)
		free(c->ancestors[i]);
	free(c->ancestors);
	memset(c, 0, sizeof(*c));
}

void
caller_view(
    const struct caller *c, const struct addr *src, struct decide_caller *out)
{
	memset(out, 0, sizeof(*out));
	out->exe = c->exe ? c->exe->path : NULL;
	out->invoked_as = c->invoked_as;
	out->ancestors = (const char *const *)c->ancestors;
	out->nancestors = c->nancestors;
	out->sha256 = c->has_sha256 ? c->sha256 : NULL;
	out->src = src;
	out->identity_err = c->identity_err;
}

bool
caller_take_slot(struct caller *c, unsigned max)
{
	if (c->exe == NULL || c->counted)
		return true;
	if (max && c->exe->active >= max)
		return false;
	c->exe->active++;
	c->counted = true;
	return true;
}

size_t
caller_table_size(const struct caller_table *t)
{
	return t->count;
}
