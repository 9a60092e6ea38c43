/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for resolver/dns_msg.c: the input is parsed as a query
 * (and, when it is one, answered at several sizes and the replies parsed
 * back), as an upstream reply to a fixed question, as names at several
 * offsets and as a TCP frame. Any broken invariant aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
			    __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

#define MAX_ANS 64

static bool
name_shape_ok(const char *name, size_t len)
{
	size_t i, start = 0;

	if (len > DNS_NAME_MAX || strlen(name) != len)
		return false;
	for (i = 0; i <= len && len > 0; i++) {
		if (i < len && name[i] != '.')
			continue;
		if (i == start || i - start > DNS_LABEL_MAX)
			return false;
		start = i + 1;
	}
	return true;
}

static bool
same_name(const char *a, const char *b)
{
	size_t i;

	for (i = 0; a[i] || b[i]; i++) {
		char x = a[i], y = b[i];

		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

static void
check_response(enum dns_result r, const struct dns_response_info *info,
    const struct dns_answer *a, size_t n, size_t max, size_t len)
{
	size_t i;

	if (r != DNS_OK) {
		CHECK(n == 0);
		CHECK(info->err_off <= len || info->err_off == DNS_MSG_MAX);
		return;
	}
	CHECK(n <= max);
	CHECK(info->ncname + info->naddr == n);
	CHECK(info->ncname <= DNS_CNAME_CHAIN_MAX);
	for (i = 0; i < n; i++) {
		if (i < info->ncname) {
			CHECK(a[i].type == DNS_TYPE_CNAME);
			CHECK(name_shape_ok(a[i].target, a[i].target_len));
		} else if (a[i].type == DNS_TYPE_A) {
			CHECK(a[i].addr.family == AF_INET);
		} else {
			CHECK(a[i].type == DNS_TYPE_AAAA);
			CHECK(a[i].addr.family == AF_INET6);
		}
	}
}

static uint32_t
hash(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* Answers for q chosen from seed: up to 3 CNAMEs (never the qname: that
 * would be a loop) then addresses of the types q asked for. */
static size_t
make_answers(const struct dns_query *q, uint32_t seed, struct dns_answer *a)
{
	size_t n = 0, k, ncname = seed % 4, naddr = (seed >> 2) % 41;

	for (k = 0; k < ncname; k++) {
		memset(&a[n], 0, sizeof(a[n]));
		a[n].type = DNS_TYPE_CNAME;
		a[n].ttl = seed ^ (uint32_t)k;
		a[n].target_len = (size_t)snprintf(
		    a[n].target, sizeof(a[n].target), "c%zu.Fuzz.invalid", k);
		if (same_name(a[n].target, q->qname))
			continue;
		n++;
	}
	for (k = 0; k < naddr; k++) {
		bool six = q->qtype == DNS_TYPE_AAAA ||
		    (q->qtype != DNS_TYPE_A && ((seed >> (k % 32)) & 1));

		memset(&a[n], 0, sizeof(a[n]));
		a[n].type = six ? DNS_TYPE_AAAA : DNS_TYPE_A;
		a[n].ttl = (uint32_t)k * seed;
		a[n].addr.family = six ? AF_INET6 : AF_INET;
		a[n].addr.b[0] = six ? 0x20 : 198;
		a[n].addr.b[1] = six ? 0x01 : 18;
		a[n].addr.b[six ? 15 : 3] = (uint8_t)k;
		n++;
	}
	return n;
}

static size_t
answer_size(const struct dns_answer *a)
{
	if (a->type == DNS_TYPE_CNAME)
		return 12 + a->target_len + 2;
	return a->type == DNS_TYPE_A ? 16 : 28;
}

static bool
answer_equal(const struct dns_answer *x, const struct dns_answer *y)
{
	if (x->type != y->type || x->ttl != y->ttl)
		return false;
	if (x->type == DNS_TYPE_CNAME)
		return x->target_len == y->target_len &&
		    memcmp(x->target, y->target, x->target_len) == 0;
	return x->addr.family == y->addr.family &&
	    memcmp(x->addr.b, y->addr.b, 16) == 0;
}

static void
round_trip(const struct dns_query *q, const uint8_t *data, size_t size)
{
	static uint8_t out[DNS_MSG_MAX];
	static struct dns_answer a[MAX_ANS], back[MAX_ANS];
	uint32_t seed = hash(data, size);
	size_t n = make_answers(q, seed, a), i, s, opt, full, nb;
	size_t sizes[] = {0, 12, 12 + q->question_len, 100, DNS_UDP_MAX,
	    dns_response_max_len(q, false), DNS_EDNS_MAX, seed % 2048,
	    DNS_MSG_MAX};
	static const unsigned plain[] = {0, 0, 2, 3, 4, 5};
	static const unsigned ext[] = {0, 0, 2, 3, 5, 16};
	unsigned rcode =
	    q->edns.present ? ext[(seed >> 8) % 6] : plain[(seed >> 8) % 6];
	struct dns_response_info info;
	struct dns_query again;
	enum dns_result r;

	opt = q->edns.present ? DNS_OPT_LEN : 0;
	full = DNS_HEADER_LEN + q->question_len + opt;
	for (i = 0; i < n; i++)
		full += answer_size(&a[i]);
	CHECK(dns_response_max_len(q, true) == DNS_MSG_MAX);
	s = dns_response_max_len(q, false);
	CHECK(s >= DNS_UDP_MAX && s <= DNS_EDNS_MAX);

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t max = sizes[s], out_len = 0;
		bool tc;

		r = dns_build_response(q, rcode, a, n, max, out, &out_len);
		if (DNS_HEADER_LEN + q->question_len + opt > max) {
			CHECK(r == DNS_ERR_SPACE);
			continue;
		}
		CHECK(r == DNS_OK);
		tc = full > max;
		CHECK(out_len <= max);
		CHECK(out_len ==
		    (tc ? DNS_HEADER_LEN + q->question_len + opt : full));
		CHECK(((out[2] & 0x02) != 0) == tc);
		CHECK(out[0] == data[0] && out[1] == data[1]);
		CHECK(memcmp(out + DNS_HEADER_LEN, data + DNS_HEADER_LEN,
		          q->question_len) == 0);

		/* A reply is never taken for a query. */
		CHECK(
		    dns_parse_query(out, out_len, &again) == DNS_ERR_RESPONSE);

		r = dns_parse_response(out, out_len, q->id, q->qname, q->qtype,
		    &info, back, MAX_ANS, &nb);
		check_response(r, &info, back, nb, MAX_ANS, out_len);
		if (q->qclass != DNS_CLASS_IN) {
			CHECK(r == DNS_ERR_QUESTION);
			continue;
		}
		if (tc) {
			CHECK(r == DNS_ERR_TRUNCATED_RESPONSE);
			continue;
		}
		CHECK(r == DNS_OK);
		CHECK(info.rcode == rcode);
		CHECK(nb == n);
		for (i = 0; i < n; i++)
			CHECK(answer_equal(&a[i], &back[i]));
		/* Another id or another type is not our answer. */
		CHECK(dns_parse_response(out, out_len, (uint16_t)(q->id + 1),
		          q->qname, q->qtype, &info, back, MAX_ANS,
		          &nb) == DNS_ERR_ID);
		CHECK(dns_parse_response(out, out_len, q->id, q->qname,
		          (uint16_t)(q->qtype + 1), &info, back, MAX_ANS,
		          &nb) == DNS_ERR_QUESTION);
	}

	/* The query builder writes the same question back. */
	if (q->qclass == DNS_CLASS_IN) {
		size_t out_len = 0;

		r = dns_build_query(q->id, q->qname, q->qtype,
		    q->edns.present ? DNS_EDNS_MAX : 0, out, sizeof(out),
		    &out_len);
		CHECK(r == DNS_OK);
		CHECK(dns_parse_query(out, out_len, &again) == DNS_OK);
		CHECK(again.question_len == q->question_len);
		CHECK(strcmp(again.qname, q->qname) == 0);
		CHECK(
		    memcmp(again.question, q->question, q->question_len) == 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dns_answer a[MAX_ANS];
	struct dns_response_info info;
	struct dns_query q;
	enum dns_result r;
	uint8_t hdr[16];
	size_t n, off, end, hdr_len;
	char name[DNS_NAME_MAX + 1];

	r = dns_parse_query(data, size, &q);
	if (r == DNS_OK) {
		CHECK(q.has_header);
		CHECK(name_shape_ok(q.qname, q.qname_len));
		CHECK(
		    q.question_len >= 5 && q.question_len <= DNS_QUESTION_MAX);
		CHECK(memcmp(q.question, data + DNS_HEADER_LEN,
		          q.question_len) == 0);
		round_trip(&q, data, size);
	} else {
		CHECK(q.err_off <= size || q.err_off == DNS_MSG_MAX);
		CHECK(q.has_header == (size >= DNS_HEADER_LEN));
	}
	if (q.has_header) {
		CHECK(dns_build_header_reply(q.id, q.flags, DNS_RCODE_FORMERR,
		          hdr, sizeof(hdr), &hdr_len) == DNS_OK);
		CHECK(hdr_len == DNS_HEADER_LEN);
		CHECK(hdr[0] == data[0] && hdr[1] == data[1]);
	}

	/* An upstream reply, to our question or to the one it carries. */
	r = dns_parse_response(data, size,
	    size >= 2 ? (uint16_t)(data[0] << 8 | data[1]) : 0, "good.example",
	    size > 2 && (data[2] & 1) ? DNS_TYPE_AAAA : DNS_TYPE_A, &info, a,
	    MAX_ANS, &n);
	check_response(r, &info, a, n, MAX_ANS, size);
	if (r == DNS_OK || r == DNS_ERR_QUESTION) {
		size_t qoff = DNS_HEADER_LEN, qlen;

		if (dns_name_read(data, size, &qoff, name, &qlen) == DNS_OK &&
		    size - qoff >= 4) {
			uint16_t qt =
			    (uint16_t)(data[qoff] << 8 | data[qoff + 1]);

			r = dns_parse_response(data, size,
			    (uint16_t)(data[0] << 8 | data[1]), name, qt, &info,
			    a, 4, &n);
			check_response(r, &info, a, n, 4, size);
		}
	}

	/* Names anywhere. */
	for (off = 0; off < size && off < 48; off++) {
		size_t nl = 0;

		end = off;
		r = dns_name_read(data, size, &end, name, &nl);
		if (r == DNS_OK) {
			CHECK(name_shape_ok(name, nl));
			CHECK(end > off && end <= size);
		} else {
			CHECK(end == off);
		}
	}

	r = dns_tcp_frame_len(data, size, &n);
	if (r == DNS_OK)
		CHECK(n >= DNS_HEADER_LEN && n + 2 <= size);
	return 0;
}
