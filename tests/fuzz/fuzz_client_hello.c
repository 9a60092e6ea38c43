/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for proxy/sni.c: every input is read whole and again in
 * several split patterns derived from its first bytes, and the reader's
 * promises are checked (answers agree however the bytes arrive, offsets
 * stay inside the input, the name is normalized). Crashes only; the unit
 * test owns expected values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	enum sni_result res;
	size_t off;
	struct sni_info info;
};

static void
check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_client_hello: %s\n", what);
		abort();
	}
}

static int
info_eq(const struct sni_info *a, const struct sni_info *b)
{
	size_t i, n;

	if (a->has_sni != b->has_sni || a->sni_is_ip != b->sni_is_ip ||
	    a->host.kind != b->host.kind ||
	    strcmp(a->host.name, b->host.name) != 0 ||
	    a->legacy_version != b->legacy_version ||
	    a->tls13_offered != b->tls13_offered || a->has_ech != b->has_ech ||
	    a->has_alpn != b->has_alpn || a->alpn_h2 != b->alpn_h2 ||
	    a->alpn_http11 != b->alpn_http11 ||
	    a->alpn_count != b->alpn_count || a->ext_count != b->ext_count ||
	    a->record_count != b->record_count ||
	    a->hello_len != b->hello_len ||
	    a->hello_raw_len != b->hello_raw_len)
		return 0;
	for (i = 0; i < a->alpn_count && i < SNI_ALPN_MAX; i++) {
		n = a->alpn[i].len < SNI_ALPN_NAME_MAX ? a->alpn[i].len :
		                                         SNI_ALPN_NAME_MAX;
		if (a->alpn[i].len != b->alpn[i].len ||
		    memcmp(a->alpn[i].name, b->alpn[i].name, n) != 0)
			return 0;
	}
	return 1;
}

static int
outcome_eq(const struct outcome *a, const struct outcome *b)
{
	if (a->res != b->res || a->off != b->off)
		return 0;
	if (a->res == SNI_OK)
		return info_eq(&a->info, &b->info);
	if (a->res == SNI_ERR_BAD_NAME)
		return a->info.name_err == b->info.name_err;
	return 1;
}

/* The promises that hold for any single answer. */
static void
check_outcome(const struct sni_reader *r, const struct outcome *o, size_t size)
{
	struct hostname again;

	switch (o->res) {
	case SNI_NEED_MORE:
		check(o->off == 0, "offset on NEED_MORE");
		check(size < SNI_RAW_MAX, "NEED_MORE with SNI_RAW_MAX bytes");
		break;
	case SNI_OK:
		check(o->off == 0, "offset on OK");
		check(o->info.hello_raw_len <= size &&
		        o->info.hello_raw_len <= SNI_RAW_MAX,
		    "hello_raw_len past the input or the cap");
		check(o->info.hello_len >= 4 &&
		        o->info.hello_len <= SNI_HELLO_MAX,
		    "hello_len out of range");
		check(o->info.hello_len + 5 * o->info.record_count ==
		        o->info.hello_raw_len,
		    "records do not add up to hello_raw_len");
		check(o->info.name_err == HOSTNAME_OK, "name_err on OK");
		if (o->info.has_sni) {
			check(o->info.host.len > 0 &&
			        o->info.host.len == strlen(o->info.host.name),
			    "host length");
			check(hostname_normalize(o->info.host.name,
			          o->info.host.len, &again) == HOSTNAME_OK &&
			        strcmp(again.name, o->info.host.name) == 0 &&
			        again.kind == o->info.host.kind,
			    "host not normalized");
			check(o->info.sni_is_ip ==
			        (o->info.host.kind != HOSTNAME_NAME),
			    "sni_is_ip disagrees with host.kind");
		} else
			check(o->info.host.len == 0 && !o->info.sni_is_ip,
			    "host without has_sni");
		check(o->info.has_alpn || o->info.alpn_count == 0,
		    "ALPN protocols without has_alpn");
		check(!o->info.has_alpn || o->info.alpn_count > 0,
		    "has_alpn without protocols");
		check(sni_reader_detail(r)[0] == '\0', "detail on OK");
		break;
	default:
		check(o->off <= size, "error offset past the input");
		check(sni_reader_detail(r)[0] != '\0', "error without detail");
		check(o->res == SNI_ERR_BAD_NAME ||
		        o->info.name_err == HOSTNAME_OK,
		    "name_err outside BAD_NAME");
		break;
	}
}

static void
feed(struct sni_reader *r, const uint8_t *p, size_t n, struct outcome *o)
{
	memset(&o->info, 0, sizeof(o->info));
	o->res = sni_reader_feed(r, p, n, &o->info, &o->off);
	check_outcome(r, o, n);
}

/*
 * Feeds growing prefixes whose sizes step through steps[] cyclically; every
 * intermediate answer must be NEED_MORE or the whole input's.
 */
static void
feed_split(const uint8_t *data, size_t size, const uint8_t *steps,
    size_t nsteps, uint8_t *scratch, const struct outcome *whole)
{
	struct sni_reader r;
	struct outcome o;
	size_t k = 0, i = 0;

	sni_reader_init(&r, scratch, SNI_HELLO_MAX);
	for (;;) {
		feed(&r, data, k, &o);
		if (o.res != SNI_NEED_MORE) {
			check(outcome_eq(&o, whole),
			    "a prefix answered differently from the whole");
			break;
		}
		if (k == size) {
			check(whole->res == SNI_NEED_MORE,
			    "NEED_MORE at the end but the whole answered");
			break;
		}
		k += steps[i++ % nsteps] % 64 + 1;
		if (k > size)
			k = size;
	}
	/* Final answers are sticky and read nothing: not the input, not the
	 * scratch (overwritten here). */
	if (o.res != SNI_NEED_MORE) {
		memset(scratch, 0xff, SNI_HELLO_MAX);
		struct sni_info untouched = o.info;
		enum sni_result res =
		    sni_reader_feed(&r, data, 0, &o.info, &o.off);
		check(res == whole->res && o.off == whole->off,
		    "a repeated call answered differently");
		check(res != SNI_OK ||
		        memcmp(&o.info, &untouched, sizeof(untouched)) == 0,
		    "a repeated OK changed *out");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t scratch[SNI_HELLO_MAX];
	static const uint8_t one[1] = {0};
	struct sni_reader r;
	struct outcome whole, o;
	size_t k;

	sni_reader_init(&r, scratch, sizeof(scratch));
	feed(&r, data, size, &whole);

	/* One byte per call. */
	feed_split(data, size, one, 1, scratch, &whole);
	/* Steps of 1..64 bytes taken from the input's first bytes. */
	if (size > 0)
		feed_split(
		    data, size, data, size < 16 ? size : 16, scratch, &whole);
	if (size > 16)
		feed_split(data, size, data + size - 8, 8, scratch, &whole);

	/* Two calls, split where the input's first two bytes say. */
	k = size > 1 ? ((size_t)data[0] << 8 | data[1]) % (size + 1) : 0;
	sni_reader_init(&r, scratch, sizeof(scratch));
	feed(&r, data, k, &o);
	check(o.res == SNI_NEED_MORE || outcome_eq(&o, &whole),
	    "first half answered differently");
	if (o.res == SNI_NEED_MORE) {
		feed(&r, data, size, &o);
		check(
		    outcome_eq(&o, &whole), "two halves answered differently");
	}
	return 0;
}
