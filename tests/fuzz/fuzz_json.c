/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the strict JSON parser. Checks, beyond not crashing: the
 * written form of an accepted document parses back to the same written form
 * (compact and pretty), every decoded string is valid UTF-8 of the measured
 * length, accessors agree with the tree, and for short inputs every prefix
 * answers NEED_MORE, a whole document, or the same error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NODES 256

static struct json_node nodes[FUZZ_NODES], nodes2[FUZZ_NODES];

static bool
valid_utf8(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t b = s[i];
		uint8_t lo = 0x80, hi = 0xbf;
		int k, c;

		if (b < 0x80) {
			i++;
			continue;
		}
		if (b >= 0xc2 && b <= 0xdf)
			c = 1;
		else if (b >= 0xe0 && b <= 0xef)
			c = 2;
		else if (b >= 0xf0 && b <= 0xf4)
			c = 3;
		else
			return false;
		if (b == 0xe0)
			lo = 0xa0;
		if (b == 0xed)
			hi = 0x9f;
		if (b == 0xf0)
			lo = 0x90;
		if (b == 0xf4)
			hi = 0x8f;
		for (k = 1; k <= c; k++) {
			if (i + (size_t)k >= n || s[i + k] < lo ||
			    s[i + k] > hi)
				return false;
			lo = 0x80;
			hi = 0xbf;
		}
		i += (size_t)c + 1;
	}
	return true;
}

static void
check_strings(const struct json_doc *d)
{
	static char buf[JSON_MAX_INPUT / 64];
	size_t i, len;

	for (i = 0; i < d->nnodes; i++) {
		const struct json_node *n = &d->nodes[i];

		if (n->type != JSON_STRING)
			continue;
		if (!json_string(d, n, buf, sizeof(buf), &len))
			continue; /* longer than the buffer */
		if (len != json_string_len(d, n) ||
		    !valid_utf8((const uint8_t *)buf, len))
			abort();
	}
}

/* Every member is found by its own key unless a later one shadows it. */
static void
check_access(const struct json_doc *d)
{
	static char key[256];
	size_t i;

	for (i = 0; i < d->nnodes; i++) {
		const struct json_node *o = &d->nodes[i], *c, *f;

		if (o->type != JSON_OBJECT)
			continue;
		for (c = json_child(d, o); c; c = json_next(d, c)) {
			struct json_node kn = *c;
			const struct json_node *later;
			bool shadowed = false;

			kn.type = JSON_STRING;
			kn.off = c->key_off;
			kn.len = c->key_len;
			kn.flags = c->flags & JSON_F_KEY_ESC ? JSON_F_ESC : 0;
			if (!json_cstr(d, &kn, key, sizeof(key)))
				continue;
			for (later = json_next(d, c); later;
			     later = json_next(d, later))
				shadowed |= json_key_is(d, later, key);
			f = json_get(d, o, key);
			if (f == NULL || (!shadowed && f != c))
				abort();
		}
	}
}

static void
round_trip(const struct json_doc *d, int indent, const char *want)
{
	struct strbuf w, again;
	struct json_doc d2;

	strbuf_init(&w, 64u << 20);
	strbuf_init(&again, 64u << 20);
	json_write(d, json_root(d), &w, indent);
	json_doc_init(&d2, nodes2, FUZZ_NODES);
	if (json_parse(&d2, strbuf_str(&w), w.len) != JSON_OK)
		abort();
	json_write(&d2, json_root(&d2), &again, 0);
	if (want && strcmp(strbuf_str(&again), want) != 0)
		abort();
	strbuf_free(&w);
	strbuf_free(&again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct json_doc d, p;
	struct strbuf canon;
	enum json_err r, pr;
	size_t i;

	json_doc_init(&d, nodes, FUZZ_NODES);
	r = json_parse(&d, s, size);
	if (r == JSON_NEED_MORE && d.err_off != size)
		abort();
	if (r != JSON_OK && r != JSON_NEED_MORE && d.err_off >= size &&
	    !(r == JSON_ERR_NUMBER && d.err_off == size))
		abort();
	if (r == JSON_OK) {
		check_strings(&d);
		check_access(&d);
		strbuf_init(&canon, 64u << 20);
		json_write(&d, json_root(&d), &canon, 0);
		round_trip(&d, 0, strbuf_str(&canon));
		round_trip(&d, 1, strbuf_str(&canon));
		strbuf_free(&canon);
	}
	/* Prefixes of short inputs, as test_json checks its table. */
	if (size > 128)
		return 0;
	for (i = 0; i < size; i++) {
		bool num = false, ok;
		size_t k = 0;

		while (k < size &&
		    (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' ||
		        s[k] == '\r'))
			k++;
		num = k < size && (s[k] == '-' || (s[k] >= '0' && s[k] <= '9'));
		json_doc_init(&p, nodes2, FUZZ_NODES);
		pr = json_parse(&p, s, i);
		if (pr == JSON_NEED_MORE)
			ok = r == JSON_OK || r == JSON_NEED_MORE ||
			    i <= d.err_off;
		else if (pr == JSON_OK)
			ok = num || r == JSON_OK || r == JSON_ERR_TRAILING;
		else if (pr == r && p.err_off == d.err_off)
			ok = i > d.err_off || num;
		else
			ok = num && pr == JSON_ERR_NUMBER && p.err_off == i;
		if (!ok)
			abort();
	}
	return 0;
}
