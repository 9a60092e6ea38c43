/* SPDX-License-Identifier: ISC */
/*
 * A bounded YAML document tree built from libyaml events, with the position
 * of every node. Owns the strictness that is about YAML itself: one document,
 * no tags, no merge keys, no duplicate keys, bounded size, depth and alias
 * expansion. What the keys mean is policies/policy.c's business.
 */
#ifndef EGRESSD_YTREE_H
#define EGRESSD_YTREE_H

#include <stdbool.h>
#include <stddef.h>

struct diags;

#define YTREE_MAX_FILE   (1u << 20) /* bytes of YAML text */
#define YTREE_MAX_DEPTH  32
#define YTREE_MAX_NODES  100000 /* nodes after alias expansion */
#define YTREE_MAX_SCALAR 4096

enum ynode_type { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
	enum ynode_type type;
	int line, col; /* 1-based */
	/* scalar */
	char *str;
	size_t len;
	bool plain; /* unquoted: subject to implicit typing */
	/* map: keys[i] -> vals[i]; seq: vals[i] */
	struct ynode **keys;
	struct ynode **vals;
	size_t n;
	size_t weight; /* nodes in this subtree, aliases expanded */
};

struct ytree {
	struct ynode *root; /* NULL for an empty document */
	struct ynode **all; /* every node, for freeing (aliases share) */
	size_t nall, capall;
};

/*
 * Parses text[0..len) into *t. Errors go to d with positions; returns false
 * when the tree could not be built (syntax errors and limit violations stop
 * the parse; the validator never sees a partial tree).
 */
bool ytree_parse(
    struct ytree *t, const char *text, size_t len, struct diags *d);
void ytree_free(struct ytree *t);

/* Map lookup by key; NULL when absent. */
struct ynode *ytree_get(const struct ynode *map, const char *key);

#endif
