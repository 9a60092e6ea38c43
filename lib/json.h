/* SPDX-License-Identifier: ISC */
/*
 * A strict JSON parser (RFC 8259) into a node array the caller provides: no
 * allocation, bounded depth, size and node count, strings kept as spans of the
 * input and decoded on demand. Reading files and sockets, and what the values
 * mean, are left to the callers (egressctl's records, status and answers).
 */
#ifndef EGRESSD_JSON_H
#define EGRESSD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_INPUT  (4u << 20) /* bytes; larger inputs are refused */
#define JSON_MAX_DEPTH  64         /* nested arrays and objects */
#define JSON_NUMBER_MAX 64         /* characters of one number */

enum json_err {
	JSON_OK,
	JSON_NEED_MORE,     /* the input ends inside the value (a prefix) */
	JSON_ERR_SYNTAX,    /* a byte that cannot come here */
	JSON_ERR_TRAILING,  /* something other than white space after it */
	JSON_ERR_DEPTH,     /* nested deeper than JSON_MAX_DEPTH */
	JSON_ERR_NODES,     /* more values than the node array holds */
	JSON_ERR_TOO_LARGE, /* input longer than JSON_MAX_INPUT */
	JSON_ERR_NUMBER,    /* malformed, too long, or out of double range */
	JSON_ERR_CONTROL,   /* unescaped control character in a string */
	JSON_ERR_ESCAPE,    /* unknown escape or bad \u hex digit */
	JSON_ERR_SURROGATE, /* \u escape of an unpaired UTF-16 surrogate */
	JSON_ERR_UTF8,      /* invalid UTF-8 (RFC 3629 §4) in a string */
};

enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

#define JSON_F_INT     0x01 /* number: integral and within int64 */
#define JSON_F_ESC     0x02 /* string: the span contains escapes */
#define JSON_F_KEY_ESC 0x04 /* member: the key span contains escapes */

/*
 * One value. Offsets index the parsed text. Strings and keys are the bytes
 * between the quotes, still escaped; numbers their text; containers run from
 * the opening to the closing bracket. Links are node indexes, 0 for none
 * (node 0 is the root, never anyone's child or sibling).
 */
struct json_node {
	uint8_t type; /* enum json_type */
	uint8_t flags;
	uint32_t off, len;
	uint32_t key_off, key_len; /* object members only */
	uint32_t child, next;      /* first child; next sibling */
	uint32_t count;            /* number of children */
	int64_t i;                 /* JSON_F_INT numbers */
	double d;                  /* every number */
};

struct json_doc {
	const char *text;
	size_t len;
	struct json_node *nodes; /* caller's array */
	size_t max_nodes, nnodes;
	size_t err_off; /* the byte that made it invalid; len for NEED_MORE */
};

/* Prepares doc to parse into nodes[0..max_nodes). */
void json_doc_init(
    struct json_doc *doc, struct json_node *nodes, size_t max_nodes);

/*
 * Parses text[0..len) as exactly one JSON value, surrounded by optional white
 * space (space, tab, LF, CR; no byte-order mark). Strict: no comments, no
 * trailing commas, no leading zeros, NaN or Infinity, no raw control
 * characters, valid UTF-8 only, surrogate escapes paired. Duplicate object
 * keys are kept; json_get() finds the last one (the last wins).
 *
 * Any proper prefix of a document gives JSON_NEED_MORE, except that a prefix
 * may itself be a whole document (a top-level number "12" of "123", or "{}"
 * of "{} x"); an error is reported at the first byte that makes the input
 * invalid, so every longer input gives the same error at the same offset.
 * The text must stay valid while the nodes are used; doc->text points at it.
 */
enum json_err json_parse(struct json_doc *doc, const char *text, size_t len);
/* A short English description. */
const char *json_strerror(enum json_err e);

/* The root value after JSON_OK, else NULL. */
const struct json_node *json_root(const struct json_doc *doc);
/* First child of an array or object, and the next sibling; NULL at the
 * end. Both accept NULL. */
const struct json_node *json_child(
    const struct json_doc *doc, const struct json_node *n);
const struct json_node *json_next(
    const struct json_doc *doc, const struct json_node *n);
/* The member of object obj named key (the last one when repeated); NULL
 * when obj is NULL or not an object, or key is absent. */
const struct json_node *json_get(
    const struct json_doc *doc, const struct json_node *obj, const char *key);
/* json_get() along a dotted path: "actor.process.file.path". */
const struct json_node *json_getp(
    const struct json_doc *doc, const struct json_node *obj, const char *path);
/* Whether member n's key equals key. */
bool json_key_is(
    const struct json_doc *doc, const struct json_node *n, const char *key);

/*
 * Decodes string n into buf as UTF-8 plus a NUL; *len (may be NULL) gets the
 * decoded length. False when n is NULL or not a string, or buf is too small.
 * A decoded U+0000 is a NUL byte inside the value: json_cstr() refuses such
 * values, so that a C string never silently ends early.
 */
bool json_string(const struct json_doc *doc, const struct json_node *n,
    char *buf, size_t buflen, size_t *len);
bool json_cstr(const struct json_doc *doc, const struct json_node *n, char *buf,
    size_t buflen);
/* The decoded length of string n (0 for anything else). */
size_t json_string_len(const struct json_doc *doc, const struct json_node *n);
/* Integral number within int64 (1.0 and 1e2 are not: they are doubles). */
bool json_int(const struct json_node *n, int64_t *v);
bool json_bool(const struct json_node *n, bool *v);

struct strbuf;
/*
 * Writes value n as JSON: compact when indent is 0, else pretty with indent
 * spaces per level. Strings come out as ASCII (non-ASCII as \u escapes, with
 * surrogate pairs), numbers as their original text, members in input order
 * (duplicates included): parsing the output gives the same values again.
 */
void json_write(const struct json_doc *doc, const struct json_node *n,
    struct strbuf *out, int indent);

#endif
