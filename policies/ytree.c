/* SPDX-License-Identifier: ISC */
/*
 * libyaml event stream -> bounded node tree. Aliases share their anchor's
 * subtree; the expanded size is accounted so that "billion laughs" documents
 * stop at YTREE_MAX_NODES instead of exhausting memory or time downstream.
 */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "diag.h"
#include "log.h"
#include "ytree.h"
#include "xalloc.h"

struct anchor {
	char *name;
	struct ynode *node;
};

struct builder {
	struct ytree *t;
	struct diags *d;
	struct ynode *stack[YTREE_MAX_DEPTH + 1];
	int depth;
	struct anchor *anchors;
	size_t nanchors, capanchors;
	/* the anchor name of each open collection, registered when it closes
	 * (an alias to an unfinished anchor would make a cycle) */
	char *open_anchor[YTREE_MAX_DEPTH + 1];
	struct ynode *pending_key[YTREE_MAX_DEPTH + 1];
	size_t total; /* expanded node count so far */
};

static struct ynode *
node_new(struct builder *b, enum ynode_type type, const yaml_mark_t *m)
{
	struct ytree *t = b->t;
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->type = type;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	n->weight = 1;
	if (t->nall == t->capall) {
		t->capall = t->capall ? t->capall * 2 : 64;
		t->all = realloc(t->all, t->capall * sizeof(*t->all));
		if (t->all == NULL)
			fatal("out of memory");
	}
	t->all[t->nall++] = n;
	return n;
}

static void
node_append(struct ynode *parent, struct ynode *key, struct ynode *val)
{
	/* Capacity doubles at powers of two; n is small in policy files. */
	if ((parent->n & (parent->n - 1)) == 0) {
		size_t cap = parent->n ? parent->n * 2 : 1;

		parent->vals =
		    realloc(parent->vals, cap * sizeof(*parent->vals));
		if (parent->vals == NULL)
			fatal("out of memory");
		if (parent->type == YNODE_MAP) {
			parent->keys =
			    realloc(parent->keys, cap * sizeof(*parent->keys));
			if (parent->keys == NULL)
				fatal("out of memory");
		}
	}
	if (parent->type == YNODE_MAP)
		parent->keys[parent->n] = key;
	parent->vals[parent->n++] = val;
}

static bool
account(struct builder *b, size_t weight, const yaml_mark_t *m)
{
	b->total += weight;
	if (b->total > YTREE_MAX_NODES) {
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "document too large: more than %u nodes after alias expansion",
		    YTREE_MAX_NODES);
		return false;
	}
	return true;
}

/*
 * Attaches a finished node to the open collection. In a map, nodes arrive as
 * key, value, key, value: a key waits in pending_key until its value comes.
 */
static bool
attach(struct builder *b, struct ynode *n)
{
	struct ynode *parent;
	int top = b->depth - 1;

	if (b->depth == 0) {
		b->t->root = n;
		return true;
	}
	parent = b->stack[top];
	if (parent->type == YNODE_SEQ) {
		node_append(parent, NULL, n);
		parent->weight += n->weight;
		return true;
	}
	if (b->pending_key[top] == NULL) {
		if (n->type != YNODE_SCALAR) {
			diag_add(b->d, DIAG_ERROR, n->line, n->col,
			    "mapping keys must be strings");
			return false;
		}
		b->pending_key[top] = n;
		return true;
	}
	node_append(parent, b->pending_key[top], n);
	b->pending_key[top] = NULL;
	parent->weight += n->weight + 1;
	return true;
}

static void
check_duplicates(struct builder *b, const struct ynode *map)
{
	size_t i, j;

	for (i = 1; i < map->n; i++)
		for (j = 0; j < i; j++) {
			const struct ynode *x = map->keys[i], *y = map->keys[j];

			if (x->len == y->len &&
			    memcmp(x->str, y->str, x->len) == 0) {
				diag_add(b->d, DIAG_ERROR, x->line, x->col,
				    "duplicate key '%s' (first at line %d, column %d)",
				    x->str, y->line, y->col);
				break;
			}
		}
}

static bool
register_anchor(struct builder *b, char *name, struct ynode *n)
{
	if (name == NULL)
		return true;
	if (b->nanchors == b->capanchors) {
		b->capanchors = b->capanchors ? b->capanchors * 2 : 8;
		b->anchors =
		    realloc(b->anchors, b->capanchors * sizeof(*b->anchors));
		if (b->anchors == NULL)
			fatal("out of memory");
	}
	/* A redefined anchor shadows the earlier one (YAML 1.2 §3.2.2.2). */
	b->anchors[b->nanchors].name = name;
	b->anchors[b->nanchors].node = n;
	b->nanchors++;
	return true;
}

static struct ynode *
find_anchor(struct builder *b, const char *name)
{
	size_t i;

	for (i = b->nanchors; i > 0; i--)
		if (strcmp(b->anchors[i - 1].name, name) == 0)
			return b->anchors[i - 1].node;
	return NULL;
}

static char *
dup_anchor(const yaml_char_t *a)
{
	char *s;

	if (a == NULL)
		return NULL;
	if ((s = strdup((const char *)a)) == NULL)
		fatal("out of memory");
	return s;
}

/* Tags are reported (the load fails) but parsing goes on. */
static bool
reject_tag(struct builder *b, const yaml_char_t *tag, const yaml_mark_t *m)
{
	static const char core[] = "tag:yaml.org,2002:";
	const char *t = (const char *)tag;

	if (t == NULL)
		return true;
	if (strncmp(t, core, sizeof(core) - 1) == 0)
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "YAML tags are not supported (found '!!%s'); write plain values",
		    t + sizeof(core) - 1);
	else
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "YAML tags are not supported (found '%s'); write plain values",
		    t);
	return true;
}

static bool
on_scalar(struct builder *b, yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct ynode *n;

	if (!reject_tag(b, ev->data.scalar.tag, m) || !account(b, 1, m))
		return false;
	if (ev->data.scalar.length > YTREE_MAX_SCALAR) {
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "value longer than %u bytes", YTREE_MAX_SCALAR);
		return false;
	}
	if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "value contains a NUL character");
		return false;
	}
	n = node_new(b, YNODE_SCALAR, m);
	n->len = ev->data.scalar.length;
	n->str = xcalloc(1, n->len + 1);
	memcpy(n->str, ev->data.scalar.value, n->len);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (!register_anchor(b, dup_anchor(ev->data.scalar.anchor), n))
		return false;
	return attach(b, n);
}

static bool
on_start(struct builder *b, yaml_event_t *ev, enum ynode_type type)
{
	const yaml_mark_t *m = &ev->start_mark;
	const yaml_char_t *tag = type == YNODE_MAP ?
	    ev->data.mapping_start.tag :
	    ev->data.sequence_start.tag;
	const yaml_char_t *anchor = type == YNODE_MAP ?
	    ev->data.mapping_start.anchor :
	    ev->data.sequence_start.anchor;
	struct ynode *n;

	if (!reject_tag(b, tag, m) || !account(b, 1, m))
		return false;
	if (b->depth >= YTREE_MAX_DEPTH) {
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "nesting deeper than %d levels", YTREE_MAX_DEPTH);
		return false;
	}
	n = node_new(b, type, m);
	b->open_anchor[b->depth] = dup_anchor(anchor);
	b->pending_key[b->depth] = NULL;
	b->stack[b->depth++] = n;
	return true;
}

static bool
on_end(struct builder *b, yaml_event_t *ev)
{
	struct ynode *n = b->stack[--b->depth];
	char *anchor = b->open_anchor[b->depth];

	b->open_anchor[b->depth] = NULL;
	if (n->type == YNODE_MAP) {
		size_t i;

		for (i = 0; i < n->n; i++)
			if (strcmp(n->keys[i]->str, "<<") == 0 &&
			    n->keys[i]->plain) {
				diag_add(b->d, DIAG_ERROR, n->keys[i]->line,
				    n->keys[i]->col,
				    "merge keys ('<<') are not supported; repeat the keys instead");
				/* drop it so the schema does not report it
				 * again as an unknown key */
				memmove(&n->keys[i], &n->keys[i + 1],
				    (n->n - i - 1) * sizeof(*n->keys));
				memmove(&n->vals[i], &n->vals[i + 1],
				    (n->n - i - 1) * sizeof(*n->vals));
				n->n--;
				i--;
			}
		/* Reported, not fatal: validation goes on so that every
		 * error is listed at once (the load still fails). */
		check_duplicates(b, n);
	}
	if (!register_anchor(b, anchor, n))
		return false;
	return attach(b, n);
}

static bool
on_alias(struct builder *b, yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	const char *name = (const char *)ev->data.alias.anchor;
	struct ynode *target = find_anchor(b, name);

	if (target == NULL) {
		diag_add(b->d, DIAG_ERROR, (int)m->line + 1, (int)m->column + 1,
		    "alias '*%s' refers to an unknown or unfinished anchor",
		    name);
		return false;
	}
	if (!account(b, target->weight, m))
		return false;
	return attach(b, target);
}

static void
builder_free(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->nanchors; i++)
		free(b->anchors[i].name);
	free(b->anchors);
	for (i = 0; i <= YTREE_MAX_DEPTH; i++)
		free(b->open_anchor[i]);
}

bool
ytree_parse(struct ytree *t, const char *text, size_t len, struct diags *d)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct builder b;
	bool ok = true, done = false;
	int docs = 0;

	memset(t, 0, sizeof(*t));
	memset(&b, 0, sizeof(b));
	b.t = t;
	b.d = d;
	if (len > YTREE_MAX_FILE) {
		diag_add(d, DIAG_ERROR, 0, 0, "file larger than %u bytes",
		    YTREE_MAX_FILE);
		return false;
	}
	if (!yaml_parser_initialize(&parser))
		fatal("libyaml: cannot initialize parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (ok && !done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			const yaml_mark_t *m = &parser.problem_mark;

			diag_add(d, DIAG_ERROR, (int)m->line + 1,
			    (int)m->column + 1, "YAML syntax: %s%s%s",
			    parser.problem ? parser.problem : "error",
			    parser.context ? " " : "",
			    parser.context ? parser.context : "");
			ok = false;
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				diag_add(d, DIAG_ERROR,
				    (int)ev.start_mark.line + 1,
				    (int)ev.start_mark.column + 1,
				    "a policy file holds exactly one YAML document");
				ok = false;
			}
			break;
		case YAML_SCALAR_EVENT:
			ok = on_scalar(&b, &ev);
			break;
		case YAML_MAPPING_START_EVENT:
			ok = on_start(&b, &ev, YNODE_MAP);
			break;
		case YAML_SEQUENCE_START_EVENT:
			ok = on_start(&b, &ev, YNODE_SEQ);
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			ok = on_end(&b, &ev);
			break;
		case YAML_ALIAS_EVENT:
			ok = on_alias(&b, &ev);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	builder_free(&b);
	if (!ok) {
		ytree_free(t);
		return false;
	}
	return true;
}

void
ytree_free(struct ytree *t)
{
	size_t i;

	for (i = 0; i < t->nall; i++) {
		free(t->all[i]->str);
		free(t->all[i]->keys);
		free(t->all[i]->vals);
		free(t->all[i]);
	}
	free(t->all);
	memset(t, 0, sizeof(*t));
}

struct ynode *
ytree_get(const struct ynode *map, const char *key)
{
	size_t i;

	if (map == NULL || map->type != YNODE_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->str, key) == 0)
			return map->vals[i];
	return NULL;
}
